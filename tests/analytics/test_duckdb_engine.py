"""engine="duckdb": every view over the dataset's Parquet folder equals the frames in memory."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from chatops import analytics
from chatops.analytics import Dataset
from chatops.analytics.engines import DuckSource
from chatops.analytics.engines._sql import Kept
from chatops.sandbox import Sandbox

from .conftest import KEY
from .engines import CALLS, PUSHED_DOWN, compare


@pytest.fixture(scope="module")
def small_ds(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return Dataset.sync(
        sandbox.zuliprc("admin"), cache=tmp_path_factory.mktemp("duck") / "c", progress=False
    )


@pytest.fixture(scope="module")
def medium_ds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dataset]:
    root = tmp_path_factory.mktemp("duck-medium")
    with Sandbox.start(root / "sb", size="medium", seed=7) as sb:
        yield Dataset.sync(sb.zuliprc("admin"), cache=root / "c", progress=False)


@pytest.mark.parametrize("view", list(CALLS))
def test_duckdb_equals_pandas_on_small(small_ds: Dataset, view: str) -> None:
    assert compare(small_ds, view) > 0


@pytest.mark.parametrize("view", PUSHED_DOWN)
def test_duckdb_equals_pandas_with_period_and_bots_pushed_down(
    small_ds: Dataset, view: str
) -> None:
    frames = small_ds.frames()
    assert frames.users is not None
    ts = frames.messages["timestamp"]
    since = ts.quantile(0.25)
    until = ts.quantile(0.9)
    # the demo's bots post nothing: its busiest sender is taken for one, so there is something
    # for exclude_bots to drop
    busiest = int(frames.messages["sender_id"].value_counts().index[0])
    users = frames.users.assign(
        is_bot=frames.users["is_bot"] | (frames.users["user_id"] == busiest)
    )
    kept = compare(small_ds, view, since=since, until=until, exclude_bots=True, users=users)
    assert kept > 0
    # the scan really drops the rows outside the period and the bots' messages
    with DuckSource(small_ds) as duck:
        where, args = duck.where(since, until, True, users)
        got = duck.messages(where, args)
    bots = set(users.loc[users["is_bot"], "user_id"])
    period = frames.messages[(ts >= since) & (ts < until)]
    assert period["sender_id"].isin(bots).sum() > 10
    assert 0 < len(got) < len(period)
    assert got["timestamp"].min() >= since and got["timestamp"].max() < until
    assert not set(got["sender_id"]) & bots


@pytest.mark.parametrize(
    "view",
    [
        "participation_distribution",
        "topic_lifecycle",
        "reactions_and_engagement",
        "interaction_graph",
    ],
)
def test_duckdb_gives_the_pandas_pseudonyms_under_the_same_key(
    small_ds: Dataset, view: str
) -> None:
    assert compare(small_ds, view, anonymize=True, key=KEY) > 0
    got = getattr(analytics, view)(small_ds, anonymize=True, key=KEY, engine="duckdb")
    ids = {analytics.pseudonym(int(i), KEY) for i in small_ds.frames().users["user_id"]}  # type: ignore[index]
    person = [c for c in got.frame.columns if c in ("user_id", "starter_id", "source", "target")]
    for col in person:
        assert set(got.frame[col].dropna()) <= ids
    assert "@" not in (got.coverage or "")


@pytest.mark.parametrize("limit", [1, 3, None])
def test_both_engines_list_the_same_most_reacted_messages(
    small_ds: Dataset, limit: int | None
) -> None:
    assert compare(small_ds, "reactions_and_engagement", most_reacted_limit=limit) > 0
    got = analytics.reactions_and_engagement(small_ds, most_reacted_limit=limit, engine="duckdb")
    every = analytics.reactions_and_engagement(small_ds, most_reacted_limit=None, engine="duckdb")
    assert every.reacted_messages == len(every.most_reacted) > 3
    first = every.most_reacted if limit is None else every.most_reacted.head(limit)
    pd.testing.assert_frame_equal(got.most_reacted, first)
    assert got.reacted_messages == every.reacted_messages
    assert got.reacted_message_share == every.reacted_message_share


def _spy(
    monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, arg: int | None = None
) -> list[Any]:
    """What ``owner.name`` returns at each call (with ``arg``: its positional argument at that
    index instead), newest last."""
    seen: list[Any] = []
    real = getattr(owner, name)

    def spy(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        seen.append(result if arg is None else args[arg])
        return result

    monkeypatch.setattr(owner, name, spy)
    return seen


def test_topic_participants_counted_in_bitmaps_equal_the_distinct_count(
    small_ds: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = sys.modules[analytics.topic_lifecycle.__module__]
    used = _spy(monkeypatch, module, "_participants_sql")
    bitmaps = analytics.topic_lifecycle(small_ds, engine="duckdb")
    assert "bitstring_agg" in used[-1]
    assert compare(small_ds, "topic_lifecycle") > 0  # the pandas engine agrees
    # with no room for bitmaps: the exact count of distinct senders per topic
    monkeypatch.setattr(module, "BITMAP_BYTES", 0)
    distinct = analytics.topic_lifecycle(small_ds, engine="duckdb")
    assert used[-1] == "count(DISTINCT sender_id)"
    pd.testing.assert_frame_equal(bitmaps.frame, distinct.frame)
    assert bitmaps.frame["participants"].gt(1).any()


def test_the_reaction_network_counted_per_person_number_equals_the_pairs_counted_by_id(
    small_ds: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = sys.modules[analytics.reactions_and_engagement.__module__]
    sql = _spy(monkeypatch, DuckSource, "arrow", arg=1)
    dense = analytics.reactions_and_engagement(small_ds, engine="duckdb").network
    assert any("LEFT JOIN kp pr" in s for s in sql)
    assert compare(small_ds, "reactions_and_engagement") > 0  # the pandas engine agrees
    # more people than the fixed table holds: the pairs of ids in a hash table
    monkeypatch.setattr(module, "DENSE_PEOPLE", 1)
    sql.clear()
    hashed = analytics.reactions_and_engagement(small_ds, engine="duckdb").network
    assert not any("LEFT JOIN kp pr" in s for s in sql)
    pd.testing.assert_frame_equal(dense, hashed)
    # a reactor or author the users table does not name: the pairs of ids too
    monkeypatch.setattr(module, "DENSE_PEOPLE", 2047)
    users = small_ds.frames().users
    assert users is not None
    fewer = users[users["user_id"] != int(dense["reactor_id"].iloc[0])]
    monkeypatch.setattr(Dataset, "_org_table", lambda self, *a: fewer if a[0] == "users" else None)
    sql.clear()
    missing = analytics.reactions_and_engagement(small_ds, engine="duckdb").network
    assert any("LEFT JOIN kp pr" in s for s in sql)
    pd.testing.assert_frame_equal(dense, missing)
    assert len(dense) > 10


def _limit(duck: DuckSource) -> str:
    return str(duck.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])


def test_the_reply_window_runs_within_its_own_memory_limit_and_the_engine_gets_its_own_back(
    small_ds: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The window over every channel message spills past ``WINDOW_MEMORY``, not past the
    engine's limit; the engine's own is set again afterwards; a limit already lower stays."""
    module = sys.modules[analytics.interaction_graph.__module__]
    seen: list[str] = []
    real = Kept.frame

    def frame(self: Kept, sql: str) -> pd.DataFrame:
        if "lag(" in sql:
            seen.append(_limit(self.source))  # type: ignore[arg-type]
        return real(self, sql)

    monkeypatch.setattr(Kept, "frame", frame)
    with DuckSource(small_ds) as duck:
        before = _limit(duck)
        kept = Kept(duck, {"users": duck.table("users")})
        edges = module._reply_pairs(kept)
        assert seen == ["488.2 MiB"]  # 512MB
        assert _limit(duck) == before == "953.6 MiB"  # 1GB, the engine's
    with DuckSource(small_ds, memory_limit="100MB") as duck:
        low = module._reply_pairs(Kept(duck, {"users": duck.table("users")}))
        assert seen[-1] == _limit(duck) == "95.3 MiB"
    pd.testing.assert_frame_equal(edges, low)
    assert len(edges) > 10
    with DuckSource(small_ds) as duck, pytest.raises(ValueError, match="'lots'"):
        with Kept(duck, {}).memory_at_most("lots"):
            pass


