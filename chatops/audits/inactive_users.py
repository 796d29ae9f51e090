"""Inactive users: active human accounts that sent no message in the last ``inactive_days`` days.

Each inactive account (of the judged ``roles``) is a finding whose recommended action is to
deactivate it (``DELETE /api/v1/users/{user_id}``, which also deactivates the bots it owns);
``chatops audit plan`` / ``chatops audit apply`` carry that out. The audit itself only reads.

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

Three steps: :func:`fetch` reads the users, the history of the window, presence and the
invitations; :func:`judge` (pure) gives each account its status; :func:`conclude` turns that
into findings, tables and the summary.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from .._exceptions import ApiError
from ..changes.kinds import DeactivateBot, DeactivateUser, RevokeInvitation
from ..types import role_name
from ._common import DEFAULT_MAX_MESSAGES, api, crossed, finding, recent_messages, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Invite, Message, User

__all__ = [
    "JudgedAccount",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "inactive_users",
    "judge",
]

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


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`inactive_users`, checked (ValueError naming the one out of
    range)."""

    inactive_days: int = 90
    roles: Sequence[int] = (400, 600)
    max_inactive_share: float = 0.25
    max_messages: int = DEFAULT_MAX_MESSAGES
    seat_cost: float = 0.0
    include_bots: bool = False

    def __post_init__(self) -> None:
        if self.inactive_days < 1:
            raise ValueError(f"inactive_days must be at least 1, not {self.inactive_days}")
        if self.max_messages < 1:
            raise ValueError(f"max_messages must be at least 1, not {self.max_messages}")
        if self.seat_cost < 0:
            raise ValueError(f"seat_cost must be at least 0, not {self.seat_cost}")

    @property
    def judged_roles(self) -> list[int]:
        """The roles judged, as numbers, in order."""
        return sorted({int(r) for r in self.roles})


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    #: the account running the audit, never judged
    me: int
    users: list[User]
    #: the messages of the window the account can read, newest first
    messages: list[Message]
    #: whether ``max_messages`` cut the window short
    truncated: bool
    #: email -> when the person was last seen (empty: the server reports no presence)
    last_seen: dict[str, int]
    #: the active invitations
    invitations: list[Invite]


@dataclass(frozen=True)
class JudgedAccount:
    """One account judged: its activity in the window and its status."""

    user: User
    joined: pd.Timestamp | None
    #: messages sent in the window, and the time of the newest (None: none)
    messages: int
    last_message_at: pd.Timestamp | None
    last_seen: int | None
    #: ``active``, ``inactive`` or ``new``
    status: str
    #: a bot's owner as shown (``(deactivated)`` when so); empty for people
    bot_owner: str
    owned_bots: int
    #: (invitation id, is a link) of each active invitation it created
    invitations: list[tuple[int, bool]]

    @property
    def subject(self) -> str:
        """``Ada Lovelace <ada@example.org>``."""
        return f"{self.user.full_name} <{self.user.email}>"


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    until: pd.Timestamp
    #: every active human but the auditor, and the active bots with ``include_bots``, by id
    accounts: list[JudgedAccount]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        return crossed("max_inactive_share", self.options.max_inactive_share, self.share)

    @property
    def cutoff(self) -> pd.Timestamp:
        """The start of the window."""
        return self.until - timedelta(days=self.options.inactive_days)

    @property
    def in_roles(self) -> list[JudgedAccount]:
        """The accounts of the judged roles, and the bots."""
        roles = self.options.judged_roles
        return [a for a in self.accounts if a.user.role in roles or a.user.is_bot]

    @property
    def inactive(self) -> list[JudgedAccount]:
        """The inactive accounts of the judged roles (and bots), by id."""
        return [a for a in self.in_roles if a.status == "inactive"]

    @property
    def inactive_humans(self) -> list[JudgedAccount]:
        """The inactive people (they cost a seat)."""
        return [a for a in self.inactive if not a.user.is_bot]

    @property
    def judged_count(self) -> int:
        """How many accounts are judged (the new ones are not)."""
        return sum(a.status != "new" for a in self.in_roles)

    @property
    def share(self) -> float:
        """The share of the judged accounts that is inactive."""
        judged = self.judged_count
        return len(self.inactive) / judged if judged else 0.0


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
    """Find active humans of ``roles`` with no message in ``inactive_days``.

    Args:
        client: a client of an administrator.
        inactive_days: an account is inactive when it sent no message in this many days.
        roles: role values judged (100 owner, 200 administrator, 300 moderator, 400 member,
            600 guest); other humans are counted in the tables only.
        max_inactive_share: fail above this share of inactive accounts among those judged;
            ``-1`` disables.
        max_messages: fetch at most this many messages of history, newest first.
        now: the end of the window; default the current time (UTC when naive).
        seat_cost: what one account costs (per billing period); above 0 the summary and a
            finding give the projected savings. 0 leaves them out.
        include_bots: judge the active bots too, by their last message (``bot`` row).

    Tables: ``users`` (every active human, and bot with ``include_bots``, by user ID, with
    ``status`` active / inactive / new and the bot's owner), ``by_role`` (role x status
    counts of the judged roles, and of the bots).
    """
    options = Options(
        inactive_days=inactive_days,
        roles=roles,
        max_inactive_share=max_inactive_share,
        max_messages=max_messages,
        seat_cost=seat_cost,
        include_bots=include_bots,
    )
    until = utc(now)
    return conclude(judge(fetch(client, options, until=until), options, until=until))


