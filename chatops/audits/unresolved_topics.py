"""Unresolved topics: topics not marked resolved whose last message is older than N days.

A topic is resolved when its name starts with ``✔ `` (Zulip's resolved-topic prefix). Each
unresolved topic whose newest message is older than ``older_than_days`` is a finding whose
recommended action is to resolve it: ``PATCH /api/v1/messages/{id}`` with the topic
``✔ <topic>`` and ``propagate_mode=change_all``; with ``dry_run=False`` the audit does that.

History is read as it stood at ``now``: nothing sent after it is read (so ``--as-of`` gives the
answer of that day), and ages are measured from it. The empty topic (general chat) is never
judged: the server resolves no empty topic.

``only_questions`` judges only topics whose first message asks something (holds a ``?``).
With ``staff_group`` (a user group's name, its subgroups' members included) each topic says
whether someone of that group posted in it, and an old topic nobody of it answered says so.

The judging is one threshold, a parameter with a default the demo organization passes:

- ``max_unresolved_topics`` (50): fail when more old unresolved topics than this remain;
  ``-1`` disables it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ..resources.messages import RESOLVED_TOPIC_PREFIX
from ._common import api, fill, finding, utc
from ._common import summary as summary_of
from ._history import history_until
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Message

__all__ = ["unresolved_topics"]

TOPIC_COLUMNS = (
    "channel",
    "topic",
    "started_at",
    "last_at",
    "age_days",
    "messages",
    "participants",
    "last_sender",
    "last_message_id",
    "bot_only",
    "staff_replied",
)


def unresolved_topics(
    client: Client,
    *,
    older_than_days: Annotated[
        int,
        Param(
            "judge unresolved topics whose last message is older than this many days",
            low=0,
        ),
    ] = 7,
    channels: Annotated[
        Sequence[str],
        Param("comma-separated channel names to judge; empty means every channel"),
    ] = (),
    ignore_bot_only: Annotated[
        bool,
        Param("skip topics where only bots posted"),
    ] = True,
    only_questions: Annotated[
        bool,
        Param("judge only topics whose first message holds a question mark"),
    ] = False,
    staff_group: Annotated[
        str,
        Param(
            "name of the user group that answers, to show whether it replied; empty: none",
        ),
    ] = "",
    max_unresolved_topics: Annotated[
        int,
        Param("fail when more old unresolved topics than this remain (-1: off)", low=-1),
    ] = 50,
    now: datetime | None = None,
    dry_run: Annotated[
        bool,
        Param("when False, resolve every old unresolved topic"),
    ] = True,
) -> AuditResult:
    """Find unresolved topics idle for ``older_than_days`` days; resolve them unless dry.

    Args:
        client: a client that can read the channels (resolving others' topics needs the
            right to move messages, e.g. an administrator).
        older_than_days: judge topics whose newest message is older than this.
        channels: channel names to judge; empty means every non-archived channel.
        ignore_bot_only: skip topics where only bots posted (notifications, not questions).
        only_questions: judge only topics whose first message holds a ``?``.
        staff_group: name of the user group that answers; empty: no staff column.
        max_unresolved_topics: fail when more old unresolved topics than this remain;
            ``-1`` disables.
        now: the reference time; default the current time (UTC when naive).
        dry_run: when False, resolve every old unresolved topic (``PATCH /messages/{id}``).

    Private channels the account is not in are not judged (no account reads them, an
    administrator neither); the summary names them (``channels_not_readable``).

    Tables: ``topics`` (every unresolved topic judged, oldest first), ``backlog`` (per
    channel: unresolved topics, how many are old, and resolved topics).
    """
    if older_than_days < 0:
        raise ValueError(f"older_than_days must be at least 0, not {older_than_days}")
    until = utc(now)
    cutoff = until - timedelta(days=older_than_days)
    wanted = {c.strip().lstrip("#") for c in channels if c.strip()}

    listed = [c for c in client.channels.list(include_all=True) if not c.is_archived]
    # a private channel the account is not in cannot be read, by administrators either
    mine = {s.stream_id for s in client.channels.subscriptions()}
    unreadable = sorted(c.name for c in listed if c.invite_only and c.stream_id not in mine)
    listed = [c for c in listed if c.name not in unreadable]
    closed = sorted(wanted & set(unreadable))
    if closed:
        raise ValueError(f"private channels this account is not in: {', '.join(closed)}")
    unknown = sorted(wanted - {c.name for c in listed})
    if unknown:
        raise ValueError(f"unknown or archived channels: {', '.join(unknown)}")
    judged = sorted((c for c in listed if not wanted or c.name in wanted), key=lambda c: c.name)
    bots = {u.user_id for u in client.users.list() if u.is_bot}
    staff = _group_members(client, staff_group.strip().lstrip("@")) if staff_group.strip() else None

    records: list[dict[str, Any]] = []
    backlog: list[dict[str, Any]] = []
    present: list[str] = []  # a resolved topic is still there, under its unresolved name
    for channel in judged:
        topics = client.messages.topics(channel.stream_id)
        present += [
            f"#{channel.name} > {t.name.removeprefix(RESOLVED_TOPIC_PREFIX)}" for t in topics
        ]
        stats = _topic_stats(client, channel.stream_id, until.timestamp())
        resolved = 0
        unresolved = 0
        old = 0
        for topic in topics:
            if topic.name.startswith(RESOLVED_TOPIC_PREFIX):
                resolved += 1
                continue
            if topic.name == "":  # general chat: the server resolves no empty topic
                continue
            messages = stats.get(topic.name)
            if not messages:  # history not readable by this account
                continue
            senders = [m.sender_id for m in messages]
            bot_only = all(s in bots for s in senders)
            if ignore_bot_only and bot_only:
                continue
            first = min(messages, key=lambda m: m.id)
            if only_questions and "?" not in first.content:
                continue
            newest = max(messages, key=lambda m: m.id)
            last_at = pd.Timestamp(newest.timestamp, unit="s", tz="UTC")
            unresolved += 1
            is_old = bool(last_at < cutoff)
            age = (until - last_at).total_seconds() / 86400
            old += is_old
            records.append(
                {
                    "channel": channel.name,
                    "topic": topic.name,
                    "started_at": pd.Timestamp(
                        min(m.timestamp for m in messages), unit="s", tz="UTC"
                    ),
                    "last_at": last_at,
                    "age_days": round(age, 1),
                    "_age_days": age,  # unrounded, for the finding's words
                    "messages": len(messages),
                    "participants": len(set(senders)),
                    "last_sender": newest.sender_full_name,
                    # the topic's newest id may be after ``now``; any of its ids resolves it all
                    "last_message_id": newest.id,
                    "bot_only": bot_only,
                    "staff_replied": None if staff is None else bool(staff & set(senders)),
                    "old": is_old,
                    "stream_id": channel.stream_id,
                }
            )
        backlog.append(
            {
                "channel": channel.name,
                "old_unresolved": old,
                "unresolved": unresolved,
                "resolved": resolved,
            }
        )

    old_topics = sorted((r for r in records if r["old"]), key=lambda r: (r["channel"], r["topic"]))
    failed: list[str] = []
    rows: list[Finding] = []
    if 0 <= max_unresolved_topics < len(old_topics):
        failed.append("max_unresolved_topics")
        rows.append(
            finding(
                "critical",
                "topics",
                f"{len(old_topics)} unresolved topics idle for more than {older_than_days} "
                f"days; at most {max_unresolved_topics} allowed",
                "Answer or resolve the topics listed below",
                api(
                    "PATCH",
                    "/messages/{message_id}",
                    topic=fill("✔ {topic}"),
                    propagate_mode="change_all",
                ),
            )
        )
    for r in old_topics:
        unanswered = (
            f"; no reply from @{staff_group.strip().lstrip('@')}"
            if (r["staff_replied"] is False)
            else ""
        )
        rows.append(
            finding(
                "warning",
                f"#{r['channel']} > {r['topic']}",
                f"unresolved, last message {r['_age_days']:.0f} days ago ({r['messages']} "
                f"messages, {r['participants']} participants){unanswered}",
                "Resolve the topic if it is answered; otherwise answer it",
                api(
                    "PATCH",
                    f"/messages/{r['last_message_id']}",
                    topic=RESOLVED_TOPIC_PREFIX + r["topic"],
                    propagate_mode="change_all",
                ),
            )
        )

    resolved_ids: list[int] = []
    if not dry_run:
        for r in old_topics:
            client.messages.edit(
                int(r["last_message_id"]),
                topic=RESOLVED_TOPIC_PREFIX + str(r["topic"]),
                propagate_mode="change_all",
            )
            resolved_ids.append(int(r["last_message_id"]))

    topic_table = pd.DataFrame.from_records(records, columns=[*TOPIC_COLUMNS, "old"])
    topic_table = topic_table.sort_values("last_at", kind="stable").reset_index(drop=True)
    backlog_table = pd.DataFrame.from_records(
        backlog, columns=["channel", "old_unresolved", "unresolved", "resolved"]
    ).set_index("channel")
    counts = {
        "channels": len(judged),
        "topics": int(backlog_table[["unresolved", "resolved"]].to_numpy().sum()),
        "unresolved_topics": len(records),
        "old_unresolved_topics": len(old_topics),
        "old_without_staff_reply": sum(1 for r in old_topics if r["staff_replied"] is False),
        "resolved_topics": int(backlog_table["resolved"].sum()),
        "resolved_now": len(resolved_ids),
        "findings": len(rows),
    }
    summary = summary_of(
        "unresolved_topics",
        failed=failed,
        counts=counts,
        thresholds={"max_unresolved_topics": max_unresolved_topics},
        options={
            "older_than_days": older_than_days,
            "channels": sorted(wanted),
            "ignore_bot_only": ignore_bot_only,
            "only_questions": only_questions,
            "staff_group": staff_group,
            "dry_run": dry_run,
        },
        resolved_message_ids=resolved_ids,
        cutoff=cutoff.isoformat(),
        channels_not_readable=unreadable,
        subjects=[*present, "topics"],
        site=client.site,
        generated_at=datetime.now(UTC).isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "topics": topic_table[list(TOPIC_COLUMNS) + ["old"]],
            "backlog": backlog_table,
        },
    )


def _topic_stats(client: Client, stream_id: int, until: float) -> dict[str, list[Message]]:
    """The channel's readable messages sent up to ``until``, grouped by topic."""
    out: dict[str, list[Message]] = {}
    for message in history_until(client, until, narrow=[("channel", stream_id)], page_size=1000):
        out.setdefault(message.topic, []).append(message)
    return out


def _group_members(client: Client, name: str) -> set[int]:
    """User IDs of a group and of its subgroups, recursively; ValueError naming the group."""
    groups = {g.id: g for g in client.user_groups.list()}
    wanted = [g for g in groups.values() if g.name == name]
    if not wanted:
        raise ValueError(f"no user group named {name!r} (staff_group)")
    members: set[int] = set()
    stack, seen = [wanted[0].id], set()
    while stack:
        gid = stack.pop()
        if gid in seen or gid not in groups:
            continue
        seen.add(gid)
        members.update(groups[gid].members)
        stack.extend(groups[gid].direct_subgroup_ids)
    return members
