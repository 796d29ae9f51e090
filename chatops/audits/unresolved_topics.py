"""Unresolved topics: topics not marked resolved whose last message is older than N days.

A topic is resolved when its name starts with ``✔ `` (Zulip's resolved-topic prefix). Each
unresolved topic whose newest message is older than ``older_than_days`` is a finding whose
recommended action is to resolve it: ``PATCH /api/v1/messages/{id}`` with the topic
``✔ <topic>`` and ``propagate_mode=change_all``, which ``chatops audit plan`` /
``chatops audit apply`` carry out; the audit itself only reads.

History is read as it stood at ``now``: nothing sent after it is read (so ``--as-of`` gives the
answer of that day), and ages are measured from it. The empty topic (general chat) is never
judged: the server resolves no empty topic.

``only_questions`` judges only topics whose first message asks something (holds a ``?``).
With ``staff_group`` (a user group's name, its subgroups' members included) each topic says
whether someone of that group posted in it, and an old topic nobody of it answered says so.

The judging is one threshold, a parameter with a default the demo organization passes:

- ``max_unresolved_topics`` (50): fail when more old unresolved topics than this remain;
  ``-1`` disables it.

Three steps: :func:`fetch` reads the channels, the users, the staff group and each channel's
topics and history; :func:`judge` (pure) finds the unresolved topics and their age;
:func:`conclude` turns that into findings, tables and the summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated

import pandas as pd

from ..changes.kinds import MoveTopic
from ..resources.messages import RESOLVED_TOPIC_PREFIX
from ._common import api, crossed, fill, finding, group_members, utc
from ._common import summary as summary_of
from ._history import history_until
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Channel, Message, Topic

__all__ = [
    "JudgedChannel",
    "JudgedTopic",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "judge",
    "unresolved_topics",
]

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


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`unresolved_topics`, checked (ValueError naming the one out of
    range)."""

    older_than_days: int = 7
    channels: Sequence[str] = ()
    ignore_bot_only: bool = True
    only_questions: bool = False
    staff_group: str = ""
    max_unresolved_topics: int = 50

    def __post_init__(self) -> None:
        if self.older_than_days < 0:
            raise ValueError(f"older_than_days must be at least 0, not {self.older_than_days}")

    @property
    def wanted(self) -> set[str]:
        """The channel names asked for, without ``#`` and spaces (empty: every channel)."""
        return {c.strip().lstrip("#") for c in self.channels if c.strip()}

    @property
    def staff(self) -> str:
        """The staff group's name, without ``@`` (empty: none)."""
        return self.staff_group.strip().lstrip("@")


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    #: the channels judged, by name
    channels: list[Channel]
    #: private channels the account is not in: no account reads them, an administrator neither
    unreadable: list[str]
    bots: set[int]
    #: the staff group's members, subgroups included (None: no staff group)
    staff: set[int] | None
    #: stream id -> its topics, and its messages sent up to the audit's time
    topics: dict[int, list[Topic]]
    messages: dict[int, list[Message]]


@dataclass(frozen=True)
class JudgedTopic:
    """An unresolved topic, judged."""

    channel: Channel
    topic: str
    messages: list[Message]
    bot_only: bool
    #: whether someone of the staff group posted (None: no staff group)
    staff_replied: bool | None
    #: days since its newest message, unrounded
    age_days: float
    old: bool

    @property
    def newest(self) -> Message:
        """Its newest message (any of its ids resolves it all)."""
        return max(self.messages, key=lambda m: m.id)

    @property
    def participants(self) -> int:
        """How many people posted in it."""
        return len({m.sender_id for m in self.messages})


