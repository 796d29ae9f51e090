"""Every view's figure at its default size reads cleanly: measured with the Agg renderer.

No two tick labels of an axis overlap; count axes have thousands separators; the coverage note
is a footnote inside the figure that overlaps no axes, label or tick label; legends name only
what is drawn; the interaction graph labels only its top nodes, none over another.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from chatops.analytics import AnalyticsFrames, ViewResult, validate, views

from .conftest import STREAMS, channels, messages, subscriptions, users

NOTE = "channels #general and #dev, and the direct messages of the account that synced them"
VIEWS = (
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
)


def run_view(view: str, f: AnalyticsFrames, **extra: Any) -> ViewResult:
    """A view on every frame it takes, the way the explore notebook calls it."""
    kwargs: dict[str, Any] = {
        "messages_over_time": {"freq": "W"},
        "channel_scorecard": {"channels": f.channels, "subscriptions": f.subscriptions},
        "topic_lifecycle": {"edits": f.edits},
        "participation_distribution": {
            "reactions": f.reactions,
            "subscriptions": f.subscriptions,
        },
        "client_and_dm_mix": {"dm_recipients": f.dm_recipients},
        "interaction_graph": {"subscriptions": f.subscriptions, "channels": f.channels},
    }.get(view, {})
    args = (f.messages, f.reactions) if view == "reactions_and_engagement" else (f.messages,)
    func: Callable[..., ViewResult] = getattr(views, view)
    return func(*args, users=f.users, exclude_bots=f.users is not None, **kwargs, **extra)


def hand_built() -> AnalyticsFrames:
    """Three months of four people and a bot in four channels, with a coverage note."""
    rows = []
    start = pd.Timestamp("2024-01-01 08:00")
    for i in range(600):
        when = start + pd.Timedelta(hours=3 * i + (i % 5))
        channel = ("general", "dev", "quiet", "random", None)[i % 5]
        sender = (1, 2, 3, 4, 9)[(i * 7) % 5] if i % 11 else 1
        client = ("website", "ZulipMobile", "ZulipTerminal")[i % 3]
        rows.append((i + 1, str(when), channel, f"topic {i // 6}", sender, client))
    m = messages(rows)
    m.attrs["coverage"] = NOTE
    reactions = pd.DataFrame(
        {
            "message_id": list(range(1, 600, 4)),
            "user_id": [(2, 3)[k % 2] for k in range(150)],
            "emoji_name": [("+1", "tada", "heart", "eyes")[k % 4] for k in range(150)],
        }
    )
    return AnalyticsFrames(
        messages=m,
        users=users([1, 2, 3, 4], bots=[9]),
        channels=channels(),
        subscriptions=subscriptions(
            {"general": [1, 2, 3, 4], "dev": [1, 2], "quiet": [3], "random": [2, 3, 4]}
        ),
        reactions=reactions,
    )


def busy() -> AnalyticsFrames:
    """Two years of 60,000 messages from 300 people, 40% of them from one: five-digit counts,
    long date axes, a crowded reply graph (the sizes at which tick labels used to collide)."""
    n = 60_000
    rng = np.random.default_rng(1)
    seconds = np.sort(rng.integers(0, 700 * 86_400, n))
    sender = np.where(rng.random(n) < 0.4, 1, rng.integers(2, 300, n))
    names = list(STREAMS)
    ch = rng.integers(0, len(names), n)
    dm = rng.random(n) < 0.01
    frame = pd.DataFrame(
        {
            "id": np.arange(1, n + 1),
            "timestamp": pd.Timestamp("2023-01-02", tz="UTC") + pd.to_timedelta(seconds, "s"),
            "type": np.where(dm, "private", "stream"),
            "stream_id": pd.array(
                [None if d else STREAMS[names[c]] for d, c in zip(dm, ch, strict=True)],
                dtype="Int64",
            ),
            "channel": [None if d else names[c] for d, c in zip(dm, ch, strict=True)],
            "topic": [
                None if d else f"topic {k}"
                for d, k in zip(dm, rng.integers(0, 400, n), strict=True)
            ],
            "sender_id": sender,
            "sender": [f"Person {s}" for s in sender],
            "client": rng.choice(["website", "ZulipMobile", "ZulipTerminal", "ZulipPython"], n),
        }
    )
    m = validate(frame, "messages")
    m.attrs["coverage"] = NOTE
    people = list(range(1, 300))
    return AnalyticsFrames(
        messages=m,
        users=users(people),
        channels=channels(),
        subscriptions=subscriptions({c: people[:: k + 1] for k, c in enumerate(names)}),
    )


def draw(fig: Figure) -> Any:
    """The figure drawn by Agg at its own size and dpi, as savefig and a notebook draw it."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def tick_overlaps(fig: Figure) -> list[tuple[str, str, str]]:
    renderer = draw(fig)
    found = []
    for ax in fig.axes:
        if not ax.axison:
            continue
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            labels = [t for t in axis.get_ticklabels() if t.get_visible() and t.get_text().strip()]
            boxes = [t.get_window_extent(renderer) for t in labels]
            for i in range(len(boxes)):
                for j in range(i + 1, len(boxes)):
                    if boxes[i].overlaps(boxes[j]):
                        found.append((name, labels[i].get_text(), labels[j].get_text()))
    return found


