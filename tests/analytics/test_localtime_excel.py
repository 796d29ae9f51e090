"""Each sender's own clock (known answers), and the Excel export read back with pandas."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from chatops.analytics import activity_heatmap, messages_over_time, topic_lifecycle, validate
from chatops.analytics.text import search_messages

from .conftest import messages

# one moment, Monday 2026-01-05 23:30 UTC, seen by three people
WHEN = "2026-01-05 23:30"
ROWS = [(1, WHEN, "general", "t", 1), (2, WHEN, "general", "t", 2), (3, WHEN, "general", "t", 3)]


def people() -> pd.DataFrame:
    return validate(
        pd.DataFrame(
            {
                "user_id": [1, 2, 3],
                "full_name": ["Tokyo", "Nowhere", "New York"],
                "is_bot": [False] * 3,
                "timezone": ["Asia/Tokyo", "", "America/New_York"],
            }
        ),
        "users",
    )


def test_heatmap_on_each_senders_clock() -> None:
    r = activity_heatmap(messages(ROWS), users=people(), tz="sender", default_tz="Europe/Berlin")
    cells = r.frame[r.frame["messages"] > 0][["weekday", "hour", "messages"]]
    got = sorted(map(tuple, cells.to_numpy().tolist()))
    # Tokyo: Tue 08:30; no zone -> Berlin (UTC+1): Tue 00:30; New York (UTC-5): Mon 18:30
    assert got == [(0, 18, 1), (1, 0, 1), (1, 8, 1)]
    note = "1 of 3 senders have none and are counted in Europe/Berlin"
    assert r.coverage is not None and note in r.coverage
    fig = r.plot()
    shown = " ".join(t.get_text() for t in fig.texts) + fig.axes[0].get_title()
    assert note in shown and "each sender's own time zone" in shown
    # the same moment in one zone for everybody
    utc = activity_heatmap(messages(ROWS), users=people(), tz="UTC")
    assert (
        utc.frame.loc[utc.frame["messages"] > 0, ["weekday", "hour"]].drop_duplicates().shape[0]
        == 1
    )


def test_daily_buckets_on_each_senders_calendar() -> None:
    r = messages_over_time(
        messages(ROWS), users=people(), tz="sender", default_tz="Europe/Berlin", split=None
    )
    days = {
        str(s.date()): int(n)
        for s, n in zip(r.frame["bucket_start"], r.frame["messages"], strict=True)
    }
    assert days == {"2026-01-05": 1, "2026-01-06": 2}
    assert str(r.frame["bucket_start"].dt.tz) == "Europe/Berlin"
    with pytest.raises(ValueError, match="unknown tz 'Mars/Base'"):
        messages_over_time(messages(ROWS), users=people(), tz="sender", default_tz="Mars/Base")


def test_view_to_excel_keeps_types_and_the_coverage_note(tmp_path: Path) -> None:
    msgs = messages(
        [
            (1, "2026-02-02 09:00", "general", "a", 1),
            (2, "2026-02-02 10:00", "general", "a", 2),
            (3, "2026-02-04 09:00", "dev", "b", 1),
        ]
    )
    r = messages_over_time(msgs, users=people(), split=None, coverage="all public channels")
    path = r.to_excel(tmp_path / "v1")
    assert path == tmp_path / "v1.xlsx"
    sheets = pd.read_excel(path, sheet_name=None)
    assert list(sheets) == ["about", "frame"]
    about = dict(zip(sheets["about"]["item"], sheets["about"]["value"], strict=True))
    assert about["coverage"] == "all public channels"
    assert about["frame.bucket_start"] == "times in UTC" and about["total"] == "3"
    back = sheets["frame"]
    assert back["messages"].dtype == "int64" and back["cumulative"].dtype == "int64"
    assert back["partial"].dtype == "bool"
    assert pd.api.types.is_datetime64_any_dtype(back["bucket_start"])
    assert pd.api.types.is_string_dtype(back["split"]) and set(back["split"]) == {"all"}
    assert list(back["messages"]) == [2, 0, 1]
    assert back["bucket_start"].iloc[2] == pd.Timestamp("2026-02-04")
    # a view with several tables: one sheet each, floats stay floats
    t = topic_lifecycle(msgs)
    book = pd.read_excel(t.to_excel(tmp_path / "topics.xlsx"), sheet_name=None)
    assert list(book) == ["about", *t.frames()]
    # Excel holds one kind of number: whole floats read back as integers, with equal values
    assert pd.api.types.is_numeric_dtype(book["frame"]["duration_hours"])
    assert list(book["frame"]["duration_hours"]) == list(t.frame["duration_hours"])
    assert list(book["frame"]["messages"]) == list(t.frame["messages"])


def test_search_results_to_excel(tmp_path: Path) -> None:
    msgs = validate(
        messages([(1, "2026-02-02 09:00", "general", "a", 1)]).assign(content=["ship it"]),
        "messages",
    )
    r = search_messages(msgs, "ship", site="https://chat.example.com", coverage="everything")
    back = pd.read_excel(r.to_excel(tmp_path / "hits.xlsx"), sheet_name=None)
    assert back["frame"]["id"].dtype == "int64" and back["frame"]["id"].tolist() == [1]
    assert back["frame"]["link"].iloc[0].endswith("/#narrow/channel/1-general/topic/a/near/1")
    assert back["about"]["value"].iloc[0] == "everything"
    with pytest.raises(ValueError, match="does not exist"):
        r.to_excel(tmp_path / "missing" / "x.xlsx")
