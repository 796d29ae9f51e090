"""The ten views on hand-built frames with answers worked out by hand, and on the demo organization."""

from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import pandas as pd
import pytest

from chatops import analytics
from chatops.analytics import AnalyticsFrames, views
from chatops.analytics.schema import RESOLVED_PREFIX

from .conftest import channels, messages, subscriptions, users

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
    r = views.topic_lifecycle(msgs, edits=edits, channel_names=["dev"], anonymize=True)
    assert sorted(r.frame["topic"]) == ["q3", "q4"]
    assert set(r.frame["starter_id"]) == {analytics.hash_user_id(3), analytics.hash_user_id(1)}
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


def test_v5_anonymize_hides_ids_and_names_and_is_stable(
    v5_messages: pd.DataFrame, tmp_path: Path
) -> None:
    u = users([1, 2], [4])
    a = views.participation_distribution(v5_messages, users=u, anonymize=True)
    b = views.participation_distribution(v5_messages, users=u, anonymize=True)
    c = views.participation_distribution(v5_messages, users=u, anonymize=True, salt="other")
    assert "name" not in a.frame.columns
    assert a.frame["user_id"].tolist() == b.frame["user_id"].tolist()
    assert set(a.frame["user_id"]).isdisjoint(set(c.frame["user_id"]))
    assert all(str(x).startswith("u-") and len(str(x)) == 12 for x in a.frame["user_id"])
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


# -- V6 heatmap --------------------------------------------------------------------------------


@pytest.fixture
def v6_messages() -> pd.DataFrame:
    return messages(
        [
            (1, "2024-01-01 09:15", "general", "a", 1),  # Monday
            (2, "2024-01-01 09:45", "general", "a", 2),
            (3, "2024-01-02 23:30", "dev", "a", 1),  # Tuesday (Wednesday in Berlin)
            (4, "2024-01-07 00:10", None, None, 2),  # Sunday
        ]
    )


def test_v6_heatmap_cells_and_busiest(v6_messages: pd.DataFrame) -> None:
    r = views.activity_heatmap(v6_messages)
    assert len(r.frame) == 7 * 24 and r.frame["messages"].sum() == 4
    cells = (
        r.frame[r.frame["messages"] > 0].set_index(["weekday_name", "hour"])["messages"].to_dict()
    )
    assert cells == {("Mon", 9): 2, ("Tue", 23): 1, ("Sun", 0): 1}
    assert (r.busiest_weekday, r.busiest_hour) == ("Mon", 9)
    berlin = views.activity_heatmap(v6_messages, tz="Europe/Berlin")
    cells = (
        berlin.frame[berlin.frame["messages"] > 0]
        .set_index(["weekday_name", "hour"])["messages"]
        .to_dict()
    )
    assert cells == {("Mon", 10): 2, ("Wed", 0): 1, ("Sun", 1): 1}


def test_v6_by_channel_and_user_group(v6_messages: pd.DataFrame) -> None:
    r = views.activity_heatmap(v6_messages, by="channel")
    assert r.frame.groupby("group")["messages"].sum().to_dict() == {
        "(direct message)": 1,
        "dev": 1,
        "general": 2,
    }
    groups = pd.DataFrame({"name": ["eng", "all", "all"], "user_id": [1, 1, 2]})
    g = views.activity_heatmap(v6_messages, by="user_group", user_groups=groups)
    assert g.frame.groupby("group")["messages"].sum().to_dict() == {"all": 4, "eng": 2}
    with pytest.raises(ValueError, match="user_groups"):
        views.activity_heatmap(v6_messages, by="user_group")
    with pytest.raises(ValueError, match="by"):
        views.activity_heatmap(v6_messages, by="sender")


# -- V7 cohorts --------------------------------------------------------------------------------


@pytest.fixture
def v7_messages() -> pd.DataFrame:
    return messages(
        [
            (1, "2024-01-05", "general", "a", 1),
            (2, "2024-01-06", "general", "a", 2),
            (3, "2024-02-05", "general", "a", 1),
            (4, "2024-02-06", "dev", "a", 3),
            (5, "2024-02-07", "general", "a", 3),
            (6, "2024-03-05", "general", "a", 1),
            (7, "2024-03-06", "general", "a", 2),
        ]
    )


