"""The package, the schema, and V1 to V5 on hand-built frames with answers worked out by hand.

V6 to V10 and the demo organization: ``test_views_v6_to_v10.py``.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from chatops import analytics
from chatops.analytics import AnalyticsFrames, views
from chatops.analytics.schema import RESOLVED_PREFIX

from .conftest import KEY, channels, messages, subscriptions, users

R = RESOLVED_PREFIX
UTC = "UTC"


def ts(text: str) -> pd.Timestamp:
    return pd.Timestamp(text, tz=UTC)


# -- the package and the schema ----------------------------------------------------------------


def test_all_lists_the_public_surface() -> None:
    assert len(set(analytics.__all__)) == len(analytics.__all__)
    assert all(hasattr(analytics, n) for n in analytics.__all__)
    assert set(views.__all__) <= set(analytics.__all__)
    assert set(analytics.dataset.records.__all__) | set(analytics.schema.__all__) <= set(
        analytics.__all__
    )


def test_validate_names_missing_columns() -> None:
    bad = pd.DataFrame({"id": [1], "timestamp": [0]})
    with pytest.raises(ValueError, match=r"type, stream_id, channel, topic, sender_id"):
        analytics.validate(bad, "messages")
    with pytest.raises(ValueError, match="unknown frame kind 'nope'"):
        analytics.validate(bad, "nope")


def test_validate_fills_optional_columns_with_documented_dtypes() -> None:
    df = messages([(1, "2024-01-01 10:00", "general", "t", 1)])
    assert list(df.columns[: len(analytics.COLUMNS["messages"])]) == list(
        analytics.COLUMNS["messages"]
    )
    assert str(df["timestamp"].dt.tz) == UTC
    assert df["last_edit_timestamp"].isna().all() and str(df["last_edit_timestamp"].dt.tz) == UTC
    assert isinstance(df["channel"].dtype, pd.CategoricalDtype)
    assert df["recipient_id"].dtype == "Int64"
    # integers in a datetime column are Unix seconds
    secs = analytics.validate(pd.DataFrame({"user_id": [1], "timestamp": [86_400]}), "presence")
    assert secs["timestamp"].iloc[0] == ts("1970-01-02")
    empty = analytics.empty("edits")
    assert list(empty.columns) == list(analytics.COLUMNS["edits"]) and len(empty) == 0


def test_records_builders_read_api_dicts() -> None:
    recs = [
        {
            "id": 7,
            "timestamp": 100,
            "type": "stream",
            "stream_id": 1,
            "display_recipient": "general",
            "subject": f"{R}bug",
            "sender_id": 1,
            "sender_full_name": "A",
            "client": "website",
            "content": "hi",
            "recipient_id": 11,
            "last_edit_timestamp": 150,
            "reactions": [{"emoji_name": "+1", "emoji_code": "1f44d", "user_id": 2}],
            "edit_history": [
                {"user_id": 2, "timestamp": 150, "prev_topic": "bug", "topic": f"{R}bug"},
                {"user_id": 1, "timestamp": 120, "prev_content": "h"},
            ],
        },
        {
            "id": 8,
            "timestamp": 200,
            "type": "private",
            "sender_id": 2,
            "content": "x",
            "display_recipient": [
                {"id": 1, "email": "a", "full_name": "A"},
                {"id": 2, "email": "b", "full_name": "B"},
            ],
        },
    ]
    f = AnalyticsFrames.from_records(recs, subscriptions={1: [1, 2]})
    assert f.messages["recipient_id"].tolist()[0] == 11
    assert f.messages["last_edit_timestamp"].iloc[0] == pd.Timestamp(150, unit="s", tz=UTC)
    assert f.reactions[["message_id", "user_id", "emoji_name"]].astype(str).values.tolist() == [
        ["7", "2", "+1"]
    ]
    assert f.edits["kind"].astype(str).tolist() == ["resolve", "edit"]
    assert f.dm_recipients["user_id"].tolist() == [1, 2]
    assert len(f.subscriptions) == 2
    assert analytics.edit_kind({"prev_topic": f"{R}x", "topic": "x"}) == "unresolve"
    assert (
        analytics.edit_kind({"prev_stream": 3, "stream": 4, "prev_topic": "a", "topic": "b"})
        == "move_channel"
    )
    assert analytics.edit_kind({"prev_topic": "a", "topic": "b"}) == "move_topic"


# -- V1 messages over time ---------------------------------------------------------------------


@pytest.fixture
def v1_messages() -> pd.DataFrame:
    return messages(
        [
            (1, "2024-01-01 10:00", "general", "a", 1),
            (2, "2024-01-01 11:00", "general", "a", 2),
            (3, "2024-01-02 09:00", "dev", "b", 9),
            (4, "2024-01-04 12:00", None, None, 1),
        ]
    )


def test_v1_daily_counts_split_human_bot_with_empty_days(v1_messages: pd.DataFrame) -> None:
    r = views.messages_over_time(
        v1_messages, users=users([1, 2], bots=[9]), freq="D", as_of="2024-01-04 18:00"
    )
    f = r.frame
    human = f[f["split"] == "human"]
    bot = f[f["split"] == "bot"]
    assert human["bucket_start"].tolist() == [ts(f"2024-01-0{d}") for d in (1, 2, 3, 4)]
    assert human["messages"].tolist() == [2, 0, 0, 1]
    assert bot["messages"].tolist() == [0, 1, 0, 0]
    assert human["cumulative"].tolist() == [2, 2, 2, 3]
    assert f["bucket_end"].iloc[0] == ts("2024-01-02")
    assert human["partial"].tolist() == [False, False, False, True]
    assert r.total == 4 and int(f["messages"].sum()) == 4


def test_v1_weekly_buckets_start_monday_and_tz_moves_days(v1_messages: pd.DataFrame) -> None:
    r = views.messages_over_time(v1_messages, users=users([1, 2], [9]), freq="W")
    assert r.frame.groupby("split", observed=True)["messages"].sum().to_dict() == {
        "human": 3,
        "bot": 1,
    }
    assert r.frame["bucket_start"].unique().tolist() == [ts("2024-01-01")]
    late = messages([(1, "2024-01-02 03:00", "general", "a", 1)])
    ny = views.messages_over_time(late, split=None, tz="America/New_York")
    assert ny.frame["bucket_start"].tolist() == [pd.Timestamp("2024-01-01", tz="America/New_York")]
    assert ny.frame["split"].astype(str).tolist() == ["all"]


def test_v1_recipient_type_split(v1_messages: pd.DataFrame) -> None:
    dm = pd.DataFrame({"message_id": [4, 4, 4], "user_id": [1, 2, 3]})
    r = views.messages_over_time(
        v1_messages,
        channels=channels(private=["dev"]),
        dm_recipients=dm,
        split="recipient_type",
        freq="M",
    )
    got = r.frame.set_index(r.frame["split"].astype(str))["messages"].to_dict()
    assert got == {"public channel": 2, "private channel": 1, "group direct message": 1}


def test_v1_exclude_bots_and_bad_input(v1_messages: pd.DataFrame) -> None:
    u = users([1, 2], [9])
    r = views.messages_over_time(v1_messages, users=u, exclude_bots=True)
    assert r.total == 3 and r.frame.loc[r.frame["split"] == "bot", "messages"].sum() == 0
    with pytest.raises(ValueError, match="freq 'Q'"):
        views.messages_over_time(v1_messages, users=u, freq="Q")
    with pytest.raises(ValueError, match="users"):
        views.messages_over_time(v1_messages)
    with pytest.raises(ValueError, match="users"):
        views.messages_over_time(v1_messages, split=None, exclude_bots=True)
    with pytest.raises(ValueError, match="sender_id"):
        views.messages_over_time(v1_messages.drop(columns="sender_id"), users=u)
    with pytest.raises(ValueError, match="tz"):
        views.messages_over_time(v1_messages, users=u, tz="Mars/Olympus")
    with pytest.raises(ValueError, match="since"):
        views.messages_over_time(v1_messages, users=u, since="2024-02-01", until="2024-01-01")


def test_v1_since_until_and_csv_round_trip(v1_messages: pd.DataFrame, tmp_path: Path) -> None:
    r = views.messages_over_time(
        v1_messages,
        users=users([1, 2], [9]),
        since="2024-01-02",
        until="2024-01-04",
        coverage="all of it",
    )
    assert r.total == 1 and r.coverage == "all of it"
    paths = r.to_csv(tmp_path / "out")
    assert [p.name for p in paths] == ["messages_over_time.csv", "messages_over_time_summary.csv"]
    back = pd.read_csv(paths[0])
    assert back["messages"].tolist() == r.frame["messages"].tolist()
    assert back["split"].tolist() == r.frame["split"].astype(str).tolist()
    assert pd.to_datetime(back["bucket_start"]).tolist() == r.frame["bucket_start"].tolist()
    one = r.to_csv(tmp_path / "v1.csv")
    assert one[0] == tmp_path / "v1.csv" and one[0].exists()


# -- V2 active users ---------------------------------------------------------------------------


@pytest.fixture
def v2_messages() -> pd.DataFrame:
    return messages(
        [
            (1, "2024-01-01 10:00", "general", "a", 1),
            (2, "2024-01-02 10:00", "general", "a", 2),
            (3, "2024-01-03 10:00", "general", "a", 1),
            (4, "2024-01-03 11:00", "general", "a", 1),
            (5, "2024-01-10 10:00", "general", "a", 3),
        ]
    )


def test_v2_dau_wau_15day_on_known_days(v2_messages: pd.DataFrame) -> None:
    r = views.active_users(v2_messages, windows=(1, 7, 15))
    wide = r.frame.pivot(index="date", columns="label", values="active_users")
    assert len(r.frame) == 10 * 3
    assert wide.loc[ts("2024-01-03")].to_dict() == {"DAU": 1, "WAU": 2, "15-day": 2}
    assert wide.loc[ts("2024-01-05")].to_dict() == {"DAU": 0, "WAU": 2, "15-day": 2}
    assert wide.loc[ts("2024-01-10")].to_dict() == {"DAU": 1, "WAU": 1, "15-day": 3}
    st = r.stickiness.set_index("date")
    assert st.loc[ts("2024-01-10"), "mau"] == 3
    assert st.loc[ts("2024-01-10"), "stickiness"] == pytest.approx(1 / 3)


def test_v2_presence_counts_with_definition_any(v2_messages: pd.DataFrame) -> None:
    presence = pd.DataFrame({"user_id": [4], "timestamp": [ts("2024-01-10 08:00")]})
    r = views.active_users(v2_messages, windows=(1,), definition="any", presence=presence)
    assert r.frame.set_index("date").loc[ts("2024-01-10"), "active_users"] == 2
    with pytest.raises(ValueError, match="presence"):
        views.active_users(v2_messages, definition="any")
    with pytest.raises(ValueError, match="definition"):
        views.active_users(v2_messages, definition="read")


@pytest.mark.parametrize("windows", [(0,), (-7,), (), (1.5,)])
def test_v2_rejects_bad_windows(v2_messages: pd.DataFrame, windows: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="windows"):
        views.active_users(v2_messages, windows=windows)


def test_v2_exclude_bots(v2_messages: pd.DataFrame) -> None:
    r = views.active_users(
        v2_messages, users=users([1, 2], bots=[3]), windows=(28,), exclude_bots=True
    )
    assert r.frame["active_users"].max() == 2
    assert r.frame["date"].max() == ts("2024-01-03")


# -- V3 channel scorecard ----------------------------------------------------------------------


@pytest.fixture
def v3_messages() -> pd.DataFrame:
    return messages(
        [
            (1, "2024-01-05", "general", "a", 1),
            (2, "2024-01-15", "general", "a", 1),
            (3, "2024-01-22", "general", "a", 1),
            (4, "2024-01-23", "general", "a", 2),
            (5, "2024-01-25", "general", f"{R}b", 1),
            (6, "2024-01-26", "general", f"{R}b", 3),
            (7, "2024-01-20", "dev", "c", 2),
            (8, "2024-01-30", "dev", "c", 2),
        ]
    )


def test_v3_scorecard_known_answers(v3_messages: pd.DataFrame) -> None:
    subs = subscriptions({"general": [1, 2, 3, 4], "dev": [2]})
    r = views.channel_scorecard(
        v3_messages, channels=channels(), subscriptions=subs, period="10D", as_of="2024-01-31"
    )
    f = r.frame.set_index("channel")
    assert list(f.index[:2]) == ["general", "dev"] and f.loc["general", "rank"] == 1
    g = f.loc["general"]
    assert (g["messages"], g["previous_messages"], g["posters"], g["subscribers"]) == (4, 1, 3, 4)
    assert g["change_pct"] == pytest.approx(300.0)
    assert g["participation_pct"] == pytest.approx(75.0)
    assert (g["topics_created"], g["active_topics"], g["median_topic_length"]) == (1, 2, 2.0)
    assert g["resolved_pct"] == pytest.approx(50.0)
    assert g["last_activity"] == ts("2024-01-26")
    d = f.loc["dev"]
    assert (d["messages"], d["previous_messages"], d["change_pct"], d["topics_created"]) == (
        1,
        1,
        0.0,
        0,
    )
    assert d["participation_pct"] == pytest.approx(100.0)
    q = f.loc["quiet"]
    assert q["messages"] == 0 and q["subscribers"] == 0 and math.isnan(q["change_pct"])
    assert r.hhi == pytest.approx(0.8**2 + 0.2**2)
    assert r.previous_hhi == pytest.approx(0.5)
    # one channel listed (a channel filter): no concentration to speak of, not 1.00
    general = channels()[channels()["name"] == "general"]
    one = views.channel_scorecard(
        v3_messages[v3_messages["channel"] == "general"],
        channels=general,
        period="10D",
        as_of="2024-01-31",
    )
    assert one.frame["channel"].tolist() == ["general"] and int(one.frame["messages"][0]) == 4
    assert math.isnan(one.hhi) and math.isnan(one.previous_hhi)


def test_v3_bad_period_and_subscriber_count_from_channels(v3_messages: pd.DataFrame) -> None:
    for bad in ("-5D", "abc", "0D"):
        with pytest.raises(ValueError, match="period"):
            views.channel_scorecard(v3_messages, period=bad)
    chans = channels().assign(subscriber_count=[10, 5, 0, 0])
    r = views.channel_scorecard(v3_messages, channels=chans, period="10D", as_of="2024-01-31")
    assert r.frame.set_index("channel").loc["general", "participation_pct"] == pytest.approx(30.0)


# -- V4 topic lifecycle ------------------------------------------------------------------------


@pytest.fixture
def v4_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    msgs = messages(
        [
            (1, "2024-01-01 10:00", "general", f"{R}q1", 1),
            (2, "2024-01-01 10:30", "general", f"{R}q1", 1),
            (3, "2024-01-01 11:00", "general", f"{R}q1", 2),
            (4, "2024-01-01 12:00", "general", f"{R}q1", 3),
            (5, "2024-01-02 09:00", "general", "q2", 2),
            (6, "2024-01-02 15:00", "general", "q2", 1),
            (7, "2024-01-03 08:00", "dev", "q3", 3),
            (8, "2024-01-02 10:00", "dev", f"{R}q4", 1),
            (9, "2024-01-02 12:00", "dev", f"{R}q4", 2),
        ]
    )
    resolve = [(i, ts("2024-01-01 14:00"), "resolve", "q1", f"{R}q1") for i in (1, 2, 3, 4)]
    edits = pd.DataFrame(
        [
            *resolve,
            (6, ts("2024-01-02 16:00"), "move_topic", "old", "q2"),
            (7, ts("2024-01-03 08:05"), "edit", None, None),
        ],
        columns=["message_id", "timestamp", "kind", "prev_topic", "topic"],
    )
    return msgs, edits


def test_v4_first_reply_resolve_and_sla(v4_frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    msgs, edits = v4_frames
    r = views.topic_lifecycle(msgs, edits=edits, first_reply_sla_hours=2, as_of="2024-01-03 09:00")
    f = r.frame.set_index("topic")
    assert sorted(f.index) == ["q1", "q2", "q3", "q4"]
    q1 = f.loc["q1"]
    assert (q1["messages"], q1["participants"], q1["starter_id"]) == (4, 3, 1)
    assert q1["hours_to_first_reply"] == pytest.approx(1.0) and q1["within_sla"]
    assert q1["duration_hours"] == pytest.approx(2.0)
    assert q1["resolved"] and q1["hours_to_resolve"] == pytest.approx(4.0)
    assert q1["resolved_source"] == "edit" and not q1["moved"]
    q2 = f.loc["q2"]
    assert q2["hours_to_first_reply"] == pytest.approx(6.0) and not q2["within_sla"]
    assert not q2["resolved"] and q2["renamed"] and q2["moved"]
    q3 = f.loc["q3"]
    assert pd.isna(q3["first_reply_at"]) and pd.isna(q3["within_sla"])
    q4 = f.loc["q4"]
    assert q4["resolved_source"] == "name" and q4["hours_to_resolve"] == pytest.approx(2.0)
    assert r.topics == 4
    assert r.replied_pct == pytest.approx(75.0)
    assert r.sla_met_pct == pytest.approx(200 / 3)
    # q3 censored at 1 h, q4 resolved at 2 h (3 at risk), q1 at 4 h (2 at risk), q2 censored
    assert r.survival["hours"].tolist() == [0.0, 2.0, 4.0]
    assert r.survival["unresolved_share"].tolist() == pytest.approx([1.0, 2 / 3, 1 / 3])


def test_v4_channel_filter_anonymize_and_bad_sla(
    v4_frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    msgs, edits = v4_frames
    r = views.topic_lifecycle(msgs, edits=edits, channel_names=["dev"], anonymize=True, key=KEY)
    assert sorted(r.frame["topic"]) == ["q3", "q4"]
    assert set(r.frame["starter_id"]) == {analytics.pseudonym(3, KEY), analytics.pseudonym(1, KEY)}
    with pytest.raises(ValueError, match="first_reply_sla_hours"):
        views.topic_lifecycle(msgs, first_reply_sla_hours=0)
    with pytest.raises(ValueError, match="kind"):
        views.topic_lifecycle(msgs, edits=edits.drop(columns="kind"))


# -- V5 participation --------------------------------------------------------------------------


@pytest.fixture
def v5_messages() -> pd.DataFrame:
    return messages(
        [
            (1, "2024-01-01", "general", "a", 1),
            (2, "2024-01-02", "general", "a", 1),
            (3, "2024-01-03", "general", "a", 1),
            (4, "2024-01-04", "general", "a", 2),
            (5, "2024-01-05", "general", "a", 4),
        ]
    )


def test_gini_of_known_distributions() -> None:
    assert analytics.gini([1, 1, 1, 1]) == pytest.approx(0.0)
    assert analytics.gini([0, 0, 0, 10]) == pytest.approx(0.75)
    assert analytics.gini([0, 1, 3]) == pytest.approx(0.5)
    assert math.isnan(analytics.gini([]))


def test_v5_gini_lorenz_and_lurkers(v5_messages: pd.DataFrame) -> None:
    subs = subscriptions({"general": [1, 2, 3, 4]})
    u = users([1, 2, 3], bots=[4])
    reacts = pd.DataFrame(
        {"message_id": [1, 2, 3], "user_id": [3, 3, 1], "emoji_name": ["a", "b", "a"]}
    )
    r = views.participation_distribution(
        v5_messages, reactions=reacts, subscriptions=subs, users=u, exclude_bots=True
    )
    f = r.frame.set_index("user_id")
    assert f["messages"].to_dict() == {1: 3, 2: 1, 3: 0}
    assert f["reactions_given"].to_dict() == {1: 1, 2: 0, 3: 2}
    assert f.loc[1, "share"] == pytest.approx(0.75) and f.loc[1, "name"] == "Person 1"
    assert r.gini == pytest.approx(0.5)
    assert r.lurker_share == pytest.approx(1 / 3)
    assert r.posters == 2
    assert r.lorenz["population_share"].tolist() == pytest.approx([0, 1 / 3, 2 / 3, 1])
    assert r.lorenz["message_share"].tolist() == pytest.approx([0, 0, 0.25, 1])
    without = views.participation_distribution(
        v5_messages, subscriptions=subs, users=u, exclude_bots=True, include_lurkers=False
    )
    assert without.gini == pytest.approx(0.25)
    with_bot = views.participation_distribution(v5_messages, users=u)
    assert 4 in set(with_bot.frame["user_id"])
    # one person: no spread of messages among people, so no Gini (it was 0.00)
    alone = views.participation_distribution(
        v5_messages[v5_messages["sender_id"] == 1], subscriptions=subscriptions({"general": [1]})
    )
    assert alone.frame["user_id"].tolist() == [1] and alone.lurker_share == 0.0
    assert math.isnan(alone.gini)


def test_v5_anonymize_hides_ids_and_names_and_is_stable(
    v5_messages: pd.DataFrame, tmp_path: Path
) -> None:
    u = users([1, 2], [4])
    a = views.participation_distribution(v5_messages, users=u, anonymize=True, key=KEY)
    b = views.participation_distribution(v5_messages, users=u, anonymize=True, key=KEY)
    c = views.participation_distribution(v5_messages, users=u, anonymize=True, key=KEY[::-1])
    assert "name" not in a.frame.columns
    assert a.frame["user_id"].tolist() == b.frame["user_id"].tolist()
    assert set(a.frame["user_id"]).isdisjoint(set(c.frame["user_id"]))
    assert all(str(x).startswith("u-") and len(str(x)) == 18 for x in a.frame["user_id"])
    text = "".join(p.read_text() for p in a.to_csv(tmp_path))
    assert "Person" not in text
    assert not {"1", "2", "4"} & set(
        pd.read_csv(tmp_path / "participation_distribution.csv")["user_id"].astype(str)
    )


def test_v5_period_and_bad_input(v5_messages: pd.DataFrame) -> None:
    r = views.participation_distribution(v5_messages, period="2D", as_of="2024-01-05")
    assert r.frame.set_index("user_id")["messages"].to_dict() == {2: 1, 4: 1}
    with pytest.raises(ValueError, match="period"):
        views.participation_distribution(v5_messages, period="-1D")
    with pytest.raises(ValueError, match="top_n"):
        views.participation_distribution(v5_messages, top_n=0)