@dataclass(frozen=True)
class JudgedChannel:
    """The backlog of one channel."""

    channel: Channel
    #: every topic there, a resolved one under its unresolved name
    present: list[str]
    unresolved: int
    old_unresolved: int
    resolved: int


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    until: pd.Timestamp
    channels: list[JudgedChannel]
    #: every unresolved topic judged, channel by channel
    topics: list[JudgedTopic]

    @property
    def cutoff(self) -> pd.Timestamp:
        """A topic whose newest message is older than this is old."""
        return self.until - timedelta(days=self.options.older_than_days)

    @property
    def old(self) -> list[JudgedTopic]:
        """The old unresolved topics, by channel and topic."""
        return sorted((t for t in self.topics if t.old), key=lambda t: (t.channel.name, t.topic))

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        limit = self.options.max_unresolved_topics
        return crossed("max_unresolved_topics", limit, len(self.old))


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
) -> AuditResult:
    """Find unresolved topics idle for ``older_than_days`` days.

    Args:
        client: a client that can read the channels (resolving others' topics, as the plan
            of its findings does, needs the right to move messages, e.g. an administrator).
        older_than_days: judge topics whose newest message is older than this.
        channels: channel names to judge; empty means every non-archived channel.
        ignore_bot_only: skip topics where only bots posted (notifications, not questions).
        only_questions: judge only topics whose first message holds a ``?``.
        staff_group: name of the user group that answers; empty: no staff column.
        max_unresolved_topics: fail when more old unresolved topics than this remain;
            ``-1`` disables.
        now: the reference time; default the current time (UTC when naive).

    Private channels the account is not in are not judged (no account reads them, an
    administrator neither); the summary names them (``channels_not_readable``).

    Tables: ``topics`` (every unresolved topic judged, oldest first), ``backlog`` (per
    channel: unresolved topics, how many are old, and resolved topics).
    """
    options = Options(
        older_than_days=older_than_days,
        channels=channels,
        ignore_bot_only=ignore_bot_only,
        only_questions=only_questions,
        staff_group=staff_group,
        max_unresolved_topics=max_unresolved_topics,
    )
    until = utc(now)
    return conclude(judge(fetch(client, options, until=until), options, until=until))


def fetch(client: Client, options: Options, *, until: pd.Timestamp) -> Read:
    """Read the channels, the bots, the staff group's members and, for each channel judged,
    its topics and its history up to ``until``.

    Raises ValueError naming channels asked for that are unknown, archived or not readable,
    and a staff group no group is named.
    """
    wanted = options.wanted
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
    staff = _group_members(client, options.staff) if options.staff else None
    topics: dict[int, list[Topic]] = {}
    messages: dict[int, list[Message]] = {}
    for channel in judged:
        topics[channel.stream_id] = client.messages.topics(channel.stream_id)
        messages[channel.stream_id] = list(
            history_until(
                client, until.timestamp(), narrow=[("channel", channel.stream_id)], page_size=1000
            )
        )
    return Read(client.site, judged, unreadable, bots, staff, topics, messages)


