"""The report of one run: a page per audit, ``index.html``, ``summary.json`` and the trends.

``write_report`` is one readable sequence of named steps::

    findings  = read_findings(...)                     # <audit>/findings.csv of every audit
    previous  = previous_summary(run_dir)              # the last report in the same folder
    trends    = compare(findings, previous, ...)       # new, resolved, still open
    payload   = summary_payload(...)                   # summary.json, schema SCHEMA_VERSION
    index     = render_index(payload)                  # index.html (report_pages, templates)

A finding's identity is its audit, its subject and its *kind*: the finding's text with every
number replaced by ``#`` (``no message in 93 days`` and ``no message in 94 days`` are the same
finding a day apart). See ``docs/report-schema.md``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .audits._result import (
    Finding,
    Severity,
    Status,
    finding_id,
    finding_kind,
    read_finding_lines,
)

__all__ = [
    "SCHEMA_VERSION",
    "Finding",
    "PostTarget",
    "finding_id",
    "finding_kind",
    "parse_post_target",
    "post_message",
    "read_findings",
    "render_index",
    "write_report",
]

#: Version of the layout of ``summary.json``; raised when a field changes meaning or goes away.
SCHEMA_VERSION = 2
#: How many runs the counts over time keep.
HISTORY_LENGTH = 50

Scrub = Callable[[str], str]


def read_findings(audit: str, audit_dir: Path) -> list[Finding]:
    """The findings an audit notebook wrote to ``<audit_dir>/findings.jsonl`` (none when absent)."""
    return read_finding_lines(audit_dir / "findings.jsonl", audit)


def _counts(counts: Mapping[str, Any], limit: int = 4) -> str:
    shown = [(k, v) for k, v in counts.items() if k != "findings" and not isinstance(v, dict)]
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in shown[:limit])


# -- trends and summary.json ------------------------------------------------------------------


@dataclass(frozen=True)
class AuditOutcome:
    """What the report needs of one executed audit."""

    name: str
    status: Status
    exit_code: int
    counts: Mapping[str, Any]
    failed_checks: Sequence[str]
    thresholds: Mapping[str, Any]
    error: str | None
    notebook: str | None
    html: str | None
    findings: Sequence[Finding]
    #: every subject the audit looked at; None when it does not say
    subjects: Sequence[str] | None = None
    #: a stable key of the subjects whose words a fix may change (a renamed channel)
    subject_keys: Mapping[str, str] | None = None


def previous_summary(run_dir: Path) -> tuple[str, dict[str, Any]] | None:
    """The newest earlier run in the same report folder with a versioned summary.json."""
    earlier = sorted(
        (
            p
            for p in run_dir.parent.iterdir()
            if p.is_dir()
            and not p.is_symlink()
            and p.name < run_dir.name
            and not p.name.startswith(".")
            and p.name != "latest"
        ),
        key=lambda p: p.name,
        reverse=True,
    )
    for folder in earlier:
        try:
            data = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("schema_version"), int):
            return folder.name, data
    return None


def write_report(
    run_dir: Path, outcomes: Sequence[AuditOutcome], target: str, scrub: Scrub
) -> dict[str, Any]:
    """Write ``summary.json`` and ``index.html`` of a run; returns the summary."""
    previous = previous_summary(run_dir)
    payload = summary_payload(run_dir, outcomes, target, previous)
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    (run_dir / "summary.json").write_text(scrub(text), encoding="utf-8")
    (run_dir / "index.html").write_text(scrub(render_index(payload)), encoding="utf-8")
    return payload


def summary_payload(
    run_dir: Path,
    outcomes: Sequence[AuditOutcome],
    target: str,
    previous: tuple[str, dict[str, Any]] | None,
) -> dict[str, Any]:
    """The content of ``summary.json`` (see docs/report-schema.md)."""
    worst = max((o.exit_code for o in outcomes), default=0)
    prev_name, prev = previous if previous else (None, {})
    prev_audits: dict[str, Any] = prev.get("audits", {}) if prev else {}
    prev_findings = {f["id"]: f for f in prev.get("findings", [])} if prev else {}
    records: list[dict[str, Any]] = []
    resolved: list[dict[str, Any]] = []
    gone_records: list[dict[str, Any]] = []
    audits: dict[str, Any] = {}
    for o in outcomes:
        before = prev_audits.get(o.name)
        comparable = before is not None and before.get("status") != Status.ERROR and o.error is None
        ids = {f.id for f in o.findings}
        new = still = 0
        for f in o.findings:
            trend = "still_open" if comparable and f.id in prev_findings else "new"
            new += trend == "new"
            still += trend == "still_open"
            key = (o.subject_keys or {}).get(f.subject)
            records.append({**f.record(), **({"subject_key": key} if key else {}), "trend": trend})
        vanished = (
            [r for r in prev_findings.values() if r.get("audit") == o.name and r["id"] not in ids]
            if comparable
            else []
        )
        # every audit lists its threshold's word ("channels", "bots") among its subjects: a
        # threshold finding that vanished is resolved; a mover's (per account) can be gone
        # a subject whose words changed (a renamed channel) is still there when its key is
        present = None if o.subjects is None else set(o.subjects)
        keys = set((o.subject_keys or {}).values())
        gone = [
            {**r, "trend": "gone"}
            for r in vanished
            if present is not None
            and r.get("subject") not in present
            and r.get("subject_key") not in keys
        ]
        fixed = [
            {**r, "trend": "resolved"} for r in vanished if r["id"] not in {g["id"] for g in gone}
        ]
        resolved += fixed
        gone_records += gone
        by_severity = {s.value: sum(f.severity == s for f in o.findings) for s in Severity}
        audits[o.name] = {
            "status": o.status,
            "passed": None if o.status is Status.ERROR else o.status is Status.PASSED,
            "exit_code": o.exit_code,
            "counts": dict(o.counts),
            "failed_checks": list(o.failed_checks),
            "thresholds": dict(o.thresholds),
            "error": o.error,
            "findings": len(o.findings),
            "by_severity": by_severity,
            "notebook": o.notebook,
            "html": o.html,
            "findings_csv": f"{o.name}/findings.csv" if o.error is None else None,
            "trend": {
                "compared": comparable,
                "previous_status": before.get("status") if before else None,
                "new": new,
                "resolved": len(fixed),
                "gone": len(gone),
                "still_open": still,
            },
        }
    now = datetime.now(UTC).isoformat()
    counts = {
        "audits": len(outcomes),
        **{s.value: sum(o.status is s for o in outcomes) for s in Status},
        "findings": len(records),
        "new": sum(r["trend"] == "new" for r in records),
        "resolved": len(resolved),
        "gone": len(gone_records),
        "still_open": sum(r["trend"] == "still_open" for r in records),
    }
    point = {
        "run": run_dir.name,
        "generated_at": now,
        "exit_code": worst,
        "findings": counts["findings"],
        "new": counts["new"],
        "resolved": counts["resolved"],
        "gone": counts["gone"],
        "audits": {o.name: len(o.findings) for o in outcomes},
    }
    history = [*(prev.get("history", []) if prev else []), point][-HISTORY_LENGTH:]
    return {
        "schema_version": SCHEMA_VERSION,
        "run": run_dir.name,
        "generated_at": now,
        "target": target,
        "verdict": Status.of_exit_code(worst).value,
        "passed": worst == 0,
        "exit_code": worst,
        "counts": counts,
        "previous_run": prev_name,
        "audits": audits,
        "findings": records,
        "resolved": resolved,
        "gone": gone_records,
        "history": history,
    }


def verdict_sentence(payload: Mapping[str, Any]) -> str:
    """``All 3 audits passed`` / ``Threshold crossed in 1 of 3 audits: bots`` / ..."""
    audits: Mapping[str, Any] = payload["audits"]
    total = len(audits)
    failed = [n for n, a in audits.items() if a["status"] == Status.ERROR]
    crossed = [n for n, a in audits.items() if a["status"] == Status.THRESHOLD_CROSSED]
    parts = []
    if failed:
        parts.append(f"{len(failed)} of {total} audits could not run: {', '.join(failed)}")
    if crossed:
        parts.append(f"threshold crossed in {len(crossed)} of {total} audits: {', '.join(crossed)}")
    if not parts:
        return f"All {total} audits passed"
    text = "; ".join(parts)
    return text[0].upper() + text[1:]


def change_text(audit: Mapping[str, Any]) -> str:
    """``+2 new, 1 resolved, 3 still open (was passed)`` or ``first run``."""
    trend = audit["trend"]
    if not trend["compared"]:
        return "no previous run to compare" if trend["previous_status"] is None else "not compared"
    gone = f", {trend['gone']} gone" if trend.get("gone") else ""
    text = (
        f"+{trend['new']} new, {trend['resolved']} resolved{gone}, {trend['still_open']} still open"
    )
    if trend["previous_status"] != audit["status"]:
        text += f" (was {trend['previous_status'].replace('_', ' ')})"
    return text


_STATUS_TEXT = {s.value: s.text for s in Status}


def render_index(payload: Mapping[str, Any]) -> str:
    """``index.html``: the verdict, a line per audit, new, resolved and gone findings, history."""
    from .report_pages import render_index as render

    return render(payload, verdict_sentence(payload), _counts, change_text)


# -- posting the summary ----------------------------------------------------------------------


@dataclass(frozen=True)
class PostTarget:
    """Where ``--post-to`` sends the summary: a channel's topic or a direct message."""

    channel: str = ""
    topic: str = ""
    recipients: tuple[str, ...] = ()


