"""Carrying out an audit's findings the one way anything is written: as ``chatops audit apply``
does, through :func:`chatops.plan.apply_calls` (the audits themselves only read)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import chatops
from chatops.audits import AuditResult, Finding
from chatops.plan import apply_calls, in_order, pending, planned_call, read_plan


def apply_findings(
    result: AuditResult,
    client: chatops.Client,
    plan: Path,
    keep: Callable[[Finding], bool] = lambda _finding: True,
) -> dict[str, int]:
    """Write the plan of ``result``'s findings that ``keep`` keeps to ``plan`` and apply it with
    ``client``; returns the tally by status (``done``, ``already_done``, ``refused``,
    ``failed``). Calls that need a person's input are never run, as in a real plan."""
    calls = in_order(
        planned_call(f.call, f)
        for f in result.typed
        if f.call is not None and f.call.changes and keep(f)
    )
    plan.write_text("".join(json.dumps(c.record()) + "\n" for c in calls), encoding="utf-8")
    todo = pending(plan, read_plan(plan))
    return apply_calls(plan, todo.to_run, client, lambda _line: None, progress=False)
