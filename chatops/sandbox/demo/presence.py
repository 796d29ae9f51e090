"""The demo's presence history: some people active now, some idle, some seen days ago, some
long gone; each consistent with their last message (nobody posted after they were last active)."""

from __future__ import annotations

import random

from ..store import Store

DAY = 86400
#: a person whose last message is older than this is long gone
GONE_AFTER_DAYS = 30


def add_presence_demo(store: Store, rng: random.Random, now: int) -> None:
    """One presence row per person who ever used a client, deterministic from ``rng``."""
    last_message = {
        int(r["sender_id"]): int(r["last"])
        for r in store.query("SELECT sender_id, max(timestamp) AS last FROM messages GROUP BY 1")
    }
    people = store.query(
        "SELECT id, date_joined FROM users WHERE is_active = 1 AND is_bot = 0 "
        "AND is_system_bot = 0 ORDER BY id"
    )
    rows: list[tuple[int, int, int]] = []
    for person in people:
        uid = int(person["id"])
        last = last_message.get(uid)
        roll = rng.random()
        if last is None or now - last > GONE_AFTER_DAYS * DAY:
            if last is None or roll < 0.3:
                continue  # never used a client that reports presence
            active = last + rng.randrange(0, 1800)
            connected = active + rng.randrange(0, 3600)
        elif roll < 0.35:  # active now
            connected = now - rng.randrange(0, 50)
            active = max(connected - rng.randrange(0, 30), last)
        elif roll < 0.6:  # idle: connected, not active for a while
            connected = now - rng.randrange(0, 100)
            active = max(now - rng.randrange(600, 4 * 3600), last)
        else:  # seen hours or days ago
            active = max(now - rng.randrange(3600, 5 * DAY), last)
            connected = active + rng.randrange(0, 1800)
        rows.append((uid, min(active, now), min(max(connected, active), now)))
    with store.atomic():
        for update_id, (uid, active, connected) in enumerate(rows, start=1):
            store.execute(
                "INSERT OR REPLACE INTO user_presence "
                "(user_id, last_active_time, last_connected_time, last_update_id) "
                "VALUES (?, ?, ?, ?)",
                [uid, active, connected, update_id],
            )
