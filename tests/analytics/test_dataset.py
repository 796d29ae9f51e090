"""The incremental dataset against a real sandbox: re-syncs equal fresh syncs, resumes, rate limits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

import chatops
from chatops.analytics import Dataset
from chatops.analytics.dataset._tables import _first_seen, _pandas
from chatops.sandbox import RateLimit, Sandbox

RECHECK = 60
FRAMES = ("messages", "reactions", "edits", "dm_recipients", "topics", "topic_links")


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A small organization of the module's own (the tests change its messages)."""
    with Sandbox.start(tmp_path_factory.mktemp("dataset-org"), size="small", seed=13) as sb:
        yield sb


def assert_same(a: Dataset, b: Dataset) -> None:
    fa, fb = a.frames(), b.frames()
    for name in FRAMES:
        pd.testing.assert_frame_equal(getattr(fa, name), getattr(fb, name), obj=name)
    for name in ("users", "channels", "subscriptions", "user_groups"):
        pd.testing.assert_frame_equal(getattr(fa, name), getattr(fb, name), obj=name)
    assert fa.messages["id"].is_unique


def server_ids(sb: Sandbox, account: str) -> set[int]:
    with chatops.Client.from_zuliprc(sb.zuliprc(account)) as c:
        ids = {m.id for m in c.messages.iter_history(page_size=5000)}
        chans = [ch for ch in c.channels.list() if not ch.invite_only]
        for ch in chans:
            narrow = [{"operator": "channel", "operand": ch.stream_id}]
            ids |= {m.id for m in c.messages.iter_history(narrow=narrow, page_size=5000)}
    return ids


def test_first_sync_frames_are_typed_and_cover_what_the_account_reads(
    org: Sandbox, tmp_path: Path
) -> None:
    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False)
    f = ds.frames()
    m = f.messages
    assert str(m["timestamp"].dtype) == "datetime64[ns, UTC]"
    # whose view the messages and the topics counted from them are
    assert f.topics is not None
    assert m.attrs["viewpoint"] == f.topics.attrs["viewpoint"] == "admin@demo.chatops.test"
    for col in ("channel", "topic", "sender", "client"):
        assert isinstance(m[col].dtype, pd.CategoricalDtype), col
    assert str(m["stream_id"].dtype) == "Int64"
    assert m["stream_id"].isna().sum() == (m["type"] == "private").sum()
    assert set(m["id"]) == server_ids(org, "admin")
    assert "content" not in m.columns
    # reactions long: one row per reaction, as many as the messages count
    assert len(f.reactions) == int(m["reaction_count"].sum())
    assert set(f.edits["kind"].dropna()) <= {
        "edit",
        "move_topic",
        "move_channel",
        "resolve",
        "unresolve",
    }
    assert len(f.edits) > 0 and len(f.reactions) > 0
    assert f.topics is not None and f.topics["messages"].sum() == m["stream_id"].notna().sum()
    info = ds.info()
    assert info["messages"] == len(m)
    assert info["coverage"]["channels_readable"]
    assert (
        info["coverage"]["dm_conversations"]
        == m.loc[m["type"] == "private", "recipient_id"].nunique()
    )
    assert all(
        n["watermark"]
        == max(
            m.loc[(m["stream_id"] == n_id) if n_id else m["stream_id"].isna(), "id"], default=None
        )
        or n["messages"] == 0
        for n_id, n in (
            (int(k.split("-")[1]) if k != "dm" else None, n) for k, n in info["narrows"].items()
        )
    )


def test_a_groups_members_include_its_subgroups_members(org: Sandbox, tmp_path: Path) -> None:
    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False)
    groups = ds.frames().user_groups
    assert groups is not None
    framed = groups.groupby("name", observed=True)["user_id"].agg(lambda s: set(s.tolist()))
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as c:
        listed = {g.name: g for g in c.user_groups.list()}
        active = {u.user_id for u in c.users.list() if u.is_active}
        # the demo's support-team has leads as a subgroup, with people only leads list
        support, leads = listed["support-team"], listed["leads"]
        assert leads.id in support.direct_subgroup_ids
        assert set(leads.members) - set(support.members)
        for name in ("support-team", "leads", "role:everyone", "role:members"):
            # GET /user_groups/{id}/members: every active member, subgroups' included
            want = set(c.user_groups.members(listed[name].id))
            assert framed[name] & active == want & active, name
    assert framed["leads"] <= framed["support-team"]


def test_files_are_private_and_writes_leave_no_temporary_files(
    org: Sandbox, tmp_path: Path
) -> None:
    ds = Dataset.sync(org.zuliprc("member"), cache=tmp_path / "c", progress=False)
    for path in [ds.cache, *ds.cache.rglob("*")]:
        mode = path.stat().st_mode & 0o777
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
        assert ".tmp-" not in path.name
    manifest = json.loads((ds.cache / "manifest.json").read_text())
    assert manifest["schema_version"] == 1
    assert "api_key" not in (ds.cache / "manifest.json").read_text()


