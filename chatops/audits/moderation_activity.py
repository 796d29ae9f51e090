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
findings name no API call and it has no ``dry_run``.
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

__all__ = ["ACTION_KINDS", "moderation_activity"]

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
    if days < 1:
        raise ValueError(f"days must be at least 1, not {days}")
    if max_moves_per_user < -1:
        raise ValueError(
            f"max_moves_per_user must be -1 (off) or at least 0, not {max_moves_per_user}"
        )
    at = utc(now)
    end = at.timestamp()
    since = end - days * 86400

    users = {u.user_id: u for u in client.users.list()}
    channel_names = {
        c.stream_id: c.name for c in client.channels.list(include_all=True, exclude_archived=False)
    }
    groups: dict[_Key, list[int]] = {}
    scanned = 0
    hidden_messages = 0
    history_endpoint = "not needed"
    for message in history_until(client, end, page_size=5000):
        scanned += 1
        entries: list[dict[str, Any]] | None = None
        if message.edit_history is not None:
            entries = [_entry(e) for e in message.edit_history]
        elif _touched_in_window(message, since, end):
            if history_endpoint in ("not needed", "answered"):
                try:
                    body = client.get(f"/messages/{message.id}/history")
                except ApiError as exc:
                    history_endpoint = f"refused or missing ({exc})"
                else:
                    history_endpoint = "answered"
                    entries = [
                        e
                        for e in body.get("message_history", [])
                        if any(k in e for k in ("prev_content", "prev_topic", "prev_stream"))
                    ]
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
    actions = actions.sort_values(["at", "first_message_id"], kind="stable").reset_index(drop=True)
    by_user = _by_user(actions)
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

    rows: list[Finding] = []
    failed: list[str] = []
    over: list[int] = []
    if max_moves_per_user >= 0:
        for uid, row in by_user.iterrows():
            user_id = int(str(uid))
            if user_id == -1 or int(row["moves"]) <= max_moves_per_user:
                continue
            over.append(user_id)
            user = users.get(user_id)
            subject = f"{user.full_name} ({user.email})" if user else f"user {user_id}"
            rows.append(
                finding(
                    "critical",
                    subject,
                    f"{int(row['moves'])} topic or channel moves in {days} days "
                    f"({int(row['topic_moves'])} topic, {int(row['channel_moves'])} channel, "
                    f"{int(row['messages_moved'])} messages); the threshold is "
                    f"{max_moves_per_user}",
                    "Review these moves in the actions table; if they were not wanted, "
                    "narrow who may move messages (can_move_messages_between_topics_group, "
                    "can_move_messages_between_channels_group)",
                    None,
                )
            )
        if over:
            failed.append("max_moves_per_user")

    coverage: dict[str, Any] = {
        "messages": f"{scanned} messages the account can read (GET /messages); other people's "
        "direct messages and private channels with protected history it was not subscribed "
        "for are not included",
        "deletions": DELETIONS,
    }
    if hidden_messages:
        coverage["edit_history"] = (
            f"{hidden_messages} messages edited or moved in the window carry no edit_history "
            f"(the organization hides it) and GET /messages/{{id}}/history was "
            f"{history_endpoint}: their edits and moves are counted under {HIDDEN!r}, "
            "without an author"
        )
    kinds = actions["kind"]
    # every account, active or not: a deactivated mover's moves stay in the history, so their
    # finding goes only when the moves leave the window or fall under the threshold (resolved)
    subjects = [f"{u.full_name} ({u.email})" for u in users.values()]
    subjects += [f"user {int(str(uid))}" for uid in by_user.index if int(str(uid)) not in users]
    summary = summary_of(
        "moderation_activity",
        subjects=subjects,
        failed=failed,
        counts={
            "messages_scanned": scanned,
            "actions": len(actions),
            "edits": int((kinds == "edit").sum()),
            "topic_moves": int((kinds == "topic move").sum()),
            "channel_moves": int((kinds == "channel move").sum()),
            "resolves": int(kinds.isin(["resolve", "unresolve"]).sum()),
            "hidden_actions": int((actions["user"] == HIDDEN).sum()),
            "hidden_moves": int((kinds == "hidden move").sum()),
            "messages_moved": int(moves["messages"].sum()),
            "users_over_threshold": len(over),
        },
        thresholds={"max_moves_per_user": max_moves_per_user, "days": days},
        coverage=coverage,
        window={
            "since": pd.Timestamp(since, unit="s", tz="UTC").isoformat(),
            "until": at.isoformat(),
        },
        site=client.site,
        generated_at=at.isoformat(),
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
