"""The explorer's model on hand-built frames: tables as a person reads them, the people the
search box leaves, the frames narrowed to the filters."""

from __future__ import annotations

import pandas as pd
import pytest

from chatops.widgets.explorer_model import (
    display_frame,
    matching_people,
    narrowed_frames,
    period_window,
)


def test_a_table_shows_names_rounded_numbers_and_times_on_one_line() -> None:
    frame = pd.DataFrame(
        {
            "stream_id": pd.array([1, 2], dtype="Int64"),
            "channel": ["general", "dev"],
            "starter_id": pd.array([7, None], dtype="Int64"),
            "started_at": pd.to_datetime(["2026-03-01 09:05:59", None], utc=True),
            "hours_to_first_reply": [0.280833333333, 12.0],
            "resolved_pct": [24.528301886792, float("nan")],
            "share": [0.123456789, 1.0],
            "messages": [2413, 5],
        }
    )
    shown = display_frame(frame, {7: "Olivia Owner"})
    assert list(shown.columns) == [
        "channel",
        "starter",
        "started_at",
        "hours_to_first_reply",
        "resolved_pct",
        "share",
        "messages",
    ]
    assert shown["starter"].tolist() == ["Olivia Owner", ""]
    assert shown["started_at"].tolist() == ["2026-03-01\u00a009:05", ""]
    assert shown.attrs["nobreak"] == ["started_at"]  # a grid keeps these on one line
    assert shown["hours_to_first_reply"].tolist() == ["0.28", "12.00"]
    assert shown["resolved_pct"].tolist() == ["24.5%", ""]
    assert shown["share"].tolist() == ["12.3%", "100.0%"]
    assert shown["messages"].tolist() == [2413, 5]
    assert frame["starter_id"].iloc[0] == 7  # the frame itself is left as it was
    # a person's id with no name beside it becomes the name; with a name column it goes
    people = pd.DataFrame({"user_id": pd.array([7, 8], dtype="Int64"), "name": ["O", "P"]})
    assert list(display_frame(people, {7: "O"}).columns) == ["name"]
    lone = display_frame(pd.DataFrame({"user_id": pd.array([8], dtype="Int64")}), {})
    assert lone["person"].tolist() == ["user 8"]


def test_the_search_box_keeps_the_chosen_people_and_matches_every_word() -> None:
    people = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Alan Kay"]
    assert matching_people(people, "") == people
    assert matching_people(people, "ALAN") == ["Alan Turing", "Alan Kay"]
    assert matching_people(people, "kay alan") == ["Alan Kay"]
    assert matching_people(people, "alan", ["Grace Hopper"]) == [
        "Grace Hopper",
        "Alan Turing",
        "Alan Kay",
    ]
    assert matching_people(people, "zzz", ["Ada Lovelace"]) == ["Ada Lovelace"]


def test_frames_narrowed_to_the_channels_and_people_chosen() -> None:
    channels = pd.DataFrame({"stream_id": [1, 2, 3], "name": ["a", "b", "c"]})
    subs = pd.DataFrame({"stream_id": [1, 1, 2, 3], "user_id": [10, 11, 10, 12]})
    reactions = pd.DataFrame({"message_id": [5, 5, 6], "user_id": [10, 11, 12]})
    frames = {"channels": channels, "subscriptions": subs, "reactions": reactions}
    assert narrowed_frames(frames) == frames  # no filter: as given
    out = narrowed_frames(frames, channels=("a",), user_ids={10, 12})
    assert out["channels"]["name"].tolist() == ["a"]  # type: ignore[index]
    assert out["subscriptions"].to_dict("list") == {"stream_id": [1], "user_id": [10]}  # type: ignore[union-attr]
    assert out["reactions"]["user_id"].tolist() == [10, 12]  # type: ignore[index]


def test_the_period_window_and_a_bad_period() -> None:
    last = pd.Timestamp("2026-11-29 00:55", tz="UTC")
    assert period_window("all", last) == (None, None)
    assert period_window("last 30 days", last) == (last - pd.Timedelta(days=30), 30)
    assert period_window("last 30 days", None) == (None, None)
    with pytest.raises(ValueError, match="unknown period 'last week'; choose one of all, "):
        period_window("last week", last)
