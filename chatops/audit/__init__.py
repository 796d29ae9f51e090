"""The audit pipeline: run the audit notebooks, write the report, plan their fixes.

- :mod:`.notebooks`: which audits there are, and their parameters checked before anything runs;
- :mod:`.runner`: ``run_audits``, the notebooks executed with papermill, one kernel each;
- :mod:`.outcome`: what a run gives (:class:`AuditRun`, :class:`RunResult`, exit statuses);
- :mod:`.report`: ``summary.json``, ``index.html`` and a page per audit, compared with the
  last run, and the summary posted to a channel;
- :mod:`.plan`: a run's findings as a plan of typed changes, applied by the change engine
  (:mod:`chatops.changes`);
- :mod:`.redact`: no secret in anything a run writes.

The audits themselves are :mod:`chatops.audits` (one module each, reading and judging only).
"""

from __future__ import annotations

from .notebooks import (
    RESERVED_PARAMETERS,
    available_audits,
    coerce_value,
    notebook_parameters,
    notebooks_dir,
    resolve_notebooks,
    validate_parameters,
)
from .outcome import EXIT_FAILED, EXIT_OK, EXIT_THRESHOLD, AuditInputError, AuditRun, RunResult
from .runner import run_audits

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_THRESHOLD",
    "RESERVED_PARAMETERS",
    "AuditInputError",
    "AuditRun",
    "RunResult",
    "available_audits",
    "coerce_value",
    "notebook_parameters",
    "notebooks_dir",
    "resolve_notebooks",
    "run_audits",
    "validate_parameters",
]
