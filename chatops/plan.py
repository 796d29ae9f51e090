"""Fix plans: the API calls of a run's findings, written to a file, then applied with care.

``chatops audit plan [RUN_DIR] [-o PLAN]`` calls :func:`write_plan`; ``chatops audit apply PLAN``
calls :func:`read_plan`, :func:`pending` and :func:`apply_calls`. A plan is JSON lines, one call
each::

    {"id": "3f2a...", "method": "DELETE", "path": "/invites/multiuse/17", "params": {},
     "needs_input": false, "reason": null,
     "finding": {"audit": "invitations", "subject": "...", "finding": "...", ...}}

``path`` is relative to the API root (``/api/v1``), as ``client.delete(path)`` takes it. A call
whose text holds a placeholder (``{folder_id}``, ``<topic>``, ``...``) or a choice (``A | B``) is
written with ``"needs_input": true`` and is never executed.

The calls are written in an order where none blocks or undoes another: edits first (resolving
topics, settings, memberships), then removals of single things (invitations, files, linkifiers,
scheduled messages), then deactivations of groups, bots and people, and channels archived last
(a topic in an archived channel can no longer be resolved; a person's bots go before the person).

Applying records each finished call as one line of ``PLAN.results.jsonl`` beside the plan (written
and flushed as the call finishes), and skips the calls recorded there as done or refused:
applying twice does nothing the second time. When the server refuses a removal (a 4xx), the
target's state is read back (:mod:`chatops.plan_state`, chosen by the call's method and path,
never by the error's text): the call is ``already_done`` only when that state shows the thing
archived, deactivated or no longer listed. Any other call the server refused for good (a 4xx
answer other than 429) is recorded as ``refused`` and not sent again; one that failed on the way
(no answer, a 5xx, a rate limit) is ``failed`` and is tried again on the next run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._exceptions import ApiError, ChatopsError
from ._files import open_private_log, write_private_text
from .audits._result import ApiCall, Finding, param_text
from .plan_state import is_removal, target_state
from .report import read_findings

if TYPE_CHECKING:
    from ._client import Client

__all__ = [
    "PlanError",
    "PlannedCall",
    "apply_calls",
    "apply_plan",
    "calls_summary",
    "in_order",
    "planned_call",
    "pending",
    "read_plan",
    "recorded",
    "results_path",
    "write_plan",
]

METHODS = ("GET", "POST", "PATCH", "PUT", "DELETE")
API_ROOT = "/api/v1"


class PlanError(ChatopsError):
    """A plan file is missing or malformed, or a run folder has no findings to plan."""


@dataclass(frozen=True)
class PlannedCall:
    """One line of a plan: the call, whether it can run as written, and the finding it fixes."""

    method: str
    path: str
    params: dict[str, Any] = field(default_factory=dict)
    needs_input: bool = False
    reason: str | None = None
    finding: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """Stable for the same call: a digest of method, path and parameters."""
        text = json.dumps([self.method, self.path, self.params], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def text(self) -> str:
        """``DELETE /invites/17 key=value``, for people (values as a finding's call shows them)."""
        params = " ".join(f"{k}={param_text(v)}" for k, v in self.params.items())
        return f"{self.method} {self.path}" + (f" {params}" if params else "")

    def record(self) -> dict[str, Any]:
        """The JSON line of the plan."""
        return {
            "id": self.id,
            "method": self.method,
            "path": self.path,
            "params": self.params,
            "needs_input": self.needs_input,
            "reason": self.reason,
            "finding": self.finding,
        }


# -- writing a plan ---------------------------------------------------------------------------


def write_plan(run_dir: Path, target: Path | None = None) -> tuple[Path, list[PlannedCall]]:
    """Write the calls of a run's findings to ``target`` (default ``<run>/plan.jsonl``).

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
    calls = in_order([c for f in _findings(run, audits) for c in _calls_of(f)])
    out = (target or run / "plan.jsonl").expanduser()
    if out.exists() and out.is_dir():
        raise PlanError(f"-o {out} is a folder")
    if not out.parent.is_dir():
        raise PlanError(f"folder {out.parent} does not exist")
    write_private_text(
        out, "".join(json.dumps(c.record(), ensure_ascii=False) + "\n" for c in calls)
    )
    return out, calls


#: the phases of a plan, in order: (method, path prefix after /api/v1) of the calls in each
_PHASES: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "remove single things",
        (
            ("DELETE", "/invites/"),
            ("DELETE", "/attachments/"),
            ("DELETE", "/realm/filters/"),
            ("DELETE", "/scheduled_messages/"),
            ("DELETE", "/reminders/"),
        ),
    ),
    ("deactivate groups", (("POST", "/user_groups/"),)),
    ("deactivate bots", (("DELETE", "/bots/"),)),
    ("deactivate people", (("DELETE", "/users/"),)),
    ("archive channels", (("DELETE", "/streams/"),)),
)


def phase(call: PlannedCall) -> int:
    """Where ``call`` goes in a plan: 0 for edits, then each of ``_PHASES`` in turn."""
    if call.method == "POST" and not call.path.endswith("/deactivate"):
        return 0  # memberships, reactivations: edits
    if call.method == "DELETE" and call.path.startswith("/users/me/"):
        return 0  # unsubscribing is an edit of a membership
    if call.method == "DELETE" and call.path.startswith("/users/"):
        if call.finding.get("audit") == "bots":  # a bot is a user too: before its owner
            return 1 + [name for name, _ in _PHASES].index("deactivate bots")
    for number, (_, prefixes) in enumerate(_PHASES, 1):
        if any(call.method == m and call.path.startswith(p) for m, p in prefixes):
            return number
    return 0


def in_order(calls: Iterable[PlannedCall]) -> list[PlannedCall]:
    """``calls`` in an order where none blocks or undoes another (stable within a phase)."""
    return sorted(calls, key=phase)


def _findings(run: Path, audits: Iterable[str]) -> list[Finding]:
    return [f for audit in audits for f in read_findings(audit, run / audit)]


def _calls_of(finding: Finding) -> list[PlannedCall]:
    call = finding.call
    if call is None or not call.changes:
        return []
    return [planned_call(call, finding)]


def planned_call(call: ApiCall, finding: Finding | None = None) -> PlannedCall:
    """The plan line of a finding's typed call (it needs input when it has placeholders or
    alternatives; then its path and parameters still show them)."""
    about = (
        {
            "audit": finding.audit,
            "subject": finding.subject,
            "finding": finding.finding,
            "severity": finding.severity.value,
            "recommended_action": finding.recommended_action,
            "api_call": finding.api_call,
            "finding_id": finding.id,
        }
        if finding is not None
        else {}
    )
    return PlannedCall(
        call.method, call.path, dict(call.params), call.needs_input, call.reason, about
    )


# -- applying a plan --------------------------------------------------------------------------


def results_path(plan: Path) -> Path:
    """``fixes.jsonl`` -> ``fixes.results.jsonl`` (beside the plan)."""
    return plan.with_name(plan.name.removesuffix(".jsonl") + ".results.jsonl")


def read_plan(plan: Path) -> list[PlannedCall]:
    """The calls of a plan file; :class:`PlanError` naming the line when one is malformed."""
    if not plan.is_file():
        raise PlanError(f"plan {plan} does not exist")
    calls: list[PlannedCall] = []
    for number, line in enumerate(plan.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            method, path = str(data["method"]), str(data["path"])
            params = data.get("params") or {}
            if not isinstance(params, dict) or not isinstance(data.get("finding", {}), dict):
                raise TypeError
            needs = bool(data.get("needs_input", False))
        except (ValueError, KeyError, TypeError):
            raise PlanError(
                f"plan {plan} line {number}: not a plan call (a JSON object with method, path, "
                "params, finding)"
            ) from None
        if not needs and (method not in METHODS or not path.startswith("/")):
            raise PlanError(f"plan {plan} line {number}: bad method or path {method} {path}")
        calls.append(
            PlannedCall(method, path, params, needs, data.get("reason"), data.get("finding") or {})
        )
    return calls


def recorded(plan: Path) -> dict[str, str]:
    """The last status ``PLAN.results.jsonl`` records for each call id (a torn line is ignored)."""
    path = results_path(plan)
    if not path.is_file():
        return {}
    statuses: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and isinstance(record.get("status"), str):
            statuses[str(record.get("id"))] = record["status"]
    return statuses


@dataclass(frozen=True)
class Pending:
    """What applying a plan would do: calls to run, done or refused before, needing a person."""

    to_run: list[PlannedCall]
    done: list[PlannedCall]
    needs_input: list[PlannedCall]
    refused: list[PlannedCall] = field(default_factory=list)


def pending(plan: Path, calls: Sequence[PlannedCall]) -> Pending:
    """Sort a plan's calls into to run, done before, refused before (neither sent again) and
    needing input (never run); the calls to run in the plan's order of phases."""
    statuses = recorded(plan)
    to_run: list[PlannedCall] = []
    seen: set[str] = set()
    skipped: list[PlannedCall] = []
    refused: list[PlannedCall] = []
    for call in calls:
        if call.needs_input:
            continue
        status = statuses.get(call.id)
        if status == "refused":
            refused.append(call)
        elif status in ("done", "already_done") or call.id in seen:
            skipped.append(call)
        else:
            seen.add(call.id)
            to_run.append(call)
    needs = [c for c in calls if c.needs_input]
    return Pending(in_order(to_run), skipped, needs, refused)


