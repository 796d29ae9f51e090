"""What an audit returns: typed findings, a typed summary and the tables behind them.

The types every audit, the runner, the report and the fix plans share:

- :class:`Status`: ``passed``, ``threshold_crossed`` or ``error`` (with its exit status);
- :class:`Severity`: ``critical``, ``warning``, ``info``, most severe first;
- :class:`ApiCall`: the call that fixes a finding (method, path, parameters) and the
  placeholders a person must fill in before it can run;
- :class:`Finding`: one finding (severity, subject, text, action, call);
- :class:`AuditSummary`: the pass/fail summary of one audit (``<audit>/summary.json``).
"""

from __future__ import annotations

import enum
import hashlib
import json
import math
import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pandas as pd

from .._files import new_dir, write_private_text
from .._tabular import write_csv
from ..changes._call import METHODS, ApiCall, Method, param_text

__all__ = [
    "AUDIT_SCHEMA_VERSION",
    "FINDING_COLUMNS",
    "METHODS",
    "SEVERITIES",
    "ApiCall",
    "AuditResult",
    "AuditSummary",
    "Finding",
    "Method",
    "Severity",
    "Status",
    "finding_id",
    "finding_kind",
    "findings_frame",
    "param_text",
    "read_finding_lines",
    "write_summary",
]

#: Version of the layout of ``<audit>/summary.json`` and ``<audit>/findings.jsonl``.
AUDIT_SCHEMA_VERSION = 2
#: Columns of ``AuditResult.findings`` and ``findings.csv``, in order (the call in words).
FINDING_COLUMNS = ("severity", "subject", "finding", "recommended_action", "api_call")


class Status(enum.StrEnum):
    """How one audit (or a whole run, the worst of its audits) came out."""

    PASSED = "passed"
    THRESHOLD_CROSSED = "threshold_crossed"
    ERROR = "error"

    @property
    def exit_code(self) -> int:
        """0 passed, 1 a threshold crossed, 2 could not run."""
        return _EXIT[self]

    @property
    def text(self) -> str:
        """In words: ``passed``, ``threshold crossed``, ``could not run``."""
        return _STATUS_TEXT[self]

    @classmethod
    def of_exit_code(cls, code: int) -> Status:
        """The status of an exit status (anything above 1 is an error)."""
        return {0: cls.PASSED, 1: cls.THRESHOLD_CROSSED}.get(code, cls.ERROR)


_EXIT = {Status.PASSED: 0, Status.THRESHOLD_CROSSED: 1, Status.ERROR: 2}
_STATUS_TEXT = {
    Status.PASSED: "passed",
    Status.THRESHOLD_CROSSED: "threshold crossed",
    Status.ERROR: "could not run",
}


