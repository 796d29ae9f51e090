"""What a run of audits gives: one record per executed notebook, the run's result, and the
exit statuses (0 every audit passed, 1 a threshold was crossed, 2 an audit could not run)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._exceptions import ChatopsError
from ..audits._result import Finding, Status

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_THRESHOLD",
    "AuditInputError",
    "AuditRun",
    "RunResult",
]

EXIT_OK = Status.PASSED.exit_code

EXIT_THRESHOLD = Status.THRESHOLD_CROSSED.exit_code

EXIT_FAILED = Status.ERROR.exit_code


class AuditInputError(ChatopsError):
    """The request to run audits is wrong: unknown audit or parameter, bad value, no zuliprc."""


@dataclass(frozen=True)
class AuditRun:
    """The outcome of one notebook: paths written, pass/fail and counts, or the error, its
    findings, and the subjects it looked at (what the report compares with the last run)."""

    name: str
    notebook: Path | None = None
    html: Path | None = None
    passed: bool | None = None
    counts: dict[str, Any] = field(default_factory=dict)
    failed_checks: list[str] = field(default_factory=list)
    error: str | None = None
    thresholds: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    subjects: list[str] | None = None
    subject_keys: dict[str, str] | None = None

    @property
    def exit_code(self) -> int:
        """0 passed, 1 a threshold crossed, 2 the notebook failed to run."""
        if self.error is not None or self.passed is None:
            return EXIT_FAILED
        return EXIT_OK if self.passed else EXIT_THRESHOLD

    @property
    def status(self) -> Status:
        """How the audit came out."""
        return Status.of_exit_code(self.exit_code)


@dataclass(frozen=True)
class RunResult:
    """All audits of one run and where their report is."""

    run_dir: Path
    summary_path: Path
    audits: list[AuditRun]
    posted: bool | None = None

    @property
    def exit_code(self) -> int:
        """The worst exit status of the audits (2 > 1 > 0)."""
        return max((a.exit_code for a in self.audits), default=EXIT_OK)

    @property
    def passed(self) -> bool:
        """Whether every audit ran and passed."""
        return self.exit_code == EXIT_OK
