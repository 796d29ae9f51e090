"""Scheduled messages and reminders that will not be delivered as meant.

``GET /scheduled_messages`` and ``GET /reminders`` list only the calling account's own items,
and the API has no organization-wide listing. So the audit reads the items of each account it
is given a key for (the client's, and one per extra zuliprc file), and the summary's
``coverage`` names those accounts and says that everyone else's items are invisible to it.

An item is flagged when it:

- ``failed``: the server tried to send it and could not;
- is overdue: its delivery time is more than ten minutes past (the server may deliver that
  late) and it is still listed;
- is addressed to an archived channel, a channel that does not exist, or direct-message
  recipients who are deactivated (scheduled messages).

One threshold, with a default the demo organization passes (it holds one failed message):

- ``max_undeliverable`` (1): fail when more items than this are flagged; ``-1`` switches the
  check off.

A failed item's finding carries the call that deletes it (``DELETE
/api/v1/scheduled_messages/{id}``, ``DELETE /api/v1/reminders/{id}``); only its owner's key
can make that call. The other findings' calls need a person's choice (a new time, another
channel), except that dropping deactivated recipients names the active ones left. The audit
itself only reads.

Three steps: :func:`fetch` reads the users, the channels and each account's items;
:func:`judge` (pure) flags each item and picks its fix; :func:`conclude` turns that into
findings, the table and the summary.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from .._exceptions import ApiError, ChatopsError
from ._common import api, crossed, fill, finding, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import ApiCall, AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Channel, Reminder, ScheduledMessage, User

__all__ = [
    "LATE_GRACE_SECONDS",
    "Account",
    "JudgedItem",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "judge",
    "scheduled_and_reminders",
]

#: the server still delivers an item up to this late; later it is overdue
LATE_GRACE_SECONDS = 600
TABLE_COLUMNS = (
    "kind",
    "id",
    "owner",
    "owner_id",
    "type",
    "to",
    "topic",
    "scheduled_at",
    "failed",
    "flags",
)
NOT_VISIBLE = (
    "scheduled messages and reminders of every other account: GET /scheduled_messages and "
    "GET /reminders return only the caller's own items, and the API has no organization-wide "
    "listing"
)


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`scheduled_and_reminders`, checked (ValueError naming the one
    out of range)."""

    zuliprcs: str | Sequence[str | os.PathLike[str]] = ""
    max_undeliverable: int = 1

    def __post_init__(self) -> None:
        if self.max_undeliverable < -1:
            raise ValueError(
                f"max_undeliverable must be -1 (off) or at least 0, not {self.max_undeliverable}"
            )


@dataclass(frozen=True)
class Account:
    """One account whose items were read."""

    user: User
    scheduled_messages: list[ScheduledMessage]
    #: None: the server would not list its reminders
    reminders: list[Reminder] | None

    @property
    def owner(self) -> str:
        """``Ada Lovelace (ada@example.org)``."""
        return f"{self.user.full_name} ({self.user.email})"


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    users: dict[int, User]
    #: every channel, archived ones too, by id
    channels: dict[int, Channel]
    #: the client's account, then one per zuliprc, each once
    accounts: list[Account]
    #: ``<zuliprc>: <why>`` of each zuliprc whose account could not be read
    unread: list[str]


@dataclass(frozen=True)
class JudgedItem:
    """A scheduled message or a reminder, judged."""

    kind: str  # "scheduled message" or "reminder"
    id: int
    account: Account
    #: ``channel`` or ``direct``, and to whom in words
    type: str
    to: str
    topic: str | None
    scheduled: int
    failed: bool
    flags: list[str]
    #: the call that fixes it first, and the advice (None and "": nothing to fix)
    call: ApiCall | None
    action: str

    @property
    def subject(self) -> str:
        """``scheduled message 7 of Ada Lovelace (ada@example.org)``."""
        return f"{self.kind} {self.id} of {self.account.owner}"


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    at: pd.Timestamp
    #: every item, account by account, its scheduled messages before its reminders
    items: list[JudgedItem]

    @property
    def flagged(self) -> list[JudgedItem]:
        """The items that will not be delivered as meant."""
        return [i for i in self.items if i.flags]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        return crossed("max_undeliverable", self.options.max_undeliverable, len(self.flagged))


