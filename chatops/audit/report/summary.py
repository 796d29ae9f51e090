"""``summary.json`` of a run: every audit's outcome and findings, compared with the previous
run in the same report folder (new, still open, resolved, gone), and the counts over time.

A finding's identity is its audit, its subject and its *kind*: the finding's text with every
number replaced by ``#`` (``no message in 93 days`` and ``no message in 94 days`` are the same
finding a day apart). See ``docs/report-schema.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...audits._result import Severity, Status
from ..outcome import AuditRun

__all__ = ["HISTORY_LENGTH", "SCHEMA_VERSION", "previous_summary", "summary_payload"]

#: Version of the layout of ``summary.json``; raised when a field changes meaning or goes away.
SCHEMA_VERSION = 2

#: How many runs the counts over time keep.
HISTORY_LENGTH = 50


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


@dataclass
class _Audit:
    """One audit's part of the summary: its entry, its findings' records, and the findings of
    the previous run that are resolved or gone."""

    entry: dict[str, Any]
    records: list[dict[str, Any]]
    resolved: list[dict[str, Any]]
    gone: list[dict[str, Any]]


def _relative(run_dir: Path, path: Path | None) -> str | None:
    return None if path is None else str(path.relative_to(run_dir))


def _audit_summary(
    run_dir: Path,
    run: AuditRun,
    before: Mapping[str, Any] | None,
    prev_findings: Mapping[str, Mapping[str, Any]],
) -> _Audit:
    comparable = before is not None and before.get("status") != Status.ERROR and run.error is None
    ids = {f.id for f in run.findings}
    records = []
    for f in run.findings:
        trend = "still_open" if comparable and f.id in prev_findings else "new"
        key = (run.subject_keys or {}).get(f.subject)
        records.append({**f.record(), **({"subject_key": key} if key else {}), "trend": trend})
    vanished = (
        [r for r in prev_findings.values() if r.get("audit") == run.name and r["id"] not in ids]
        if comparable
        else []
    )
    # every audit lists its threshold's word ("channels", "bots") among its subjects: a
    # threshold finding that vanished is resolved; a mover's (per account) can be gone; a
    # subject whose words changed (a renamed channel) is still there when its key is
    present = None if run.subjects is None else set(run.subjects)
    keys = set((run.subject_keys or {}).values())
    gone = [
        {**r, "trend": "gone"}
        for r in vanished
        if present is not None
        and r.get("subject") not in present
        and r.get("subject_key") not in keys
    ]
    gone_ids = {g["id"] for g in gone}
    resolved = [{**r, "trend": "resolved"} for r in vanished if r["id"] not in gone_ids]
    entry = {
        "status": run.status,
        "passed": None if run.status is Status.ERROR else run.status is Status.PASSED,
        "exit_code": run.exit_code,
        "counts": dict(run.counts),
        "failed_checks": list(run.failed_checks),
        "thresholds": dict(run.thresholds),
        "error": run.error,
        "findings": len(run.findings),
        "by_severity": {s.value: sum(f.severity == s for f in run.findings) for s in Severity},
        "notebook": _relative(run_dir, run.notebook),
        "html": _relative(run_dir, run.html),
        "findings_csv": f"{run.name}/findings.csv" if run.error is None else None,
        "trend": {
            "compared": comparable,
            "previous_status": before.get("status") if before else None,
            "new": sum(r["trend"] == "new" for r in records),
            "resolved": len(resolved),
            "gone": len(gone),
            "still_open": sum(r["trend"] == "still_open" for r in records),
        },
    }
    return _Audit(entry, records, resolved, gone)


def summary_payload(
    run_dir: Path,
    runs: Sequence[AuditRun],
    target: str,
    previous: tuple[str, dict[str, Any]] | None,
) -> dict[str, Any]:
    """The content of ``summary.json`` (see docs/report-schema.md)."""
    worst = max((r.exit_code for r in runs), default=0)
    prev_name, prev = previous if previous else (None, {})
    prev_audits: dict[str, Any] = prev.get("audits", {}) if prev else {}
    prev_findings = {f["id"]: f for f in prev.get("findings", [])} if prev else {}
    parts = {
        r.name: _audit_summary(run_dir, r, prev_audits.get(r.name), prev_findings) for r in runs
    }
    records = [rec for part in parts.values() for rec in part.records]
    resolved = [rec for part in parts.values() for rec in part.resolved]
    gone = [rec for part in parts.values() for rec in part.gone]
    now = datetime.now(UTC).isoformat()
    counts = {
        "audits": len(runs),
        **{s.value: sum(r.status is s for r in runs) for s in Status},
        "findings": len(records),
        "new": sum(r["trend"] == "new" for r in records),
        "resolved": len(resolved),
        "gone": len(gone),
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
        "audits": {r.name: len(r.findings) for r in runs},
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
        "audits": {name: part.entry for name, part in parts.items()},
        "findings": records,
        "resolved": resolved,
        "gone": gone,
        "history": history,
    }