def parse_post_target(text: str) -> PostTarget:
    """``channel:topic`` or ``dm:alice@x.org,bob@y.org``; ValueError when neither."""
    kind, sep, rest = text.partition(":")
    if not sep or not kind.strip() or not rest.strip():
        raise ValueError(
            f"--post-to {text!r} must be 'channel:topic' or 'dm:alice@example.org,...'"
        )
    if kind.strip() == "dm":
        people = tuple(p.strip() for p in rest.split(",") if p.strip())
        bad = [p for p in people if "@" not in p]
        if not people or bad:
            raise ValueError(f"--post-to {text!r}: give the email addresses of the recipients")
        return PostTarget(recipients=people)
    return PostTarget(channel=kind.strip(), topic=rest.strip())


def post_message(payload: Mapping[str, Any], run_dir: Path, report_url: str = "") -> str:
    """The short Markdown summary of a run: verdict, a line per audit, new findings, links."""
    base = report_url.rstrip("/") + "/" if report_url else ""
    index = run_dir / "index.html"

    def link(text: str, rel: str | None) -> str:
        return f"[{text}]({base}{rel})" if base and rel else text

    icon = {
        Status.PASSED: ":check:",
        Status.THRESHOLD_CROSSED: ":warning:",
        Status.ERROR: ":cross_mark:",
    }
    counts = payload["counts"]
    lines = [
        f"**Audit report: {verdict_sentence(payload)}** ({payload['target']}, exit status "
        f"{payload['exit_code']})",
        "",
    ]
    for name, a in payload["audits"].items():
        detail = ", ".join(a["failed_checks"]) or (a["error"] or "")
        lines.append(
            f"- {icon.get(a['status'], '')} {link(name, a['html'])}: "
            f"{_STATUS_TEXT[a['status']]}{f' ({detail})' if detail else ''}; "
            f"{a['findings']} findings, +{a['trend']['new']} new"
        )
    lines += [
        "",
        f"New findings: {counts['new']} · resolved: {counts['resolved']} · "
        f"gone: {counts.get('gone', 0)} · "
        f"still open: {counts['still_open']}",
        "Report: " + (link("index.html", "index.html") if base else f"`{index}`"),
    ]
    return "\n".join(lines)
