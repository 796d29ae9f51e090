"""Audits: plain functions over a client that fetch, judge and return an :class:`AuditResult`.

Each audit has a notebook of the same name in ``notebooks/audits/`` that papermill runs
(``chatops audit run NAME``); the notebook only shows what the function returns.

    >>> from chatops.audits import org_overview
    >>> result = org_overview(client, days=30)
    >>> result.passed, result.summary["counts"]["inactive_channels"]
    (True, 0)
"""

from __future__ import annotations

from ._result import FINDING_COLUMNS, SEVERITIES, AuditResult, findings_frame, write_summary
from ._session import AuditSession, open_session
from .overview import org_overview

__all__ = [
    "AUDITS",
    "FINDING_COLUMNS",
    "SEVERITIES",
    "AuditResult",
    "AuditSession",
    "findings_frame",
    "open_session",
    "org_overview",
    "write_summary",
]

#: Audit name -> one-line description; each name is also a notebook in notebooks/audits/.
AUDITS: dict[str, str] = {
    "org_overview": "Accounts by role, channels, messages per channel; inactive channels, guests",
}
