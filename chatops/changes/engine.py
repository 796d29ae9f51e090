"""Sending changes: in an order where none blocks another, each read before and after, every
step journalled; and undoing what a journal did.

::

    items = in_order([Item(ArchiveChannel(stream_id=5)), Item(MoveTopic(...))])
    with Journal.open(path, kind="apply", site=client.site, email=client.email) as journal:
        tally = apply_changes(items, client, journal, say=print)
    undo_items(Journal.read(path))     # the inverses, newest first, to apply the same way

For each change :func:`apply_changes` reads the server first: a change the server already shows
is recorded ``already_done`` and not sent (so applying twice sends nothing the second time).
Otherwise it reads what the change will replace, records its intent, sends it and records the
result with the inverse built from that read. A run stopped between sending and recording is
resumed by reading the server again: nothing is sent twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._exceptions import ApiError, ChatopsError
from ._base import Reading
from .journal import DONE, FINAL, Item, Journal

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["Tally", "apply_changes", "calls_summary", "in_order", "undo_items"]

Say = Callable[[str], None]


def in_order(items: Iterable[Item]) -> list[Item]:
    """``items`` in an order where none blocks or undoes another: by phase, stable within one."""
    return sorted(items, key=lambda item: item.change.phase)


_ID_SEGMENT = re.compile(r"/\d+(?=/|$)")


def calls_summary(items: Sequence[Item]) -> str:
    """What ``items`` change, counted by method and path: ``2 DELETE /users/{id}, ...``."""
    counts: dict[str, int] = {}
    for item in items:
        call = item.change.call()
        shape = f"{call.method} {_ID_SEGMENT.sub('/{id}', call.path)}"
        counts[shape] = counts.get(shape, 0) + 1
    return ", ".join(f"{n} {shape}" for shape, n in counts.items())


@dataclass
class Tally:
    """How many changes ended in each status, and the journal lines of the last run."""

    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("done", "already_done", "refused", "failed", "changed_since", "skipped"), 0
        )
    )
    lines: list[dict[str, Any]] = field(default_factory=list)

    def __getitem__(self, status: str) -> int:
        return self.counts.get(status, 0)

    @property
    def ok(self) -> bool:
        """Whether every change is made (or was already)."""
        return not any(self.counts[s] for s in ("refused", "failed", "changed_since", "skipped"))


def _state(item: Item, client: Client) -> Reading:
    try:
        return item.change.state(client)
    except ChatopsError as exc:  # the read failed on the way: cannot tell
        return Reading(None, f"reading its state failed: {exc}", failed=True)


def _one(item: Item, client: Client, journal: Journal) -> dict[str, Any]:
    """Make one change, journalled; the result line."""
    interrupted = journal.interrupted(item.id)
    reading = _state(item, client)
    if reading.done is True:
        if interrupted is not None:  # sent before the run stopped: it did its work
            inverse = item.change.inverse(interrupted.get("before"), {})
            return journal.record(
                item,
                "done",
                message="made before an interruption",
                checked=reading.evidence,
                inverse=inverse,
            )
        return journal.record(item, "already_done", checked=reading.evidence)
    if item.undoes is not None:
        still = _state(Item(item.undoes), client)
        if still.done is False:
            return journal.record(
                item,
                "changed_since",
                message="changed again since it was applied; left as it is",
                checked=still.evidence,
            )
    try:
        before = item.change.before(client)
    except ChatopsError as exc:
        return journal.record(item, "failed", message=f"reading what it replaces failed: {exc}")
    journal.intend(item, before)
    try:
        answer = item.change.send(client)
    except ApiError as exc:
        message = str(getattr(exc, "msg", exc))
        if not 400 <= exc.status < 500 or exc.status == 429:
            return journal.record(item, "failed", message=message)
        after = _state(item, client)
        if after.failed:  # cannot tell why it was refused: try again next time
            return journal.record(item, "failed", message=f"{message}; {after.evidence}")
        status = "already_done" if after.done is True else "refused"
        return journal.record(item, status, message=message, checked=after.evidence)
    except ChatopsError as exc:
        return journal.record(item, "failed", message=str(exc) or type(exc).__name__)
    return journal.record(item, "done", inverse=item.change.inverse(before, answer))


def apply_changes(
    items: Sequence[Item],
    client: Client,
    journal: Journal,
    *,
    say: Say,
    progress: bool = True,
) -> Tally:
    """Make ``items`` in their order with a progress bar, one journal result per change, one
    line said per change; changes the journal shows final (done, refused) are not sent again.

    Returns the number of changes by status.
    """
    from tqdm import tqdm  # type: ignore[import-untyped]

    tally = Tally()
    todo = [item for item in items if journal.status(item.id) not in FINAL]
    for item in tqdm(todo, desc="Applying", unit="change", disable=not progress, leave=False):
        line = _one(item, client, journal)
        status = str(line["status"])
        tally.counts[status] = tally.counts.get(status, 0) + 1
        tally.lines.append(line)
        about = item.about.get("subject", "")
        tail = (f": {line['message']}" if line.get("message") else "") + (
            f" [{line['checked']}]" if line.get("checked") else ""
        )
        say(f"{status.replace('_', ' '):>13}  {item.change.describe()}  ({about}){tail}")
    return tally


def undo_items(journal: Journal) -> tuple[list[Item], list[dict[str, Any]]]:
    """What undoing ``journal`` takes: the inverses of the changes it made, newest first (each
    bound to the change it undoes), and the journal's lines of the changes nothing can undo."""
    items: list[Item] = []
    cannot: list[dict[str, Any]] = []
    for line, inverse in reversed(journal.done()):
        if inverse is None:
            cannot.append(line)
            continue
        from .kinds import decode_change

        original = decode_change(line["change"]) if isinstance(line.get("change"), dict) else None
        about = {**(line.get("finding") or {}), "undoes": line.get("id", "")}
        items.append(Item(inverse, about, undoes=original))
    return items, cannot


def undone(journal: Journal, undo: Journal) -> bool:
    """Whether every change ``journal`` made is undone (or left, or final) in ``undo``."""
    items, _ = undo_items(journal)
    return all(undo.status(item.id) in DONE | {"refused", "changed_since"} for item in items)