_ID_SEGMENT = re.compile(r"/\d+(?=/|$)")


def calls_summary(calls: Sequence[PlannedCall]) -> str:
    """What ``calls`` change, counted by method and path: ``2 DELETE /users/{id}, ...``
    (in the order they run)."""
    counts: dict[str, int] = {}
    for call in calls:
        shape = f"{call.method} {_ID_SEGMENT.sub('/{id}', call.path)}"
        counts[shape] = counts.get(shape, 0) + 1
    return ", ".join(f"{n} {shape}" for shape, n in counts.items())


def apply_calls(
    plan: Path,
    calls: Sequence[PlannedCall],
    client: Client,
    report: Callable[[str], None],
    progress: bool = True,
) -> dict[str, int]:
    """Execute ``calls`` in order with a progress bar; one line of results per finished call.

    Returns the number of calls by status: ``done``, ``already_done``, ``refused`` (the server
    said no for good: not sent again) and ``failed`` (tried again on the next run).
    """
    from tqdm import tqdm  # type: ignore[import-untyped]

    tally = {"done": 0, "already_done": 0, "refused": 0, "failed": 0}
    with open_private_log(results_path(plan)) as results:
        for call in tqdm(calls, desc="Applying", unit="call", disable=not progress, leave=False):
            status, message, checked = _execute(client, call)
            tally[status] += 1
            record = {
                **call.record(),
                "status": status,
                "message": message,
                **({"checked": checked} if checked else {}),
                "at": datetime.now(UTC).isoformat(),
            }
            results.write(json.dumps(record, ensure_ascii=False) + "\n")
            results.flush()
            os.fsync(results.fileno())
            about = call.finding.get("subject", "")
            tail = _tail(message) + (f" [{checked}]" if checked else "")
            report(f"{status.replace('_', ' '):>12}  {call.text}  ({about}){tail}")
    return tally