def fetch(client: Client, options: Options, *, until: pd.Timestamp) -> Read:
    """Read the users, the window's history, presence and the active invitations."""
    me = client.users.me().user_id
    users = client.users.list()
    cutoff = until - timedelta(days=options.inactive_days)
    messages, truncated = recent_messages(
        client, since=cutoff, until=until, limit=options.max_messages
    )
    try:
        presence = client.users.realm_presence()
    except ApiError as exc:
        logger.info("no presence from the server (%s); judging by messages only", exc.code)
        last_seen: dict[str, int] = {}
    else:
        last_seen = {email: entry.timestamp for email, entry in presence.legacy().items()}
    invites = client.invitations.list()
    return Read(client.site, me, users, messages, truncated, last_seen, invites)


def judge(read: Read, options: Options, *, until: pd.Timestamp) -> Judged:
    """Give each account its status as of ``until`` (an aware UTC time); no I/O."""
    cutoff = until - timedelta(days=options.inactive_days)
    users = read.users
    humans = [u for u in users if u.is_active and not u.is_bot and u.user_id != read.me]
    by_id = {u.user_id: u for u in users}
    bots = [u for u in users if options.include_bots and u.is_active and u.is_bot]
    owned: dict[int, int] = {}
    for u in users:
        if u.is_bot and u.is_active and u.bot_owner_id is not None:
            owned[u.bot_owner_id] = owned.get(u.bot_owner_id, 0) + 1
    lo, hi = cutoff.timestamp(), until.timestamp()
    sent_by: dict[int, int] = {}
    last_by: dict[int, int] = {}
    for m in read.messages:
        if lo <= m.timestamp < hi:
            sent_by[m.sender_id] = sent_by.get(m.sender_id, 0) + 1
            last_by[m.sender_id] = max(last_by.get(m.sender_id, 0), m.timestamp)
    seen = {u.user_id: read.last_seen[u.email] for u in humans if u.email in read.last_seen}
    invites: dict[int, list[tuple[int, bool]]] = {}
    for invite in sorted(read.invitations, key=lambda i: i.id):
        invites.setdefault(invite.invited_by_user_id, []).append((invite.id, invite.is_multiuse))
    accounts: list[JudgedAccount] = []
    for u in sorted([*humans, *bots], key=lambda x: x.user_id):
        joined = pd.Timestamp(u.date_joined) if u.date_joined else None
        if joined is not None:
            joined = joined.tz_localize("UTC") if joined.tzinfo is None else joined
        sent = sent_by.get(u.user_id, 0)
        seen_at = None if u.is_bot else seen.get(u.user_id)
        if sent or (seen_at is not None and lo <= seen_at < hi):
            status = "active"
        elif joined is not None and joined >= cutoff:
            status = "new"
        else:
            status = "inactive"
        accounts.append(
            JudgedAccount(
                user=u,
                joined=joined,
                messages=sent,
                last_message_at=(
                    pd.Timestamp(last_by[u.user_id], unit="s", tz="UTC") if sent else None
                ),
                last_seen=seen_at,
                status=status,
                bot_owner=_owner(u, by_id),
                owned_bots=owned.get(u.user_id, 0),
                invitations=invites.get(u.user_id, []),
            )
        )
    return Judged(read, options, until, accounts)


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that fixes it."""
    options = judged.options
    days = options.inactive_days
    rows: list[Finding] = []
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "accounts",
                f"{len(judged.inactive)} of {judged.judged_count} accounts ({judged.share:.0%}) "
                f"sent no message in the last {days} days; the threshold is "
                f"{options.max_inactive_share:.0%}",
                "Review the inactive accounts below and deactivate those no longer needed",
                api("DELETE", "/users/{user_id}"),
            )
        )
    for a in judged.inactive:
        if a.user.is_bot:
            owner = f"owned by {a.bot_owner} with" if a.bot_owner else "with no owner and"
            rows.append(
                finding(
                    "warning",
                    a.subject,
                    f"bot {owner} no message in the last {days} days",
                    "Deactivate the bot if it is no longer needed",
                    DeactivateBot(user_id=a.user.user_id),
                )
            )
            continue
        note = (
            f"; deactivating also deactivates {a.owned_bots} bots it owns" if a.owned_bots else ""
        )
        rows.append(
            finding(
                "warning",
                a.subject,
                f"{role_name(a.user.role)} with no message and not seen in the last {days} "
                f"days{note}",
                "Deactivate the account if it is no longer needed",
                DeactivateUser(user_id=a.user.user_id),
            )
        )
    rows.extend(_invitation_rows(judged.inactive_humans))
    humans = len(judged.inactive_humans)
    if options.seat_cost > 0 and humans:
        total = humans * options.seat_cost
        rows.append(
            finding(
                "info",
                "seats",
                f"deactivating the {humans} accounts inactive for {days} days saves {humans} x "
                f"{options.seat_cost:g} = {total:g} per billing period",
                "Deactivate the inactive accounts listed",
                api("DELETE", "/users/{user_id}"),
            )
        )
    if judged.read.truncated:
        rows.append(
            finding(
                "warning",
                "coverage",
                f"history fetch stopped at max_messages={options.max_messages} before the "
                "window start; some accounts may look inactive",
                "Raise max_messages for complete activity",
                api("GET", "/messages", anchor="newest"),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    options, read = judged.options, judged.read
    table = _users_table(judged.accounts)
    in_roles = table[table["role"].isin(options.judged_roles) | table["is_bot"]]
    row_names = in_roles["role_name"].where(~in_roles["is_bot"].astype(bool), "bot")
    by_role = (
        pd.crosstab(row_names, in_roles["status"])
        .reindex(columns=list(STATUSES), fill_value=0)
        .rename_axis(index="role", columns=None)
    )
    by_role = by_role[by_role.sum(axis=1) > 0]
    inactive = judged.inactive
    humans = len(judged.inactive_humans)
    counts = {
        "active_humans": sum(not a.user.is_bot for a in judged.accounts),
        "active_bots": sum(a.user.is_bot for a in judged.accounts),
        "judged": judged.judged_count,
        "inactive": len(inactive),
        "inactive_bots": len(inactive) - humans,
        "new": sum(a.status == "new" for a in judged.in_roles),
        "invitations_of_inactive": sum(len(a.invitations) for a in inactive),
        "messages_fetched": len(read.messages),
        "seen_without_messages": int(
            ((table["messages"] == 0) & (table["status"] == "active")).sum()
        ),
        "findings": len(rows),
    }
    savings: dict[str, float | int] = {}
    if options.seat_cost > 0:
        savings = {
            "seat_cost": options.seat_cost,
            "inactive_accounts": humans,
            "projected": humans * options.seat_cost,
        }
    summary = summary_of(
        "inactive_users",
        # every account judged (an invitation's finding is about its creator); the threshold's
        # "accounts", the savings' "seats" and the history's "coverage" are always there
        subjects=[a.subject for a in judged.accounts] + ["accounts", "seats", "coverage"],
        failed=judged.failed,
        counts=counts,
        ratios={"inactive_share": judged.share},
        thresholds={"max_inactive_share": options.max_inactive_share},
        options={
            "inactive_days": options.inactive_days,
            "roles": options.judged_roles,
            "include_bots": options.include_bots,
        },
        savings=savings,
        inactive_user_ids=[a.user.user_id for a in inactive],
        window={
            "days": options.inactive_days,
            "since": judged.cutoff.isoformat(),
            "until": judged.until.isoformat(),
        },
        truncated=read.truncated,
        site=read.site,
    )
    return AuditResult.of(rows, summary=summary, tables={"users": table, "by_role": by_role})


def _users_table(accounts: list[JudgedAccount]) -> pd.DataFrame:
    records: list[dict[str, Any]] = [
        {
            "user_id": a.user.user_id,
            "full_name": a.user.full_name,
            "email": a.user.email,
            "role": a.user.role,
            "role_name": role_name(a.user.role),
            "is_bot": a.user.is_bot,
            "bot_owner": a.bot_owner,
            "date_joined": a.joined,
            "last_message_at": a.last_message_at,
            "last_seen_at": (
                pd.Timestamp(a.last_seen, unit="s", tz="UTC") if a.last_seen is not None else None
            ),
            "messages": a.messages,
            "owned_bots": a.owned_bots,
            "active_invitations": len(a.invitations),
            "status": a.status,
        }
        for a in accounts
    ]
    table = pd.DataFrame.from_records(records, columns=["user_id", *USER_COLUMNS])
    return table.sort_values("user_id").set_index("user_id")


def _owner(user: User, by_id: Mapping[int, User]) -> str:
    """A bot's owner as shown: the name, ``(deactivated)`` when so; empty for people."""
    if not user.is_bot or user.bot_owner_id is None:
        return ""
    owner = by_id.get(user.bot_owner_id)
    if owner is None:
        return f"user {user.bot_owner_id}"
    return owner.full_name + ("" if owner.is_active else " (deactivated)")


def _invitation_rows(inactive: list[JudgedAccount]) -> list[Finding]:
    """One finding per active invitation created by an inactive account: revoke it."""
    rows: list[Finding] = []
    for a in inactive:
        for invite_id, link in a.invitations:
            kind = "link" if link else "invitation"
            rows.append(
                finding(
                    "warning",
                    a.subject,
                    f"inactive account created active {kind} {invite_id}, which outlives it",
                    f"Revoke the {kind} before deactivating the account",
                    RevokeInvitation(invite_id=invite_id, multiuse=link),
                )
            )
    return rows