def scheduled_and_reminders(
    client: Client,
    *,
    zuliprcs: Annotated[
        str | Sequence[str | os.PathLike[str]],
        Param(
            "comma-separated zuliprc paths of more accounts (people, bots) whose items to audit",
        ),
    ] = "",
    max_undeliverable: Annotated[
        int,
        Param(
            "fail when more items than this are failed, overdue or misaddressed (-1: off)",
            low=-1,
        ),
    ] = 1,
    now: datetime | None = None,
) -> AuditResult:
    """Read each given account's scheduled messages and reminders, and judge them.

    Args:
        client: a client whose account's items are audited; an administrator's sees every
            channel and user, for naming targets.
        zuliprcs: more accounts to audit: zuliprc paths, as a list or one comma-separated
            string (the items of accounts without a key here stay invisible).
        max_undeliverable: fail when more items than this are failed, overdue or addressed
            to an archived channel or deactivated recipients; ``-1`` disables the check.
        now: the time against which items are overdue; default the current time.

    Tables: ``items`` (one row per scheduled message or reminder, with its flags).
    """
    options = Options(zuliprcs=zuliprcs, max_undeliverable=max_undeliverable)
    return conclude(judge(fetch(client, options), options, at=utc(now)))


def fetch(client: Client, options: Options) -> Read:
    """Read the users, the channels, and the items of the client's account and of each
    zuliprc's (ValueError naming a zuliprc that is not a file)."""
    paths = _paths(options.zuliprcs)
    users = {u.user_id: u for u in client.users.list()}
    channels = {
        c.stream_id: c for c in client.channels.list(include_all=True, exclude_archived=False)
    }
    accounts = [_items(client, client.users.me())]
    unread: list[str] = []
    for path in paths:
        _read_other(path, accounts, unread)
    return Read(client.site, users, channels, accounts, unread)


def judge(read: Read, options: Options, *, at: pd.Timestamp) -> Judged:
    """Flag each item as of ``at`` (an aware UTC time) and pick its fix; no I/O."""
    overdue_before = at.timestamp() - LATE_GRACE_SECONDS
    now = at.timestamp()
    items: list[JudgedItem] = []
    for account in read.accounts:
        for sm in account.scheduled_messages:
            flags, call, action = _judge_item(
                "scheduled message",
                sm.scheduled_message_id,
                sm.failed,
                sm.scheduled_delivery_timestamp,
                overdue_before,
                now,
                sm.to,
                sm.topic,
                read.channels,
                read.users,
            )
            items.append(
                JudgedItem(
                    kind="scheduled message",
                    id=sm.scheduled_message_id,
                    account=account,
                    type="channel" if isinstance(sm.to, int) else "direct",
                    to=_target(sm.to, read.channels, read.users),
                    topic=sm.topic,
                    scheduled=sm.scheduled_delivery_timestamp,
                    failed=sm.failed,
                    flags=flags,
                    call=call,
                    action=action,
                )
            )
        for rm in account.reminders or []:
            flags, call, action = _judge_item(
                "reminder",
                rm.reminder_id,
                rm.failed,
                rm.scheduled_delivery_timestamp,
                overdue_before,
                now,
                None,
                None,
                read.channels,
                read.users,
                target_message_id=rm.reminder_target_message_id,
            )
            items.append(
                JudgedItem(
                    kind="reminder",
                    id=rm.reminder_id,
                    account=account,
                    type="direct",
                    to=f"message {rm.reminder_target_message_id}",
                    topic=None,
                    scheduled=rm.scheduled_delivery_timestamp,
                    failed=rm.failed,
                    flags=flags,
                    call=call,
                    action=action,
                )
            )
    return Judged(read, options, at, items)