class Severity(enum.StrEnum):
    """How urgent a finding is; ``critical`` is a crossed threshold. Ordered most severe first."""

    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for critical, 1 warning, 2 info: sort by it."""
        return list(Severity).index(self)


#: Severity levels, most severe first.
SEVERITIES = tuple(s.value for s in Severity)

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def finding_kind(text: str) -> str:
    """``"no message in 93 days (more than 90)"`` -> ``"no message in # days (more than #)"``."""
    return " ".join(_NUMBER.sub("#", text).split())


def finding_id(audit: str, subject: str, kind: str) -> str:
    """The identity of a finding between runs: 16 hex digits of audit, subject and kind."""
    return hashlib.sha256(f"{audit}\x1f{subject}\x1f{kind}".encode()).hexdigest()[:16]


class Finding(msgspec.Struct, frozen=True, kw_only=True):
    """One finding: what is wrong with what, what to do, and the call that does it.

    ``change`` is the typed change that fixes it (its record, ``{"kind": "ArchiveChannel",
    ...}``, :mod:`chatops.changes.kinds`) when the fix can be made as it is; ``call`` is that
    change's call, or a call a person must complete (placeholders, a choice between calls).

    Two findings are the same finding between runs when their audit, subject and *kind* (the
    text with every number replaced by ``#``) are: see :attr:`id`.
    """

    severity: Severity
    subject: str
    finding: str
    recommended_action: str
    call: ApiCall | None = None
    change: dict[str, Any] | None = None
    audit: str = ""

    @property
    def api_call(self) -> str:
        """The call in words (empty when there is none)."""
        return self.call.text if self.call is not None else ""

    @property
    def kind(self) -> str:
        """The finding's text with its numbers replaced by ``#``."""
        return finding_kind(self.finding)

    @property
    def id(self) -> str:
        """Stable between runs: a digest of audit, subject and kind."""
        return finding_id(self.audit, self.subject, self.kind)

    def record(self) -> dict[str, Any]:
        """The JSON form of ``summary.json``: ``id``, ``kind``, the fields, ``api_call`` in words."""
        return {
            "id": self.id,
            "audit": self.audit,
            "severity": self.severity.value,
            "subject": self.subject,
            "finding": self.finding,
            "kind": self.kind,
            "recommended_action": self.recommended_action,
            "api_call": self.api_call,
            "call": msgspec.to_builtins(self.call) if self.call is not None else None,
        }

    def row(self) -> dict[str, Any]:
        """The finding as a row of :func:`findings_frame`."""
        return {
            "severity": self.severity.value,
            "subject": self.subject,
            "finding": self.finding,
            "recommended_action": self.recommended_action,
            "api_call": self.api_call,
        }


class AuditSummary(msgspec.Struct, kw_only=True):
    """The pass/fail summary of one audit, written as ``<audit>/summary.json``.

    ``details`` holds what only this audit reports (coverage notes, windows, options); in the
    JSON file they sit beside the common fields. Reading
    ``summary["counts"]`` or ``summary["coverage"]`` works for both kinds of field.
    """

    name: str
    passed: bool
    failed_checks: list[str]
    counts: dict[str, int | float]
    thresholds: dict[str, Any]
    site: str = ""
    generated_at: str = ""
    details: dict[str, Any] = msgspec.field(default_factory=dict)
    #: every subject the audit looked at (None: not said); a finding of the previous run whose
    #: subject is not among them is *gone* (archived, deleted), not *resolved*
    subjects: list[str] | None = None
    #: a stable key of the subjects whose words hold something a fix may edit (a channel's
    #: name, a linkifier's pattern): a finding whose subject's key is still there is not gone
    subject_keys: dict[str, str] | None = None
    schema_version: int = AUDIT_SCHEMA_VERSION

    @property
    def status(self) -> Status:
        """``passed`` or ``threshold_crossed``."""
        return Status.PASSED if self.passed else Status.THRESHOLD_CROSSED

    def __getitem__(self, key: str) -> Any:
        if key != "details" and key in self.__struct_fields__:
            return getattr(self, key)
        return self.details[key]

    def __contains__(self, key: object) -> bool:
        return (key in self.__struct_fields__ and key != "details") or key in self.details

    def get(self, key: str, default: Any = None) -> Any:
        """Like ``dict.get`` over the JSON form."""
        return self[key] if key in self else default

    def to_json(self) -> dict[str, Any]:
        """The JSON form: the common fields, then ``details`` beside them."""
        common = {f: getattr(self, f) for f in self.__struct_fields__ if f != "details"}
        data: dict[str, Any] = _jsonable({**common, **self.details})
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AuditSummary:
        """Read the JSON form back (:class:`msgspec.ValidationError` when malformed)."""
        common = {f: data[f] for f in cls.__struct_fields__ if f in data and f != "details"}
        details = {k: v for k, v in data.items() if k not in cls.__struct_fields__}
        details.pop("written_at", None)
        return msgspec.convert({**common, "details": details}, cls)


def findings_frame(rows: list[Finding]) -> pd.DataFrame:
    """Findings as a DataFrame: most severe first, then by subject; columns FINDING_COLUMNS."""
    records = [f.row() for f in rows]
    df = pd.DataFrame(
        {c: pd.Series([r[c] for r in records], dtype="string") for c in FINDING_COLUMNS}
    )
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

    ``summary`` is an :class:`AuditSummary`: ``name``, ``passed``, ``counts``, ``thresholds``,
    ``generated_at`` (ISO 8601, UTC), ``failed_checks`` (the thresholds crossed) and the
    audit's own ``details``.
    """

    findings: pd.DataFrame
    summary: AuditSummary
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: the findings as :class:`Finding` values with their typed calls, in the frame's order
    typed: list[Finding] = field(default_factory=list, repr=False)

    @classmethod
    def of(
        cls,
        findings: list[Finding],
        summary: AuditSummary,
        tables: dict[str, pd.DataFrame] | None = None,
    ) -> AuditResult:
        """A result from typed findings: the frame (for people) and the list (for programs)."""
        named = [msgspec.structs.replace(f, audit=f.audit or summary.name) for f in findings]
        ordered = sorted(named, key=lambda f: (f.severity.rank, f.subject))
        return cls(findings_frame(ordered), summary, dict(tables or {}), ordered)

    @property
    def name(self) -> str:
        """The audit's name (``org_overview``)."""
        return self.summary.name

    @property
    def passed(self) -> bool:
        """Whether no threshold was crossed."""
        return self.summary.passed

    def finding_list(self) -> list[Finding]:
        """The findings as :class:`Finding` values (without calls when built from a frame)."""
        if self.typed or self.findings.empty:
            return list(self.typed)
        return [
            Finding(
                severity=Severity(str(r["severity"])),
                subject=str(r["subject"]),
                finding=str(r["finding"]),
                recommended_action=str(r["recommended_action"]),
                audit=self.name,
            )
            for r in self.findings.to_dict("records")
        ]

    def __repr__(self) -> str:
        return (
            f"AuditResult(name={self.name!r}, passed={self.passed}, "
            f"findings={len(self.findings)}, tables={sorted(self.tables)})"
        )


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if isinstance(value, datetime | pd.Timestamp):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if hasattr(value, "item"):  # numpy scalars
        return _jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def write_summary(result: AuditResult, report_dir: str | os.PathLike[str] | None) -> Path | None:
    """Write ``result.summary`` as ``report_dir/summary.json``; nothing when report_dir is empty.

    Beside it go the findings, typed, as ``findings.jsonl`` (one :class:`Finding` a line: what
    ``chatops audit plan`` and the report read), the same in words as ``findings.csv``
    (columns ``CSV_COLUMNS``) and each table as ``tables/<name>.csv``.

    Args:
        result: the audit's result.
        report_dir: the folder (created when missing); ``""`` or None writes nothing.

    Returns the path written, or None.
    """
    if not report_dir:
        return None
    target = Path(report_dir) / "summary.json"
    new_dir(target.parent)
    payload = result.summary.to_json()
    payload.setdefault("written_at", datetime.now(UTC).isoformat())
    write_private_text(target, json.dumps(payload, indent=2, sort_keys=False) + "\n")
    _write_findings(result, target.parent)
    return target


def _write_findings(result: AuditResult, folder: Path) -> None:
    """``findings.jsonl``, ``findings.csv`` and ``tables/<name>.csv`` of the result."""
    encoder = msgspec.json.Encoder()
    lines = [encoder.encode(f).decode() + "\n" for f in result.finding_list()]
    write_private_text(folder / "findings.jsonl", "".join(lines))
    write_csv(result.findings.reindex(columns=list(FINDING_COLUMNS)), folder / "findings.csv")
    if result.tables:
        new_dir(folder / "tables")
    for name, table in result.tables.items():
        named_index = any(n is not None for n in table.index.names)
        write_csv(table, folder / "tables" / f"{name}.csv", index=named_index)


def read_finding_lines(path: Path, audit: str) -> list[Finding]:
    """The findings of ``<audit>/findings.jsonl`` (none when absent); ValueError naming the line
    when one is malformed."""
    if not path.is_file():
        return []
    decoder = msgspec.json.Decoder(Finding)
    out: list[Finding] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            found = decoder.decode(line)
        except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as exc:
            raise ValueError(f"{path} line {number}: not a finding ({exc})") from None
        out.append(msgspec.structs.replace(found, audit=found.audit or audit))
    return out
