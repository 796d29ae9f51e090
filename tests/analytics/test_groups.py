"""Slices by user group: members through subgroups, each person once, in every view."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import chatops
from chatops.analytics import (
    AnalyticsFrames,
    Dataset,
    group_members,
    messages_over_time,
    participation_distribution,
    slice_frames,
)
from chatops.analytics.dataset.records import user_groups_frame
from chatops.sandbox import Sandbox
from tests.analytics.helpers import export_tarball

from .conftest import messages, subscriptions, users

# engineering has backend and frontend as subgroups; person 5 is in both, person 6 in neither
GROUPS = user_groups_frame(
    {1: "engineering", 2: "backend", 3: "frontend", 4: "sales"},
    {1: [1], 2: [2, 5], 3: [3, 5], 4: [6]},
    {1: [2, 3]},
)


def test_a_group_lists_its_subgroups_members_once_each() -> None:
    eng = GROUPS[GROUPS["name"] == "engineering"]
    assert eng["user_id"].tolist() == [1, 2, 3, 5]
    assert eng["direct"].tolist() == [True, False, False, False]
    assert group_members(GROUPS, "engineering") == {1, 2, 3, 5}
    assert group_members(GROUPS, ["backend", "frontend"]) == {2, 3, 5}
    with pytest.raises(ValueError, match="no user group named 'backnd'; did you mean 'backend'"):
        group_members(GROUPS, "backnd")


def test_every_view_reads_the_group_with_each_person_once() -> None:
    m = messages(
        [
            (1, "2024-01-01", "general", "a", 1),
            (2, "2024-01-02", "general", "a", 5),
            (3, "2024-01-03", "dev", "b", 5),
            (4, "2024-01-04", "dev", "b", 6),
            (5, "2024-01-05", "general", "a", 3),
        ]
    )
    m.attrs["coverage"] = "everything"
    f = AnalyticsFrames(
        messages=m,
        users=users([1, 2, 3, 5, 6]),
        subscriptions=subscriptions({"general": [1, 2, 3, 5, 6], "dev": [5, 6]}),
        user_groups=GROUPS,
    )
    both = slice_frames(f, groups=["backend", "frontend"])  # person 5 is in both
    assert both.messages["id"].tolist() == [2, 3, 5]
    assert int(messages_over_time(both.messages, split=None).frame["messages"].sum()) == 3
    p = participation_distribution(both.messages, subscriptions=both.subscriptions)
    # the group's three people, each once: 5 posted twice, 3 once, 2 subscribed and silent
    assert dict(zip(p.frame["user_id"].astype(int), p.frame["messages"], strict=True)) == {
        5: 2,
        3: 1,
        2: 0,
    }
    assert p.posters == 2 and p.lurker_share == pytest.approx(1 / 3)
    assert set(both.subscriptions["user_id"]) == {2, 3, 5}
    assert both.messages.attrs["coverage"] == (
        "everything; messages of the 3 members of @backend, @frontend (subgroups included)"
    )
    eng = slice_frames(f, groups="engineering")
    assert eng.messages["id"].tolist() == [1, 2, 3, 5]
    with pytest.raises(ValueError, match="user_groups frame"):
        slice_frames(AnalyticsFrames(messages=m), groups="engineering")


def test_a_synced_and_an_exported_dataset_list_subgroups_members(tmp_path: Path) -> None:
    with Sandbox.start(tmp_path / "org", size="small", seed=8) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as c:
            people = [u.user_id for u in c.users.list() if not u.is_bot and u.is_active][:4]
            backend = c.user_groups.create("backend", members=[people[0], people[1]])
            frontend = c.user_groups.create("frontend", members=[people[1], people[2]])
            c.user_groups.create("engineering", members=[people[3]], subgroups=[backend, frontend])
        synced = Dataset.sync(sb.zuliprc("admin"), cache=tmp_path / "s", progress=False)
        tarball = export_tarball(sb, tmp_path / "org.tar.gz", chunk_size=500)
    exported = Dataset.from_export(tarball, tmp_path / "e", progress=False)
    for ds in (synced, exported):
        g = ds.frames().user_groups
        assert g is not None
        eng = g[g["name"] == "engineering"].sort_values("user_id")
        assert sorted(eng["user_id"].astype(int)) == sorted(people)
        assert dict(zip(eng["user_id"].astype(int), eng["direct"], strict=True)) == {
            p: p == people[3] for p in people
        }
    a = synced.frames().user_groups
    b = exported.frames().user_groups
    assert a is not None and b is not None
    key = ["name", "user_id"]
    pd.testing.assert_frame_equal(
        a.astype({"name": str}).sort_values(key, ignore_index=True),
        b.astype({"name": str}).sort_values(key, ignore_index=True),
    )
