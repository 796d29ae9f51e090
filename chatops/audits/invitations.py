"""Invitations: risky reusable links and email invitations still waiting to be accepted.

An active invitation is risky when it

- never expires (``expiry_date`` is null),
- grants a powerful role (``flag_roles``: owner 100, administrator 200, moderator 300),
- was created by a deactivated (or unknown) user, or
- expires more than ``max_expiry_days`` days after ``now``.

One threshold, with a default the demo organization passes:

- ``max_risky_invitations`` (5): fail when more invitations than this are risky; ``-1``
  switches the check off.

Each risky invitation's finding carries the call that revokes it (``DELETE
/invites/multiuse/{id}`` for a link, ``DELETE /invites/{id}`` for an email invitation), which
``chatops audit plan`` / ``chatops audit apply`` carry out; the audit itself only reads.

Three steps: :func:`fetch` reads the invitations and users; :func:`judge` (pure) flags each
invitation; :func:`conclude` turns that into findings, the table and the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import pandas as pd

from ..changes.kinds import RevokeInvitation
from ._common import api, crossed, finding, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Invite, User

__all__ = [
    "ROLE_NAMES",
    "Judged",
    "JudgedInvitation",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "invitations",
    "judge",
]

#: Role value -> name, as in ``invited_as``.
ROLE_NAMES = {100: "owner", 200: "administrator", 300: "moderator", 400: "member", 600: "guest"}


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`invitations`, checked (ValueError naming the one out of range)."""

    max_expiry_days: int = 30
    flag_roles: Sequence[int] | str = (100, 200, 300)
    max_risky_invitations: int = 5

    def __post_init__(self) -> None:
        if self.max_expiry_days < 0:
            raise ValueError(f"max_expiry_days must be at least 0, not {self.max_expiry_days}")

    @property
    def roles(self) -> list[int]:
        """The roles flagged (a notebook gives them as one comma-separated string)."""
        if isinstance(self.flag_roles, str):
            return [int(r) for r in self.flag_roles.split(",") if r.strip()]
        return list(self.flag_roles)


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    users: dict[int, User]
    #: the active invitations, by id
    invitations: list[Invite]


@dataclass(frozen=True)
class JudgedInvitation:
    """One invitation and what is risky about it (nothing: no flags)."""

    invitation: Invite
    creator: User | None
    flags: list[str]

    @property
    def subject(self) -> str:
        """``link 7`` or ``invite 8 (ada@example.org)``."""
        inv = self.invitation
        return f"link {inv.id}" if inv.is_multiuse else f"invite {inv.id} ({inv.email})"


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    now: pd.Timestamp
    invitations: list[JudgedInvitation]

    @property
    def risky(self) -> list[JudgedInvitation]:
        """The invitations with a flag."""
        return [i for i in self.invitations if i.flags]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        limit = self.options.max_risky_invitations
        return crossed("max_risky_invitations", limit, len(self.risky))


def invitations(
    client: Client,
    *,
    max_expiry_days: Annotated[
        int,
        Param("flag invitations still valid more than this many days from now", low=0),
    ] = 30,
    flag_roles: Annotated[
        Sequence[int] | str,
        Param(
            "comma-separated roles to flag (100 owner, 200 administrator, 300 moderator)",
        ),
    ] = (100, 200, 300),
    max_risky_invitations: Annotated[
        int,
        Param("fail when more invitations than this are risky (-1: off)", low=-1),
    ] = 5,
    now: datetime | None = None,
) -> AuditResult:
    """Fetch active invitations and users, and judge the invitations.

    Args:
        client: a client of an administrator (others see only their own invitations).
        max_expiry_days: flag invitations valid for more than this many days after ``now``.
        flag_roles: flag invitations granting one of these roles (or a comma-separated
            string of them, as a notebook parameter gives).
        max_risky_invitations: fail when more invitations than this are risky; ``-1``
            disables the check.
        now: the reference time for expiry; default the current time.

    Tables: ``invitations`` (one row per active invitation, with its flags).
    """
    options = Options(
        max_expiry_days=max_expiry_days,
        flag_roles=flag_roles,
        max_risky_invitations=max_risky_invitations,
    )
    return conclude(judge(fetch(client), options, now=utc(now)))


