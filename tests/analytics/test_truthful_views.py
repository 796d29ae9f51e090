"""The views' sentences and figures say what the data holds, on hand-built frames with known answers.

Whose messages a dataset holds (a sync: one account's view, its own direct messages only; an
export: everyone's), reply pairs one way and both ways, one numbering of communities, user
groups that overlap, many channels in one figure, and a partial last day.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import AxesImage
from matplotlib.patches import Rectangle

from chatops import analytics
from chatops.analytics import sentences, validate, views
from chatops.analytics.coverage import Coverage

from .conftest import messages
from .test_figure_layout import draw, footnote

ADMIN = "admin@example.com"


def coverage(source: str) -> Coverage:
    return Coverage(
        source=source,
        email=ADMIN if source == "sync" else None,
        site="https://chat.example.com" if source == "sync" else None,
        as_of=datetime(2024, 2, 1, tzinfo=UTC),
        channels_readable=(),
        channels_not_readable=(),
        dm_conversations=1,
        first_message=None,
        last_message=None,
        content=False,
    )


def with_coverage(df: pd.DataFrame, source: str) -> pd.DataFrame:
    """``df`` carrying the coverage a dataset of ``source`` (sync or export) puts on it."""
    out = df.copy()
    cov = coverage(source)
    out.attrs["coverage"] = cov.note()
    out.attrs["coverage_detail"] = cov
    return out


def dm_frame() -> pd.DataFrame:
    # 19 channel messages and 1 direct message: 5% of the messages
    rows: list[tuple[Any, ...]] = [
        (i, f"2024-01-0{1 + i % 5} 10:00", "general", "t", 1 + i % 2) for i in range(1, 20)
    ]
    rows.append((20, "2024-01-03 11:00", None, None, 1))
    return messages(rows)


# -- whose direct messages ----------------------------------------------------------------------


def test_a_synced_dm_share_says_it_is_the_accounts_own_and_points_to_an_export() -> None:
    m = with_coverage(dm_frame(), "sync")
    assert sentences.direct_message_share(m) == (
        f"5% of the messages {ADMIN} sees are direct messages, all of them its own (an account "
        "sees no one else's; for the organization's share import an organization export "
        "(chatops data import-export <export>, Dataset.from_export)); the most used client, Web app, "
        "sends 100% of all."
    )
    r = views.client_and_dm_mix(m)
    assert r.viewpoint == ADMIN
    fig = r.plot()
    assert fig.axes[1].get_title() == f"Direct-message share (overall 5%)\nonly {ADMIN}'s own"
    note = " ".join(footnote(fig).get_text().split())
    assert f"direct messages: only {ADMIN}'s own" in note
    assert "chatops data import-export <export>" in note


def test_an_exported_dm_share_is_the_organizations() -> None:
    m = with_coverage(dm_frame(), "export")
    assert sentences.direct_message_share(m) == (
        "5% of the organization's messages are direct messages (organization export); "
        "the most used client, Web app, sends 100% of all."
    )
    r = views.client_and_dm_mix(m)
    assert r.viewpoint == "the organization export"
    assert r.plot().axes[1].get_title() == "Direct-message share (overall 5%), organization export"
    # frames that do not say whose they are: no claim either way
    plain = dm_frame()
    assert views.client_and_dm_mix(plain).viewpoint is None
    assert sentences.direct_message_share(plain).startswith("5% of messages are direct messages;")


def test_sentences_counting_messages_say_whose_view_they_count() -> None:
    m = with_coverage(dm_frame(), "sync")
    view = f" (in {ADMIN}'s view: the channels it reads and its own direct messages)"
    assert sentences.active_posters(m, days=28).endswith(f"who ever posted{view}.")
    assert sentences.busiest_hour(m).endswith(f"UTC{view}.")
    assert sentences.busiest_week(m).endswith(f"{view}.")
    no_reactions = pd.DataFrame({"message_id": [], "user_id": [], "emoji_name": []})
    assert sentences.reactions(m, no_reactions).startswith(f"0% of messages got a reaction{view};")
    exported = with_coverage(dm_frame(), "export")
    assert sentences.busiest_hour(exported).endswith("UTC (organization export).")
    # the channel shares, participation, newcomers and resolved topics say it too
    assert sentences.channel_share(m).endswith(f"the quietest, #general, 19{view}.")
    assert sentences.participation(m).endswith(f"){view}.")
    assert sentences.newcomers(m, days=90).endswith(f"(to 2024-01-05){view}.")
    topics = analytics.topics_frame(m)
    topics.attrs["viewpoint"] = ADMIN  # as Dataset.frames() puts it on the topics
    assert sentences.topics_resolved(topics).endswith(f"at the median{view}.")
    assert sentences.topics_resolved(analytics.topics_frame(dm_frame())).endswith("median.")


# -- the reply graph ----------------------------------------------------------------------------


def reply_frame() -> pd.DataFrame:
    # replies in topics: 1 -> 2, 2 -> 1 (both ways); 2 -> 3, 4 -> 5 (one way each)
    return messages(
        [
            (1, "2024-01-01 10:00", "general", "a", 1),
            (2, "2024-01-01 10:01", "general", "a", 2),
            (3, "2024-01-01 10:02", "general", "a", 1),
            (4, "2024-01-01 10:03", "general", "b", 2),
            (5, "2024-01-01 10:04", "general", "b", 3),
            (6, "2024-01-01 10:05", "dev", "c", 4),
            (7, "2024-01-01 10:06", "dev", "c", 5),
        ]
    )


def test_reply_pairs_says_how_many_answered_one_way_and_both_ways() -> None:
    r = views.interaction_graph(reply_frame())
    assert (r.pairs, r.mutual_pairs, r.communities) == (3, 1, 2)
    assert sentences.reply_pairs(r) == (
        "The reply graph links 3 pairs where one person answered the other in a topic; "
        "1 of them both ways. 2 communities; the largest, community 1, has 3 people."
    )


def test_communities_have_one_numbering_in_table_legend_and_sentence() -> None:
    r = views.interaction_graph(reply_frame())
    comm = r.nodes.set_index("user_id")["community"].to_dict()
    # people 1, 2 and 3 are the largest community: number 1, everywhere
    assert comm == {1: 1, 2: 1, 3: 1, 4: 2, 5: 2}
    legend = [t.get_text() for t in r.plot().axes[0].get_legend().get_texts()]
    assert legend == ["community 1 (3 people)", "community 2 (2 people)"]
    assert "community 1, has 3 people" in sentences.reply_pairs(r)


# -- user groups --------------------------------------------------------------------------------


def group_frames(extra: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    # person 1 wrote 2 messages, person 2 wrote 3, person 3 wrote 1
    m = messages(
        [
            (1, "2024-01-01 09:10", "general", "t", 1),
            (2, "2024-01-01 09:20", "general", "t", 1),
            (3, "2024-01-01 09:30", "general", "t", 2),
            (4, "2024-01-01 09:40", "general", "t", 2),
            (5, "2024-01-02 15:00", "general", "t", 2),
            (6, "2024-01-02 15:30", "general", "t", 3),
        ]
    )
    pairs = [("role:everyone", u) for u in (1, 2, 3)] + [("role:internet", u) for u in (1, 2, 3)]
    # person 2 listed twice in eng: counted once
    pairs += [("eng", 1), ("eng", 2), ("eng", 2), ("ops", 2), ("ops", 3)]
    pairs += [(f"team {k}", 1 + k % 3) for k in range(extra)]
    return m, validate(pd.DataFrame(pairs, columns=["name", "user_id"]), "user_groups")


def test_user_group_heatmap_counts_each_group_apart_without_system_groups() -> None:
    m, g = group_frames()
    r = views.activity_heatmap(m, by="user_group", user_groups=g)
    per_group = r.frame.groupby("group", observed=True)["messages"].sum().to_dict()
    assert per_group == {"eng": 5, "ops": 4}
    # the busiest cells count each message once: 4 on Monday 09:00, not eng's 4 + ops's 2
    assert (r.busiest_weekday, r.busiest_hour) == ("Mon", 9)
    assert int(r.busiest["messages"].iloc[0]) == 4
    assert int(r.busiest["messages"].sum()) == len(m)
    # a system group counts when named
    named = views.activity_heatmap(m, by="user_group", user_groups=g, groups=["role:everyone"])
    assert named.frame.groupby("group", observed=True)["messages"].sum().to_dict() == {
        "role:everyone": 6
    }
    with pytest.raises(ValueError, match="no user group named 'nobody'"):
        views.activity_heatmap(m, by="user_group", user_groups=g, groups=["nobody"])
    with pytest.raises(ValueError, match="needs by='user_group'"):
        views.activity_heatmap(m, groups=["eng"])


def test_user_group_heatmap_draws_each_group_its_own_grid_capped_with_a_note() -> None:
    m, g = group_frames()
    fig = views.activity_heatmap(m, by="user_group", user_groups=g).plot()
    grids = [ax for ax in fig.axes if any(isinstance(i, AxesImage) for i in ax.images)]
    assert sorted(ax.get_title() for ax in grids) == ["eng (5 messages)", "ops (4 messages)"]
    # each grid holds its own group's counts, never a sum over groups
    assert sorted(int(ax.images[0].get_array().sum()) for ax in grids) == [4, 5]
    many_m, many_g = group_frames(extra=8)
    many = views.activity_heatmap(many_m, by="user_group", user_groups=many_g)
    fig = many.plot()
    grids = [ax for ax in fig.axes if ax.images]
    assert len(grids) == 6
    assert "4 more groups not drawn (fewer messages): choose them with groups=[...]" in " ".join(
        footnote(fig).get_text().split()
    )


# -- many channels over time --------------------------------------------------------------------


def forty_channels() -> pd.DataFrame:
    rows = []
    for i in range(1, 2001):
        c = i % 40
        rows.append(
            {
                "id": i,
                "timestamp": pd.Timestamp("2024-01-01", tz="UTC") + pd.Timedelta(hours=i % 700),
                "type": "stream",
                "stream_id": 100 + c,
                "channel": f"channel number {c:02d}",
                "topic": "t",
                "sender_id": 1 + i % 7,
                "sender": f"Person {1 + i % 7}",
                "client": "website",
            }
        )
    m = validate(pd.DataFrame(rows), "messages")
    m.attrs["coverage"] = "every channel of a test organization"
    return m


def test_forty_channels_draw_the_top_nine_and_the_others_with_the_legend_clear() -> None:
    r = views.messages_over_time(forty_channels(), split="channel", freq="W", as_of="2024-01-20")
    fig = r.plot()
    (legend,) = fig.legends
    texts = [t.get_text() for t in legend.get_texts()]
    assert len(texts) == 9 + 3 and texts[9:] == [
        "31 other channels",
        "cumulative",
        "partial: last week (still counting)",
    ]
    renderer = draw(fig)
    box = legend.get_window_extent(renderer)
    assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)
    for ax in fig.axes:
        assert not box.overlaps(ax.get_window_extent(renderer))
        assert not box.overlaps(ax.yaxis.label.get_window_extent(renderer))
    assert not box.overlaps(footnote(fig).get_window_extent(renderer))
    # the bars still add up to every message of each week
    bars = [p for p in fig.axes[0].patches if isinstance(p, Rectangle)]
    assert round(sum(b.get_height() for b in bars)) == 2000


# -- the partial last day -----------------------------------------------------------------------


def test_active_users_marks_the_partial_last_day() -> None:
    m = messages(
        [
            (1, "2024-01-01 10:00", "general", "t", 1),
            (2, "2024-01-02 10:00", "general", "t", 2),
            (3, "2024-01-03 09:00", "general", "t", 1),
        ]
    )
    r = views.active_users(m, as_of="2024-01-03 12:00")
    partial = r.frame.drop_duplicates("date").set_index("date")["partial"]
    assert partial.tolist() == [False, False, True]
    fig = r.plot()
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend[-1] == "partial day (still counting)"
    hatched = [p for p in fig.axes[0].patches if p.get_hatch() == "///"]
    assert len(hatched) == 1
    x0, x1 = (hatched[0].get_x(), hatched[0].get_x() + hatched[0].get_width())
    day = np.datetime64("2024-01-03")
    import matplotlib.dates as mdates

    assert x0 < mdates.date2num(day) < x1
    # taken after the day ended: nothing is partial, nothing hatched
    done = views.active_users(m, as_of="2024-01-04 00:00")
    assert not done.frame["partial"].any()
    assert "partial day (still counting)" not in [
        t.get_text() for t in done.plot().axes[0].get_legend().get_texts()
    ]
