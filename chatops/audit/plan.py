"""Fix plans: the changes of a run's findings, written to a file, then applied with care.

``chatops audit plan [RUN_DIR] [-o PLAN]`` calls :func:`write_plan`; ``chatops audit apply
PLAN`` calls :func:`apply_plan`. A plan is JSON lines, one change each::

    {"id": "3f2a...", "method": "DELETE", "path": "/invites/multiuse/17", "params": {},
     "change": {"kind": "RevokeInvitation", "invite_id": 17, "multiuse": true},
     "needs_input": false, "reason": null,
     "irreversible": "a revoked invitation cannot be restored; ...",
     "finding": {"audit": "invitations", "subject": "...", "finding": "...", ...}}

``change`` is the typed change (:mod:`chatops.changes.kinds`); ``method``, ``path`` and
``params`` are its call, for people and other tools (a line with only those, written by hand,
is sent as it is, with no inverse). A change that needs a person (a placeholder such as
``{folder_id}``, or a choice between calls) is written with ``"needs_input": true`` and is never
sent; one whose effect nothing can undo says why in ``irreversible`` and is only sent when the
person applying confirms it (``--irreversible`` with ``--yes``).

Changes are applied in an order where none blocks or undoes another (edits first, then
removals, deactivations of groups, bots and people, channels archived last) by the change
engine (:mod:`chatops.changes.engine`): each is read on the server first (one already made is
not sent), its intent and then its result and inverse are journalled in
``PLAN.results.jsonl``, and ``chatops undo`` reverts the journal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._client import Client
from .._exceptions import ChatopsError
from .._files import write_private_text
from ..audits._result import ApiCall, Finding
from ..changes import Change, decode_change
from ..changes.engine import apply_changes, calls_summary, in_order
from ..changes.journal import DONE, Item, Journal
from ..changes.kinds import RawCall
from .report import read_findings

__all__ = [
    "Pending",
    "PlanError",
    "apply_plan",
    "item_of",
    "pending",
    "plan_line",
    "read_plan",
    "results_path",
    "write_plan",
]


class PlanError(ChatopsError):
    """A plan file is missing or malformed, or a run folder has no findings to plan."""


def item_of(finding: Finding) -> Item | None:
    """The plan item of a finding: its typed change and what it is for (None: it fixes nothing)."""
    call = finding.call
    if call is None or not call.changes:
        return None
    about = {
        "audit": finding.audit,
        "subject": finding.subject,
        "finding": finding.finding,
        "severity": finding.severity.value,
        "recommended_action": finding.recommended_action,
        "api_call": finding.api_call,
        "finding_id": finding.id,
    }
    change = decode_change(finding.change) if finding.change else RawCall(request=call)
    return Item(change, about)


def plan_line(item: Item) -> dict[str, Any]:
    """The JSON line of a plan item."""
    call = item.change.call()
    return {
        **item.record(),
        "needs_input": item.change.needs_input,
        "reason": call.reason,
        "irreversible": item.change.irreversible,
    }


def write_plan(run_dir: Path, target: Path | None = None) -> tuple[Path, list[Item]]:
    """Write the changes of a run's findings to ``target`` (default ``<run>/plan.jsonl``).

    Findings without a call, and reads (``GET``), are left out: they fix nothing.
    """
    run = run_dir.resolve()
    summary_path = run / "summary.json"
    if not summary_path.is_file():
        raise PlanError(f"{run_dir} is not a report folder (no summary.json)")
    try:
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        audits = list(summary["audits"])
    except (ValueError, KeyError, TypeError):
        raise PlanError(f"{summary_path} is not a chatops run summary") from None
    found = [read_findings(audit, run / audit) for audit in audits]
    items = in_order(i for f in found for i in map(item_of, f) if i is not None)
    out = (target or run / "plan.jsonl").expanduser()
    if out.exists() and out.is_dir():
        raise PlanError(f"-o {out} is a folder")
    if not out.parent.is_dir():
        raise PlanError(f"folder {out.parent} does not exist")
    text = "".join(json.dumps(plan_line(i), ensure_ascii=False) + "\n" for i in items)
    write_private_text(out, text)
    return out, items


def results_path(plan: Path) -> Path:
    """``fixes.jsonl`` -> ``fixes.results.jsonl`` (beside the plan): the apply's journal."""
    return plan.with_name(plan.name.removesuffix(".jsonl") + ".results.jsonl")


def _line_change(data: dict[str, Any]) -> Change:
    if isinstance(data.get("change"), dict):
        return decode_change(data["change"])
    params = data.get("params") or {}
    if not isinstance(params, dict):
        raise TypeError
    # a line written by hand or by an older chatops: the call as it is
    fill = ("input",) if data.get("needs_input") else ()
    return RawCall(
        request=ApiCall(
            method=str(data["method"]),  # type: ignore[arg-type]
            path=str(data["path"]),
            params=params,
            fill=fill,
        )
    )


