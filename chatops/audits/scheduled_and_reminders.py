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

With ``dry_run=False`` the failed items are deleted, each with its owner's key
(``DELETE /api/v1/scheduled_messages/{id}``, ``DELETE /api/v1/reminders/{id}``). The other
findings are advice: their calls need a person's choice (a new time, another channel), except
that dropping deactivated recipients names the active ones left.
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
from ._common import api, fill, finding, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import ApiCall, AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Channel, User

__all__ = ["LATE_GRACE_SECONDS", "scheduled_and_reminders"]

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


@dataclass
class _Account:
    client: Client
    user: User
    owned: bool  # whether this audit opened the client (and so closes it)


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
    dry_run: Annotated[
        bool,
        Param("when False, delete the failed items, each with its owner's key"),
    ] = True,
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
        dry_run: when False, delete the failed items, each with its owner's key.

    Tables: ``items`` (one row per scheduled message or reminder, with its flags).
    """
    if max_undeliverable < -1:
        raise ValueError(
            f"max_undeliverable must be -1 (off) or at least 0, not {max_undeliverable}"
        )
    paths = _paths(zuliprcs)
    at = utc(now)
    overdue_before = at.timestamp() - LATE_GRACE_SECONDS

    users = {u.user_id: u for u in client.users.list()}
    channels = {
        c.stream_id: c for c in client.channels.list(include_all=True, exclude_archived=False)
    }
    accounts, unread = _accounts(client, paths)
    try:
        table_rows: list[dict[str, Any]] = []
        rows: list[Finding] = []
        to_delete: list[tuple[_Account, str, int]] = []
        reminders_unavailable: list[str] = []
        subjects: list[str] = []
        for account in accounts:
            owner = f"{account.user.full_name} ({account.user.email})"
            for sm in account.client.scheduled_messages.list():
                subjects.append(f"scheduled message {sm.scheduled_message_id} of {owner}")
                flags, call, action = _judge(
                    "scheduled message",
                    sm.scheduled_message_id,
                    sm.failed,
                    sm.scheduled_delivery_timestamp,
                    overdue_before,
                    at.timestamp(),
                    sm.to,
                    sm.topic,
                    channels,
                    users,
                )
                table_rows.append(
                    _table_row(
                        "scheduled message",
                        sm.scheduled_message_id,
                        account.user,
                        "channel" if isinstance(sm.to, int) else "direct",
                        _target(sm.to, channels, users),
                        sm.topic,
                        sm.scheduled_delivery_timestamp,
                        sm.failed,
                        flags,
                    )
                )
                if flags:
                    rows.append(
                        finding(
                            "warning",
                            f"scheduled message {sm.scheduled_message_id} of {owner}",
                            "; ".join(flags),
                            action,
                            call,
                        )
                    )
                    if sm.failed:
                        to_delete.append((account, "scheduled_messages", sm.scheduled_message_id))
            try:
                reminders = account.client.reminders.list()
            except ApiError:
                reminders_unavailable.append(owner)
                reminders = []
            for rm in reminders:
                subjects.append(f"reminder {rm.reminder_id} of {owner}")
                flags, call, action = _judge(
                    "reminder",
                    rm.reminder_id,
                    rm.failed,
                    rm.scheduled_delivery_timestamp,
                    overdue_before,
                    at.timestamp(),
                    None,
                    None,
                    channels,
                    users,
                    target_message_id=rm.reminder_target_message_id,
                )
                table_rows.append(
                    _table_row(
                        "reminder",
                        rm.reminder_id,
                        account.user,
                        "direct",
                        f"message {rm.reminder_target_message_id}",
                        None,
                        rm.scheduled_delivery_timestamp,
                        rm.failed,
                        flags,
                    )
                )
                if flags:
                    rows.append(
                        finding(
                            "warning",
                            f"reminder {rm.reminder_id} of {owner}",
                            "; ".join(flags),
                            action,
                            call,
                        )
                    )
                    if rm.failed:
                        to_delete.append((account, "reminders", rm.reminder_id))

        flagged = len(rows)
        failed: list[str] = []
        if 0 <= max_undeliverable < flagged:
            failed.append("max_undeliverable")
            rows.append(
                finding(
                    "critical",
                    "scheduled messages and reminders",
                    f"{flagged} items will not be delivered as meant; the threshold is "
                    f"{max_undeliverable}",
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

        deleted: dict[str, list[int]] = {"scheduled_messages": [], "reminders": []}
        if not dry_run:
            for account, what, item_id in to_delete:
                if what == "scheduled_messages":
                    account.client.scheduled_messages.delete(item_id)
                else:
                    account.client.reminders.delete(item_id)
                deleted[what].append(item_id)
    finally:
        for account in accounts:
            if account.owned:
                account.client.close()

    table = pd.DataFrame(table_rows, columns=list(TABLE_COLUMNS))
    seen = {a.user.user_id for a in accounts}
    others = sum(
        1 for u in users.values() if u.is_active and not u.is_system_bot and u.user_id not in seen
    )
    coverage: dict[str, Any] = {
        "accounts": [f"{a.user.full_name} ({a.user.email})" for a in accounts],
        "not_visible": NOT_VISIBLE,
        "other_active_accounts": others,
    }
    if unread:
        coverage["accounts_not_read"] = unread
    if reminders_unavailable:
        coverage["reminders_not_read"] = reminders_unavailable
    kinds = table["kind"] if len(table) else pd.Series(dtype="string")
    summary = summary_of(
        "scheduled_and_reminders",
        # every item read (a sent or deleted one is no longer listed: gone) and the threshold's
        # words; an account whose reminders could not be read lists none of them this time
        subjects=subjects + ["scheduled messages and reminders"],
        failed=failed,
        counts={
            "accounts": len(accounts),
            "scheduled_messages": int((kinds == "scheduled message").sum()),
            "reminders": int((kinds == "reminder").sum()),
            "failed": _count(table, "failed"),
            "overdue": _count(table, "overdue"),
            "archived_channel": _count(table, "archived channel"),
            "deactivated_recipients": _count(table, "deactivated"),
            "findings": flagged,
            "deleted_now": sum(len(v) for v in deleted.values()),
        },
        thresholds={"max_undeliverable": max_undeliverable},
        coverage=coverage,
        dry_run=dry_run,
        deleted_scheduled_message_ids=deleted["scheduled_messages"],
        deleted_reminder_ids=deleted["reminders"],
        site=client.site,
        generated_at=at.isoformat(),
    )
    return AuditResult.of(rows, summary=summary, tables={"items": table})


def _paths(zuliprcs: str | Sequence[str | os.PathLike[str]]) -> list[Path]:
    items = zuliprcs.split(",") if isinstance(zuliprcs, str) else list(zuliprcs)
    paths = [Path(os.fspath(p).strip()).expanduser() for p in items if os.fspath(p).strip()]
    for path in paths:
        if not path.is_file():
            raise ValueError(f"zuliprcs: {path} is not a file")
    return paths


def _accounts(client: Client, paths: list[Path]) -> tuple[list[_Account], list[str]]:
    """The client's account and one per zuliprc, each once; and the zuliprcs that failed."""
    from .._client import Client

    accounts = [_Account(client, client.users.me(), owned=False)]
    unread: list[str] = []
    for path in paths:
        try:
            other = Client.from_zuliprc(path)
        except ChatopsError as exc:
            unread.append(f"{path}: {exc}")
            continue
        try:
            me = other.users.me()
        except ChatopsError as exc:
            other.close()
            unread.append(f"{path}: {exc}")
            continue
        if any(a.user.user_id == me.user_id for a in accounts):
            other.close()
            continue
        accounts.append(_Account(other, me, owned=True))
    return accounts, unread


def _judge(
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