def test_v7_retention_matrix_cells(v7_messages: pd.DataFrame) -> None:
    r = views.newcomer_cohorts(v7_messages, cohort="M", horizon=12)
    cells = {
        (c, o): (n, s)
        for c, o, n, s in r.frame[["cohort", "offset", "active_users", "cohort_size"]].itertuples(
            index=False
        )
    }
    assert cells == {
        ("2024-01", 0): (2, 2),
        ("2024-01", 1): (1, 2),
        ("2024-01", 2): (2, 2),
        ("2024-02", 0): (1, 1),
        ("2024-02", 1): (0, 1),
    }
    assert (
        r.frame.loc[(r.frame["cohort"] == "2024-01") & (r.frame["offset"] == 1), "retention"].item()
        == 0.5
    )
    assert r.newcomers == 3
    assert r.first_channels.set_index("channel")["newcomers"].to_dict() == {"general": 2, "dev": 1}
    t = r.tenure.pivot(index="period", columns="tenure", values="messages")
    assert t.loc["2024-01", "0"] == 2
    assert (t.loc["2024-02", "0"], t.loc["2024-02", "1-2"]) == (2, 1)
    assert (t.loc["2024-03", "0"], t.loc["2024-03", "1-2"]) == (0, 2)
    assert int(r.tenure["messages"].sum()) == 7


def test_v7_horizon_cuts_and_bad_input(v7_messages: pd.DataFrame) -> None:
    r = views.newcomer_cohorts(v7_messages, horizon=2)
    assert r.frame["offset"].max() == 1
    for bad in (0, -3):
        with pytest.raises(ValueError, match="horizon"):
            views.newcomer_cohorts(v7_messages, horizon=bad)
    with pytest.raises(ValueError, match="cohort"):
        views.newcomer_cohorts(v7_messages, cohort="Y")


def test_v7_cohort_by_date_joined(v7_messages: pd.DataFrame) -> None:
    u = users([1, 2, 3]).assign(date_joined=[ts("2023-12-20"), ts("2024-01-01"), ts("2024-01-15")])
    r = views.newcomer_cohorts(v7_messages, users=u, cohort_by="date_joined", horizon=3)
    sizes = r.frame.drop_duplicates("cohort").set_index("cohort")["cohort_size"].to_dict()
    assert sizes == {"2023-12": 1, "2024-01": 2}


# -- V8 reactions ------------------------------------------------------------------------------


@pytest.fixture
def v8_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    msgs = messages(
        [
            (1, "2024-01-01", "general", "a", 1),
            (2, "2024-01-02", "general", "a", 2),
            (3, "2024-01-08", "dev", "b", 1),
            (4, "2024-01-09", "dev", "b", 3),
        ]
    )
    reacts = pd.DataFrame(
        {
            "message_id": [1, 1, 1, 2, 2, 99],
            "user_id": [2, 3, 3, 1, 9, 1],
            "emoji_name": ["+1", "+1", "tada", "+1", "robot", "+1"],
        }
    )
    return msgs, reacts


