"""V6 to V10 on hand-built frames with answers worked out by hand; all ten on the demo organization.

V1 to V5, the package and the schema: ``test_views.py``.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
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


def test_v7_cohort_by_date_joined_keeps_every_message_and_reads_tenure_from_the_first_post(
    v7_messages: pd.DataFrame,
) -> None:
    """Person 1 posted in January and joined in February (imported history): the matrix
    follows each person from the month they joined, the tenure table from their first post,
    and it still holds all seven messages."""
    u = users([1, 2, 3]).assign(date_joined=[ts("2024-02-10"), ts("2023-11-01"), ts("2024-02-01")])
    r = views.newcomer_cohorts(v7_messages, users=u, cohort_by="date_joined", horizon=6)
    cells = {
        (c, o): (n, size)
        for c, o, n, size in r.frame[
            ["cohort", "offset", "active_users", "cohort_size"]
        ].itertuples(index=False)
    }
    assert cells == {
        ("2023-11", 0): (0, 1),
        ("2023-11", 1): (0, 1),
        ("2023-11", 2): (1, 1),
        ("2023-11", 3): (0, 1),
        ("2023-11", 4): (1, 1),
        ("2024-02", 0): (2, 2),
        ("2024-02", 1): (1, 2),
    }
    assert r.posted_before_joining == 1 and r.cohort_by == "date_joined"
    assert int(r.tenure["messages"].sum()) == len(v7_messages) == 7
    t = r.tenure.pivot(index="period", columns="tenure", values="messages")
    assert (t.loc["2024-01", "0"], t.loc["2024-02", "0"], t.loc["2024-02", "1-2"]) == (2, 2, 1)
    assert t.loc["2024-03", "1-2"] == 2
    fig = r.plot()
    assert fig.axes[0].get_title() == "Newcomer retention by month of joining"
    assert fig.axes[0].get_xlabel() == "months since joining"
    plt.close(fig)


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


def test_v8_most_reacted_lists_the_first_messages_and_counts_every_reacted_one(
    v8_frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    msgs, reacts = v8_frames
    every = views.reactions_and_engagement(msgs, reacts, most_reacted_limit=None)
    assert every.most_reacted["message_id"].tolist() == [1, 2]
    one = views.reactions_and_engagement(msgs, reacts, most_reacted_limit=1)
    # the first of the same list, in the same order; the counts stay those of every message
    pd.testing.assert_frame_equal(one.most_reacted, every.most_reacted.head(1))
    assert one.reacted_messages == every.reacted_messages == 2
    assert one.reacted_message_share == every.reacted_message_share == pytest.approx(0.5)
    assert one.reactions == every.reactions == 5
    assert one.most_reacted_limit == 1 and every.most_reacted_limit is None
    assert views.reactions_and_engagement(msgs, reacts).most_reacted_limit == 1000
    for bad in (0, -3, 1.5, True, "10"):
        with pytest.raises(ValueError, match="most_reacted_limit"):
            views.reactions_and_engagement(msgs, reacts, most_reacted_limit=bad)  # type: ignore[arg-type]


def test_v8_exclude_bots_anonymize_and_bad_input(
    v8_frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    msgs, reacts = v8_frames
    r = views.reactions_and_engagement(
        msgs, reacts, users=users([1, 2, 3], [9]), exclude_bots=True, anonymize=True, key=KEY
    )
    assert "robot" not in set(r.frame["emoji_name"]) and r.reactions == 4
    assert set(r.network["reactor_id"]) <= {analytics.pseudonym(i, KEY) for i in (1, 2, 3)}
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
    r = views.interaction_graph(msgs, subscriptions=subs, min_weight=2, anonymize=True, key=KEY)
    assert r.anonymized is True
    assert len(r.frame) == 6 and r.frame["weight"].min() == 2
    assert r.channel_edges.empty
    assert "name" not in r.nodes.columns
    assert set(r.nodes["user_id"]) == {analytics.pseudonym(i, KEY) for i in range(1, 7)}
    assert set(r.graph.nodes) == set(r.nodes["user_id"])
    again = views.interaction_graph(msgs, subscriptions=subs, min_weight=2, anonymize=True, key=KEY)
    assert again.frame["source"].tolist() == r.frame["source"].tolist()
    for bad in (0, -1):
        with pytest.raises(ValueError, match="min_weight"):
            views.interaction_graph(msgs, min_weight=bad)
    with pytest.raises(ValueError, match="communities"):
        views.interaction_graph(msgs, communities="girvan")


def test_v10_the_reply_graph_is_made_when_first_read(
    v10_frames: tuple[pd.DataFrame, pd.DataFrame],
) -> None:
    msgs, subs = v10_frames
    r = views.interaction_graph(msgs, subscriptions=subs)
    # no networkx graph of every link is held until someone asks for it
    assert not {"graph", "_graph"} & set(vars(r)) and "graph" not in r.summary()
    g = r.graph
    assert r.graph is g
    # its links are the frame's pairs, both directions' weights summed
    both: dict[frozenset[int], int] = {}
    for a, b, w in r.frame.itertuples(index=False):
        both[frozenset((a, b))] = both.get(frozenset((a, b)), 0) + w
    assert {frozenset((a, b)): d["weight"] for a, b, d in g.edges(data=True)} == both
    assert g.number_of_edges() == r.pairs


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
        demo.messages,
        subscriptions=demo.subscriptions,
        channels=demo.channels,
        anonymize=True,
        key=KEY,
    )
    assert len(r.nodes) > 10 and r.communities >= 1
    assert all(str(u).startswith("u-") for u in r.nodes["user_id"])
    assert len(r.channel_nodes) == demo.subscriptions["stream_id"].nunique()


@pytest.mark.parametrize("offset", [0, 1 << 31, -(1 << 40)])
def test_v10_links_and_mutual_pairs_are_the_same_as_two_column_groups(offset: int) -> None:
    """The undirected links found by each edge's reverse among the numbered pairs, whatever
    the ids (small, past 2**31, negative): the pairs, their weights both ways summed and their
    order (first come among the edges, heaviest first) as pandas groups them, and the mutual
    pairs as a set of the directed pairs finds them."""
    from chatops.analytics.views.interaction_graph._compute import _undirected

    rng = np.random.default_rng(3)
    pairs = pd.DataFrame(
        {
            "source": rng.integers(1, 60, 5000).astype(np.int64) + offset,
            "target": rng.integers(1, 60, 5000).astype(np.int64) + offset,
        }
    )
    pairs = pairs[pairs["source"] != pairs["target"]].drop_duplicates()
    pairs["weight"] = rng.integers(1, 9, len(pairs)).astype(np.int64)
    edges = pairs.sort_values(
        ["weight", "source", "target"], ascending=[False, True, True], kind="stable"
    )
    source, target, weight = (edges[c].to_numpy() for c in ("source", "target", "weight"))
    lo, hi = np.minimum(source, target), np.maximum(source, target)
    want = (
        pd.DataFrame({"a": lo, "b": hi, "w": weight})
        .groupby(["a", "b"], sort=False)["w"]
        .sum()
        .reset_index()
    )
    a, b, w, mutual = _undirected(source, target, weight)
    assert (a.tolist(), b.tolist(), w.tolist()) == (
        want["a"].tolist(),
        want["b"].tolist(),
        want["w"].tolist(),
    )
    directed = set(zip(source.tolist(), target.tolist(), strict=True))
    both = {(x, y) for x, y in directed if x < y and (y, x) in directed}
    assert mutual == len(both) > 100
    assert _undirected(source[:0], target[:0], weight[:0])[3] == 0
