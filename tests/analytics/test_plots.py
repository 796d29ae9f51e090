"""Each view's figure has the expected axes, titles, labels and series."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.figure import Figure

from chatops.analytics import AnalyticsFrames, views
from chatops.analytics.schema import RESOLVED_PREFIX as R

from .conftest import channels, messages, subscriptions, users

SAMPLE = messages(
    [
        (1, "2024-01-01 10:00", "general", "a", 1),
        (2, "2024-01-01 11:00", "general", "a", 2),
        (3, "2024-01-02 09:00", "dev", f"{R}b", 9, "ZulipMobile"),
        (4, "2024-01-02 10:00", "dev", f"{R}b", 1),
        (5, "2024-01-04 12:00", None, None, 1),
        (6, "2024-02-04 12:00", "general", "c", 3),
    ]
)
USERS = users([1, 2, 3], bots=[9])


def texts(fig: Figure) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in (ax.title, ax.xaxis.label, ax.yaxis.label)]


def legend_texts(ax: object) -> list[str]:
    legend = ax.get_legend()  # type: ignore[attr-defined]
    return [t.get_text() for t in legend.get_texts()]


def test_v1_stacked_bars_cumulative_line_and_partial_marker() -> None:
    r = views.messages_over_time(
        SAMPLE[SAMPLE["id"] <= 5], users=USERS, freq="D", as_of="2024-01-04 18:00"
    )
    fig = r.plot()
    ax, twin = fig.axes
    assert ax.get_title() == "Messages sent per day, humans and bots"
    assert (ax.get_xlabel(), ax.get_ylabel(), twin.get_ylabel()) == (
        "day (UTC)",
        "messages per day",
        "cumulative messages",
    )
    assert len(ax.patches) == 4 * 2  # 4 days x human/bot
    assert sum(bool(p.get_hatch()) for p in ax.patches) == 2  # the partial last day
    assert len(twin.get_lines()) == 1
    assert twin.get_lines()[0].get_ydata()[-1] == 5
    assert legend_texts(ax) == ["human", "bot", "cumulative", "partial: last day (still counting)"]


def test_v1_a_first_period_cut_by_since_is_hatched_and_named() -> None:
    # since cuts into the week of Monday 2024-01-01: its first two days are left out
    r = views.messages_over_time(
        SAMPLE, users=USERS, freq="W", since="2024-01-02 09:00", as_of="2024-02-04 18:00"
    )
    f = r.frame[r.frame["split"] == "human"]
    assert f["partial"].tolist() == [True, False, False, False, True]
    assert r.since == pd.Timestamp("2024-01-02 09:00", tz="UTC")
    fig = r.plot()
    ax = fig.axes[0]
    hatched = [p for p in ax.patches if p.get_hatch()]
    assert len(hatched) == 2 * 2  # the first and the last week, human and bot
    assert legend_texts(ax)[-1] == (
        "partial: first week (counted from 2024-01-02 09:00), last week (still counting)"
    )
    # without since, the same first week is whole: not hatched, not named
    whole = views.messages_over_time(SAMPLE, users=USERS, freq="W", as_of="2024-02-04 18:00")
    assert not whole.frame["partial"].iloc[0]
    assert legend_texts(whole.plot().axes[0])[-1] == "partial: last week (still counting)"


def test_v2_one_line_per_window_and_stickiness_panel() -> None:
    r = views.active_users(SAMPLE, windows=(1, 7, 28))
    fig = r.plot()
    top, bottom = fig.axes
    assert [line.get_label() for line in top.get_lines()] == [
        "DAU (1-day window)",
        "WAU (7-day window)",
        "MAU (28-day window)",
    ]
    assert top.get_ylabel() == "active users" and "Active users" in top.get_title()
    assert len(bottom.get_lines()) == 1 and bottom.get_ylabel() == "DAU/MAU (%)"
    assert bottom.get_xlabel() == "day"


def test_v3_leaderboard_bars_this_and_previous_period() -> None:
    r = views.channel_scorecard(
        SAMPLE,
        channels=channels(),
        subscriptions=subscriptions({"general": [1, 2]}),
        period="30D",
        as_of="2024-02-05",
        top_n=3,
    )
    fig = r.plot()
    (ax,) = fig.axes
    assert len(ax.patches) == 3 * 2
    assert [t.get_text() for t in ax.get_yticklabels()] == list(r.frame["channel"][:3])[::-1]
    assert ax.get_title() == f"Top 3 channels by messages, last 30 days (HHI {r.hhi:.2f})"
    assert ax.get_xlabel() == "messages"
    assert legend_texts(ax) == ["last 30 days", "period before"]


def test_v4_survival_curve_and_first_reply_histogram() -> None:
    r = views.topic_lifecycle(SAMPLE, first_reply_sla_hours=2)
    fig = r.plot()
    surv, hist = fig.axes
    assert len(surv.get_lines()) == 1 and surv.get_ylabel() == "share unresolved (%)"
    assert surv.get_xlabel() == "hours since the topic started"
    assert len(hist.patches) == 24 and len(hist.get_lines()) == 1  # bins and the SLA line
    assert "SLA 2 h" in legend_texts(hist)
    assert hist.get_xlabel() == "time to first reply (log scale)"
    # a log axis: bins of equal width in log space, from under a minute past the slowest reply
    assert hist.get_xscale() == "log"
    edges = [p.get_x() for p in hist.patches]
    ratios = [b / a for a, b in zip(edges, edges[1:], strict=False)]
    assert max(ratios) / min(ratios) < 1.0001
    hours = r.frame["hours_to_first_reply"].dropna()
    assert hist.get_xlim()[0] < hours.min() and hist.get_xlim()[1] > hours.max()
    assert "1 h" in [t.get_text() for t in hist.get_xticklabels()]
    assert (
        sum(p.get_height() for p in hist.patches) == r.frame["hours_to_first_reply"].notna().sum()
    )


def test_v5_lorenz_and_top_senders() -> None:
    r = views.participation_distribution(
        SAMPLE, users=USERS, subscriptions=subscriptions({"general": [1, 2, 3, 4]})
    )
    fig = r.plot()
    lor, top = fig.axes
    assert len(lor.get_lines()) == 2 and len(lor.collections) == 1
    assert lor.get_title() == f"Participation: Lorenz curve (Gini {r.gini:.2f})"
    assert legend_texts(lor) == ["everyone equal", "observed"]
    assert len(top.patches) == r.posters == 4
    assert [t.get_text() for t in top.get_yticklabels()][-1] == "Person 1"


def test_v5_draws_on_given_axes_only() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    out = views.participation_distribution(SAMPLE).plot(ax=ax)
    assert out is fig and fig.axes == [ax] and len(ax.get_lines()) == 2


def test_v6_heatmap_image_is_weekday_by_hour() -> None:
    fig = views.activity_heatmap(SAMPLE).plot()
    ax, bar = fig.axes
    (image,) = ax.images
    assert image.get_array().shape == (7, 24) and image.get_array().sum() == 6
    assert ax.get_xlabel() == "hour of day (UTC)" and ax.get_ylabel() == "weekday"
    assert bar.get_ylabel() == "messages"
    assert [t.get_text() for t in ax.get_yticklabels()][0] == "Mon"


def test_v7_retention_matrix_and_tenure_area() -> None:
    r = views.newcomer_cohorts(SAMPLE, cohort="M", horizon=4)
    fig = r.plot()
    ret, ten, bar = fig.axes
    (image,) = ret.images
    # one column per offset the data reaches (Jan and Feb: 0 and 1), not an empty one per month
    # of the horizon
    assert image.get_array().shape == (len(r.frame["cohort"].unique()), 2)
    assert [t.get_text() for t in ret.get_xticklabels()] == ["0", "1"]
    assert ret.get_xlabel() == "months since first post" and bar.get_ylabel() == "still posting (%)"
    periods = r.tenure["period"].nunique()
    # one bar per period and tenure bucket that has a message: here everyone is in their first
    # month, so the legend names that bucket alone
    with_messages = r.tenure.groupby("tenure", observed=True)["messages"].sum()
    assert list(with_messages[with_messages > 0].index) == ["0"]
    assert len(ten.patches) == periods * 1
    assert legend_texts(ten) == ["first month"]


def test_v8_top_emoji_and_reactions_per_message() -> None:
    reacts = pd.DataFrame(
        {"message_id": [1, 1, 2], "user_id": [2, 3, 1], "emoji_name": ["+1", "tada", "+1"]}
    )
    fig = views.reactions_and_engagement(SAMPLE, reacts).plot()
    top, line = fig.axes
    assert len(top.patches) == 2 and [t.get_text() for t in top.get_yticklabels()] == ["tada", "+1"]
    assert top.get_title() == "Top 2 emoji (3 reactions)"
    assert len(line.get_lines()) == 2 and line.get_ylabel() == "reactions per message"


def test_v9_client_bars_and_dm_share_line() -> None:
    fig = views.client_and_dm_mix(SAMPLE, freq="D").plot()
    mix, dm = fig.axes
    assert len(mix.patches) == 2 and {t.get_text() for t in mix.get_yticklabels()} == {
        "Web app",
        "Mobile app",
    }
    assert len(dm.get_lines()) == 1 and dm.get_ylabel() == "direct messages (% of all)"
    assert dm.get_title() == "Direct-message share (overall 17%)"


def test_v10_reply_graph_and_channel_graph() -> None:
    r = views.interaction_graph(
        SAMPLE, subscriptions=subscriptions({"general": [1, 2], "dev": [1, 9]})
    )
    fig = r.plot()
    rep, chan = fig.axes
    assert any(isinstance(c, LineCollection) for c in rep.collections)
    (nodes,) = [c for c in rep.collections if isinstance(c, PathCollection)]
    assert len(nodes.get_offsets()) == r.graph.number_of_nodes() == 3
    assert rep.get_title() == f"Who replies to whom: 3 people, {r.communities} communities"
    assert chan.get_title() == "Channels linked by shared members (1 links)"
    assert {t.get_text() for t in chan.texts} == {"general", "dev"}


def test_empty_frames_plot_a_message_not_an_error() -> None:
    none = SAMPLE.iloc[:0]
    for r in (
        views.messages_over_time(none, split=None),
        views.active_users(none),
        views.channel_scorecard(none),
        views.topic_lifecycle(none),
        views.participation_distribution(none),
        views.activity_heatmap(none),
        views.newcomer_cohorts(none),
        views.reactions_and_engagement(
            none, pd.DataFrame({"message_id": [], "user_id": [], "emoji_name": []})
        ),
        views.client_and_dm_mix(none),
        views.interaction_graph(none),
    ):
        assert isinstance(r.plot(), Figure)


@pytest.mark.parametrize(
    "view",
    [
        "messages_over_time",
        "active_users",
        "channel_scorecard",
        "topic_lifecycle",
        "participation_distribution",
        "activity_heatmap",
        "newcomer_cohorts",
        "reactions_and_engagement",
        "client_and_dm_mix",
        "interaction_graph",
    ],
)
def test_demo_plots_render(demo: AnalyticsFrames, view: str, tmp_path: Path) -> None:
    f = demo
    kwargs = {
        "messages_over_time": {"users": f.users, "freq": "W"},
        "channel_scorecard": {"channels": f.channels, "subscriptions": f.subscriptions},
        "topic_lifecycle": {"edits": f.edits},
        "participation_distribution": {
            "reactions": f.reactions,
            "subscriptions": f.subscriptions,
            "users": f.users,
        },
        "newcomer_cohorts": {"users": f.users},
        "client_and_dm_mix": {"dm_recipients": f.dm_recipients},
        "interaction_graph": {"subscriptions": f.subscriptions, "channels": f.channels},
    }.get(view, {})
    args = (f.messages, f.reactions) if view == "reactions_and_engagement" else (f.messages,)
    result = getattr(views, view)(*args, **kwargs)
    fig = result.plot()
    assert fig.axes and all(t for t in texts(fig)[:1])
    fig.savefig(tmp_path / f"{view}.png")
    assert (tmp_path / f"{view}.png").stat().st_size > 10_000


def test_control_characters_in_a_name_are_drawn_escaped() -> None:
    """A name holding an escape sequence or a direction override is drawn as the terminal
    shows it (``\\x1b``), not as a box for a missing glyph; a line break of the figure stays."""
    import warnings

    from chatops.analytics._figure import ReportFigure, figure_png

    fig = ReportFigure()
    ax = fig.add_subplot()
    ax.bar(["Guest\x1b[2K", "\u202eevil"], [1, 2])
    ax.set_title("first line\nsecond \x07line")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns of each glyph its fonts lack
        assert figure_png(fig).startswith(b"\x89PNG")
    assert ax.get_title() == "first line\nsecond \\x07line"
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["Guest\\x1b[2K", "\\u202eevil"]
