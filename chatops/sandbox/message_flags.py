"""Personal message flags: by message ids, over a narrow, per channel and topic (facts 3.10).

The flags live in ``message_flags`` (one row per user and message, a bit set). A user may
change ``read``, ``starred`` and ``collapsed``; the other flags the API lists are kept by the
server and refused here. A message the user may read but never received has no row: it reads
as ``read`` + ``historical``, and changing one of its flags away from that creates the row.
Every change sends the user an ``update_message_flags`` event.
"""

from __future__ import annotations

from typing import Any

from . import channels
from . import realm as realm_mod
from .bus import Event, EventQueue, event_bus
from .errors import ApiError
from .message_fetch import Narrow, access_condition, message_window, parse_narrow
from .messages import (
    COLLAPSED,
    HISTORICAL,
    MENTIONED,
    READ,
    STARRED,
    STREAM_WILDCARD,
    TOPIC_WILDCARD,
    access_message,
    can_access,
    display_topic,
    normalise_topic,
)
from .store import Row, Store

#: every flag of the API, by bit; ``None``: a flag of the API the sandbox never sets
API_FLAGS: dict[str, int | None] = {
    "read": READ,
    "starred": STARRED,
    "collapsed": COLLAPSED,
    "mentioned": MENTIONED,
    "stream_wildcard_mentioned": STREAM_WILDCARD,
    "topic_wildcard_mentioned": TOPIC_WILDCARD,
    "group_mentioned": None,
    "force_expand": None,
    "force_collapse": None,
    "has_alert_word": None,
    "historical": HISTORICAL,
}
EDITABLE_FLAGS = ("read", "starred", "collapsed")
#: what a message the user can read but never received counts as
DEFAULT_HISTORICAL_FLAGS = READ | HISTORICAL
MAX_MESSAGES_PER_UPDATE = 5000


def check_flag(op: str, flag: str) -> int:
    """The bit of an editable ``flag``; the real server's errors otherwise."""
    if flag not in API_FLAGS:
        raise ApiError(f"Invalid flag: '{flag}'")
    if flag not in EDITABLE_FLAGS:
        raise ApiError(f"Flag not editable: '{flag}'")
    if op not in ("add", "remove"):
        raise ApiError(f"Invalid message flag operation: '{op}'")
    bit = API_FLAGS[flag]
    assert bit is not None
    return bit


def _apply(store: Store, user: Row, op: str, flag: str, message_ids: list[int]) -> dict[str, Any]:
    """Change ``flag`` on the messages; returns the changed ids and the skipped channels."""
    bit = check_flag(op, flag)
    adding = op == "add"
    target = bit if adding else 0
    wanted = list(dict.fromkeys(message_ids))
    ignored_channels: list[int] = []
    if flag == "read" and not adding:
        # an unread channel message is always in a channel the user is subscribed to
        subscribed = {
            r["stream_id"]
            for r in store.query(
                "SELECT stream_id FROM subscriptions WHERE user_id = ? AND active = 1",
                [user["id"]],
            )
        }
        kept = []
        for mid in wanted:
            sid = store.scalar("SELECT stream_id FROM messages WHERE id = ?", [mid])
            if sid is not None and sid not in subscribed:
                if sid not in ignored_channels:
                    ignored_channels.append(sid)
            else:
                kept.append(mid)
        wanted = kept
    current: dict[int, int] = {}
    for start in range(0, len(wanted), 900):
        chunk = wanted[start : start + 900]
        for r in store.query(
            f"SELECT message_id, flags FROM message_flags WHERE user_id = ? "
            f"AND message_id IN ({','.join('?' * len(chunk))})",
            [user["id"], *chunk],
        ):
            current[r["message_id"]] = r["flags"]
    changed = [
        mid for mid in wanted if (current.get(mid, DEFAULT_HISTORICAL_FLAGS) & bit) != target
    ]
    historical = [mid for mid in changed if mid not in current]
    for mid in historical:
        message = store.one("SELECT * FROM messages WHERE id = ?", [mid])
        if message is None or not can_access(store, user, message):
            raise ApiError("Invalid message(s)")
    with store.atomic():
        for mid in historical:
            store.execute(
                "INSERT INTO message_flags (user_id, message_id, flags) VALUES (?, ?, ?)",
                [user["id"], mid, (DEFAULT_HISTORICAL_FLAGS & ~bit) | target],
            )
        existing = [mid for mid in changed if mid in current]
        for start in range(0, len(existing), 900):
            chunk = existing[start : start + 900]
            update = f"flags | {bit}" if adding else f"flags & {~bit}"
            store.execute(
                f"UPDATE message_flags SET flags = {update} WHERE user_id = ? "
                f"AND message_id IN ({','.join('?' * len(chunk))})",
                [user["id"], *chunk],
            )
        publish_flags(store, user, op, flag, changed)
    return {"changed": changed, "ignored_channels": ignored_channels}