def fetch(client: Client) -> Read:
    """Read the users and the active invitations."""
    users = {u.user_id: u for u in client.users.list()}
    return Read(client.site, users, sorted(client.invitations.list(), key=lambda i: i.id))


def judge(read: Read, options: Options, *, now: pd.Timestamp) -> Judged:
    """Flag each invitation, as of ``now`` (an aware UTC time); no I/O."""
    horizon = now.timestamp() + options.max_expiry_days * 86400
    roles = options.roles
    judged: list[JudgedInvitation] = []
    for inv in read.invitations:
        creator = read.users.get(inv.invited_by_user_id)
        flags: list[str] = []
        if inv.expiry_date is None:
            flags.append("never expires")
        elif inv.expiry_date > horizon:
            days = (inv.expiry_date - now.timestamp()) / 86400
            flags.append(f"expires in {days:.0f} days (more than {options.max_expiry_days})")
        if inv.invited_as in roles:
            flags.append(f"grants the {_role(inv.invited_as)} role")
        if creator is None:
            flags.append(f"created by unknown user {inv.invited_by_user_id}")
        elif not creator.is_active:
            flags.append(f"created by deactivated user {creator.full_name}")
        judged.append(JudgedInvitation(inv, creator, flags))
    return Judged(read, options, now, judged)


def findings(judged: Judged) -> list[Finding]:
    """One finding per risky invitation, with the call that revokes it; the threshold's."""
    rows = [
        finding(
            "warning",
            i.subject,
            "; ".join(i.flags),
            "Revoke the invitation (send a new one with a short expiry if still wanted)",
            _revoke_call(i.invitation.id, i.invitation.is_multiuse),
        )
        for i in judged.risky
    ]
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "invitations",
                f"{len(judged.risky)} risky invitations; the threshold is "
                f"{judged.options.max_risky_invitations}",
                "Revoke the risky invitations listed",
                api(
                    "DELETE",
                    "/invites/{invite_id}",
                    or_=api("DELETE", "/invites/multiuse/{invite_id}"),
                ),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the table and the summary of a judgement."""
    rows = findings(judged)
    invites = judged.read.invitations
    roles = judged.options.roles
    table = pd.DataFrame(
        [
            {
                "id": i.invitation.id,
                "kind": "link" if i.invitation.is_multiuse else "email",
                "email": i.invitation.email,
                "invited_as": _role(i.invitation.invited_as),
                "created_by": (
                    i.creator.full_name if i.creator else str(i.invitation.invited_by_user_id)
                ),
                "creator_active": bool(i.creator and i.creator.is_active),
                "created_at": pd.Timestamp(i.invitation.invited, unit="s", tz="UTC"),
                "expires_at": (
                    pd.Timestamp(i.invitation.expiry_date, unit="s", tz="UTC")
                    if i.invitation.expiry_date is not None
                    else pd.NaT
                ),
                "flags": "; ".join(i.flags),
            }
            for i in judged.invitations
        ],
        columns=[
            "id",
            "kind",
            "email",
            "invited_as",
            "created_by",
            "creator_active",
            "created_at",
            "expires_at",
            "flags",
        ],
    ).set_index("id")
    summary = summary_of(
        "invitations",
        subjects=[i.subject for i in judged.invitations] + ["invitations"],
        failed=judged.failed,
        counts={
            "invitations": len(invites),
            "links": sum(1 for i in invites if i.is_multiuse),
            "email_invitations": sum(1 for i in invites if not i.is_multiuse),
            "never_expiring": sum(1 for i in invites if i.expiry_date is None),
            "powerful_roles": sum(1 for i in invites if i.invited_as in roles),
            "risky": len(judged.risky),
            "findings": len(rows),
        },
        thresholds={
            "max_risky_invitations": judged.options.max_risky_invitations,
            "max_expiry_days": judged.options.max_expiry_days,
            "flag_roles": roles,
        },
        site=judged.read.site,
        generated_at=judged.now.isoformat(),
    )
    return AuditResult.of(rows, summary=summary, tables={"invitations": table})


def _role(value: int) -> str:
    return ROLE_NAMES.get(value, str(value))


def _revoke_call(invite_id: int, multiuse: bool) -> RevokeInvitation:
    if multiuse:
        return RevokeInvitation(invite_id=invite_id, multiuse=True)
    return RevokeInvitation(invite_id=invite_id)