def judge(read: Read, options: Options, *, until: pd.Timestamp) -> Judged:
    """Find each channel's unresolved topics and judge their age at ``until`` (an aware UTC
    time); no I/O."""
    cutoff = until - timedelta(days=options.older_than_days)
    channels: list[JudgedChannel] = []
    topics: list[JudgedTopic] = []
    for channel in read.channels:
        listed = read.topics.get(channel.stream_id, [])
        by_topic: dict[str, list[Message]] = {}
        for message in read.messages.get(channel.stream_id, []):
            by_topic.setdefault(message.topic, []).append(message)
        found: list[JudgedTopic] = []
        for topic in listed:
            if topic.name.startswith(RESOLVED_TOPIC_PREFIX) or topic.name == "":
                continue  # resolved; or general chat: the server resolves no empty topic
            messages = by_topic.get(topic.name)
            if not messages:  # history not readable by this account
                continue
            senders = {m.sender_id for m in messages}
            bot_only = all(s in read.bots for s in senders)
            if options.ignore_bot_only and bot_only:
                continue
            first = min(messages, key=lambda m: m.id)
            if options.only_questions and "?" not in first.content:
                continue
            newest = max(messages, key=lambda m: m.id)
            last_at = pd.Timestamp(newest.timestamp, unit="s", tz="UTC")
            found.append(
                JudgedTopic(
                    channel=channel,
                    topic=topic.name,
                    messages=messages,
                    bot_only=bot_only,
                    staff_replied=None if read.staff is None else bool(read.staff & senders),
                    age_days=(until - last_at).total_seconds() / 86400,
                    old=bool(last_at < cutoff),
                )
            )
        channels.append(
            JudgedChannel(
                channel=channel,
                present=[
                    f"#{channel.name} > {t.name.removeprefix(RESOLVED_TOPIC_PREFIX)}"
                    for t in listed
                ],
                unresolved=len(found),
                old_unresolved=sum(t.old for t in found),
                resolved=sum(t.name.startswith(RESOLVED_TOPIC_PREFIX) for t in listed),
            )
        )
        topics += found
    return Judged(read, options, until, channels, topics)


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that resolves the topic."""
    options = judged.options
    old = judged.old
    rows: list[Finding] = []
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "topics",
                f"{len(old)} unresolved topics idle for more than {options.older_than_days} "
                f"days; at most {options.max_unresolved_topics} allowed",
                "Answer or resolve the topics listed below",
                api(
                    "PATCH",
                    "/messages/{message_id}",
                    topic=fill("✔ {topic}"),
                    propagate_mode="change_all",
                ),
            )
        )
    for t in old:
        unanswered = f"; no reply from @{options.staff}" if t.staff_replied is False else ""
        rows.append(
            finding(
                "warning",
                f"#{t.channel.name} > {t.topic}",
                f"unresolved, last message {t.age_days:.0f} days ago ({len(t.messages)} "
                f"messages, {t.participants} participants){unanswered}",
                "Resolve the topic if it is answered; otherwise answer it",
                MoveTopic(message_id=t.newest.id, topic=RESOLVED_TOPIC_PREFIX + t.topic),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    options, read = judged.options, judged.read
    records = [
        {
            "channel": t.channel.name,
            "topic": t.topic,
            "started_at": pd.Timestamp(min(m.timestamp for m in t.messages), unit="s", tz="UTC"),
            "last_at": pd.Timestamp(t.newest.timestamp, unit="s", tz="UTC"),
            "age_days": round(t.age_days, 1),
            "messages": len(t.messages),
            "participants": t.participants,
            "last_sender": t.newest.sender_full_name,
            # the topic's newest id may be after ``now``; any of its ids resolves it all
            "last_message_id": t.newest.id,
            "bot_only": t.bot_only,
            "staff_replied": t.staff_replied,
            "old": t.old,
        }
        for t in judged.topics
    ]
    topic_table = pd.DataFrame.from_records(records, columns=[*TOPIC_COLUMNS, "old"])
    topic_table = topic_table.sort_values("last_at", kind="stable").reset_index(drop=True)
    backlog_table = pd.DataFrame.from_records(
        [
            {
                "channel": c.channel.name,
                "old_unresolved": c.old_unresolved,
                "unresolved": c.unresolved,
                "resolved": c.resolved,
            }
            for c in judged.channels
        ],
        columns=["channel", "old_unresolved", "unresolved", "resolved"],
    ).set_index("channel")
    old = judged.old
    counts = {
        "channels": len(judged.channels),
        "topics": int(backlog_table[["unresolved", "resolved"]].to_numpy().sum()),
        "unresolved_topics": len(judged.topics),
        "old_unresolved_topics": len(old),
        "old_without_staff_reply": sum(1 for t in old if t.staff_replied is False),
        "resolved_topics": int(backlog_table["resolved"].sum()),
        "findings": len(rows),
    }
    summary = summary_of(
        "unresolved_topics",
        failed=judged.failed,
        counts=counts,
        thresholds={"max_unresolved_topics": options.max_unresolved_topics},
        options={
            "older_than_days": options.older_than_days,
            "channels": sorted(options.wanted),
            "ignore_bot_only": options.ignore_bot_only,
            "only_questions": options.only_questions,
            "staff_group": options.staff_group,
        },
        cutoff=judged.cutoff.isoformat(),
        channels_not_readable=read.unreadable,
        subjects=[*(s for c in judged.channels for s in c.present), "topics"],
        site=read.site,
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "topics": topic_table[list(TOPIC_COLUMNS) + ["old"]],
            "backlog": backlog_table,
        },
    )


def _group_members(client: Client, name: str) -> set[int]:
    """User IDs of a group and of its subgroups, recursively; ValueError naming the group."""
    groups = {g.id: g for g in client.user_groups.list()}
    wanted = [g for g in groups.values() if g.name == name]
    if not wanted:
        raise ValueError(f"no user group named {name!r} (staff_group)")
    return group_members(wanted[0].id, groups)