def footnote(fig: Figure) -> Text:
    (text,) = [t for t in fig.texts if "Coverage:" in t.get_text()]
    return text


def occupied(fig: Figure, renderer: Any) -> list[tuple[str, Bbox]]:
    """What the footnote must not cover: every axes, its title, axis labels and tick labels."""
    out = []
    for ax in fig.axes:
        out.append(("axes", ax.get_window_extent(renderer)))
        for t in (ax.title, ax.xaxis.label, ax.yaxis.label, *ax.get_xticklabels()):
            if t.get_visible() and t.get_text().strip():
                out.append((t.get_text(), t.get_window_extent(renderer)))
    return out


@pytest.fixture(scope="module")
def demo_results(demo: AnalyticsFrames) -> dict[str, ViewResult]:
    return {v: run_view(v, demo) for v in VIEWS}


@pytest.fixture(scope="module")
def built_results() -> dict[str, ViewResult]:
    return {v: run_view(v, hand_built()) for v in VIEWS}


@pytest.fixture(scope="module")
def busy_results() -> dict[str, ViewResult]:
    return {v: run_view(v, busy()) for v in VIEWS}


@pytest.mark.parametrize("view", VIEWS)
def test_no_two_tick_labels_overlap(
    view: str,
    demo_results: dict[str, ViewResult],
    built_results: dict[str, ViewResult],
    busy_results: dict[str, ViewResult],
) -> None:
    for results in (demo_results, built_results, busy_results):
        fig = results[view].plot()
        assert tick_overlaps(fig) == [], (view, fig.get_size_inches())


@pytest.mark.parametrize("view", VIEWS)
def test_coverage_note_is_a_footnote_clear_of_the_axes(
    view: str, demo_results: dict[str, ViewResult], built_results: dict[str, ViewResult]
) -> None:
    demo_note = "channels and direct messages visible to the admin"
    for results, note in ((demo_results, demo_note), (built_results, NOTE)):
        r = results[view]
        assert r.coverage == note  # passed on from messages.attrs["coverage"]
        fig = r.plot()
        text = footnote(fig)
        assert " ".join(text.get_text().split()) == f"Coverage: {note}"
        assert text.get_fontsize() >= 7
        renderer = draw(fig)
        box = text.get_window_extent(renderer)
        assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)
        hits = [what for what, other in occupied(fig, renderer) if box.overlaps(other)]
        assert hits == [], (view, hits)
        # below the lowest axes
        assert box.y1 <= min(ax.get_window_extent(renderer).y0 for ax in fig.axes)


