"""``chatops undo [JOURNAL]``: revert what an apply did, from its journal.

The journal's changes that were made are undone newest first, each by the inverse recorded
when it was made. An inverse is only sent while the change it undoes still shows on the server:
a setting someone changed again since is left as it is (``changed_since``), and a group setting
is sent with its expected current value, so the server refuses it if it moved. The undo is a
journal of its own (``JOURNAL.undo.jsonl``): running it again sends nothing twice, and a run
stopped half way is finished by the next. Changes nothing can undo (a revoked invitation, a
deleted file) are listed as such.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .._client import Client
from .._exceptions import ChatopsError
from .engine import apply_changes, calls_summary, undo_items
from .journal import FINAL, Journal, last_journal

__all__ = ["UndoError", "undo", "undo_path"]


class UndoError(ChatopsError):
    """There is no journal to undo, or it belongs to another organization or account."""


def undo_path(journal: Path) -> Path:
    """``fixes.results.jsonl`` -> ``fixes.results.undo.jsonl``: the undo's own journal."""
    return journal.with_name(journal.name.removesuffix(".jsonl") + ".undo.jsonl")


def _client(journal: Journal, site: str | None, zuliprc: str | None) -> Client:
    """A client of the account the journal's apply acted as: the zuliprc given, else the one
    the apply used (when it is still there), else the site's credentials from the environment."""
    recorded = journal.header.get("zuliprc")
    if not zuliprc and isinstance(recorded, str) and Path(recorded).is_file():
        zuliprc = recorded
    if zuliprc and not Path(zuliprc).expanduser().is_file():
        raise UndoError(f"zuliprc {zuliprc} does not exist")
    client = Client(site=site or journal.header.get("site") or None, config_file=zuliprc or None)
    wanted = (journal.header.get("site"), journal.header.get("email"))
    if wanted[0] and (client.site.rstrip("/"), client.email) != (wanted[0].rstrip("/"), wanted[1]):
        client.close()
        raise UndoError(
            f"the journal {journal.path.name} was made by {wanted[1]} on {wanted[0]}; these "
            f"credentials are {client.email} on {client.site}"
        )
    return client


def undo(
    path: Path | None,
    *,
    site: str | None,
    zuliprc: str | None,
    yes: bool,
    ask: Callable[[str], bool] | None,
    say: Callable[[str], None],
    progress: bool = True,
) -> int:
    """Undo the apply journalled at ``path`` (default: the last apply); returns the exit
    status: 0 everything undone (or nothing to undo), 1 something was left or refused."""
    chosen = path or last_journal("apply")
    if chosen is None:
        raise UndoError("no apply to undo: no journal given and none recorded")
    if not chosen.is_file():
        raise UndoError(f"journal {chosen} does not exist")
    journal = Journal.read(chosen)
    if journal.header.get("kind") == "undo":
        raise UndoError(f"{chosen.name} is the journal of an undo, not of an apply")
    if not yes and ask is None:
        raise UndoError("not undoing without confirmation: no terminal to ask; give --yes")
    items, cannot = undo_items(journal)
    target = undo_path(chosen)
    before = Journal.read(target) if target.is_file() else None
    todo = [i for i in items if before is None or before.status(i.id) not in FINAL]
    with _client(journal, site, zuliprc) as client:
        say(
            f"Undo of {chosen.name} on {client.site}: {len(journal.done())} changes made, "
            f"{len(todo)} to put back, {len(items) - len(todo)} put back before, "
            f"{len(cannot)} cannot be undone"
        )
        for line in cannot:
            reason = line.get("irreversible") or "no inverse is known"
            say(f"  cannot undo  {line.get('method')} {line.get('path')}  ({reason})")
        for item in todo:
            say(f"  will run  {item.change.describe()}  ({item.about.get('subject', '')})")
        if not todo:
            say("Nothing to undo.")
            return 0
        say(f"Will run {len(todo)} calls: {calls_summary(todo)}")
        if not yes and ask is not None and not ask(f"Undo {len(todo)} changes? [y/N] "):
            say("Nothing undone.")
            return 1
        with Journal.open(
            target, kind="undo", undoes=str(chosen.resolve()), site=client.site, email=client.email
        ) as record:
            tally = apply_changes(todo, client, record, say=say, progress=progress)
    say(
        f"{tally['done']} put back, {tally['already_done']} already as before, "
        f"{tally['changed_since']} changed since (left as they are), {tally['refused']} refused, "
        f"{tally['failed']} failed (tried again next time); journal in {target}"
    )
    return 0 if tally.ok else 1