def test_private_channels_the_account_is_not_in_are_recorded_as_not_covered(
    org: Sandbox, tmp_path: Path
) -> None:
    ds = Dataset.sync(org.zuliprc("guest"), cache=tmp_path / "c", progress=False)
    cov = ds.info()["coverage"]
    readable = {c["stream_id"] for c in cov["channels_readable"]}
    with chatops.Client.from_zuliprc(org.zuliprc("guest")) as c:
        subscribed = {s.stream_id for s in c.channels.subscriptions()}
    # a guest reads only the channels it is subscribed to, and the direct messages it is in
    assert readable == subscribed
    assert set(ds.frames().messages["id"]) == server_ids(org, "guest")
    hidden = {c["stream_id"] for c in cov["channels_not_readable"]}
    assert not hidden & readable


def test_resync_after_adding_editing_moving_reacting_and_deleting_equals_a_fresh_sync(
    org: Sandbox, tmp_path: Path
) -> None:
    cache = tmp_path / "incremental"
    first = Dataset.sync(org.zuliprc("admin"), cache=cache, recheck=RECHECK, progress=False)
    before = first.frames().messages
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as c:
        chans = {ch.name: ch.stream_id for ch in c.channels.list()}
        general, other = "general", next(n for n in chans if n != "general")
        new = [c.messages.send_to_channel(general, "dataset sync", f"new {i}").id for i in range(5)]
        newest = before.sort_values("id").iloc[-20:]
        chan_msgs = newest[newest["stream_id"].notna()]
        moved, reacted, deleted = (int(x) for x in chan_msgs["id"].iloc[:3])
        c.messages.edit(new[3], content="edited by the test")
        c.messages.edit(moved, topic="moved by the test", propagate_mode="change_one")
        c.messages.edit(new[1], stream_id=chans[other], propagate_mode="change_one")
        c.messages.add_reaction(reacted, emoji_name="tada")
        c.messages.add_reaction(new[0], emoji_name="octopus")
        c.messages.delete(deleted)
        c.messages.delete(new[2])
        # the oldest message of the re-check window moves to another channel
        window = before.nlargest(RECHECK, "id")
        in_window = window[
            window["stream_id"].notna() & ~window["id"].isin([moved, reacted, deleted])
        ]
        first = in_window.nsmallest(1, "id").iloc[0]
        old_msg = int(first["id"])
        target = next(sid for sid in chans.values() if sid != int(first["stream_id"]))
        c.messages.edit(old_msg, stream_id=target, propagate_mode="change_one")
    again = Dataset.sync(org.zuliprc("admin"), cache=cache, recheck=RECHECK, progress=False)
    stats = again.manifest["last_sync"]
    # what was sent since (the five, less the deleted one, and the servers' move notices)
    assert stats["new"] == len({i for i in server_ids(org, "admin") if i > before["id"].max()})
    assert stats["rechecked"] == RECHECK  # the window is the dataset's newest, not per channel
    assert stats["removed"] == 1  # the deleted message that had been synced
    fresh = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "fresh", progress=False)
    assert_same(again, fresh)
    m = again.frames().messages.set_index("id")
    assert deleted not in m.index and new[2] not in m.index
    assert bool(m.loc[new[3], "is_edited"])
    assert m.loc[moved, "topic"] == "moved by the test"
    assert m.loc[old_msg, "stream_id"] == target
    assert m.loc[reacted, "reaction_count"] >= 1


def test_a_resync_with_no_recheck_fetches_only_newer_messages(org: Sandbox, tmp_path: Path) -> None:
    cache = tmp_path / "c"
    Dataset.sync(org.zuliprc("admin"), cache=cache, progress=False)
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as c:
        c.messages.send_to_channel("general", "only newer", "one")
        c.messages.send_to_channel("general", "only newer", "two")
    ds = Dataset.sync(org.zuliprc("admin"), cache=cache, recheck=0, progress=False)
    stats = ds.manifest["last_sync"]
    assert stats["fetched"] == 2 and stats["new"] == 2 and stats["rechecked"] == 0


_SYNC_SCRIPT = """
import sys
from chatops.analytics import Dataset
Dataset.sync(sys.argv[1], cache=sys.argv[2], page_size=40, flush_rows=40, concurrency=1,
             progress=False)
"""