def findings(judged: Judged) -> list[Finding]:
    """One finding per flagged item, with the call that fixes it; the threshold's."""
    rows = [
        finding("warning", i.subject, "; ".join(i.flags), i.action, i.call) for i in judged.flagged
    ]
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "scheduled messages and reminders",
                f"{len(judged.flagged)} items will not be delivered as meant; the threshold is "
                f"{judged.options.max_undeliverable}",
                "Delete, re-time or re-address the items listed",
                api(
                    "DELETE",
                    "/scheduled_messages/{id}",
                    or_=api(
                        "PATCH",
                        "/scheduled_messages/{id}",
                        scheduled_delivery_timestamp=fill("{timestamp}"),
                    ),
                ),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the table and the summary of a judgement."""
    rows = findings(judged)
    read = judged.read
    table = pd.DataFrame(
        [
            {
                "kind": i.kind,
                "id": i.id,
                "owner": i.account.user.full_name,
                "owner_id": i.account.user.user_id,
                "type": i.type,
                "to": i.to,
                "topic": i.topic,
                "scheduled_at": pd.Timestamp(i.scheduled, unit="s", tz="UTC"),
                "failed": i.failed,
                "flags": "; ".join(i.flags),
            }
            for i in judged.items
        ],
        columns=list(TABLE_COLUMNS),
    )
    seen = {a.user.user_id for a in read.accounts}
    others = sum(
        1
        for u in read.users.values()
        if u.is_active and not u.is_system_bot and u.user_id not in seen
    )
    coverage: dict[str, Any] = {
        "accounts": [a.owner for a in read.accounts],
        "not_visible": NOT_VISIBLE,
        "other_active_accounts": others,
    }
    if read.unread:
        coverage["accounts_not_read"] = read.unread
    unavailable = [a.owner for a in read.accounts if a.reminders is None]
    if unavailable:
        coverage["reminders_not_read"] = unavailable
    kinds = table["kind"] if len(table) else pd.Series(dtype="string")
    summary = summary_of(
        "scheduled_and_reminders",
        # every item read (a sent or deleted one is no longer listed: gone) and the threshold's
        # words; an account whose reminders could not be read lists none of them this time
        subjects=[i.subject for i in judged.items] + ["scheduled messages and reminders"],
        failed=judged.failed,
        counts={
            "accounts": len(read.accounts),
            "scheduled_messages": int((kinds == "scheduled message").sum()),
            "reminders": int((kinds == "reminder").sum()),
            "failed": _count(table, "failed"),
            "overdue": _count(table, "overdue"),
            "archived_channel": _count(table, "archived channel"),
            "deactivated_recipients": _count(table, "deactivated"),
            "findings": len(judged.flagged),
        },
        thresholds={"max_undeliverable": judged.options.max_undeliverable},
        coverage=coverage,
        site=read.site,
        generated_at=judged.at.isoformat(),
    )
    return AuditResult.of(rows, summary=summary, tables={"items": table})


def _paths(zuliprcs: str | Sequence[str | os.PathLike[str]]) -> list[Path]:
    items = zuliprcs.split(",") if isinstance(zuliprcs, str) else list(zuliprcs)
    paths = [Path(os.fspath(p).strip()).expanduser() for p in items if os.fspath(p).strip()]
    for path in paths:
        if not path.is_file():
            raise ValueError(f"zuliprcs: {path} is not a file")
    return paths


def _items(client: Client, user: User) -> Account:
    """The scheduled messages and reminders of the client's account."""
    scheduled = client.scheduled_messages.list()
    try:
        reminders: list[Reminder] | None = client.reminders.list()
    except ApiError:
        reminders = None
    return Account(user, scheduled, reminders)


def _read_other(path: Path, accounts: list[Account], unread: list[str]) -> None:
    """Add the items of a zuliprc's account to ``accounts`` (once per account), or say in
    ``unread`` why they could not be read."""
    from .._client import Client

    try:
        other = Client.from_zuliprc(path)
    except ChatopsError as exc:
        unread.append(f"{path}: {exc}")
        return
    with other:
        try:
            me = other.users.me()
        except ChatopsError as exc:
            unread.append(f"{path}: {exc}")
            return
        if all(a.user.user_id != me.user_id for a in accounts):
            accounts.append(_items(other, me))


