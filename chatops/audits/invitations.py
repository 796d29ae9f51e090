"""Invitations: risky reusable links and email invitations still waiting to be accepted.

An active invitation is risky when it

- never expires (``expiry_date`` is null),
- grants a powerful role (``flag_roles``: owner 100, administrator 200, moderator 300),
- was created by a deactivated (or unknown) user, or
- expires more than ``max_expiry_days`` days after ``now``.

One threshold, with a default the demo organization passes:

- ``max_risky_invitations`` (5): fail when more invitations than this are risky; ``-1``
  switches the check off.

With ``dry_run=False`` every risky invitation is revoked (``DELETE /invites/multiuse/{id}``
for a link, ``DELETE /invites/{id}`` for an email invitation).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ._common import api, finding, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import ApiCall, AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["ROLE_NAMES", "invitations"]

#: Role value -> name, as in ``invited_as``.
ROLE_NAMES = {100: "owner", 200: "administrator", 300: "moderator", 400: "member", 600: "guest"}


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
    dry_run: Annotated[
        bool,
        Param("when False, revoke every risky invitation"),
    ] = True,
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
        dry_run: when False, revoke every risky invitation.

    Tables: ``invitations`` (one row per active invitation, with its flags).
    """
    if max_expiry_days < 0:
        raise ValueError(f"max_expiry_days must be at least 0, not {max_expiry_days}")
    if isinstance(flag_roles, str):
        flag_roles = [int(r) for r in flag_roles.split(",") if r.strip()]
    at = utc(now)
    horizon = at.timestamp() + max_expiry_days * 86400
    users = {u.user_id: u for u in client.users.list()}
    invites = sorted(client.invitations.list(), key=lambda i: i.id)

    table_rows: list[dict[str, Any]] = []
    rows: list[Finding] = []
    risky: list[tuple[int, bool]] = []
    for inv in invites:
        creator = users.get(inv.invited_by_user_id)
        role = ROLE_NAMES.get(inv.invited_as, str(inv.invited_as))
        flags: list[str] = []
        if inv.expiry_date is None:
            flags.append("never expires")
        elif inv.expiry_date > horizon:
            days = (inv.expiry_date - at.timestamp()) / 86400
            flags.append(f"expires in {days:.0f} days (more than {max_expiry_days})")
        if inv.invited_as in flag_roles:
            flags.append(f"grants the {role} role")
        if creator is None:
            flags.append(f"created by unknown user {inv.invited_by_user_id}")
        elif not creator.is_active:
            flags.append(f"created by deactivated user {creator.full_name}")
        kind = "link" if inv.is_multiuse else "email"
        table_rows.append(
            {
                "id": inv.id,
                "kind": kind,
                "email": inv.email,
                "invited_as": role,
                "created_by": creator.full_name if creator else str(inv.invited_by_user_id),
                "creator_active": bool(creator and creator.is_active),
                "created_at": pd.Timestamp(inv.invited, unit="s", tz="UTC"),
                "expires_at": (
                    pd.Timestamp(inv.expiry_date, unit="s", tz="UTC")
                    if inv.expiry_date is not None
                    else pd.NaT
                ),
                "flags": "; ".join(flags),
            }
        )
        if not flags:
            continue
        risky.append((inv.id, inv.is_multiuse))
        subject = f"link {inv.id}" if inv.is_multiuse else f"invite {inv.id} ({inv.email})"
        rows.append(
            finding(
                "warning",
                subject,
                "; ".join(flags),
                "Revoke the invitation (send a new one with a short expiry if still wanted)",
                _revoke_call(inv.id, inv.is_multiuse),
            )
        )

    failed: list[str] = []
    if max_risky_invitations >= 0 and len(risky) > max_risky_invitations:
        failed.append("max_risky_invitations")
        rows.append(
            finding(
                "critical",
                "invitations",
                f"{len(risky)} risky invitations; the threshold is {max_risky_invitations}",
                "Revoke the risky invitations listed",
                api(
                    "DELETE",
                    "/invites/{invite_id}",
                    or_=api("DELETE", "/invites/multiuse/{invite_id}"),
                ),
            )
        )

    revoked: list[int] = []
    if not dry_run:
        for invite_id, multiuse in risky:
            if multiuse:
                client.invitations.revoke_link(invite_id)
            else:
                client.invitations.revoke(invite_id)
            revoked.append(invite_id)

    table = pd.DataFrame(
        table_rows,
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
        subjects=[
            f"link {i.id}" if i.is_multiuse else f"invite {i.id} ({i.email})" for i in invites
        ]
        + ["invitations"],
        failed=failed,
        counts={
            "invitations": len(invites),
            "links": sum(1 for i in invites if i.is_multiuse),
            "email_invitations": sum(1 for i in invites if not i.is_multiuse),
            "never_expiring": sum(1 for i in invites if i.expiry_date is None),
            "powerful_roles": sum(1 for i in invites if i.invited_as in flag_roles),
            "risky": len(risky),
            "findings": len(rows),
            "revoked_now": len(revoked),
        },
        thresholds={
            "max_risky_invitations": max_risky_invitations,
            "max_expiry_days": max_expiry_days,
            "flag_roles": list(flag_roles),
        },
        dry_run=dry_run,
        revoked_invite_ids=revoked,
        site=client.site,
        generated_at=at.isoformat(),
    )
    return AuditResult.of(rows, summary=summary, tables={"invitations": table})


def _revoke_call(invite_id: int, multiuse: bool) -> ApiCall:
    if multiuse:
        return api("DELETE", f"/invites/multiuse/{invite_id}")
    return api("DELETE", f"/invites/{invite_id}")