def test_v8_top_emoji_most_reacted_and_network(
    v8_frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    msgs, reacts = v8_frames
    r = views.reactions_and_engagement(msgs, reacts, freq="W")
    top = r.frame.set_index("emoji_name")
    assert list(top.index) == ["+1", "robot", "tada"]
    assert top.loc["+1"].to_dict() == {"reactions": 3, "messages": 2, "reactors": 3}
    assert r.reactions == 5  # the reaction on message 99 is outside the frame
    assert r.reactions_per_message == pytest.approx(5 / 4)
    assert r.reacted_message_share == pytest.approx(0.5)
    first = r.most_reacted.iloc[0]
    assert (first["message_id"], first["reactions"], first["top_emoji"], first["sender_id"]) == (
        1,
        3,
        "+1",
        1,
    )
    net = {(a, b): n for a, b, n in r.network.itertuples(index=False)}
    assert net == {(3, 1): 2, (2, 1): 1, (1, 2): 1, (9, 2): 1}
    assert r.over_time["reactions"].tolist() == [5, 0]
    assert r.over_time["messages"].tolist() == [2, 2]
    assert r.over_time["reactions_per_message"].tolist() == [2.5, 0.0]


def test_v8_exclude_bots_anonymize_and_bad_input(
    v8_frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    msgs, reacts = v8_frames
    r = views.reactions_and_engagement(
        msgs, reacts, users=users([1, 2, 3], [9]), exclude_bots=True, anonymize=True
    )
    assert "robot" not in set(r.frame["emoji_name"]) and r.reactions == 4
    assert set(r.network["reactor_id"]) <= {analytics.hash_user_id(i) for i in (1, 2, 3)}
    with pytest.raises(ValueError, match="emoji_name"):
        views.reactions_and_engagement(msgs, reacts.drop(columns="emoji_name"))
    with pytest.raises(ValueError, match="freq"):
        views.reactions_and_engagement(msgs, reacts, freq="fortnight")


# -- V9 client and DM mix ----------------------------------------------------------------------


@pytest.fixture
def v9_messages() -> pd.DataFrame:
    return messages(
        [
            (1, "2024-01-01 10:00", "general", "a", 1, "website"),
            (2, "2024-01-02 10:00", "general", "a", 2, "website"),
            (3, "2024-01-01 11:00", None, None, 1, "ZulipMobile"),
            (4, "2024-01-02 11:00", None, None, 2, "website"),
            (5, "2024-01-02 12:00", "dev", "ci", 9, "ZulipGitHubWebhook"),
        ]
    )


def test_v9_client_mix_and_dm_share(v9_messages: pd.DataFrame) -> None:
    dm = pd.DataFrame({"message_id": [3, 3, 4, 4, 4], "user_id": [1, 2, 1, 2, 3]})
    r = views.client_and_dm_mix(v9_messages, dm_recipients=dm, freq="D")
    mix = r.frame.set_index("label")
    assert mix["messages"].to_dict() == {"Web app": 3, "Mobile app": 1, "Webhooks": 1}
    assert mix.loc["Web app", "share"] == pytest.approx(0.6)
    assert mix.loc["Webhooks", "clients"] == "ZulipGitHubWebhook"
    assert r.dm_share == pytest.approx(0.4) and r.top_client == "Web app"
    o = r.over_time
    assert o["dm_messages"].tolist() == [1, 1] and o["channel_messages"].tolist() == [1, 2]
    assert o["group_dm_messages"].tolist() == [0, 1]
    assert o["dm_share"].tolist() == pytest.approx([0.5, 1 / 3])
    assert views.client_label("website") == "Web app"


def test_v9_exclude_bots_and_missing_client(v9_messages: pd.DataFrame) -> None:
    r = views.client_and_dm_mix(v9_messages, users=users([1, 2], [9]), exclude_bots=True)
    assert "Webhooks" not in set(r.frame["label"]) and r.dm_share == pytest.approx(0.5)
    with pytest.raises(ValueError, match="client"):
        views.client_and_dm_mix(v9_messages.drop(columns="client"))


# -- V10 interaction graph ---------------------------------------------------------------------


@pytest.fixture
def v10_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    rows = []
    start = pd.Timestamp("2024-01-01")
    for i, s in enumerate([1, 2, 3, 1, 2, 3, 1, 2, 2]):  # the last 2 follows itself: no edge
        rows.append((100 + i, start + pd.Timedelta(minutes=i), "general", "a", s))
    for i, s in enumerate([4, 5, 6, 4, 5, 6, 4, 5]):
        rows.append((200 + i, start + pd.Timedelta(minutes=i), "dev", "b", s))
    rows += [
        (300, start, "random", "bridge", 3),
        (301, start + pd.Timedelta(hours=1), "random", "bridge", 4),
    ]
    subs = subscriptions({"general": [1, 2, 3], "dev": [4, 5, 6], "random": [1, 4]})
    return messages(rows), subs


def test_v10_reply_edges_and_two_communities(v10_frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    msgs, subs = v10_frames
    r = views.interaction_graph(msgs, subscriptions=subs, channels=channels(), anonymize=False)
    edges = {(s, t): w for s, t, w in r.frame.itertuples(index=False)}
    assert edges == {(1, 2): 3, (2, 3): 2, (3, 1): 2, (4, 5): 3, (5, 6): 2, (6, 4): 2, (3, 4): 1}
    nodes = r.nodes.set_index("user_id")
    comm = nodes["community"].to_dict()
    assert comm[1] == comm[2] == comm[3] != comm[4] == comm[5] == comm[6]
    assert r.communities == 2 and r.modularity > 0.3
    top_two = set(nodes["betweenness"].sort_values(ascending=False).index[:2])
    assert top_two == {3, 4}
    assert nodes.loc[2, "messages"] == 4 and nodes.loc[1, "name"] == "Person 1"
    ce = {(a, b): n for a, b, n in r.channel_edges.itertuples(index=False)}
    assert ce == {("dev", "random"): 1, ("general", "random"): 1}
    greedy = views.interaction_graph(msgs, communities="greedy", anonymize=False)
    gc = greedy.nodes.set_index("user_id")["community"].to_dict()
    assert gc[1] == gc[2] == gc[3] != gc[4] == gc[5] == gc[6]


def test_v10_min_weight_and_anonymize(
    v10_frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    msgs, subs = v10_frames
    # the same default as the other nine views: names unless anonymize=True
    plain = views.interaction_graph(msgs, subscriptions=subs, min_weight=2)
    assert plain.anonymized is False
    assert set(plain.nodes["user_id"]) == set(range(1, 7))
    assert plain.nodes.set_index("user_id")["name"][1] == "Person 1"
    r = views.interaction_graph(msgs, subscriptions=subs, min_weight=2, anonymize=True)
    assert r.anonymized is True
    assert len(r.frame) == 6 and r.frame["weight"].min() == 2
    assert r.channel_edges.empty
    assert "name" not in r.nodes.columns
    assert set(r.nodes["user_id"]) == {analytics.hash_user_id(i) for i in range(1, 7)}
    assert set(r.graph.nodes) == set(r.nodes["user_id"])
    again = views.interaction_graph(msgs, subscriptions=subs, min_weight=2, anonymize=True)
    assert again.frame["source"].tolist() == r.frame["source"].tolist()
    for bad in (0, -1):
        with pytest.raises(ValueError, match="min_weight"):
            views.interaction_graph(msgs, min_weight=bad)
    with pytest.raises(ValueError, match="communities"):
        views.interaction_graph(msgs, communities="girvan")


def test_v10_betweenness_past_300_people_is_networkx_estimate_from_64_sources() -> None:
    # 320 people replying along a ring with chords: past 300 people the betweenness is
    # estimated from 64 sources, the same sources and estimate as networkx's
    # betweenness_centrality(k=64, seed=seed) on the view's own graph
    rows = []
    start = pd.Timestamp("2024-01-01")
    order = [i % 320 + 1 for i in range(700)] + [(7 * i) % 320 + 1 for i in range(400)]
    for i, s in enumerate(order):
        rows.append((1000 + i, start + pd.Timedelta(minutes=i), "general", f"t{i // 50}", s))
    r = views.interaction_graph(messages(rows), seed=3)
    assert len(r.nodes) == 320
    expected = nx.betweenness_centrality(r.graph, k=64, seed=3)
    got = r.nodes.set_index("user_id")["betweenness"]
    assert got.to_dict() == pytest.approx({int(k): v for k, v in expected.items()}, rel=1e-9)
    assert got.max() > 0
    exact = nx.betweenness_centrality(r.graph)
    # an estimate, not the exact value
    assert got.to_dict() != pytest.approx({int(k): v for k, v in exact.items()}, rel=1e-9)
    w = r.nodes.set_index("user_id")["weighted_degree"]
    assert w.sum() == 2 * r.frame["weight"].sum()


def test_v10_exclude_bots_drops_their_edges(v10_frames: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    msgs, _ = v10_frames
    r = views.interaction_graph(
        msgs, users=users([1, 2, 3, 4, 5], bots=[6]), exclude_bots=True, anonymize=False
    )
    assert 6 not in set(r.nodes["user_id"])
    assert ((r.frame["source"] == 6) | (r.frame["target"] == 6)).sum() == 0


def test_every_result_writes_every_frame(
    tmp_path: Path, v10_frames: tuple[pd.DataFrame, pd.DataFrame]
) -> None:
    msgs, subs = v10_frames
    r = views.interaction_graph(msgs, subscriptions=subs)
    names = sorted(p.name for p in r.to_csv(tmp_path))
    assert names == sorted(
        f"interaction_graph{s}.csv"
        for s in ("", "_nodes", "_channel_edges", "_channel_nodes", "_summary")
    )
    summary = pd.read_csv(tmp_path / "interaction_graph_summary.csv").set_index("name")["value"]
    assert summary["communities"] == "2"
    back = pd.read_csv(tmp_path / "interaction_graph.csv")
    assert back["weight"].tolist() == r.frame["weight"].tolist()


# -- the demo organization ---------------------------------------------------------------------


def test_demo_v1_totals_equal_the_message_count(demo: AnalyticsFrames) -> None:
    r = views.messages_over_time(demo.messages, users=demo.users, freq="W")
    assert r.total == len(demo.messages) == int(r.frame["messages"].sum()) > 1000
    assert r.coverage == "channels and direct messages visible to the admin"


def test_demo_v2_active_users_bounded_by_senders(demo: AnalyticsFrames) -> None:
    r = views.active_users(demo.messages)
    senders = demo.messages["sender_id"].nunique()
    by = r.frame.groupby("label")["active_users"].max()
    assert 0 < by["DAU"] <= by["WAU"] <= by["15-day"] <= by["MAU"] <= senders


def test_demo_v3_scorecard_counts_channel_messages(demo: AnalyticsFrames) -> None:
    r = views.channel_scorecard(
        demo.messages, channels=demo.channels, subscriptions=demo.subscriptions
    )
    m = demo.messages
    assert r.as_of is not None
    in_period = m["stream_id"].notna() & (m["timestamp"] > r.as_of - pd.Timedelta("30D"))
    assert int(r.frame["messages"].sum()) == int(in_period.sum())
    assert set(r.frame["channel"]) == set(demo.channels["name"])
    assert 0 < r.hhi < 1


def test_demo_v4_every_topic_once(demo: AnalyticsFrames) -> None:
    r = views.topic_lifecycle(demo.messages, edits=demo.edits)
    ch = demo.messages[demo.messages["stream_id"].notna()]
    keys = {
        (int(s), str(t).removeprefix(R)) for s, t in zip(ch["stream_id"], ch["topic"], strict=True)
    }
    assert r.topics == len(keys) and int(r.frame["messages"].sum()) == len(ch)
    assert (r.frame["resolved_source"] == "edit").any()


def test_demo_v5_participation(demo: AnalyticsFrames) -> None:
    r = views.participation_distribution(
        demo.messages, reactions=demo.reactions, subscriptions=demo.subscriptions, users=demo.users
    )
    assert r.posters == demo.messages["sender_id"].nunique()
    assert int(r.frame["messages"].sum()) == len(demo.messages)
    assert 0 < r.gini < 1


def test_demo_v6_heatmap_sums_to_messages(demo: AnalyticsFrames) -> None:
    r = views.activity_heatmap(demo.messages, tz="Europe/Berlin")
    assert int(r.frame["messages"].sum()) == len(demo.messages)


def test_demo_v7_cohorts(demo: AnalyticsFrames) -> None:
    r = views.newcomer_cohorts(demo.messages, users=demo.users)
    assert r.newcomers == demo.messages["sender_id"].nunique()
    assert (r.frame.loc[r.frame["offset"] == 0, "retention"] == 1.0).all()


def test_demo_v8_reactions(demo: AnalyticsFrames) -> None:
    r = views.reactions_and_engagement(demo.messages, demo.reactions)
    assert r.reactions == len(demo.reactions) > 0
    assert int(r.frame["reactions"].sum()) == r.reactions


def test_demo_v9_dm_share(demo: AnalyticsFrames) -> None:
    r = views.client_and_dm_mix(demo.messages, dm_recipients=demo.dm_recipients)
    assert int(r.frame["messages"].sum()) == len(demo.messages)
    assert r.dm_share == pytest.approx(float((demo.messages["type"] == "private").mean()))


def test_demo_v10_graph(demo: AnalyticsFrames) -> None:
    r = views.interaction_graph(
        demo.messages, subscriptions=demo.subscriptions, channels=demo.channels, anonymize=True
    )
    assert len(r.nodes) > 10 and r.communities >= 1
    assert all(str(u).startswith("u-") for u in r.nodes["user_id"])
    assert len(r.channel_nodes) == demo.subscriptions["stream_id"].nunique()