def test_duckdb_reads_a_dataset_folder_by_path(small_ds: Dataset) -> None:
    by_path = analytics.activity_heatmap(str(small_ds.cache), engine="duckdb")
    by_frames = analytics.activity_heatmap(small_ds.frames().messages)
    assert by_path.frame["messages"].sum() == small_ds.message_count
    assert by_path.frame.equals(by_frames.frame)
    assert by_path.coverage == by_frames.coverage


def test_both_engines_say_whose_view_a_sync_is(small_ds: Dataset) -> None:
    frames = small_ds.frames()
    email = small_ds.manifest["email"]
    for view in ("client_and_dm_mix", "active_users", "activity_heatmap"):
        by_sql = getattr(analytics, view)(small_ds, engine="duckdb")
        by_frames = getattr(analytics, view)(frames.messages)
        assert by_sql.viewpoint == by_frames.viewpoint == email, view
    # the view by DuckDB's fallback (options its SQL does not compute) says it too
    mix = analytics.client_and_dm_mix(small_ds, dm_recipients=frames.dm_recipients, engine="duckdb")
    assert mix.viewpoint == email
    # the frames the explorer hands the views: the coverage note without its detail object
    light = frames.messages.copy(deep=False)
    light.attrs = {k: v for k, v in frames.messages.attrs.items() if k != "coverage_detail"}
    assert analytics.client_and_dm_mix(light).viewpoint == email
    assert (
        f"the messages {email} sees are direct messages"
        in analytics.sentences.direct_message_share(light)
    )