def _tail(message: str) -> str:
    return f": {message}" if message else ""


def _execute(client: Client, call: PlannedCall) -> tuple[str, str, str]:
    """Send one call: its status, the server's message and, for a refused removal, what the
    read of its target's state showed."""
    if call.method not in ("GET", "POST", "PATCH", "DELETE"):
        return "failed", f"{call.method} is not a method the client sends", ""
    send: Callable[..., dict[str, Any]] = getattr(client, call.method.lower())
    try:
        send(call.path, params=call.params or None)
    except ApiError as exc:
        message = str(getattr(exc, "msg", exc))
        if not 400 <= exc.status < 500 or exc.status == 429:
            return "failed", message, ""
        if not is_removal(call.method, call.path):
            return "refused", message, ""
        try:
            state = target_state(client, call.method, call.path)
        except ChatopsError as read_error:  # the read failed on the way: try again next time
            return "failed", f"{message}; reading its state failed: {read_error}", ""
        if state is None:
            return "refused", message, ""
        return ("already_done" if state.removed else "refused"), message, state.evidence
    except ChatopsError as exc:
        return "failed", str(exc) or type(exc).__name__, ""
    return "done", "", ""


def apply_plan(
    plan: Path,
    *,
    site: str | None,
    zuliprc: str | None,
    yes: bool,
    ask: Callable[[str], bool] | None,
    say: Callable[[str], None],
    progress: bool = True,
) -> int:
    """Show what a plan will do, confirm, execute, record; returns the exit status.

    ``ask`` asks a person (None when there is no terminal: then only ``yes`` lets it run).
    Exit status: 0 every call done (or nothing to do), 1 a call failed or the person declined.
    """
    from ._client import Client

    calls = read_plan(plan)
    if not yes and ask is None:
        raise PlanError("not applying without confirmation: no terminal to ask; give --yes")
    if zuliprc and not Path(zuliprc).expanduser().is_file():
        raise PlanError(f"zuliprc {zuliprc} does not exist")
    client = Client(site=site or None, config_file=zuliprc or None)
    with client:
        todo = pending(plan, calls)
        say(
            f"Plan {plan.name} against {client.site}: {len(todo.to_run)} to run, "
            f"{len(todo.done)} done before (skipped), {len(todo.refused)} refused before (not "
            f"sent again), {len(todo.needs_input)} need input (not run)"
        )
        for call in todo.refused:
            say(f"  refused before  {call.text}  ({call.finding.get('subject', '')})")
        for call in todo.to_run:
            say(
                f"  will run  {call.text}  ({call.finding.get('audit', '')}: "
                f"{call.finding.get('subject', '')})"
            )
        for call in todo.needs_input:
            say(f"  needs input  {call.finding.get('api_call') or call.text}  ({call.reason})")
        if not todo.to_run:
            say("Nothing to do.")
            return 0
        # the last line before the question says what will change, whatever the lines above
        # held: every name in them is printed escaped, so none can hide this one
        say(f"Will run {len(todo.to_run)} calls: {calls_summary(todo.to_run)}")
        if not yes and ask is not None and not ask(f"Apply {len(todo.to_run)} calls? [y/N] "):
            say("Nothing applied.")
            return 1
        tally = apply_calls(plan, todo.to_run, client, say, progress=progress)
    say(
        f"{tally['done']} done, {tally['already_done']} already done, {tally['refused']} "
        f"refused (not sent again), {tally['failed']} failed (tried again next time); "
        f"results in {results_path(plan)}"
    )
    return 1 if tally["failed"] or tally["refused"] else 0