def _judge_item(
    kind: str,
    item_id: int,
    failed: bool,
    scheduled: int,
    overdue_before: float,
    now: float,
    to: int | list[int] | None,
    topic: str | None,
    channels: dict[int, Channel],
    users: dict[int, User],
    *,
    target_message_id: int | None = None,
) -> tuple[list[str], ApiCall | None, str]:
    """The flags of one item, and the call and action that fix it."""
    path = "scheduled_messages" if kind == "scheduled message" else "reminders"
    delete = api("DELETE", f"/{path}/{item_id}")
    flags: list[str] = []
    fixes: list[tuple[ApiCall, str]] = []
    if failed:
        flags.append("failed: the server could not send it")
        if kind == "reminder":
            fixes.append((delete, "Delete it, and set a new reminder if it is still wanted"))
        else:
            fixes.append(
                (
                    delete,
                    "Delete it, or give it a new time "
                    "(PATCH /scheduled_messages/{id} scheduled_delivery_timestamp)",
                )
            )
    elif scheduled < overdue_before:
        flags.append(f"overdue: due {_ago(now - scheduled)} ago and not delivered")
        if kind == "reminder":
            fixes.append(
                (
                    delete,
                    f"Delete it and set a new reminder "
                    f"(POST /reminders message_id={target_message_id})",
                )
            )
        else:
            fixes.append(
                (
                    api(
                        "PATCH",
                        f"/{path}/{item_id}",
                        scheduled_delivery_timestamp=fill("{timestamp}"),
                    ),
                    "Give it a new delivery time, or delete it",
                )
            )
    if isinstance(to, int):
        channel = channels.get(to)
        if channel is None:
            flags.append(f"channel {to} does not exist or is not visible")
        elif channel.is_archived:
            flags.append(f"addressed to the archived channel #{channel.name}")
        if channel is None or channel.is_archived:
            fixes.insert(
                0 if not failed else 1,
                (
                    api("PATCH", f"/{path}/{item_id}", to=fill("{stream_id}"), topic=topic or ""),
                    "Send it to a live channel"
                    + (
                        f", or unarchive #{channel.name} (PATCH /streams/{to} is_archived=false)"
                        if channel is not None
                        else ""
                    ),
                ),
            )
    elif isinstance(to, list):
        gone = [u for u in to if u not in users or not users[u].is_active]
        if gone:
            names = ", ".join(users[u].full_name if u in users else str(u) for u in gone)
            flags.append(f"deactivated recipients: {names}")
            left = [u for u in to if u not in gone]
            if left:
                fix = (
                    api("PATCH", f"/{path}/{item_id}", to=left),
                    "Drop the deactivated recipients",
                )
            else:
                fix = (delete, "Delete it: none of its recipients is active")
            fixes.insert(0 if not failed else 1, fix)
    if not fixes:
        return flags, None, ""
    call, action = fixes[0]
    return flags, call, action


def _ago(seconds: float) -> str:
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} hours"
    return f"{seconds / 86400:.0f} days"


def _target(to: int | list[int], channels: dict[int, Channel], users: dict[int, User]) -> str:
    if isinstance(to, int):
        channel = channels.get(to)
        return f"#{channel.name}" if channel is not None else f"channel {to}"
    return ", ".join(users[u].full_name if u in users else str(u) for u in to)


def _table_row(
    kind: str,
    item_id: int,
    owner: User,
    message_type: str,
    to: str,
    topic: str | None,
    scheduled: int,
    failed: bool,
    flags: list[str],
) -> dict[str, Any]:
    return {
        "kind": kind,
        "id": item_id,
        "owner": owner.full_name,
        "owner_id": owner.user_id,
        "type": message_type,
        "to": to,
        "topic": topic,
        "scheduled_at": pd.Timestamp(scheduled, unit="s", tz="UTC"),
        "failed": failed,
        "flags": "; ".join(flags),
    }


def _count(table: pd.DataFrame, word: str) -> int:
    if not len(table):
        return 0
    return int(table["flags"].str.contains(word, regex=False).sum())
