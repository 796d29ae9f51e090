"""A Zulip data export of a sandbox organization, imported into the dataset's Parquet layout.

The imported cache reads like a synced one: its frames equal :func:`read_export`'s frames of the
same export, and those of ``Dataset.sync`` as the administrator wherever the API shows the same
messages; ``chatops data info``, ``export`` and DuckDB read it as they read a synced cache.
"""

from __future__ import annotations

import json
import tarfile
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import chatops
from chatops.analytics import Dataset, topics_frame
from chatops.analytics.dataset.realm_export import MalformedExport, read_export
from chatops.sandbox import Sandbox
from chatops.sandbox.export import export_organization
from tests.analytics.helpers import export_tarball, org_for_export
from tests.test_cli import _one_line_error, chatops_here
from tests.test_cli import chatops as run_chatops

#: Small enough that each narrow is written as several part files.
FLUSH_ROWS = 150


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A small organization of this module's own, with an edited and moved message and a DM."""
    with org_for_export(tmp_path_factory.mktemp("import-org"), seed=11, topic="import") as sb:
        yield sb


@pytest.fixture(scope="module")
def tarball(org: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "demo-export.tar.gz"
    return export_tarball(org, out, chunk_size=400)


@pytest.fixture(scope="module")
def imported(tarball: Path, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    cache = tmp_path_factory.mktemp("imported") / "cache"
    return Dataset.from_export(tarball, cache=cache, flush_rows=FLUSH_ROWS, progress=False)


@pytest.fixture(scope="module")
def synced(org: Sandbox, tarball: Path, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    cache = tmp_path_factory.mktemp("synced") / "cache"
    return Dataset.sync(org.zuliprc("admin"), cache=cache, progress=False)


def _plain(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Categoricals as objects, datetimes in ns (their unit differs between the two paths)."""
    out = frame.copy()
    for col in out.columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].astype("object")
        elif isinstance(out[col].dtype, pd.DatetimeTZDtype):
            out[col] = out[col].astype("datetime64[ns, UTC]")
    return out.sort_values(keys, kind="stable", ignore_index=True)


def as_an_export_lists_them(users: pd.DataFrame) -> pd.DataFrame:
    """The API's users frame as an export can hold it: an export lists a system bot by id and
    email only, not when it joined nor its time zone (the frame must have a system bot)."""
    out = users.copy()
    system = out["is_system_bot"].fillna(False).astype(bool)
    assert system.any()
    out.loc[system, "date_joined"] = pd.NaT
    out["timezone"] = out["timezone"].astype("object").where(~system, float("nan"))
    return out


KEYS = {
    "messages": ["id"],
    "reactions": ["message_id", "user_id", "emoji_code"],
    "edits": ["message_id"],  # a stable sort keeps each message's history order
    "dm_recipients": ["message_id", "user_id"],
    "users": ["user_id"],
    "channels": ["stream_id"],
    "subscriptions": ["stream_id", "user_id"],
}


def test_imported_frames_equal_read_export_frames(imported: Dataset, tarball: Path) -> None:
    got = imported.frames()
    want = read_export(tarball, progress=False)
    # read_export keeps the empty topic's stored name, as the client asks for it; the dataset
    # names it as a sync fetches it, "general chat"
    empty = want.messages["topic"] == ""
    assert empty.any()
    topic = want.messages["topic"].astype("object").where(~empty, "general chat")
    want.messages["topic"] = topic.astype("category")
    for name, keys in KEYS.items():
        frame = getattr(got, name)
        assert frame is not None and len(frame) > 0, name
        pd.testing.assert_frame_equal(
            _plain(frame, keys), _plain(getattr(want, name), keys), obj=name
        )
    assert got.topics is not None
    pd.testing.assert_frame_equal(
        _plain(got.topics, ["stream_id", "topic"]),
        _plain(topics_frame(want.messages), ["stream_id", "topic"]),
    )
    assert got.topic_links is not None and got.topic_links.empty  # an export holds none
    assert got.messages["id"].is_unique
    assert {"edit", "move_topic", "move_channel", "resolve"} <= set(got.edits["kind"])


def test_an_imported_groups_members_include_its_subgroups_as_a_sync_lists_them(
    imported: Dataset, synced: Dataset
) -> None:
    got, api = imported.frames().user_groups, synced.frames().user_groups
    assert got is not None and api is not None
    members = {
        name: set(part["user_id"].tolist()) for name, part in got.groupby("name", observed=True)
    }
    # the demo's support-team holds leads as a subgroup: its members count in support-team
    assert members["leads"] <= members["support-team"]
    named = api[~api["name"].str.startswith("role:")]
    mine = got[~got["name"].str.startswith("role:")]
    pd.testing.assert_frame_equal(
        _plain(mine, ["name", "user_id"]), _plain(named, ["name", "user_id"])
    )


def test_imported_frames_equal_a_sync_as_the_admin_where_the_api_sees_the_same(
    org: Sandbox, imported: Dataset, synced: Dataset
) -> None:
    got, api = imported.frames(), synced.frames()
    seen = set(api.messages["id"])
    assert seen < set(got.messages["id"]), "the export holds messages the admin cannot read"
    assert len(got.messages) == org.store.scalar("SELECT count(*) FROM messages")
    for name in ("messages", "reactions", "edits", "dm_recipients"):
        frame = getattr(got, name)
        column = "id" if name == "messages" else "message_id"
        visible = frame[frame[column].isin(seen)]
        want = getattr(api, name)
        assert len(want) > 0, name
        pd.testing.assert_frame_equal(
            _plain(visible, KEYS[name]), _plain(want, KEYS[name]), obj=name
        )
    assert got.users is not None and api.users is not None
    api_users = as_an_export_lists_them(api.users)
    pd.testing.assert_frame_equal(_plain(got.users, ["user_id"]), _plain(api_users, ["user_id"]))
    assert got.channels is not None and api.channels is not None
    listed = set(api.channels["stream_id"])
    channels = got.channels[got.channels["stream_id"].isin(listed)]
    pd.testing.assert_frame_equal(
        _plain(channels, ["stream_id"]), _plain(api.channels, ["stream_id"])
    )
    assert got.subscriptions is not None and api.subscriptions is not None
    readable = {c["stream_id"] for c in synced.info()["coverage"]["channels_readable"]}
    subs = got.subscriptions[got.subscriptions["stream_id"].isin(readable)]
    keys = ["stream_id", "user_id"]
    pd.testing.assert_frame_equal(_plain(subs, keys), _plain(api.subscriptions, keys))
    # user groups, role groups and subgroups' members included
    assert got.user_groups is not None and api.user_groups is not None
    assert api.user_groups["name"].str.startswith("role:").any()
    assert not api.user_groups["direct"].all()  # a subgroup's members are there
    pd.testing.assert_frame_equal(
        _plain(got.user_groups, ["name", "user_id"]), _plain(api.user_groups, ["name", "user_id"])
    )


def test_the_layout_and_manifest_of_an_import(
    org: Sandbox, imported: Dataset, tarball: Path
) -> None:
    cache = imported.cache
    for path in [cache, *cache.rglob("*")]:
        mode = path.stat().st_mode & 0o777
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
        assert ".tmp-" not in path.name
    assert sorted(p.name for p in (cache / "tables").iterdir()) == [
        "channels.parquet",
        "subscriptions.parquet",
        "user_groups.parquet",
        "users.parquet",
    ]
    m = imported.manifest
    with tarfile.open(tarball) as tar:
        (realm_member,) = [t for t in tar.getmembers() if t.name.endswith("/realm.json")]
    realm = org.store.one("SELECT * FROM realm ORDER BY id LIMIT 1")
    assert realm is not None
    assert m["source"]["kind"] == "export"
    assert m["source"]["file"] == "demo-export.tar.gz"
    assert m["source"]["realm"] == {
        "id": realm["id"],
        "string_id": realm["string_id"],
        "name": realm["name"],
    }
    assert m["source"]["exported_at"] == realm_member.mtime
    assert m["source"]["imported"]["messages"] == imported.message_count
    streams = org.store.query("SELECT id, name FROM streams ORDER BY id")
    cov = m["coverage"]
    assert cov["channels_readable"] == [{"stream_id": s["id"], "name": s["name"]} for s in streams]
    assert cov["channels_not_readable"] == []
    assert cov["dm_conversations"] == org.store.scalar(
        "SELECT count(DISTINCT recipient_id) FROM messages WHERE stream_id IS NULL"
    )
    # one narrow per channel and one for direct messages, each in parts of FLUSH_ROWS at most
    assert set(m["narrows"]) == {f"channel-{s['id']}" for s in streams} | {"dm"}
    counts = {
        (f"channel-{r['stream_id']}" if r["stream_id"] is not None else "dm"): r["n"]
        for r in org.store.query(
            "SELECT stream_id, count(*) AS n, max(id) AS top FROM messages GROUP BY stream_id"
        )
    }
    for key, n in m["narrows"].items():
        rows = [f["rows"] for f in n["files"]]
        assert sum(rows) == counts.get(key, 0), key
        assert all(r <= FLUSH_ROWS for r in rows), key
        if rows:
            assert n["watermark"] == max(f["max_id"] for f in n["files"])
    assert max(len(n["files"]) for n in m["narrows"].values()) > 1
    # DuckDB reads the folder as it reads a synced cache
    with duckdb.connect() as con:
        by_narrow = dict(
            con.execute(
                f"SELECT narrow, count(*) FROM read_parquet('{cache}/messages/*/*.parquet', "
                "hive_partitioning = true) GROUP BY narrow"
            ).fetchall()
        )
    assert by_narrow == {k: v for k, v in counts.items() if v}
    # nothing secret
    secrets = [a.api_key for a in org.accounts.values() if a.api_key]
    secrets += [a.password for a in org.accounts.values() if a.password]
    secrets += [r["api_key"] for r in org.store.query("SELECT api_key FROM users")]
    assert len(secrets) > 10
    for path in cache.rglob("*"):
        if path.is_file():
            body = path.read_bytes()
            assert [s for s in secrets if s.encode() in body] == [], path


def test_info_and_export_read_an_import(imported: Dataset, tmp_path: Path) -> None:
    info = imported.info()
    assert info["source"]["kind"] == "export"
    assert info["messages"] == imported.message_count > 0
    assert sum(n["messages"] for n in info["narrows"].values()) == info["messages"]
    written = imported.export(tmp_path / "out", format="parquet")
    assert {p.name for p in written} >= {"messages.parquet", "users.parquet", "edits.parquet"}
    assert len(pd.read_parquet(tmp_path / "out" / "messages.parquet")) == info["messages"]


def test_a_reimport_replaces_the_dataset_in_one_step(
    org: Sandbox, tarball: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    first = Dataset.from_export(tarball, cache=cache, progress=False)
    old_parts = {cache / f["path"] for n in first.manifest["narrows"].values() for f in n["files"]}
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as admin:
        added = admin.messages.send_to_channel("general", "import", "After the first export").id
    newer = export_organization(
        org.store, tmp_path / "newer.tar.gz", chunk_size=400, progress=False
    )
    second = Dataset.from_export(newer, cache=cache, progress=False)
    assert second.message_count == first.message_count + 1
    assert added in set(second.frames().messages["id"])
    assert second.manifest["source"]["file"] == "newer.tar.gz"
    # no file of the first import is left, and no staging folder beside the cache
    live = {cache / f["path"] for n in second.manifest["narrows"].values() for f in n["files"]}
    on_disk = set((cache / "messages").rglob("*.parquet"))
    assert on_disk == live and not (old_parts - live) & on_disk
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "newer.tar.gz"]


def test_a_failed_import_leaves_the_previous_dataset_whole(tarball: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    before = Dataset.from_export(tarball, cache=cache, progress=False).frames()
    broken = tmp_path / "broken"
    with tarfile.open(tarball) as tar:
        tar.extractall(broken, filter="data")
    (folder,) = broken.iterdir()
    data = json.loads((folder / "messages-000002.json").read_text())
    data["zerver_message"][5].pop("sender")
    (folder / "messages-000002.json").write_text(json.dumps(data))
    with pytest.raises(MalformedExport, match="messages-000002.json zerver_message: a row"):
        Dataset.from_export(folder, cache=cache, progress=False)
    after = Dataset(cache)
    assert after.manifest["source"]["file"] == tarball.name
    for name in ("messages", "reactions", "edits", "users"):
        pd.testing.assert_frame_equal(getattr(after.frames(), name), getattr(before, name))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken", "cache"]


def test_an_import_removes_what_a_killed_import_left_beside_the_cache(
    tarball: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    Dataset.from_export(tarball, cache=cache, progress=False)
    leftover = tmp_path / ".cache.import-99999999"  # a staging folder no one finished
    (leftover / "messages").mkdir(parents=True)
    (leftover / "messages" / "part-000001.parquet").write_bytes(b"half")
    with pytest.raises(ValueError, match="flush_rows must be at least 1"):
        Dataset.from_export(tarball, cache=cache, flush_rows=0, progress=False)
    assert leftover.exists()
    again = Dataset.from_export(tarball, cache=cache, progress=False)
    assert not leftover.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]
    assert again.message_count == len(again.frames().messages) > 0


def test_an_import_refuses_a_synced_cache_and_other_folders(
    org: Sandbox, tarball: Path, imported: Dataset, synced: Dataset, tmp_path: Path
) -> None:
    synced_manifest = (synced.cache / "manifest.json").read_bytes()
    with pytest.raises(ValueError, match="holds a dataset synced from .* import into another"):
        Dataset.from_export(tarball, cache=synced.cache, progress=False)
    assert (synced.cache / "manifest.json").read_bytes() == synced_manifest
    other = tmp_path / "notes"
    other.mkdir()
    (other / "todo.txt").write_text("keep me")
    with pytest.raises(ValueError, match="holds files but no dataset"):
        Dataset.from_export(tarball, cache=other, progress=False)
    assert [p.name for p in other.iterdir()] == ["todo.txt"]
    with pytest.raises(ValueError, match="holds the organization export demo-export.tar.gz"):
        Dataset.sync(org.zuliprc("admin"), cache=imported.cache, progress=False)


def test_cli_import_export_then_info(tarball: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    proc = run_chatops("data", "import-export", str(tarball), "--cache", str(cache))
    assert proc.returncode == 0, proc.stderr
    assert f"in {cache}" in proc.stdout and "Chatops Demo" in proc.stdout
    assert "import" in proc.stderr and "file" in proc.stderr  # the progress bar
    info = json.loads(run_chatops("data", "info", "--cache", str(cache)).stdout)
    assert info["source"]["kind"] == "export" and info["source"]["file"] == tarball.name
    assert info["messages"] == Dataset(cache).message_count > 0
    assert info["coverage"]["channels_not_readable"] == []
    again = run_chatops(
        "data", "import-export", str(tarball), "--cache", str(cache), "--no-progress"
    )
    assert again.returncode == 0 and again.stderr == ""


def test_cli_import_export_bad_arguments(tarball: Path, synced: Dataset, tmp_path: Path) -> None:
    _one_line_error(chatops_here("data", "import-export"), "required: file")
    _one_line_error(
        chatops_here("data", "import-export", str(tmp_path / "nope.tar.gz")), "no such file"
    )
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    _one_line_error(
        chatops_here("data", "import-export", str(text), "--cache", str(tmp_path / "c")),
        "not a tarball",
    )
    _one_line_error(
        chatops_here("data", "import-export", str(tarball), "--cache", str(text)), "not a folder"
    )
    _one_line_error(
        chatops_here("data", "import-export", str(tarball), "--cache", str(synced.cache)),
        "synced from",
    )
    _one_line_error(
        chatops_here("data", "import-export", str(tarball), "--site", "x"), "unrecognized"
    )


def test_cli_default_cache_is_named_after_the_export(
    tarball: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    proc = run_chatops("data", "import-export", str(tarball), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    cache = tmp_path / "chatops" / "datasets" / "exports" / "demo-export"
    assert f"in {cache}" in proc.stdout
    assert Dataset(cache).manifest["source"]["file"] == tarball.name
