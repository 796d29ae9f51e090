"""The demo's channels: two private ones with protected history, some more private in a large
organization, Zipf-like subscriber counts, the last one archived."""

from __future__ import annotations

import random
from typing import Any

from .. import channels
from ..store import Store
from .accounts import Account
from .words import CHANNELS, TOPIC_WORDS


def add_channels(
    store: Store,
    rng: random.Random,
    plan: dict[str, int],
    accounts: dict[str, Account],
    people: list[int],
    start: int,
    support: int,
) -> list[int]:
    """``plan["channels"]`` channels with their subscribers; returns their ids, the archived
    one last. ``support`` is the group that may move messages in ``#support``."""
    channel_ids: list[int] = []
    names = list(CHANNELS)
    while len(names) < plan["channels"]:
        names.append(f"{rng.choice(TOPIC_WORDS)}-{len(names)}")
    for i, cname in enumerate(names[: plan["channels"]]):
        private = i in (5, 9) or (i > 12 and rng.random() < 0.15)
        settings: dict[str, Any] = {}
        if cname == "support":
            settings["can_move_messages_within_channel_group"] = support
        sid = channels.create_stream(
            store,
            name=cname,
            description=f"Everything about {cname}.",
            invite_only=private,
            history_public_to_subscribers=not private,
            creator_id=accounts["owner"].user_id,
            date_created=start,
            is_default=cname in ("general", "announcements"),
            settings=settings,
        )
        channel_ids.append(sid)
        share = 1.0 if i < 2 else max(0.08, 0.9 / (1 + i * 0.3))
        members = [u for u in people if rng.random() < share]
        for a in ("owner", "admin", "moderator", "member"):
            if i < 8 or private and a in ("owner", "admin"):
                members.append(accounts[a].user_id)
        if i in (0, 2):
            members.append(accounts["guest"].user_id)
        for uid in set(members):
            store.execute(
                "INSERT OR IGNORE INTO subscriptions (user_id, stream_id, first_message_id) VALUES (?, ?, 0)",
                [uid, sid],
            )
    store.execute("UPDATE streams SET is_archived = 1 WHERE id = ?", [channel_ids[-1]])
    return channel_ids