def test_every_view_passes_on_the_coverage_note_and_an_argument_overrides_it() -> None:
    f = hand_built()
    for view in VIEWS:
        assert run_view(view, f).coverage == NOTE, view
        assert run_view(view, f, coverage="just #general").coverage == "just #general", view
        # and a figure of a result without a note has no footnote
        plain = AnalyticsFrames(
            messages=f.messages.copy(), users=f.users, subscriptions=f.subscriptions
        )
        plain.messages.attrs.clear()
        fig = run_view(view, plain).plot()
        assert not [t for t in fig.texts if "Coverage" in t.get_text()], view


def count_labels(ax: Axes, axis: str) -> list[str]:
    labels = ax.get_xticklabels() if axis == "x" else ax.get_yticklabels()
    return [t.get_text() for t in labels if t.get_text()]


def test_count_axes_have_thousands_separators() -> None:
    # 6,000 messages, 5,000 of them from person 1 in #general
    rows = [
        (i, f"2024-01-{1 + i % 28:02d} {i % 24:02d}:00", "general" if i % 6 else "dev", "t", 1)
        for i in range(1, 5001)
    ]
    rows += [(i, "2024-02-01 10:00", "dev", "t", 2) for i in range(5001, 6001)]
    m = messages(rows)
    cases = {
        "V1 cumulative": (views.messages_over_time(m, split=None, freq="W").plot().axes[1], "y"),
        "V3 messages": (views.channel_scorecard(m, period="60D").plot().axes[0], "x"),
        "V5 top senders": (views.participation_distribution(m).plot().axes[1], "x"),
        "V9 clients": (views.client_and_dm_mix(m).plot().axes[0], "x"),
    }
    for what, (ax, axis) in cases.items():
        labels = count_labels(ax, axis)
        big = [t for t in labels if len(re.sub(r"\D", "", t)) >= 4]
        assert big, (what, labels)
        assert all(re.fullmatch(r"\d{1,3}(,\d{3})+", t) for t in big), (what, labels)
        assert all(re.fullmatch(r"[\d,]+", t) for t in labels), (what, labels)


def test_legends_name_only_what_is_drawn() -> None:
    f = hand_built()
    # bots left out: no "bot" series and no "bot" in the legend or the title
    r = views.messages_over_time(f.messages, users=f.users, exclude_bots=True, freq="W")
    ax = r.plot().axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "bot" not in legend and legend[0] == "human"
    assert ax.get_title() == "Messages sent per week, humans only"
    # bots kept: both are drawn and named
    both = views.messages_over_time(f.messages, users=f.users, freq="W").plot().axes[0]
    assert [t.get_text() for t in both.get_legend().get_texts()][:2] == ["human", "bot"]
    assert both.get_title() == "Messages sent per week, humans and bots"
    # bots kept, but none of them posted in the period: not "humans only", which reads as a filter
    bot_ids = set(f.users.loc[f.users["is_bot"], "user_id"])
    people = f.messages[~f.messages["sender_id"].isin(bot_ids)]
    quiet = views.messages_over_time(people, users=f.users, freq="W").plot().axes[0]
    assert quiet.get_title() == "Messages sent per week, no bot messages"
    # V7: only tenures that have messages are in the legend (three months of data: 0 to 2)
    cohorts = views.newcomer_cohorts(f.messages)
    ten = cohorts.plot().axes[1]
    names = [t.get_text() for t in ten.get_legend().get_texts()]
    assert names == ["first month", "1-2 months"]
    assert len(ten.patches) == len(names) * cohorts.tenure["period"].nunique()
    # V10: one legend entry per community drawn, with its size
    g = views.interaction_graph(f.messages, users=f.users, exclude_bots=True)
    entries = [t.get_text() for t in g.plot().axes[0].get_legend().get_texts()]
    assert len(entries) == g.communities
    assert sum(int(re.search(r"\((\d+) people\)", e).group(1)) for e in entries) == len(g.nodes)  # type: ignore[union-attr]