def read_plan(plan: Path) -> list[Item]:
    """The items of a plan file; :class:`PlanError` naming the line when one is malformed."""
    if not plan.is_file():
        raise PlanError(f"plan {plan} does not exist")
    items: list[Item] = []
    for number, line in enumerate(plan.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or not isinstance(data.get("finding", {}), dict):
                raise TypeError
            change = _line_change(data)
        except (KeyError, TypeError, json.JSONDecodeError):
            raise PlanError(
                f"plan {plan} line {number}: not a plan change (a JSON object with method, "
                "path, params, finding)"
            ) from None
        except ValueError as exc:
            raise PlanError(f"plan {plan} line {number}: {exc}") from None
        items.append(Item(change, data.get("finding") or {}))
    return items


@dataclass(frozen=True)
class Pending:
    """What applying a plan would do: changes to run (those nothing can undo apart), done or
    refused before, needing a person."""

    to_run: list[Item]
    done: list[Item]
    needs_input: list[Item]
    refused: list[Item] = field(default_factory=list)

    @property
    def reversible(self) -> list[Item]:
        """The changes to run that the journal can undo."""
        return [i for i in self.to_run if i.change.irreversible is None]

    @property
    def irreversible(self) -> list[Item]:
        """The changes to run that nothing can undo (sent only when confirmed)."""
        return [i for i in self.to_run if i.change.irreversible is not None]


def pending(journal: Journal | None, items: Sequence[Item]) -> Pending:
    """Sort a plan's items into to run (in the plan's order of phases), done before, refused
    before (neither sent again) and needing input (never sent)."""
    to_run: list[Item] = []
    seen: set[str] = set()
    done: list[Item] = []
    refused: list[Item] = []
    needs: list[Item] = []
    for item in items:
        if item.change.needs_input:
            needs.append(item)
            continue
        status = journal.status(item.id) if journal is not None else None
        if status == "refused":
            refused.append(item)
        elif status in DONE or item.id in seen:
            done.append(item)
        else:
            seen.add(item.id)
            to_run.append(item)
    return Pending(in_order(to_run), done, needs, refused)


def _show(todo: Pending, plan: Path, site: str, say: Callable[[str], None]) -> None:
    say(
        f"Plan {plan.name} against {site}: {len(todo.to_run)} to run, "
        f"{len(todo.done)} done before (skipped), {len(todo.refused)} refused before (not "
        f"sent again), {len(todo.needs_input)} need input (not run)"
    )
    for item in todo.refused:
        say(f"  refused before  {item.change.describe()}  ({item.about.get('subject', '')})")
    for item in todo.to_run:
        mark = "  (cannot be undone)" if item.change.irreversible else ""
        say(
            f"  will run  {item.change.describe()}  ({item.about.get('audit', '')}: "
            f"{item.about.get('subject', '')}){mark}"
        )
    for item in todo.needs_input:
        call = item.change.call()
        say(f"  needs input  {item.about.get('api_call') or call.text}  ({call.reason})")


def _confirmed(
    todo: Pending,
    *,
    yes: bool,
    irreversible: bool,
    ask: Callable[[str], bool] | None,
    say: Callable[[str], None],
) -> list[Item] | None:
    """The items to send after asking (None: the person declined)."""
    # the last lines before the question say what will change, whatever the lines above held:
    # every name in them is printed escaped, so none can hide these
    say(f"Will run {len(todo.to_run)} calls: {calls_summary(todo.to_run)}")
    cannot = todo.irreversible
    if cannot:
        say(
            f"{len(cannot)} of them cannot be undone ({'; '.join(sorted({i.change.irreversible or '' for i in cannot}))})"
        )
    if not yes:
        assert ask is not None
        if not ask(f"Apply {len(todo.to_run)} calls? [y/N] "):
            return None
        if cannot and not ask(f"Also send the {len(cannot)} that cannot be undone? [y/N] "):
            say(f"The {len(cannot)} that cannot be undone are not sent.")
            return todo.reversible
        return todo.to_run
    if cannot and not irreversible:
        say(
            f"The {len(cannot)} that cannot be undone are not sent: give --irreversible with "
            "--yes to send them too."
        )
        return todo.reversible
    return todo.to_run


def apply_plan(
    plan: Path,
    *,
    site: str | None,
    zuliprc: str | None,
    yes: bool,
    ask: Callable[[str], bool] | None,
    say: Callable[[str], None],
    irreversible: bool = False,
    progress: bool = True,
) -> int:
    """Show what a plan will do, confirm, apply through the change engine, journal; returns the
    exit status: 0 every change sent was made (or nothing to do), 1 one failed or was refused,
    or the person declined.

    ``ask`` asks a person (None when there is no terminal: then only ``yes`` lets it run);
    changes nothing can undo are sent only when confirmed (``irreversible`` with ``yes``).
    """
    items = read_plan(plan)
    if not yes and ask is None:
        raise PlanError("not applying without confirmation: no terminal to ask; give --yes")
    if zuliprc and not Path(zuliprc).expanduser().is_file():
        raise PlanError(f"zuliprc {zuliprc} does not exist")
    journal_path = results_path(plan)
    with Client(site=site or None, config_file=zuliprc or None) as client:
        existing = Journal.read(journal_path) if journal_path.is_file() else None
        todo = pending(existing, items)
        _show(todo, plan, client.site, say)
        if not todo.to_run:
            say("Nothing to do.")
            return 0
        chosen = _confirmed(todo, yes=yes, irreversible=irreversible, ask=ask, say=say)
        if chosen is None:
            say("Nothing applied.")
            return 1
        with Journal.open(
            journal_path,
            kind="apply",
            site=client.site,
            email=client.email,
            zuliprc=str(Path(zuliprc).expanduser().resolve()) if zuliprc else None,
            source=str(plan.resolve()),
        ) as journal:
            tally = apply_changes(chosen, client, journal, say=say, progress=progress)
    say(
        f"{tally['done']} done, {tally['already_done']} already done, {tally['refused']} "
        f"refused (not sent again), {tally['failed']} failed (tried again next time); "
        f"journal in {journal_path} (chatops undo {journal_path} reverts it)"
    )
    return 1 if tally["failed"] or tally["refused"] else 0
