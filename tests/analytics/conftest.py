"""Hand-built frames with known answers, and the demo organization's frames."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import matplotlib
import pandas as pd
import pytest

import chatops
from chatops.analytics import AnalyticsFrames, validate
from chatops.sandbox import Sandbox

matplotlib.use("agg")

#: a pseudonym key for the tests that anonymize (a view is refused without one)
KEY = "test-key-" + "0123456789abcdef" * 2

STREAMS = {"general": 1, "dev": 2, "quiet": 3, "random": 4}

Row = tuple[Any, ...]


def messages(rows: Sequence[Row]) -> pd.DataFrame:
    """A messages frame from ``(id, time, channel or None, topic, sender_id[, client])`` rows."""
    out: dict[str, list[Any]] = {
        k: []
        for k in (
            "id",
            "timestamp",
            "type",
            "stream_id",
            "channel",
            "topic",
            "sender_id",
            "sender",
            "client",
        )
    }
    for row in rows:
        mid, when, channel, topic, sender = row[:5]
        out["id"].append(mid)
        out["timestamp"].append(pd.Timestamp(when, tz="UTC"))
        out["type"].append("stream" if channel else "private")
        out["stream_id"].append(STREAMS[channel] if channel else None)
        out["channel"].append(channel)
        out["topic"].append(topic if channel else None)
        out["sender_id"].append(sender)
        out["sender"].append(f"Person {sender}")
        out["client"].append(row[5] if len(row) > 5 else "website")
    return validate(pd.DataFrame(out), "messages")


def users(humans: Sequence[int], bots: Sequence[int] = ()) -> pd.DataFrame:
    """A users frame: the given humans and bots, named ``Person <id>``."""
    ids = [*humans, *bots]
    return validate(
        pd.DataFrame(
            {
                "user_id": ids,
                "full_name": [f"Person {i}" for i in ids],
                "is_bot": [False] * len(humans) + [True] * len(bots),
            }
        ),
        "users",
    )


def subscriptions(members: dict[str, Sequence[int]]) -> pd.DataFrame:
    """A subscriptions frame from ``{channel name: [user ids]}``."""
    pairs = [(STREAMS[c], u) for c, us in members.items() for u in us]
    return validate(pd.DataFrame(pairs, columns=["stream_id", "user_id"]), "subscriptions")


def channels(private: Sequence[str] = ()) -> pd.DataFrame:
    """A channels frame of :data:`STREAMS`; ``private`` ones invite-only."""
    return validate(
        pd.DataFrame(
            {
                "stream_id": list(STREAMS.values()),
                "name": list(STREAMS),
                "invite_only": [n in private for n in STREAMS],
            }
        ),
        "channels",
    )


@pytest.fixture(scope="module")
def demo(sandbox: Sandbox) -> Iterator[AnalyticsFrames]:
    """Every frame of the small demo organization, fetched through the client as the admin."""
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        history = list(client.messages.iter_history(page_size=5000))
        chans = client.channels.list()
        members = {c.stream_id: client.channels.members(c.stream_id) for c in chans}
        frames = AnalyticsFrames.from_records(
            history, users=client.users.list(), channels=chans, subscriptions=members
        )
    frames.messages.attrs["coverage"] = "channels and direct messages visible to the admin"
    yield frames
