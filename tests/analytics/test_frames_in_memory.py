"""engine="pandas": hand-built frames, counted by the views' SQL through an in-process DuckDB,
take what a frame may hold (finer instants, numbers as categories) and give results a person
can change; what cannot be counted is refused with an error naming it."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from chatops import analytics
from chatops.analytics.engines._duck import DuckSource
from chatops.analytics.views import REGISTRY

from .conftest import messages, users

#: channel messages in two topics over two days, and one direct message
ROWS = [
    (1, "2024-03-04 09:00", "general", "launch", 1),
    (2, "2024-03-04 09:30", "general", "launch", 2),
    (3, "2024-03-04 10:00", "dev", "build", 2),
    (4, "2024-03-05 11:00", "dev", "build", 1),
    (5, "2024-03-05 12:00", "general", "launch", 3),
    (6, "2024-03-05 13:00", None, None, 1),
]


def _frames() -> dict[str, Any]:
    m = messages(ROWS)
    return {
        "messages": m,
        "users": users([1, 2, 3]),
        "reactions": pd.DataFrame(
            {
                "message_id": [1, 1, 2, 5],
                "user_id": [2, 3, 1, 1],
                "emoji_name": ["+1", "tada", "+1", "+1"],
            }
        ),
        "edits": pd.DataFrame(
            {
                "message_id": [1, 3],
                "timestamp": pd.to_datetime(["2024-03-05 14:00", "2024-03-05 15:00"], utc=True),
                "kind": ["resolve", "resolve"],
            }
        ),
        "dm_recipients": pd.DataFrame({"message_id": [6, 6], "user_id": [1, 2]}),
    }


def _call(view: str, frames: dict[str, Any], **options: Any) -> Any:
    fn = REGISTRY[view].function
    takes = fn.__signature__.parameters  # type: ignore[attr-defined]
    given = {n: f for n, f in frames.items() if n in takes and n != "messages"}
    return fn(frames["messages"], **given, **options)


def _same(a: Any, b: Any) -> None:
    assert list(a.frames()) == list(b.frames())
    for name, frame in b.frames().items():
        pd.testing.assert_frame_equal(a.frames()[name], frame, obj=name)


VIEWS = [n for n, v in REGISTRY.items() if v.sql is not None]


@pytest.mark.parametrize("view", VIEWS)
def test_instants_finer_than_a_microsecond_are_counted_at_their_microsecond(view: str) -> None:
    """A frame from ``pd.date_range`` or nanosecond text holds instants the dataset would keep to
    the microsecond: counted as that microsecond, never refused."""
    frames = _frames()
    fine = dict(
        frames,
        messages=frames["messages"].assign(
            timestamp=frames["messages"]["timestamp"] + pd.Timedelta(7, "ns")
        ),
    )
    _same(_call(view, fine), _call(view, frames))


@pytest.mark.parametrize("view", VIEWS)
def test_categories_of_numbers_are_read_as_text(view: str) -> None:
    """Channels, topics and clients read from a CSV may be numbers: they count as their text."""
    frames = _frames()
    m = frames["messages"]
    as_numbers = m.assign(
        channel=m["channel"].map({"general": 10, "dev": 20}).astype("Int64").astype("category"),
        topic=m["topic"].map({"launch": 1, "build": 2}).astype("Int64").astype("category"),
        client=pd.Series([7] * len(m)).astype("category"),
    )
    as_text = m.assign(
        channel=as_numbers["channel"].astype("string").astype("category"),
        topic=as_numbers["topic"].astype("string").astype("category"),
        client=as_numbers["client"].astype("string").astype("category"),
    )
    _same(
        _call(view, dict(frames, messages=as_numbers)), _call(view, dict(frames, messages=as_text))
    )


@pytest.mark.parametrize("view", VIEWS)
def test_every_result_frame_can_be_changed(view: str) -> None:
    """A result's frames are the caller's to change (none is a read-only view of the engine's
    memory), also when no value is missing (every topic resolved)."""
    result = _call(view, _frames())
    for name, frame in result.frames().items():
        if frame.empty:
            continue
        for column in frame.columns:
            frame.loc[frame.index[0], column] = frame[column].iloc[-1]
        assert frame.loc[frame.index[0]].equals(frame.loc[frame.index[-1]]), (view, name)


def test_topics_all_resolved_have_their_resolve_times() -> None:
    r = analytics.topic_lifecycle(_frames()["messages"], edits=_frames()["edits"])
    assert r.frame["resolved_at"].notna().all()
    assert set(r.frame["resolved_at"].dt.strftime("%d %H:%M")) == {"05 14:00", "05 15:00"}


@pytest.mark.parametrize(
    ("view", "kind"),
    [
        ("participation_distribution", "reactions"),
        ("reactions_and_engagement", "reactions"),
        ("topic_lifecycle", "edits"),
        ("client_and_dm_mix", "dm_recipients"),
    ],
)
def test_repeated_message_ids_with_a_long_frame_are_refused(view: str, kind: str) -> None:
    """A reaction, edit or recipient belongs to one message by its id: with ids repeated, the
    view refuses, naming them, rather than count a reaction twice."""
    frames = _frames()
    m = frames["messages"].copy()
    m.loc[1, "id"] = 1
    with pytest.raises(ValueError, match=r"1 message id\(s\) appear more than once \(1\)"):
        _call(view, dict(frames, messages=m))
    if view != "reactions_and_engagement":  # the one that needs its long frame
        # without the long frame, each row is a message to count
        assert len(_call(view, {"messages": m, "users": frames["users"]}).frame)


def test_a_long_frame_that_is_not_a_frame_is_named() -> None:
    with pytest.raises(ValueError, match="reactions: expected a pandas DataFrame, got list"):
        analytics.participation_distribution(_frames()["messages"], reactions=[1, 2])


def test_a_user_group_heatmap_without_members_writing_is_an_empty_grid() -> None:
    groups = pd.DataFrame({"name": ["quiet-ones"], "user_id": [99]})
    r = analytics.activity_heatmap(_frames()["messages"], by="user_group", user_groups=groups)
    assert r.frame.empty and list(r.frame.columns) == [
        "group",
        "weekday",
        "weekday_name",
        "hour",
        "messages",
    ]
    assert r.busiest_weekday is None
    assert "no messages from members of the groups" in " ".join(
        t.get_text() for t in r.plot().axes[0].texts
    )
    empty = analytics.activity_heatmap(_frames()["messages"], by="channel", since="2030-01-01")
    assert empty.frame.empty and "no messages" in " ".join(
        t.get_text() for t in empty.plot().axes[0].texts
    )


def test_a_zone_duckdb_does_not_know_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """A zone this machine knows but DuckDB's data does not is refused by name, before DuckDB
    fails on it."""
    monkeypatch.setattr(DuckSource, "known_zones", lambda self: frozenset({"UTC"}))
    with pytest.raises(
        ValueError, match="time zone 'Europe/Berlin' is not in DuckDB's time-zone data"
    ):
        analytics.activity_heatmap(_frames()["messages"], tz="Europe/Berlin")
    r = analytics.activity_heatmap(
        _frames()["messages"], users=users([1, 2, 3]).assign(timezone="Europe/Berlin"), tz="sender"
    )
    assert "3 of 3 senders have none" in str(r.coverage)
