"""Moderation activity: who edited, moved, renamed and resolved what in the last ``days`` days.

Every message the account can read is fetched (``GET /messages``), and each entry of its
``edit_history`` dated inside the window becomes an event: a content edit (``prev_content``),
a move to another channel (``prev_stream``), a topic move or rename (``prev_topic``), or a
resolve or unresolve (the topic gains or loses the ``✔ `` prefix; not a move). A move of a
whole topic writes one entry per message with the same time, so entries are grouped into
actions: one action, many messages.

Where the organization hides edit history, messages carry only ``last_edit_timestamp`` and
``last_moved_timestamp``; the audit then asks ``GET /messages/{id}/history``, and when that is
refused or missing too, it counts those edits and moves without an author and says so in the
summary's ``coverage``.

Deleted messages are invisible: neither ``GET /messages`` nor the history endpoint returns
anything for them, so deletions cannot be counted unless a client kept the
``delete_message`` events of an event queue registered before they happened. This audit reads
history afterwards and counts none.

One threshold, with a default the demo organization passes:

- ``max_moves_per_user`` (10): fail when a user made more topic or channel moves than this in
  the window (resolving is not a move); ``-1`` switches the check off.

The audit only reports: there is no call that undoes an edit or a move in general, so its
findings name no API call.

Three steps: :func:`fetch` reads the users, the channels and every readable message (asking
the history endpoint where a message hides its edits); :func:`judge` (pure) groups the edit
history of the window into actions and counts them per user; :func:`conclude` turns that into
findings, tables and the summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from .._exceptions import ApiError
from ._common import finding, utc
from ._common import summary as summary_of
from ._history import history_until
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import EditHistoryEntry, Message, User

__all__ = [
    "ACTION_KINDS",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "judge",
    "moderation_activity",
]

RESOLVED_PREFIX = "✔ "
#: kinds of action, in the order of the tables' columns
ACTION_KINDS = ("edit", "topic move", "channel move", "resolve", "unresolve", "hidden move")
HIDDEN = "(history hidden)"
ACTION_COLUMNS = (
    "at",
    "user_id",
    "user",
    "kind",
    "from_channel",
    "to_channel",
    "old_topic",
    "new_topic",
    "messages",
    "first_message_id",
)
DELETIONS = (
    "deleted messages are invisible: GET /messages and GET /messages/{id}/history return "
    "nothing for them, so deletions cannot be counted unless a client kept the delete_message "
    "events of an event queue (POST /register) registered before they happened; none counted"
)


@dataclass(frozen=True)
class _Key:
    """What makes edit-history entries of several messages one action."""

    user_id: int | None
    at: int
    kind: str
    from_channel: int | None
    to_channel: int | None
    old_topic: str | None
    new_topic: str | None
    message_id: int | None  # set for content edits, which are one message each


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`moderation_activity`, checked (ValueError naming the one out of
    range)."""

    days: int = 30
    max_moves_per_user: int = 10

    def __post_init__(self) -> None:
        if self.days < 1:
            raise ValueError(f"days must be at least 1, not {self.days}")
        if self.max_moves_per_user < -1:
            raise ValueError(
                f"max_moves_per_user must be -1 (off) or at least 0, not {self.max_moves_per_user}"
            )


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    users: dict[int, User]
    #: stream id -> name, archived channels too
    channel_names: dict[int, str]
    #: how many messages were read
    scanned: int
    #: the messages read that carry edit history or were edited or moved in the window
    messages: list[Message]
    #: message id -> its edits from ``GET /messages/{id}/history``, where it carried none
    histories: dict[int, list[dict[str, Any]]]
    #: ``not needed``, ``answered`` or ``refused or missing (<why>)``
    history_endpoint: str


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` found, with what it was found from."""

    read: Read
    options: Options
    at: pd.Timestamp
    #: one row per action (``ACTION_COLUMNS``), oldest first
    actions: pd.DataFrame
    #: actions per user and kind (index user_id; -1: hidden authors)
    by_user: pd.DataFrame
    #: messages edited or moved in the window whose history is hidden
    hidden_messages: int
    #: the users who made more moves than ``max_moves_per_user``
    over: list[int]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        return ["max_moves_per_user"] if self.over else []


def moderation_activity(
    client: Client,
    *,
    days: Annotated[
        int,
        Param("the window: edits and moves made in this many days before now", low=1),
    ] = 30,
    max_moves_per_user: Annotated[
        int,
        Param(
            "fail when a user made more topic or channel moves than this in the window (-1: off)",
            low=-1,
        ),
    ] = 10,
    now: datetime | None = None,
) -> AuditResult:
    """Fetch every readable message, collect its edit history in the window, and judge it.

    Args:
        client: a client; an administrator's reads the most (see ``coverage``).
        days: the window: edits and moves made in the ``days`` days before ``now``.
        max_moves_per_user: fail when a user made more topic or channel moves than this in
            the window; ``-1`` disables the check.
        now: the end of the window; default the current time.

    Tables: ``actions`` (one row per action), ``by_user`` (actions per user and kind),
    ``topic_renames`` (old -> new), ``channel_moves`` (from -> to, with message counts),
    ``per_day`` (actions per day and kind).
    """
    options = Options(days=days, max_moves_per_user=max_moves_per_user)
    at = utc(now)
    return conclude(judge(fetch(client, options, at=at), options, at=at))


def fetch(client: Client, options: Options, *, at: pd.Timestamp) -> Read:
    """Read the users, the channels and every message sent up to ``at``; for a message edited
    or moved in the window that carries no edit history, ask the history endpoint (until it
    refuses)."""
    end = at.timestamp()
    since = end - options.days * 86400
    users = {u.user_id: u for u in client.users.list()}
    channel_names = {
        c.stream_id: c.name for c in client.channels.list(include_all=True, exclude_archived=False)
    }
    scanned = 0
    kept: list[Message] = []
    histories: dict[int, list[dict[str, Any]]] = {}
    endpoint = "not needed"
    for message in history_until(client, end, page_size=5000):
        scanned += 1
        touched = _touched_in_window(message, since, end)
        if message.edit_history or touched:
            kept.append(message)  # the others hold no action: not kept, history can be long
        if message.edit_history is not None or not touched:
            continue
        if endpoint not in ("not needed", "answered"):
            continue
        try:
            body = client.get(f"/messages/{message.id}/history")
        except ApiError as exc:
            endpoint = f"refused or missing ({exc})"
        else:
            endpoint = "answered"
            histories[message.id] = [
                e
                for e in body.get("message_history", [])
                if any(k in e for k in ("prev_content", "prev_topic", "prev_stream"))
            ]
    return Read(client.site, users, channel_names, scanned, kept, histories, endpoint)


def judge(read: Read, options: Options, *, at: pd.Timestamp) -> Judged:
    """Group the edit history of the window ending at ``at`` (an aware UTC time) into actions,
    count them per user and find who moved too much; no I/O."""
    end = at.timestamp()
    since = end - options.days * 86400
    groups: dict[_Key, list[int]] = {}
    hidden_messages = 0
    for message in read.messages:
        entries: list[dict[str, Any]] | None = None
        if message.edit_history is not None:
            entries = [_entry(e) for e in message.edit_history]
        elif _touched_in_window(message, since, end):
            entries = read.histories.get(message.id)
            if entries is None:
                hidden_messages += 1
                for key in _hidden_keys(message, since, end):
                    groups.setdefault(key, []).append(message.id)
                continue
        for entry in entries or []:
            ts = int(entry.get("timestamp") or 0)
            if since <= ts <= end:
                for key in _keys(entry, message):
                    groups.setdefault(key, []).append(message.id)
    actions = _actions(groups, read.users, read.channel_names)
    by_user = _by_user(actions)
    over: list[int] = []
    if options.max_moves_per_user >= 0:
        for uid, row in by_user.iterrows():
            user_id = int(str(uid))
            if user_id != -1 and int(row["moves"]) > options.max_moves_per_user:
                over.append(user_id)
    return Judged(read, options, at, actions, by_user, hidden_messages, over)


def findings(judged: Judged) -> list[Finding]:
    """One critical finding per user over ``max_moves_per_user``; no call undoes a move."""
    rows: list[Finding] = []
    by_user = judged.by_user.to_dict("index")
    for user_id in judged.over:
        row = by_user[user_id]
        user = judged.read.users.get(user_id)
        subject = f"{user.full_name} ({user.email})" if user else f"user {user_id}"
        rows.append(
            finding(
                "critical",
                subject,
                f"{int(row['moves'])} topic or channel moves in {judged.options.days} days "
                f"({int(row['topic_moves'])} topic, {int(row['channel_moves'])} channel, "
                f"{int(row['messages_moved'])} messages); the threshold is "
                f"{judged.options.max_moves_per_user}",
                "Review these moves in the actions table; if they were not wanted, "
                "narrow who may move messages (can_move_messages_between_topics_group, "
                "can_move_messages_between_channels_group)",
                None,
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    read, actions, by_user = judged.read, judged.actions, judged.by_user
    moves = actions[actions["kind"].isin(["topic move", "channel move"])]
    renames = moves[moves["old_topic"].notna() & (moves["old_topic"] != moves["new_topic"])][
        ["at", "user", "from_channel", "to_channel", "old_topic", "new_topic", "messages"]
    ].reset_index(drop=True)
    channel_moves = (
        actions[actions["kind"] == "channel move"]
        .groupby(["from_channel", "to_channel"], dropna=False)
        .agg(actions=("messages", "size"), messages=("messages", "sum"))
        .reset_index()
    )
    per_day = (
        actions.assign(day=actions["at"].dt.floor("D"))
        .groupby(["day", "kind"])
        .size()
        .unstack(fill_value=0)
        .reindex(columns=[k for k in ACTION_KINDS if k in set(actions["kind"])])
    )
    coverage: dict[str, Any] = {
        "messages": f"{read.scanned} messages the account can read (GET /messages); other "
        "people's direct messages and private channels with protected history it was not "
        "subscribed for are not included",
        "deletions": DELETIONS,
    }
    if judged.hidden_messages:
        coverage["edit_history"] = (
            f"{judged.hidden_messages} messages edited or moved in the window carry no "
            f"edit_history (the organization hides it) and GET /messages/{{id}}/history was "
            f"{read.history_endpoint}: their edits and moves are counted under {HIDDEN!r}, "
            "without an author"
        )
    kinds = actions["kind"]
    # every account, active or not: a deactivated mover's moves stay in the history, so their
    # finding goes only when the moves leave the window or fall under the threshold (resolved)
    subjects = [f"{u.full_name} ({u.email})" for u in read.users.values()]
    subjects += [
        f"user {int(str(uid))}" for uid in by_user.index if int(str(uid)) not in read.users
    ]
    since = judged.at.timestamp() - judged.options.days * 86400
    summary = summary_of(
        "moderation_activity",
        subjects=subjects,
        failed=judged.failed,
        counts={
            "messages_scanned": read.scanned,
            "actions": len(actions),
            "edits": int((kinds == "edit").sum()),
            "topic_moves": int((kinds == "topic move").sum()),
            "channel_moves": int((kinds == "channel move").sum()),
            "resolves": int(kinds.isin(["resolve", "unresolve"]).sum()),
            "hidden_actions": int((actions["user"] == HIDDEN).sum()),
            "hidden_moves": int((kinds == "hidden move").sum()),
            "messages_moved": int(moves["messages"].sum()),
            "users_over_threshold": len(judged.over),
        },
        thresholds={
            "max_moves_per_user": judged.options.max_moves_per_user,
            "days": judged.options.days,
        },
        coverage=coverage,
        window={
            "since": pd.Timestamp(since, unit="s", tz="UTC").isoformat(),
            "until": judged.at.isoformat(),
        },
        site=read.site,
        generated_at=judged.at.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "actions": actions,
            "by_user": by_user,
            "topic_renames": renames,
            "channel_moves": channel_moves,
            "per_day": per_day,
        },
    )


def _actions(
    groups: dict[_Key, list[int]], users: dict[int, User], channel_names: dict[int, str]
) -> pd.DataFrame:
    """The grouped edit-history entries as one row per action, oldest first."""
    actions = pd.DataFrame(
        [
            {
                "at": pd.Timestamp(key.at, unit="s", tz="UTC"),
                "user_id": key.user_id,
                "user": _name(key.user_id, users),
                "kind": key.kind,
                "from_channel": _channel(key.from_channel, channel_names),
                "to_channel": _channel(key.to_channel, channel_names),
                "old_topic": key.old_topic,
                "new_topic": key.new_topic,
                "messages": len(ids),
                "first_message_id": min(ids),
            }
            for key, ids in groups.items()
        ],
        columns=list(ACTION_COLUMNS),
    )
    actions["at"] = pd.to_datetime(actions["at"], utc=True)
    actions = actions.astype({"messages": "int64", "first_message_id": "int64"})
    return actions.sort_values(["at", "first_message_id"], kind="stable").reset_index(drop=True)


def _entry(entry: EditHistoryEntry) -> dict[str, Any]:
    """An edit-history entry as a dict; ``prev_subject`` (before feature level 118) as topic."""
    out = {
        "user_id": entry.user_id,
        "timestamp": entry.timestamp,
        "prev_stream": entry.prev_stream,
        "stream": entry.stream,
        "prev_topic": entry.prev_topic if entry.prev_topic is not None else entry.prev_subject,
        "topic": entry.topic,
    }
    if entry.prev_content is not None or entry.prev_rendered_content is not None:
        out["prev_content"] = entry.prev_content or ""
    return out


def _keys(entry: dict[str, Any], message: Message) -> list[_Key]:
    """The actions one edit-history entry takes part in."""
    user_id = entry.get("user_id")
    ts = int(entry["timestamp"])
    out: list[_Key] = []
    if "prev_content" in entry and entry["prev_content"] is not None:
        out.append(_Key(user_id, ts, "edit", message.stream_id, None, None, None, message.id))
    prev_stream, stream = entry.get("prev_stream"), entry.get("stream")
    prev_topic, topic = entry.get("prev_topic"), entry.get("topic")
    if prev_stream is not None:
        out.append(_Key(user_id, ts, "channel move", prev_stream, stream, prev_topic, topic, None))
    elif prev_topic is not None:
        if topic == RESOLVED_PREFIX + prev_topic:
            kind = "resolve"
        elif topic is not None and prev_topic == RESOLVED_PREFIX + topic:
            kind = "unresolve"
        else:
            kind = "topic move"
        channel = message.stream_id
        out.append(_Key(user_id, ts, kind, channel, channel, prev_topic, topic, None))
    return out


def _touched_in_window(message: Message, since: float, end: float) -> bool:
    return any(
        t is not None and since <= t <= end
        for t in (message.last_edit_timestamp, message.last_moved_timestamp)
    )


def _hidden_keys(message: Message, since: float, end: float) -> list[_Key]:
    """Edits and moves known only from the message's last timestamps."""
    out: list[_Key] = []
    edited, moved = message.last_edit_timestamp, message.last_moved_timestamp
    if edited is not None and since <= edited <= end:
        out.append(_Key(None, edited, "edit", message.stream_id, None, None, None, message.id))
    if moved is not None and since <= moved <= end:
        channel = message.stream_id
        out.append(_Key(None, moved, "hidden move", None, channel, None, message.topic, None))
    return out


def _by_user(actions: pd.DataFrame) -> pd.DataFrame:
    """Actions per user: counts by kind, moves and messages moved; index user_id (-1: hidden)."""
    columns = ["user", "edits", "topic_moves", "channel_moves", "resolves", "hidden_moves"]
    columns += ["moves", "messages_moved"]
    if actions.empty:
        return pd.DataFrame(columns=columns, index=pd.Index([], name="user_id", dtype="int64"))
    frame = actions.assign(user_id=actions["user_id"].fillna(-1).astype("int64"))
    count = frame.groupby(["user_id", "kind"]).size().unstack(fill_value=0)
    moved = frame[frame["kind"].isin(["topic move", "channel move"])]
    out = pd.DataFrame(index=count.index)
    out["user"] = frame.groupby("user_id")["user"].first()
    out["edits"] = count.get("edit", 0)
    out["topic_moves"] = count.get("topic move", 0)
    out["channel_moves"] = count.get("channel move", 0)
    out["resolves"] = count.get("resolve", 0) + count.get("unresolve", 0)
    out["hidden_moves"] = count.get("hidden move", 0)
    out["moves"] = out["topic_moves"] + out["channel_moves"]
    out["messages_moved"] = moved.groupby("user_id")["messages"].sum()
    out["messages_moved"] = out["messages_moved"].fillna(0).astype("int64")
    return out.sort_values(["moves", "edits"], ascending=False, kind="stable")


def _name(user_id: int | None, users: dict[int, User]) -> str:
    if user_id is None:
        return HIDDEN
    user = users.get(user_id)
    return user.full_name if user is not None else f"user {user_id}"


def _channel(stream_id: int | None, names: dict[int, str]) -> str | None:
    if stream_id is None:
        return None
    return names.get(stream_id, f"channel {stream_id}")