def test_both_engines_mark_the_same_partial_day_and_user_group_grids(small_ds: Dataset) -> None:
    last = small_ds.frames().messages["timestamp"].max()
    assert compare(small_ds, "active_users", as_of=last) > 0
    got = analytics.active_users(small_ds, as_of=last, engine="duckdb")
    assert got.frame.loc[got.frame["partial"], "date"].nunique() == 1
    frames = small_ds.frames()
    assert frames.user_groups is not None and len(frames.user_groups)
    want = analytics.activity_heatmap(
        frames.messages, by="user_group", user_groups=frames.user_groups
    )
    sql = analytics.activity_heatmap(small_ds, by="user_group", engine="duckdb")
    pd.testing.assert_frame_equal(sql.frame, want.frame)
    pd.testing.assert_frame_equal(sql.busiest, want.busiest)
    assert len(want.frame) and not want.frame["group"].astype(str).str.startswith("role:").any()


def test_engine_errors_name_the_problem(small_ds: Dataset, tmp_path: Path) -> None:
    msgs = small_ds.frames().messages
    with pytest.raises(ValueError, match="unknown engine 'polars'"):
        analytics.active_users(msgs, engine="polars")
    with pytest.raises(ValueError, match="pass a Dataset or the path of its folder"):
        analytics.active_users(msgs, engine="duckdb")
    with pytest.raises(ValueError, match="needs engine='duckdb' or engine='spark'"):
        analytics.active_users(small_ds)
    with pytest.raises(ValueError, match="holds no dataset"):
        analytics.active_users(tmp_path, engine="duckdb")


@pytest.mark.slow
@pytest.mark.parametrize("view", list(CALLS))
def test_duckdb_equals_pandas_on_medium(medium_ds: Dataset, view: str) -> None:
    assert compare(medium_ds, view) > 0
