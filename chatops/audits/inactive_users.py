"""Inactive users: active human accounts that sent no message in the last ``inactive_days`` days.

Each inactive account (of the judged ``roles``) is a finding whose recommended action is to
deactivate it (``DELETE /api/v1/users/{user_id}``, which also deactivates the bots it owns);
with ``dry_run=False`` the audit does that.

Activity is the messages the account running the audit can read (direct messages between
others are invisible to it, so run it as an administrator subscribed to the channels) and,
when the server reports presence, the last time each person was seen using a client
(``GET /realm/presence`` covers about the last two weeks): someone who reads without posting
is not inactive. Accounts
that joined less than ``inactive_days`` ago are ``new`` and not judged; the account running the
audit is never judged.

The judging is one threshold, a parameter with a default the demo organization passes:

- ``max_inactive_share`` (0.25): fail when a larger share of the judged accounts is inactive;
  ``-1`` disables it.

With ``include_bots`` the active bots are judged too, by their last message only (presence
does not describe a bot), whatever ``roles`` says: they form the ``bot`` row of the role x
status matrix, count in the inactive share, show their owner, and an inactive bot's call is
``DELETE /api/v1/bots/{bot_id}``. They cost no seat, so the savings leave them out.

Each account also shows the active invitations it created (``GET /invites``): they keep
working after the account is deactivated, so an inactive account's are listed with the calls
that revoke them. With ``seat_cost`` above 0 the summary gives the projected savings of
deactivating the inactive accounts (``seat_cost`` per account).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from .._exceptions import ApiError
from ..types import role_name
from ._common import DEFAULT_MAX_MESSAGES, api, finding, recent_messages, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import User

__all__ = ["inactive_users"]

logger = logging.getLogger(__name__)

USER_COLUMNS = (
    "full_name",
    "email",
    "role",
    "role_name",
    "is_bot",
    "bot_owner",
    "date_joined",
    "last_message_at",
    "last_seen_at",
    "messages",
    "owned_bots",
    "active_invitations",
    "status",
)
STATUSES = ("active", "inactive", "new")


def inactive_users(
    client: Client,
    *,
    inactive_days: Annotated[
        int,
        Param("an account is inactive when it sent no message in this many days", low=1),
    ] = 90,
    roles: Annotated[
        Sequence[int],
        Param(
            "comma-separated roles judged (100 owner, 200 admin, 300 moderator, 400"
            " member, 600 guest)",
        ),
    ] = (400, 600),
    max_inactive_share: Annotated[
        float,
        Param(
            "fail when a larger share of the judged accounts is inactive (-1: off)",
            off=-1,
            low=0,
            high=1,
        ),
    ] = 0.25,
    max_messages: Annotated[
        int,
        Param("fetch at most this many messages of history, newest first", low=1),
    ] = DEFAULT_MAX_MESSAGES,
    now: datetime | None = None,
    dry_run: Annotated[
        bool,
        Param("when False, deactivate every inactive account"),
    ] = True,
    seat_cost: Annotated[
        float,
        Param(
            "cost of one account per billing period, for projected savings (0: none)",
            low=0,
        ),
    ] = 0.0,
    include_bots: Annotated[
        bool,
        Param(
            'judge the active bots too, by their last message (a "bot" row in the matrix)',
        ),
    ] = False,
) -> AuditResult:
    """Find active humans of ``roles`` with no message in ``inactive_days``; deactivate unless dry.

    Args:
        client: a client of an administrator (deactivating needs one).
        inactive_days: an account is inactive when it sent no message in this many days.
        roles: role values judged (100 owner, 200 administrator, 300 moderator, 400 member,
            600 guest); other humans are counted in the tables only.
        max_inactive_share: fail above this share of inactive accounts among those judged;
            ``-1`` disables.
        max_messages: fetch at most this many messages of history, newest first.
        now: the end of the window; default the current time (UTC when naive).
        dry_run: when False, deactivate every inactive account (``DELETE /users/{id}``).
        seat_cost: what one account costs (per billing period); above 0 the summary and a
            finding give the projected savings. 0 leaves them out.
        include_bots: judge the active bots too, by their last message (``bot`` row).

    Tables: ``users`` (every active human, and bot with ``include_bots``, by user ID, with
    ``status`` active / inactive / new and the bot's owner), ``by_role`` (role x status
    counts of the judged roles, and of the bots).
    """
    if inactive_days < 1:
        raise ValueError(f"inactive_days must be at least 1, not {inactive_days}")
    if max_messages < 1:
        raise ValueError(f"max_messages must be at least 1, not {max_messages}")
    if seat_cost < 0:
        raise ValueError(f"seat_cost must be at least 0, not {seat_cost}")
    until = utc(now)
    cutoff = until - timedelta(days=inactive_days)
    judged_roles = sorted({int(r) for r in roles})

    me = client.users.me().user_id
    all_users = client.users.list()
    humans = [u for u in all_users if u.is_active and not u.is_bot and u.user_id != me]
    by_id = {u.user_id: u for u in all_users}
    bots = [u for u in all_users if include_bots and u.is_active and u.is_bot]
    owned: dict[int, int] = {}
    for u in all_users:
        if u.is_bot and u.is_active and u.bot_owner_id is not None:
            owned[u.bot_owner_id] = owned.get(u.bot_owner_id, 0) + 1

    messages, truncated = recent_messages(client, since=cutoff, until=until, limit=max_messages)
    lo, hi = cutoff.timestamp(), until.timestamp()
    sent_by: dict[int, int] = {}
    last_by: dict[int, int] = {}
    for m in messages:
        if lo <= m.timestamp < hi:
            sent_by[m.sender_id] = sent_by.get(m.sender_id, 0) + 1
            last_by[m.sender_id] = max(last_by.get(m.sender_id, 0), m.timestamp)

    seen = _last_seen(client, humans)
    records: list[dict[str, Any]] = []
    for u in [*humans, *bots]:
        joined = pd.Timestamp(u.date_joined) if u.date_joined else None
        if joined is not None:
            joined = joined.tz_localize("UTC") if joined.tzinfo is None else joined
        sent = sent_by.get(u.user_id, 0)
        last = pd.Timestamp(last_by[u.user_id], unit="s", tz="UTC") if sent else None
        seen_at = None if u.is_bot else seen.get(u.user_id)
        seen_in_window = seen_at is not None and lo <= seen_at < hi
        if sent or seen_in_window:
            status = "active"
        elif joined is not None and joined >= cutoff:
            status = "new"
        else:
            status = "inactive"
        records.append(
            {
                "user_id": u.user_id,
                "full_name": u.full_name,
                "email": u.email,
                "role": u.role,
                "role_name": role_name(u.role),
                "is_bot": u.is_bot,
                "bot_owner": _owner(u, by_id),
                "date_joined": joined,
                "last_message_at": last,
                "last_seen_at": (
                    pd.Timestamp(seen_at, unit="s", tz="UTC") if seen_at is not None else None
                ),
                "messages": sent,
                "owned_bots": owned.get(u.user_id, 0),
                "status": status,
            }
        )
    invites = _active_invitations(client)
    for record in records:
        record["active_invitations"] = len(invites.get(int(record["user_id"]), []))
    table = pd.DataFrame.from_records(records, columns=["user_id", *USER_COLUMNS])
    table = table.sort_values("user_id").set_index("user_id")
    in_roles = table[table["role"].isin(judged_roles) | table["is_bot"]]
    inactive = in_roles[in_roles["status"] == "inactive"]
    inactive_humans = inactive[~inactive["is_bot"].astype(bool)]
    judged = int((in_roles["status"] != "new").sum())
    share = len(inactive) / judged if judged else 0.0

    failed: list[str] = []
    rows: list[Finding] = []
    if max_inactive_share >= 0 and share > max_inactive_share:
        failed.append("max_inactive_share")
        rows.append(
            finding(
                "critical",
                "accounts",
                f"{len(inactive)} of {judged} accounts ({share:.0%}) sent no message in the last "
                f"{inactive_days} days; the threshold is {max_inactive_share:.0%}",
                "Review the inactive accounts below and deactivate those no longer needed",
                api("DELETE", "/users/{user_id}"),
            )
        )
    for user_id, r in inactive.iterrows():
        if r["is_bot"]:
            owner = f"owned by {r['bot_owner']} with" if r["bot_owner"] else "with no owner and"
            rows.append(
                finding(
                    "warning",
                    f"{r['full_name']} <{r['email']}>",
                    f"bot {owner} no message in the last {inactive_days} days",
                    "Deactivate the bot if it is no longer needed",
                    api("DELETE", f"/bots/{user_id}"),
                )
            )
            continue
        owned_bots = int(r["owned_bots"])
        note = f"; deactivating also deactivates {owned_bots} bots it owns" if owned_bots else ""
        rows.append(
            finding(
                "warning",
                f"{r['full_name']} <{r['email']}>",
                f"{r['role_name']} with no message and not seen in the last {inactive_days} "
                f"days{note}",
                "Deactivate the account if it is no longer needed",
                api("DELETE", f"/users/{user_id}"),
            )
        )
    rows.extend(_invitation_rows(inactive_humans, invites))
    savings = _savings(len(inactive_humans), seat_cost, inactive_days)
    rows.extend(savings[1])
    if truncated:
        rows.append(
            finding(
                "warning",
                "coverage",
                f"history fetch stopped at max_messages={max_messages} before the window start; "
                "some accounts may look inactive",
                "Raise max_messages for complete activity",
                api("GET", "/messages", anchor="newest"),
            )
        )

    deactivated: list[int] = []
    if not dry_run:
        # people first: deactivating a person deactivates the bots they own
        for user_id in inactive_humans.index:
            client.users.deactivate(int(user_id))
            deactivated.append(int(user_id))
        for user_id in inactive.index.difference(inactive_humans.index):
            if by_id[int(user_id)].bot_owner_id not in deactivated:
                client.bots.deactivate(int(user_id))
            deactivated.append(int(user_id))

    row_names = in_roles["role_name"].where(~in_roles["is_bot"].astype(bool), "bot")
    by_role = (
        pd.crosstab(row_names, in_roles["status"])
        .reindex(columns=list(STATUSES), fill_value=0)
        .rename_axis(index="role", columns=None)
    )
    by_role = by_role[by_role.sum(axis=1) > 0]
    counts = {
        "active_humans": len(humans),
        "active_bots": len(bots),
        "judged": judged,
        "inactive": len(inactive),
        "inactive_bots": len(inactive) - len(inactive_humans),
        "new": int((in_roles["status"] == "new").sum()),
        "invitations_of_inactive": sum(len(invites.get(int(i), [])) for i in inactive.index),
        "deactivated": len(deactivated),
        "messages_fetched": len(messages),
        "seen_without_messages": int(
            ((table["messages"] == 0) & (table["status"] == "active")).sum()
        ),
        "findings": len(rows),
    }
    summary = summary_of(
        "inactive_users",
        # every account judged (an invitation's finding is about its creator); the threshold's
        # "accounts", the savings' "seats" and the history's "coverage" are always there
        subjects=[f"{r['full_name']} <{r['email']}>" for r in records]
        + ["accounts", "seats", "coverage"],
        failed=failed,
        counts=counts,
        ratios={"inactive_share": share},
        thresholds={"max_inactive_share": max_inactive_share},
        options={
            "inactive_days": inactive_days,
            "roles": judged_roles,
            "include_bots": include_bots,
            "dry_run": dry_run,
        },
        savings=savings[0],
        inactive_user_ids=[int(i) for i in inactive.index],
        deactivated_user_ids=deactivated,
        window={"days": inactive_days, "since": cutoff.isoformat(), "until": until.isoformat()},
        truncated=truncated,
        site=client.site,
        generated_at=datetime.now(UTC).isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"users": table, "by_role": by_role},
    )


def _owner(user: User, by_id: Mapping[int, User]) -> str:
    """A bot's owner as shown: the name, ``(deactivated)`` when so; empty for people."""
    if not user.is_bot or user.bot_owner_id is None:
        return ""
    owner = by_id.get(user.bot_owner_id)
    if owner is None:
        return f"user {user.bot_owner_id}"
    return owner.full_name + ("" if owner.is_active else " (deactivated)")


