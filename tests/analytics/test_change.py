"""Change over time: known answers for each time-series view's change, and for the movers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from chatops.analytics import (
    active_users,
    channel_scorecard,
    client_and_dm_mix,
    messages_over_time,
    newcomer_cohorts,
    reactions_and_engagement,
    topic_lifecycle,
    zulip_stats,
)
from chatops.analytics.change import movers
from chatops.analytics.dataset.records import user_groups_frame

from .conftest import messages, users


def _rows(counts: dict[str, list[tuple[str, int]]]) -> pd.DataFrame:
    """Messages: for each day, (channel, sender) pairs."""
    rows, n = [], 0
    for day, pairs in counts.items():
        for channel, sender in pairs:
            n += 1
            rows.append((n, f"{day} 12:00", channel, "t", sender))
    return messages(rows)


def test_messages_over_time_compares_the_last_complete_week_with_the_one_before() -> None:
    m = _rows(
        {
            "2024-01-02": [("general", 1)] * 10,  # week of 01-01: 10
            "2024-01-09": [("general", 1)] * 8,  # week of 01-08: 8
            "2024-01-16": [("general", 1)] * 3,  # week of 01-15: not over at as_of
        }
    )
    r = messages_over_time(m, freq="W", split=None, as_of="2024-01-17")
    c = r.change()
    assert c is not None
    assert (c.current, c.previous, c.delta) == (8, 10, -2)
    assert c.pct == pytest.approx(-0.2)
    assert c.start == pd.Timestamp("2024-01-08", tz="UTC")
    assert c.sentence() == (
        "8 messages in the week of 2024-01-08, down 20% on the week before (10)."
    )
    whole = messages_over_time(m, freq="W", split=None, as_of="2024-01-22")
    assert whole.change() is not None and whole.change().current == 3  # type: ignore[union-attr]
    one = messages_over_time(_rows({"2024-01-02": [("general", 1)]}), freq="W", split=None)
    assert one.change() is None


def test_zulip_stats_active_users_and_newcomers_give_their_change() -> None:
    m = _rows(
        {
            "2024-01-02": [("general", 1), ("general", 2)],
            "2024-01-09": [("general", 1), ("general", 2), ("general", 3), ("dev", 3)],
            "2024-01-16": [("general", 4)],
        }
    )
    u = users([1, 2, 3, 4]).assign(date_joined=pd.Timestamp("2023-12-01", tz="UTC"))
    s = zulip_stats(m, users=u, freq="W", as_of="2024-01-17").change()
    assert s is not None and (s.current, s.previous) == (4, 2)
    assert s.sentence().endswith("up 100% on the week before (2).")
    a = active_users(m, windows=(7,)).change()
    # the window of 7 days ending 2024-01-15 (the last whole day) against the one before it
    assert a is not None and (a.current, a.previous) == (3, 2)
    assert a.measure == "people active in 7 days" and a.period == "7 days"
    assert a.start == pd.Timestamp("2024-01-09", tz="UTC")
    n = newcomer_cohorts(m, cohort="W").change()
    # newcomers in the week of 01-08 (person 3) against the week of 01-01 (1 and 2)
    assert n is not None and (n.current, n.previous) == (1, 2)
    with pytest.raises(TypeError, match="not a time series; the views with a change: "):
        channel_scorecard(m).change()


def test_reactions_and_direct_messages_give_their_change() -> None:
    m = _rows(
        {
            "2024-01-02": [("general", 1)] * 3 + [(None, 1)] * 4,  # week of 01-01
            "2024-01-09": [("general", 1)] * 3 + [(None, 2)] * 1,  # week of 01-08
            "2024-01-16": [(None, 1)] * 9,  # the newest week: not over
        }
    )
    dm = client_and_dm_mix(m, freq="W").change()
    assert dm is not None and (dm.current, dm.previous, dm.period) == (1, 4, "week")
    assert dm.sentence() == (
        "1 direct message in the week of 2024-01-08, down 75% on the week before (4)."
    )
    reactions = pd.DataFrame(
        {"message_id": [1, 2, 8, 9, 10], "user_id": [2, 2, 1, 1, 1], "emoji_name": ["tada"] * 5}
    )
    r = reactions_and_engagement(m, reactions, freq="W").change()
    assert r is not None and (r.current, r.previous) == (3, 2)


def test_topic_lifecycle_gives_the_topics_started_per_week() -> None:
    m = messages(
        [
            (1, "2024-01-02", "general", "a", 1),
            (2, "2024-01-03", "general", "b", 1),
            (3, "2024-01-04", "general", "a", 2),  # a reply, not a topic
            (4, "2024-01-10", "dev", "c", 1),
            (5, "2024-01-17", "dev", "d", 1),  # the newest week: not over
        ]
    )
    c = topic_lifecycle(m).change()
    assert c is not None and (c.current, c.previous) == (1, 2)
    assert c.sentence() == (
        "1 topic started in the week of 2024-01-08, down 50% on the week before (2)."
    )


def test_movers_name_the_channels_groups_and_people_that_moved_most() -> None:
    before = [("general", 1)] * 6 + [("general", 2)] * 4 + [("dev", 3)] * 2
    after = [("general", 1)] * 2 + [("general", 2)] * 2 + [("dev", 3)] * 6
    m = _rows({"2024-01-03": before, "2024-01-10": after})
    u = users([1, 2, 3], bots=[9])
    groups = user_groups_frame({1: "writers", 2: "builders"}, {1: [1, 2], 2: [3]}, {})
    r = movers(m, users=u, user_groups=groups, period="7D", end="2024-01-11")
    f = r.frame
    got = {
        (k, n): (p, c, d)
        for k, n, p, c, d in f[["kind", "name", "previous", "current", "direction"]].itertuples(
            index=False
        )
    }
    assert got == {
        ("channel", "general"): (10, 4, "fell"),
        ("channel", "dev"): (2, 6, "rose"),
        ("group", "writers"): (10, 4, "fell"),
        ("group", "builders"): (2, 6, "rose"),
        ("person", "Person 1"): (6, 2, "fell"),
        ("person", "Person 2"): (4, 2, "fell"),
        ("person", "Person 3"): (2, 6, "rose"),
    }
    assert f.loc[f["name"] == "dev", "change_pct"].item() == pytest.approx(2.0)
    assert r.sentence() == (
        "Fell the most: #general (\u22126, \u221260%), @writers (\u22126, \u221260%), "
        "Person 1 (\u22124, \u221267%), Person 2 (\u22122, \u221250%). "
        "Rose the most: #dev (+4, +200%), @builders (+4, +200%), Person 3 (+4, +200%)."
    )
    top1 = movers(m, users=u, period="7D", end="2024-01-11", by=("person",), top=1)
    assert top1.frame["name"].tolist() == ["Person 1", "Person 3"]
    new = movers(_rows({"2024-01-10": [("dev", 1)]}), period="7D", end="2024-01-11")
    assert math.isnan(new.frame["change_pct"].iloc[0])
    assert new.sentence() == "Rose the most: #dev (+1), Person 1 (+1)."
    for bad, match in (
        ({"by": ("team",)}, "unknown by"),
        ({"top": 0}, "top must be"),
        ({"period": "-3D"}, "period must be a positive"),
        ({"by": ("group",)}, "user_groups frame"),
    ):
        with pytest.raises(ValueError, match=match):
            movers(m, **bad)  # type: ignore[arg-type]