def test_interaction_graph_labels_only_top_people_and_none_overlap(
    demo_results: dict[str, ViewResult],
) -> None:
    r = demo_results["interaction_graph"]
    fig = r.plot()
    rep = fig.axes[0]
    renderer = draw(fig)
    labels = [t for t in rep.texts if t.get_visible() and t.get_text()]
    names = [t.get_text() for t in labels]
    top = r.nodes.sort_values(["weighted_degree", "user_id"], ascending=[False, True])
    assert 3 <= len(labels) <= 10 < len(r.nodes)
    assert set(names) <= set(top["name"].head(10))
    assert names[0] == top["name"].iloc[0]  # the most active person is always labelled
    boxes = [t.get_window_extent(renderer) for t in labels]
    assert not [
        (names[i], names[j])
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if boxes[i].overlaps(boxes[j])
    ]
    # people are grouped: members of a community sit nearer their own centre than another's
    offsets = rep.collections[-1].get_offsets()
    pos = pd.DataFrame(offsets, columns=["x", "y"]).assign(
        community=[r.nodes.set_index("user_id")["community"][n] for n in r.graph.nodes]
    )
    centres = pos.groupby("community")[["x", "y"]].mean()
    nearest = pos.apply(
        lambda p: ((centres["x"] - p["x"]) ** 2 + (centres["y"] - p["y"]) ** 2).idxmin(), axis=1
    )
    assert (nearest == pos["community"]).mean() > 0.9


def test_a_long_coverage_note_wraps_inside_the_figure() -> None:
    f = hand_built()
    note = "; ".join(
        f"channel #team-{i:02d} read up to 2024-03-31 as admin@example.com" for i in range(6)
    )
    f.messages.attrs["coverage"] = note
    for view in VIEWS:
        fig = run_view(view, f).plot()
        text = footnote(fig)
        assert " ".join(text.get_text().split()) == f"Coverage: {note}"
        assert text.get_text().count("\n") >= 2, view  # wrapped, not one line off the edge
        renderer = draw(fig)
        box = text.get_window_extent(renderer)
        assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1, view
        assert fig.bbox.y0 <= box.y0, view
        assert box.y1 <= min(ax.get_window_extent(renderer).y0 for ax in fig.axes), view


def test_a_fresh_figure_is_painted_with_the_layout_finish_made(
    built_results: dict[str, ViewResult], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from matplotlib.image import imread
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    from chatops.analytics._figure import figure_png, new_figure

    passes: list[int] = []
    execute = ConstrainedLayoutEngine.execute

    def counted(self: ConstrainedLayoutEngine, fig: Figure) -> None:
        passes.append(1)
        execute(self, fig)

    monkeypatch.setattr(ConstrainedLayoutEngine, "execute", counted)
    for view in ("messages_over_time", "newcomer_cohorts"):
        fig = built_results[view].plot()
        assert getattr(fig, "laid_out", False) is True
        fig.set_facecolor("#eeeeee")
        # the retention matrix's cell labels sit out of the layout, and are drawn
        cells = [t for ax in fig.axes for t in ax.texts if not t.get_in_layout()]
        assert (len(cells) > 0) == (view == "newcomer_cohorts")
        assert all(t.get_visible() for t in cells)
        passes.clear()
        fresh = imread(io.BytesIO(figure_png(fig, fresh=True)))
        assert passes == []  # painted with finish's layout, no pass of its own
        # painted on white like savefig, the figure's own face colour given back
        assert tuple(fresh[0, 0, :3]) == (1.0, 1.0, 1.0)
        assert fig.get_facecolor()[:3] == pytest.approx((0xEE / 255,) * 3)
        passes.clear()
        again = imread(io.BytesIO(figure_png(built_results[view].plot())))
        assert passes == [1, 1]  # finish's pass, then savefig's own
        assert fresh.shape == again.shape
        # the same figure: at most a sliver of pixels moved by a second layout pass
        assert (np.abs(fresh - again).sum(axis=2) > 0).mean() < 0.02, view
        # the layout engine is back for later drawings
        assert isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    # a figure not laid out by finish gets savefig's layout pass
    bare = new_figure((4.0, 3.0))
    bare.add_subplot().plot([1, 2, 3])
    passes.clear()
    figure_png(bare, fresh=True)
    assert passes == [1]