def update_flags(
    store: Store, user: Row, message_ids: list[int], *, op: str, flag: str
) -> dict[str, Any]:
    """``POST /messages/flags``: ``messages`` echoes the request's ids, as the server does."""
    with store.atomic():
        done = _apply(store, user, op, flag, message_ids)
    out: dict[str, Any] = {"messages": list(message_ids)}
    if flag == "read" and op == "remove":
        out["ignored_because_not_subscribed_channels"] = done["ignored_channels"]
    return out


def update_flags_for_narrow(
    store: Store,
    user: Row,
    *,
    anchor: str | int,
    include_anchor: bool,
    num_before: int,
    num_after: int,
    narrow: Any,
    op: str,
    flag: str,
) -> dict[str, Any]:
    """``POST /messages/flags/narrow``: the flag over a range of a narrow (at most 5,000)."""
    check_flag(op, flag)
    if num_before < 0 or num_after < 0:
        raise ApiError("num_before and num_after must be non-negative")
    half = MAX_MESSAGES_PER_UPDATE // 2
    num_before = min(num_before, max(MAX_MESSAGES_PER_UPDATE - num_after, half))
    num_after = min(num_after, max(MAX_MESSAGES_PER_UPDATE - num_before, half))
    cond, params = access_condition(store, user)
    terms = Narrow(store, user)
    for operator, operand, negated in parse_narrow(narrow):
        terms.add(operator, operand, negated)
    where = " AND ".join([cond, *terms.where])
    with store.atomic():
        window = message_window(
            store,
            user,
            where,
            params + terms.params,
            anchor=anchor,
            num_before=num_before,
            num_after=num_after,
            include_anchor=include_anchor,
        )
        ids = [r["id"] for r in window.rows]
        done = _apply(store, user, op, flag, ids)
    out: dict[str, Any] = {
        "processed_count": len(ids),
        "updated_count": len(done["changed"]),
        "first_processed_id": ids[0] if ids else None,
        "last_processed_id": ids[-1] if ids else None,
        "found_oldest": window.found_oldest,
        "found_newest": window.found_newest,
    }
    if flag == "read" and op == "remove":
        out["ignored_because_not_subscribed_channels"] = done["ignored_channels"]
    return out


def mark_channel_as_read(store: Store, user: Row, stream_id: int, topic: str | None = None) -> None:
    """``POST /mark_stream_as_read`` and ``/mark_topic_as_read``: the user's unread ones."""
    stream = channels.access_stream(store, user, stream_id)
    sql = (
        "SELECT f.message_id FROM message_flags f JOIN messages m ON m.id = f.message_id "
        f"WHERE f.user_id = ? AND (f.flags & {READ}) = 0 AND m.stream_id = ?"
    )
    params: list[Any] = [user["id"], stream["id"]]
    if topic is not None:
        topic = normalise_topic(topic)
        if topic and not store.one(
            "SELECT 1 FROM message_flags f JOIN messages m ON m.id = f.message_id "
            "WHERE f.user_id = ? AND m.stream_id = ? AND m.topic = ? COLLATE NOCASE LIMIT 1",
            [user["id"], stream["id"], topic],
        ):
            raise ApiError(f"No such topic '{topic}'")
        sql += " AND m.topic = ? COLLATE NOCASE"
        params.append(topic)
    with store.atomic():
        ids = [r["message_id"] for r in store.query(sql + " ORDER BY f.message_id", params)]
        for start in range(0, len(ids), 900):
            chunk = ids[start : start + 900]
            store.execute(
                f"UPDATE message_flags SET flags = flags | {READ} WHERE user_id = ? "
                f"AND message_id IN ({','.join('?' * len(chunk))})",
                [user["id"], *chunk],
            )
        publish_flags(store, user, "add", "read", ids)