def test_a_sync_killed_midway_resumes_without_duplicates_or_gaps(tmp_path: Path) -> None:
    limit = RateLimit(max_calls=6, window_seconds=1.0)  # slow enough to kill it mid-way
    with Sandbox.start(tmp_path / "org", size="small", seed=13, rate_limit=limit) as sb:
        cache = tmp_path / "killed"
        proc = subprocess.Popen(
            [sys.executable, "-c", _SYNC_SCRIPT, str(sb.zuliprc("admin")), str(cache)],
            env=os.environ | {"PYTHONUNBUFFERED": "1"},
        )
        try:
            deadline = time.monotonic() + 120
            parts = 0
            while time.monotonic() < deadline and proc.poll() is None:
                manifest = cache / "manifest.json"
                if manifest.exists():
                    data = json.loads(manifest.read_text())
                    parts = sum(len(n["files"]) for n in data["narrows"].values())
                    if parts >= 4:
                        break
                time.sleep(0.05)
            assert proc.poll() is None, "the sync ended before it could be killed"
            assert parts >= 4
            os.kill(proc.pid, signal.SIGKILL)
        finally:
            proc.wait(30)
        assert json.loads((cache / "manifest.json").read_text())["last_sync"] is None
        sb.state.rate_limit = None
        resumed = Dataset.sync(sb.zuliprc("admin"), cache=cache, progress=False)
        fresh = Dataset.sync(sb.zuliprc("admin"), cache=tmp_path / "fresh", progress=False)
        assert_same(resumed, fresh)
        listed = {f["path"] for n in resumed.manifest["narrows"].values() for f in n["files"]}
        on_disk = {str(p.relative_to(cache)) for p in (cache / "messages").rglob("*.parquet")}
        assert on_disk == listed


def test_cancelled_mid_page_resumes_without_duplicates(org: Sandbox, tmp_path: Path) -> None:
    cache = tmp_path / "c"
    calls = {"n": 0}
    import chatops.analytics.dataset._fetch as dataset_mod

    real = dataset_mod.decode_page

    def interrupt_on_fifth(body: bytes) -> object:
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(body)

    dataset_mod.decode_page = interrupt_on_fifth  # type: ignore[assignment]
    try:
        with pytest.raises(KeyboardInterrupt):
            Dataset.sync(
                org.zuliprc("admin"),
                cache=cache,
                page_size=100,
                flush_rows=100,
                concurrency=1,
                progress=False,
            )
    finally:
        dataset_mod.decode_page = real
    resumed = Dataset.sync(org.zuliprc("admin"), cache=cache, progress=False)
    fresh = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "fresh", progress=False)
    assert_same(resumed, fresh)


def test_parallel_fetch_stays_within_the_advertised_rate_limit(tmp_path: Path) -> None:
    limit = RateLimit(max_calls=10, window_seconds=1.0)
    with Sandbox.start(tmp_path / "org", size="small", seed=13, rate_limit=limit) as sb:
        ds = Dataset.sync(
            sb.zuliprc("admin"), cache=tmp_path / "c", page_size=200, concurrency=4, progress=False
        )
        stats = ds.manifest["last_sync"]
        # the server refuses every request over its limit: with the shared budget none was
        assert stats["refused"] == 0, stats
        assert stats["requests"] > limit.max_calls  # it did have to wait for the window
        assert set(ds.frames().messages["id"]) == server_ids(sb, "admin")


def test_sync_recovers_when_the_budget_is_already_spent(tmp_path: Path) -> None:
    limit = RateLimit(max_calls=5, window_seconds=1.0)
    with Sandbox.start(tmp_path / "org", size="small", seed=13, rate_limit=limit) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("admin"), max_retries=0) as other:
            with pytest.raises(chatops.RateLimited):
                for _ in range(20):  # another program of the same user spends the budget
                    other.users.me()
        ds = Dataset.sync(sb.zuliprc("admin"), cache=tmp_path / "c", concurrency=4, progress=False)
        stats = ds.manifest["last_sync"]
        assert stats["refused"] >= 1
        limit.max_calls = 10_000
        assert set(ds.frames().messages["id"]) == server_ids(sb, "admin")


def test_duckdb_reads_the_layout_as_it_is(org: Sandbox, tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb", reason="duckdb is in the test extra")
    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False)
    rows = duckdb.sql(
        f"SELECT narrow, count(*) AS n, count(DISTINCT id) AS ids "
        f"FROM read_parquet('{ds.cache}/messages/*/*.parquet', hive_partitioning = true) "
        f"GROUP BY narrow ORDER BY narrow"
    ).fetchall()
    by_narrow = {k: n["messages"] for k, n in ds.info()["narrows"].items()}
    assert {r[0]: r[1] for r in rows} == {k: v for k, v in by_narrow.items() if v}
    assert all(r[1] == r[2] for r in rows)
    reactions = duckdb.sql(
        f"SELECT count(*) FROM (SELECT unnest(reactions) FROM "
        f"read_parquet('{ds.cache}/messages/*/*.parquet'))"
    ).fetchall()
    assert reactions == [(len(ds.frames().reactions),)]


