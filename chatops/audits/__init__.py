"""Audits: plain functions over a client that fetch, judge and return an :class:`AuditResult`.

Audits only read. Each finding carries the typed API call that would fix it; ``chatops audit
plan`` turns those calls into a plan and ``chatops audit apply`` carries it out
(:func:`plan_calls` shows what that plan would hold).

Each audit module (``chatops/audits/<name>.py``, or a package where it is long) is the same
three steps, called in order by its public function: ``fetch(client, ...)`` makes every request
and returns a ``Read`` dataclass of what was read; ``judge(read, options, ...)`` is pure (no
client, no I/O) and returns the ``Judged`` records; ``conclude(judged)`` turns them into the
findings (``findings(judged)``), tables and summary. ``Options`` holds the checked parameters.

Each audit has a notebook of the same name in ``notebooks/audits/`` that papermill runs
(``chatops audit run NAME``); the notebook only shows what the function returns.

    >>> from chatops.audits import org_overview
    >>> result = org_overview(client, days=30)
    >>> result.passed, result.summary["counts"]["inactive_channels"]
    (True, 0)
"""

from __future__ import annotations

from collections.abc import Callable

from ._planned import PLAN_COLUMNS, plan_calls
from ._result import (
    FINDING_COLUMNS,
    SEVERITIES,
    ApiCall,
    AuditResult,
    AuditSummary,
    Finding,
    Severity,
    Status,
    findings_frame,
    write_summary,
)
from ._session import AuditSession, open_session, parse_as_of
from .bots import bots
from .channel_hygiene import channel_hygiene
from .guest_access import guest_access
from .inactive_users import inactive_users
from .invitations import invitations
from .linkifiers import linkifiers
from .moderation_activity import moderation_activity
from .org_drift import org_drift
from .overview import org_overview
from .permission_posture import permission_posture
from .scheduled_and_reminders import scheduled_and_reminders
from .stale_channels import stale_channels
from .unresolved_topics import unresolved_topics
from .uploads import uploads
from .user_groups import user_groups

__all__ = [
    "AUDITS",
    "AUDIT_FUNCTIONS",
    "FINDING_COLUMNS",
    "PLAN_COLUMNS",
    "SEVERITIES",
    "ApiCall",
    "AuditResult",
    "AuditSummary",
    "Finding",
    "Severity",
    "Status",
    "AuditSession",
    "bots",
    "channel_hygiene",
    "findings_frame",
    "guest_access",
    "inactive_users",
    "invitations",
    "linkifiers",
    "org_drift",
    "moderation_activity",
    "open_session",
    "org_overview",
    "parse_as_of",
    "permission_posture",
    "plan_calls",
    "scheduled_and_reminders",
    "stale_channels",
    "unresolved_topics",
    "uploads",
    "user_groups",
    "write_summary",
]

#: Audit name -> its function; each declares its parameters in its signature (``_params.Param``).
AUDIT_FUNCTIONS: dict[str, Callable[..., AuditResult]] = {
    "bots": bots,
    "channel_hygiene": channel_hygiene,
    "guest_access": guest_access,
    "inactive_users": inactive_users,
    "invitations": invitations,
    "linkifiers": linkifiers,
    "moderation_activity": moderation_activity,
    "org_drift": org_drift,
    "org_overview": org_overview,
    "permission_posture": permission_posture,
    "scheduled_and_reminders": scheduled_and_reminders,
    "stale_channels": stale_channels,
    "unresolved_topics": unresolved_topics,
    "uploads": uploads,
    "user_groups": user_groups,
}

#: Audit name -> one-line description; each name is also a notebook in notebooks/audits/.
AUDITS: dict[str, str] = {
    "inactive_users": "Active humans with no message in inactive_days, by role; deactivate them",
    "org_overview": "Accounts by role, channels, messages per channel; inactive channels, guests",
    "stale_channels": "Non-archived channels with no message in inactive_days; archive them",
    "unresolved_topics": "Unresolved topics idle for older_than_days, backlog per channel; resolve",
    "user_groups": "Groups that are empty, only deactivated members, or unused by any setting",
    "invitations": "Never-expiring, powerful-role, orphaned or long-lived invitations; revoke",
    "bots": "Active bots whose owner is deactivated or missing, and bots silent for stale_days",
    "channel_hygiene": "Channels lacking description or folder, badly named, near-duplicate, empty",
    "scheduled_and_reminders": "Failed, overdue or misaddressed scheduled messages and reminders",
    "moderation_activity": "Edits, topic renames and channel moves by user over days; busy movers",
    "guest_access": "Guests in many, private or default channels; whether guests see all users",
    "permission_posture": "Who each group-valued setting reaches; sensitive ones reaching guests",
    "linkifiers": "Linkifiers not compiling in RE2, mismatched templates, backtracking, overlaps",
    "uploads": "Own unlinked or large uploads; files shared in messages, storage (coverage noted)",
    "org_drift": "Where the organization differs from its organization file; put it back",
}