def _last_seen(client: Client, humans: Sequence[Any]) -> dict[int, int]:
    """``{user_id: last time seen}`` from the server's presence; empty when it has none."""
    try:
        presence = client.users.realm_presence()
    except ApiError as exc:
        logger.info("no presence from the server (%s); judging by messages only", exc.code)
        return {}
    by_email = {u.email: u.user_id for u in humans}
    return {
        by_email[email]: entry.timestamp
        for email, entry in presence.legacy().items()
        if email in by_email
    }


def _active_invitations(client: Client) -> dict[int, list[tuple[int, bool]]]:
    """Creator's user ID -> (invitation ID, is a link) of each active invitation."""
    out: dict[int, list[tuple[int, bool]]] = {}
    for invite in sorted(client.invitations.list(), key=lambda i: i.id):
        out.setdefault(invite.invited_by_user_id, []).append((invite.id, invite.is_multiuse))
    return out


def _invitation_rows(
    inactive: pd.DataFrame, invites: dict[int, list[tuple[int, bool]]]
) -> list[Finding]:
    """One finding per active invitation created by an inactive account: revoke it."""
    rows: list[Finding] = []
    for user_id, r in inactive.iterrows():
        for invite_id, link in invites.get(int(str(user_id)), []):
            kind = "link" if link else "invitation"
            path = f"/invites/multiuse/{invite_id}" if link else f"/invites/{invite_id}"
            rows.append(
                finding(
                    "warning",
                    f"{r['full_name']} <{r['email']}>",
                    f"inactive account created active {kind} {invite_id}, which outlives it",
                    f"Revoke the {kind} before deactivating the account",
                    api("DELETE", path),
                )
            )
    return rows


def _savings(
    inactive: int, seat_cost: float, days: int
) -> tuple[dict[str, float | int], list[Finding]]:
    """The summary's ``savings`` and, with a seat cost, an ``info`` finding saying them."""
    if seat_cost <= 0:
        return {}, []
    total = inactive * seat_cost
    summary = {"seat_cost": seat_cost, "inactive_accounts": inactive, "projected": total}
    if not inactive:
        return summary, []
    row = finding(
        "info",
        "seats",
        f"deactivating the {inactive} accounts inactive for {days} days saves {inactive} x "
        f"{seat_cost:g} = {total:g} per billing period",
        "Deactivate the inactive accounts listed",
        api("DELETE", "/users/{user_id}"),
    )
    return summary, [row]