# -- events ---------------------------------------------------------------------------------------
def publish_flags(store: Store, user: Row, op: str, flag: str, message_ids: list[int]) -> None:
    """The user's ``update_message_flags`` event; marking unread adds ``message_details``."""
    event: Event = {
        "type": "update_message_flags",
        "op": op,
        "operation": op,
        "flag": flag,
        "messages": list(message_ids),
        "all": False,
    }
    if not (flag == "read" and op == "remove"):
        event_bus(store).publish(event, [user["id"]])
        return
    details = _unread_details(store, user, message_ids)

    def make(queue: EventQueue) -> Event:
        allow_empty = bool(queue.client_capabilities.get("empty_topic_name"))
        shown = {}
        for mid, entry in details.items():
            if entry["type"] == "stream":
                entry = {**entry, "topic": display_topic(entry["topic"], allow_empty)}
            shown[mid] = entry
        return {**event, "message_details": shown}

    event_bus(store).publish_each([user["id"]], "update_message_flags", make)


def _unread_details(store: Store, user: Row, message_ids: list[int]) -> dict[str, dict[str, Any]]:
    """What a client needs to put newly unread messages in its ``unread_msgs``."""
    out: dict[str, dict[str, Any]] = {}
    for mid in message_ids:
        row = store.one(
            "SELECT m.stream_id, m.topic, m.recipient_id, f.flags FROM messages m "
            "JOIN message_flags f ON f.message_id = m.id AND f.user_id = ? WHERE m.id = ?",
            [user["id"], mid],
        )
        if row is None or row["flags"] & READ:
            continue
        entry: dict[str, Any]
        if row["stream_id"] is not None:
            sub = channels.subscription(store, user["id"], row["stream_id"])
            entry = {
                "type": "stream",
                "stream_id": row["stream_id"],
                "topic": row["topic"],
                "unmuted_stream_msg": sub is not None and not sub["is_muted"],
            }
        else:
            key = str(
                store.scalar("SELECT user_set FROM recipients WHERE id = ?", [row["recipient_id"]])
            )
            others = sorted(int(x) for x in key.strip(",").split(",") if x)
            entry = {"type": "private", "user_ids": [u for u in others if u != user["id"]]}
        if row["flags"] & (MENTIONED | STREAM_WILDCARD | TOPIC_WILDCARD):
            entry["mentioned"] = True
        out[str(mid)] = entry
    return out


# -- read receipts ----------------------------------------------------------------------------
def read_receipts(store: Store, user: Row, message_id: int) -> list[int]:
    """``GET /messages/{message_id}/read_receipts``: who has read a message ``user`` may read.

    As the real server counts them (``zerver/views/read_receipts.py``): the active people and
    bots whose ``read`` flag is set on their copy, except the sender, those whose own
    ``send_read_receipts`` setting is off, those ``user`` muted and those who muted ``user``.
    Refused when the organization turned ``enable_read_receipts`` off.

    Args:
        store: the organization.
        user: who asks.
        message_id: the message.

    Returns:
        The user ids, in increasing order.
    """
    message = access_message(store, user, message_id)
    if not realm_mod.settings(store)["enable_read_receipts"]:
        raise ApiError("Read receipts are disabled in this organization.")
    rows = store.query(
        "SELECT f.user_id FROM message_flags f JOIN users u ON u.id = f.user_id "
        "LEFT JOIN user_settings s ON s.user_id = f.user_id "
        "WHERE f.message_id = ? AND f.flags & ? AND u.is_active = 1 AND f.user_id != ? "
        "AND coalesce(json_extract(s.settings, '$.send_read_receipts'), 1) = 1 "
        "AND f.user_id NOT IN (SELECT muted_user_id FROM muted_users WHERE user_id = ?) "
        "AND f.user_id NOT IN (SELECT user_id FROM muted_users WHERE muted_user_id = ?) "
        "ORDER BY f.user_id",
        [message_id, READ, message["sender_id"], user["id"], user["id"]],
    )
    return [int(r["user_id"]) for r in rows]
