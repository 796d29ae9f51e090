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
from .bots import bots
from .inactive_users import inactive_users
from .invitations import invitations
from .overview import org_overview
from .stale_channels import stale_channels
from .unresolved_topics import unresolved_topics
from .user_groups import user_groups

__all__ = [
    "AUDITS",
    "FINDING_COLUMNS",
    "SEVERITIES",
    "AuditResult",
    "AuditSession",
    "bots",
    "findings_frame",
    "inactive_users",
    "invitations",
    "open_session",
    "org_overview",
    "stale_channels",
    "unresolved_topics",
    "user_groups",
    "write_summary",
]

#: Audit name -> one-line description; each name is also a notebook in notebooks/audits/.
AUDITS: dict[str, str] = {
    "inactive_users": "Active humans with no message in inactive_days, by role; deactivate them",
    "org_overview": "Accounts by role, channels, messages per channel; inactive channels, guests",
    "stale_channels": "Non-archived channels with no message in inactive_days; archive them",
    "unresolved_topics": "Unresolved topics idle for older_than_days, backlog per channel; resolve",
    "user_groups": "Groups that are empty, only deactivated members, or unused by any setting",
    "invitations": "Never-expiring, powerful-role, orphaned or long-lived invitations; revoke",
    "bots": "Active bots whose owner is deactivated or missing, and bots silent for stale_days",
}
