"""Carrying out an audit's findings the one way anything is written: as ``chatops audit apply``
does, through the change engine (the audits themselves only read)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import chatops
from chatops.audit.plan import item_of, pending, plan_line, read_plan, results_path
from chatops.audits import AuditResult, Finding
from chatops.changes.engine import apply_changes, in_order
from chatops.changes.journal import Journal


def apply_findings(
    result: AuditResult,
    client: chatops.Client,
    plan: Path,
    keep: Callable[[Finding], bool] = lambda _finding: True,
) -> dict[str, int]:
    """Write the plan of ``result``'s findings that ``keep`` keeps to ``plan`` and apply it with
    ``client`` (those nothing can undo too); returns the tally by status (``done``,
    ``already_done``, ``refused``, ``failed``). Changes that need a person's input are never
    sent, as in a real plan."""
    items = in_order(i for f in result.typed if keep(f) and (i := item_of(f)) is not None)
    plan.write_text("".join(json.dumps(plan_line(i)) + "\n" for i in items), encoding="utf-8")
    todo = pending(None, read_plan(plan))
    with Journal.open(results_path(plan), kind="apply") as journal:
        tally = apply_changes(todo.to_run, client, journal, say=lambda _line: None, progress=False)
    return {s: tally[s] for s in ("done", "already_done", "refused", "failed")}
