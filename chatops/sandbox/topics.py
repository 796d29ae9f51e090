"""Topics of a channel (spec 4.10) and read flags (spec 4.19)."""

from __future__ import annotations

import time
from typing import Any

from . import channels
from .bus import event_bus
from .messages import READ, display_topic
from .store import Row, Store

MARK_READ_BATCH = 1000


def channel_topics(
    store: Store, user: Row, stream_id: int, *, allow_empty_topic_name: bool = False
) -> list[dict[str, Any]]:
    """One entry per topic the user can see, newest first; protected history hides older ones."""
    stream = channels.access_stream(store, user, stream_id)
    first = channels.first_visible_message_id(store, user, stream)
    rows = store.query(
        "SELECT topic, max(id) AS max_id FROM messages WHERE stream_id = ? AND id >= ? "
        "GROUP BY topic COLLATE NOCASE ORDER BY max_id DESC",
        [stream["id"], first],
    )
    out = []
    for r in rows:
        name = store.scalar("SELECT topic FROM messages WHERE id = ?", [r["max_id"]])
        out.append({"name": display_topic(name, allow_empty_topic_name), "max_id": r["max_id"]})
    return out


def mark_all_as_read(store: Store, user: Row, *, budget_seconds: float = 50.0) -> dict[str, Any]:
    """Mark unread messages read in batches, newest first; ``complete`` is False on timeout."""
    deadline = time.monotonic() + budget_seconds
    while True:
        with store.atomic():
            rows = store.query(
                "SELECT message_id FROM message_flags WHERE user_id = ? AND (flags & ?) = 0 "
                "ORDER BY message_id DESC LIMIT ?",
                [user["id"], READ, MARK_READ_BATCH],
            )
            if not rows:
                return {"complete": True}
            ids = [r["message_id"] for r in rows]
            store.execute(
                f"UPDATE message_flags SET flags = flags | {READ} WHERE user_id = ? AND "
                f"message_id IN ({','.join(str(i) for i in ids)})",
                [user["id"]],
            )
            # as the real server announces it: every message read, no ids listed
            event_bus(store).publish(
                {
                    "type": "update_message_flags",
                    "op": "add",
                    "operation": "add",
                    "flag": "read",
                    "messages": [],
                    "all": True,
                },
                [user["id"]],
            )
        if time.monotonic() >= deadline:
            remaining = store.one(
                "SELECT 1 FROM message_flags WHERE user_id = ? AND (flags & ?) = 0 LIMIT 1",
                [user["id"], READ],
            )
            return {"complete": remaining is None}


def unread_count(store: Store, user_id: int) -> int:
    return int(
        store.scalar(
            "SELECT count(*) FROM message_flags WHERE user_id = ? AND (flags & ?) = 0",
            [user_id, READ],
        )
    )
