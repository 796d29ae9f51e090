"""The ten views run by both engines on one dataset, compared value for value."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from chatops import analytics
from chatops.analytics import Dataset

#: Each view with its options and the frames it takes (besides messages).
CALLS: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "messages_over_time": (
        {"split": "recipient_type", "freq": "W", "tz": "Europe/Berlin"},
        ("users", "channels", "dm_recipients"),
    ),
    "active_users": ({}, ("users",)),
    "channel_scorecard": ({"period": "30D"}, ("channels", "subscriptions", "users")),
    "topic_lifecycle": ({}, ("edits", "users")),
    "participation_distribution": ({}, ("reactions", "subscriptions", "users")),
    "activity_heatmap": ({"by": "channel", "tz": "Asia/Kolkata"}, ("users",)),
    "newcomer_cohorts": ({}, ("users",)),
    "reactions_and_engagement": ({}, ("reactions", "users")),
    "client_and_dm_mix": ({}, ("dm_recipients", "users")),
    "interaction_graph": ({}, ("subscriptions", "channels", "users")),
}


#: The views whose period and bot filters each engine applies in its scan (tested per engine).
PUSHED_DOWN = (
    "messages_over_time",
    "topic_lifecycle",
    "client_and_dm_mix",
    "reactions_and_engagement",
    "interaction_graph",
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def compare(ds: Dataset | str, view: str, engine: str = "duckdb", **extra: Any) -> int:
    """Run ``view`` with pandas and with ``engine`` (``ds``: the dataset, or its folder's URI for
    spark); assert equal frames and numbers; return the rows compared. A frame in ``extra``
    (``users=``) replaces the dataset's in both calls."""
    frames = (ds if isinstance(ds, Dataset) else Dataset(ds.removeprefix("file://"))).frames()
    options, takes = CALLS[view]
    fn = getattr(analytics, view)
    want = fn(
        frames.messages, **({name: getattr(frames, name) for name in takes} | extra), **options
    )
    got = fn(ds, **options, **extra, engine=engine)
    rows = 0
    assert list(got.frames()) == list(want.frames())
    for name, expected in want.frames().items():
        pd.testing.assert_frame_equal(got.frames()[name], expected, obj=f"{view}.{name}")
        rows += len(expected)
    for key, value in want.summary().items():
        assert _same(got.summary()[key], value), (view, key, got.summary()[key], value)
    return rows
