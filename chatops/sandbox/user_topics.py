"""Per-topic visibility policies (spec 4.4): none, muted, unmuted, followed."""

from __future__ import annotations

from typing import Any

from . import channels, clock, messages
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store

INHERIT, MUTED, UNMUTED, FOLLOWED = 0, 1, 2, 3
POLICIES = (INHERIT, MUTED, UNMUTED, FOLLOWED)


def set_policy(
    store: Store, user: Row, *, stream_id: int, topic: str, visibility_policy: int
) -> None:
    """Replace the user's policy for a topic (which need not have messages); 0 removes it."""
    if visibility_policy not in POLICIES:
        raise ApiError("Invalid visibility_policy", var_name="visibility_policy")
    topic = messages.normalise_topic(topic)
    limit = realm_mod.LIMITS["max_topic_length"]
    if len(topic) > limit:
        raise ApiError(f"topic is too long (limit: {limit} characters)", var_name="topic")
    stream = channels.get_stream(store, stream_id)
    if visibility_policy == INHERIT:
        if stream is None:
            raise ApiError("Invalid channel ID")
    else:
        stream = channels.access_stream(store, user, stream_id)
    now = int(clock.now())
    with store.atomic():
        store.execute(
            "DELETE FROM user_topics WHERE user_id = ? AND stream_id = ? AND lower(topic) = lower(?)",
            [user["id"], stream_id, topic],
        )
        if visibility_policy != INHERIT:
            store.insert(
                "user_topics",
                {
                    "user_id": user["id"],
                    "stream_id": stream_id,
                    "topic": topic,
                    "visibility_policy": visibility_policy,
                    "last_updated": now,
                },
            )
        event_bus(store).publish(
            {
                "type": "user_topic",
                "stream_id": stream_id,
                "topic_name": topic,
                "last_updated": now,
                "visibility_policy": visibility_policy,
            },
            [user["id"]],
        )


def policies(store: Store, user: Row) -> list[dict[str, Any]]:
    """The ``user_topics`` block of ``POST /register``."""
    rows = store.query(
        "SELECT stream_id, topic, visibility_policy, last_updated FROM user_topics "
        "WHERE user_id = ? ORDER BY last_updated, stream_id",
        [user["id"]],
    )
    return [
        {
            "stream_id": r["stream_id"],
            "topic_name": r["topic"],
            "visibility_policy": r["visibility_policy"],
            "last_updated": r["last_updated"],
        }
        for r in rows
    ]


def policy_of(store: Store, user_id: int, stream_id: int, topic: str) -> int:
    value = store.scalar(
        "SELECT visibility_policy FROM user_topics WHERE user_id = ? AND stream_id = ? "
        "AND lower(topic) = lower(?)",
        [user_id, stream_id, topic],
    )
    return INHERIT if value is None else int(value)


def is_muted(store: Store, user_id: int, stream_id: int, topic: str) -> bool:
    """Whether the topic is muted for the user: a muted topic, or a muted channel not unmuted.

    In an unmuted channel, ``unmuted`` has the same effect as ``none``.
    """
    policy = policy_of(store, user_id, stream_id, topic)
    if policy == MUTED:
        return True
    if policy in (UNMUTED, FOLLOWED):
        return False
    channel_muted = store.scalar(
        "SELECT is_muted FROM subscriptions WHERE user_id = ? AND stream_id = ? AND active = 1",
        [user_id, stream_id],
    )
    return bool(channel_muted)
