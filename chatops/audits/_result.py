"""What an audit returns: findings, a pass/fail summary and the tables behind them."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["FINDING_COLUMNS", "SEVERITIES", "AuditResult", "findings_frame", "write_summary"]

#: Columns of ``AuditResult.findings``, in order.
FINDING_COLUMNS = ("severity", "subject", "finding", "recommended_action", "api_call")
#: Severity levels, most severe first; a ``critical`` finding is a crossed threshold.
SEVERITIES = ("critical", "warning", "info")


def findings_frame(rows: list[dict[str, str]]) -> pd.DataFrame:
    """Findings as a DataFrame: most severe first, then by subject; columns FINDING_COLUMNS."""
    df = pd.DataFrame({c: pd.Series([r[c] for r in rows], dtype="string") for c in FINDING_COLUMNS})
    df["severity"] = pd.Categorical(df["severity"], categories=SEVERITIES, ordered=True)
    return df.sort_values(["severity", "subject"], kind="stable").reset_index(drop=True)


@dataclass
class AuditResult:
    """The outcome of one audit.

    Example::

        result = org_overview(client, days=30)
        if not result.passed:
            print(result.findings[result.findings.severity == "critical"])
        result.tables["messages_per_channel"].head()

    ``summary`` is JSON-ready: ``name``, ``passed``, ``counts``, ``thresholds``,
    ``generated_at`` (ISO 8601, UTC) and ``failed_checks`` (the thresholds crossed).
    """

    findings: pd.DataFrame
    summary: dict[str, Any]
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The audit's name (``org_overview``)."""
        return str(self.summary["name"])

    @property
    def passed(self) -> bool:
        """Whether no threshold was crossed."""
        return bool(self.summary["passed"])

    def __repr__(self) -> str:
        return (
            f"AuditResult(name={self.name!r}, passed={self.passed}, "
            f"findings={len(self.findings)}, tables={sorted(self.tables)})"
        )


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime | pd.Timestamp):
        return value.isoformat()
    if hasattr(value, "item"):  # numpy scalars
        return _jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_summary(result: AuditResult, report_dir: str | os.PathLike[str] | None) -> Path | None:
    """Write ``result.summary`` as ``report_dir/summary.json``; nothing when report_dir is empty.

    Beside it go the findings as ``findings.csv`` (columns FINDING_COLUMNS) and each table as
    ``tables/<name>.csv``: the report links them and ``chatops audit plan`` reads the findings.

    Args:
        result: the audit's result.
        report_dir: the folder (created when missing); ``""`` or None writes nothing.

    Returns the path written, or None.
    """
    if not report_dir:
        return None
    target = Path(report_dir) / "summary.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = _jsonable(result.summary)
    payload.setdefault("written_at", datetime.now(UTC).isoformat())
    target.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    _write_csvs(result, target.parent)
    return target


def _write_csvs(result: AuditResult, folder: Path) -> None:
    """``folder/findings.csv`` and ``folder/tables/<name>.csv`` for every table of the result."""
    findings = result.findings.reindex(columns=list(FINDING_COLUMNS))
    findings.to_csv(folder / "findings.csv", index=False)
    if result.tables:
        (folder / "tables").mkdir(exist_ok=True)
    for name, table in result.tables.items():
        named_index = any(n is not None for n in table.index.names)
        table.to_csv(folder / "tables" / f"{name}.csv", index=named_index)