def test_export_writes_every_frame(org: Sandbox, tmp_path: Path) -> None:
    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False)
    paths = ds.export(tmp_path / "csv", format="csv")
    names = {p.stem for p in paths}
    assert {"messages", "reactions", "edits", "users", "channels", "topics"} <= names
    back = pd.read_csv(tmp_path / "csv" / "messages.csv")
    assert len(back) == ds.message_count
    paths = ds.export(tmp_path / "pq", format="parquet")
    assert len(pd.read_parquet(tmp_path / "pq" / "reactions.parquet")) == len(ds.frames().reactions)


def test_bad_arguments_are_refused_before_any_request(org: Sandbox, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="page_size must be between 1 and 5000"):
        Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", page_size=6000)
    with pytest.raises(ValueError, match="no zuliprc file"):
        Dataset.sync(tmp_path / "missing.zuliprc", cache=tmp_path / "c")
    with pytest.raises(ValueError, match="holds no dataset"):
        Dataset(tmp_path / "empty")
    Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False)
    with pytest.raises(ValueError, match="use another cache folder"):
        Dataset.sync(org.zuliprc("member"), cache=tmp_path / "c", progress=False)


@pytest.mark.parametrize("account", ["admin", "member"])
def test_subscriptions_are_every_readable_channels_members(
    org: Sandbox, tmp_path: Path, account: str
) -> None:
    """The subscribers come with the sync's registration; they equal each channel's members."""
    ds = Dataset.sync(org.zuliprc(account), cache=tmp_path / "c", progress=False)
    subs = ds.frames().subscriptions
    assert subs is not None
    got = set(zip(subs["stream_id"].astype(int), subs["user_id"].astype(int), strict=True))
    readable = [c["stream_id"] for c in ds.manifest["coverage"]["channels_readable"]]
    with chatops.Client.from_zuliprc(org.zuliprc(account)) as c:
        want = {(sid, u) for sid in readable for u in c.channels.members(sid)}
    assert len(readable) > 5 and len(want) > 50
    assert got == want


def test_system_bots_are_in_the_users_frame_as_bots(org: Sandbox, tmp_path: Path) -> None:
    """GET /users leaves out Notification Bot and the other system bots; they post (here: a
    new channel announced), so the users frame has them, as bots, with their names."""
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as c:
        c.channels.subscribe(["announced-for-the-frames"], announce=True)
        assert "Notification Bot" not in {u.full_name for u in c.users.list()}
    f = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", progress=False).frames()
    assert f.users is not None
    bot = f.users[f.users["full_name"] == "Notification Bot"]
    assert len(bot) == 1 and bool(bot["is_bot"].iloc[0]) and bool(bot["is_system_bot"].iloc[0])
    sent = f.messages[f.messages["sender_id"] == bot["user_id"].iloc[0]]
    assert len(sent) >= 1
    assert f.users["user_id"].is_unique


def test_content_is_kept_only_when_asked(org: Sandbox, tmp_path: Path) -> None:
    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", content=True, progress=False)
    m = ds.frames(content=True).messages
    assert "content" in m.columns
    assert (m["content"].str.len() == m["content_length"]).all()
    assert "content" not in ds.frames().messages.columns
    with pytest.raises(ValueError, match="content=True"):
        Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", content=False, progress=False)


def test_progress_shows_messages_rate_and_time_left(
    org: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ds = Dataset.sync(org.zuliprc("admin"), cache=tmp_path / "c", page_size=200, concurrency=1)
    err = capsys.readouterr().err
    last = err.replace("\r", "\n").strip().splitlines()[-1]
    assert f"{ds.message_count}/{ds.message_count}" in last  # fetched, of the estimated total
    assert "msg/s" in last and "<" in last  # rate and time left


def test_categories_are_in_order_of_first_appearance_whatever_the_files() -> None:
    """The files' dictionaries differ; the frame's categories do not depend on them."""
    words = ["b", "a", None, "b", "c", "a", "d"]
    plain = pa.chunked_array([pa.array(words)])
    # the same values spread over files whose dictionaries hold other and unused values
    files = pa.chunked_array(
        [
            pa.DictionaryArray.from_arrays(pa.array([2, 0, None, 2]), pa.array(["a", "z", "b"])),
            pa.DictionaryArray.from_arrays(pa.array([1, 0, 3]), pa.array(["a", "c", "y", "d"])),
        ]
    )
    assert _first_seen(files).dictionary.to_pylist() == ["b", "a", "c", "d"]
    assert _first_seen(files).to_pylist() == words
    expected = _pandas(pa.table({"w": plain}), ("w",))
    got = _pandas(pa.table({"w": files}), ("w",))
    pd.testing.assert_frame_equal(got, expected)
    assert list(got["w"].cat.categories) == ["b", "a", "c", "d"]
