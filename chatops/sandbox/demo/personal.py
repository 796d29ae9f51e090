"""The demo's personal tools: scheduled messages and a reminder, a channel folder, saved
snippets and topic preferences."""

from __future__ import annotations

import json
import time
from typing import Any

from ..store import Store


def add_personal_demo(
    store: Store, rng: Any, accounts: dict[str, Any], now: int | None = None
) -> None:
    """Scheduled messages (one failed), a reminder, a channel folder, saved snippets and topic
    preferences, deterministic from ``rng``, dated around ``now`` (default the current time)."""

    def uid(account: str) -> int:
        return int(accounts[account].user_id)

    now = now or int(time.time())
    member, admin = uid("member"), uid("admin")
    streams = store.query(
        "SELECT id FROM streams WHERE is_archived = 0 AND invite_only = 0 ORDER BY id"
    )
    archived = store.scalar("SELECT id FROM streams WHERE is_archived = 1 ORDER BY id LIMIT 1")
    with store.atomic():
        for i in range(3):
            stream = streams[rng.randrange(min(4, len(streams)))]["id"]
            store.insert(
                "scheduled_messages",
                {
                    "sender_id": member if i % 2 else admin,
                    "type": "stream",
                    "stream_id": stream,
                    "topic": rng.choice(["weekly sync", "release", "reminders"]),
                    "content": rng.choice(
                        ["Standup in 10 minutes", "Release notes are out", "Please review"]
                    ),
                    "scheduled_delivery_timestamp": now + 86400 * (i + 1) + rng.randrange(3600),
                },
            )
        store.insert(
            "scheduled_messages",
            {
                "sender_id": admin,
                "type": "stream",
                "stream_id": archived if archived is not None else streams[0]["id"],
                "topic": "old plans",
                "content": "This one could not be sent.",
                "scheduled_delivery_timestamp": now - 86400,
                "failed": 1,
                "failure_message": "Message could not be sent at the scheduled time.",
            },
        )
        store.insert(
            "scheduled_messages",
            {
                "sender_id": member,
                "type": "private",
                "user_ids": json.dumps([admin]),
                "content": "Happy Friday!",
                "scheduled_delivery_timestamp": now + 3 * 86400,
            },
        )
        folder = store.insert(
            "channel_folders",
            {
                "name": "Engineering",
                "description": "Build and ship",
                "rendered_description": "<p>Build and ship</p>",
                "creator_id": admin,
                "date_created": now - 86400,
            },
        )
        for s in streams[2:4]:
            store.execute("UPDATE streams SET folder_id = ? WHERE id = ?", [folder, s["id"]])
        store.insert(
            "saved_snippets",
            {
                "user_id": member,
                "title": "Thanks",
                "content": "Thanks, that helps!",
                "date_created": now,
            },
        )
        topic = store.scalar(
            "SELECT topic FROM messages WHERE stream_id = ? LIMIT 1", [streams[0]["id"]]
        )
        if topic is not None:
            store.insert(
                "user_topics",
                {
                    "user_id": member,
                    "stream_id": streams[0]["id"],
                    "topic": topic,
                    "visibility_policy": 3,
                    "last_updated": now,
                },
            )
