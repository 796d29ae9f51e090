"""The views' registry and the options every view takes, declared once."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pydoc
import sys
import warnings

import pandas as pd
import pytest

from chatops import analytics
from chatops.analytics import REGISTRY, ViewOptions, sentences, views
from chatops.analytics.views._options import OPTIONS, with_defaults

from .conftest import KEY, messages, users

ORDER = [
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
    "zulip_stats",
]
SHARED = ["since", "until", "exclude_bots", "anonymize", "key", "coverage", "engine"]


def test_the_registry_lists_the_views_in_order() -> None:
    assert list(REGISTRY) == ORDER
    assert [v.number for v in REGISTRY.values()] == list(range(1, 12))
    for name, view in REGISTRY.items():
        assert view.name == name and view.result.view == name
        assert view.function is getattr(analytics, name) is getattr(views, name)
        assert view.result is getattr(analytics, view.result.__name__)
        assert view.title
        # /stats's charts come from the frames (DuckDB reads the ones they need); V1-V10 count
        # in SQL
        assert (view.sql is None) == (name == "zulip_stats")


def test_the_explorer_takes_its_views_and_titles_from_the_registry() -> None:
    from chatops.widgets.explorer import VIEWS

    assert list(VIEWS) == ORDER
    assert [title for title, _ in VIEWS.values()] == [v.title for v in REGISTRY.values()]


def test_sentences_are_the_registered_ones() -> None:
    for view in REGISTRY.values():
        assert getattr(sentences, view.sentence.__name__) is view.sentence
    assert set(sentences.__all__) >= {v.sentence.__name__ for v in REGISTRY.values()}


def test_sentences_import_without_a_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "chatops.analytics.sentences")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.import_module("chatops.analytics.sentences")


def test_plots_still_offers_each_registered_plot_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delitem(sys.modules, "chatops.analytics.plots", raising=False)
    with pytest.warns(DeprecationWarning, match=r"REGISTRY\[<view>\]\.plot"):
        plots = importlib.import_module("chatops.analytics.plots")
    for name, view in REGISTRY.items():
        assert getattr(plots, f"plot_{name}") is view.plot
    assert plots.ReportFigure is analytics.ReportFigure


def test_a_result_draws_with_its_registered_plot(monkeypatch: pytest.MonkeyPatch) -> None:
    df = messages([(1, "2024-01-01 10:00", "general", "t", 1)])
    r = analytics.activity_heatmap(df)
    drawn = []
    entry = REGISTRY["activity_heatmap"]
    monkeypatch.setitem(
        REGISTRY,
        "activity_heatmap",
        dataclasses.replace(entry, plot=lambda res, ax: drawn.append(res) or "figure"),
    )
    assert r.plot() == "figure" and drawn == [r]


# -- the options -------------------------------------------------------------------------------


def test_the_options_are_declared_once_with_types_defaults_and_documentation() -> None:
    assert list(OPTIONS) == SHARED == list(ViewOptions.__annotations__)
    assert with_defaults({"since": "2024-01-01"}) == {
        "since": "2024-01-01",
        "until": None,
        "exclude_bots": False,
        "anonymize": False,
        "key": None,
        "coverage": None,
        "engine": "pandas",
    }
    assert OPTIONS["since"][0] == "TimeLike | None" and OPTIONS["engine"][0] == "str"


@pytest.mark.parametrize("name", ORDER)
def test_every_view_spells_out_the_shared_options(name: str) -> None:
    fn = REGISTRY[name].function
    params = inspect.signature(fn).parameters
    assert not any(p.kind is p.VAR_KEYWORD for p in params.values())
    for option in SHARED:
        p = params[option]
        assert p.kind is p.KEYWORD_ONLY
        assert p.default == OPTIONS[option][1].default
    assert list(params)[-len(SHARED) :] == SHARED
    text = pydoc.render_doc(fn, renderer=pydoc.plaintext)
    for option, (_, declared) in OPTIONS.items():
        assert f"{option}: {declared.doc.split()[0]}" in text
    assert "as for every view" not in text


def test_calls_keep_their_keywords_and_positional_frames() -> None:
    df = messages(
        [
            (1, "2024-01-01 10:00", "general", "t", 1),
            (2, "2024-01-02 10:00", "general", "t", 9),
        ]
    )
    people = users([1], bots=[9])
    reactions = pd.DataFrame({"message_id": [1], "user_id": [9], "emoji_name": ["tada"]})
    r = analytics.reactions_and_engagement(df, reactions, users=people, exclude_bots=True)
    assert r.reactions == 0
    r = analytics.reactions_and_engagement(df, reactions, users=people, since="2024-01-02")
    assert r.reactions == 0
    r = analytics.messages_over_time(df, users=people, anonymize=True, key=KEY, coverage="c")
    assert r.coverage == "c" and r.total == 2


def test_unknown_keywords_and_engines_are_refused_by_name() -> None:
    df = messages([(1, "2024-01-01 10:00", "general", "t", 1)])
    with pytest.raises(TypeError, match="^channel_scorecard\\(\\) got an unexpected keyword"):
        analytics.channel_scorecard(df, sinse="2024-01-01")  # type: ignore[call-arg]
    with pytest.raises(
        ValueError, match="unknown engine 'polars'; choose one of pandas, duckdb, spark"
    ):
        analytics.channel_scorecard(df, engine="polars")
