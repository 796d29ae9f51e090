"""The Store: transactions that leave nothing behind, and events that wait for the commit."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import httpx
import pytest

from chatops.sandbox import Sandbox, Store
from chatops.sandbox.bus import event_bus


def _failing_commit(store: Store) -> None:
    """Write a row whose foreign keys SQLite checks only at COMMIT, so COMMIT fails."""
    store.execute("PRAGMA defer_foreign_keys = ON")
    store.execute("INSERT INTO group_members (group_id, user_id) VALUES (999, 999)")


def test_a_failing_commit_rolls_back_and_drops_the_held_events() -> None:
    store = Store()
    queue = event_bus(store).register(1, None)
    with pytest.raises(sqlite3.IntegrityError), store.atomic():
        store.execute("INSERT INTO realm_emoji (name, author_id) VALUES ('x', 1)")
        event_bus(store).publish({"type": "custom", "n": 1}, [1])
        _failing_commit(store)
    assert store.counts()["group_members"] == 0
    assert store.counts()["realm_emoji"] == 0
    assert queue.pending == []
    with store.atomic():  # the connection is usable again: no transaction was left open
        event_bus(store).publish({"type": "custom", "n": 2}, [1])
    assert [e["n"] for e in queue.pending] == [2]


def test_a_refused_block_rolls_back_and_announces_nothing() -> None:
    store = Store()
    queue = event_bus(store).register(1, None)
    with pytest.raises(RuntimeError), store.atomic():
        event_bus(store).publish({"type": "custom"}, [1])
        with store.atomic():
            store.execute("PRAGMA user_version")
        raise RuntimeError("refused")
    assert queue.pending == []


def test_a_nested_block_rolls_back_on_its_own() -> None:
    store = Store()
    with store.atomic():
        store.execute("INSERT INTO realm_emoji (name, author_id) VALUES ('a', 1)")
        with pytest.raises(RuntimeError), store.atomic():
            store.execute("INSERT INTO realm_emoji (name, author_id) VALUES ('b', 1)")
            raise RuntimeError("refused")
    assert [r["name"] for r in store.query("SELECT name FROM realm_emoji")] == ["a"]


def test_the_data_folder_is_its_owners_alone(tmp_path: Path) -> None:
    old = os.umask(0o022)  # the usual umask: new files world-readable unless made otherwise
    try:
        with Sandbox.start(tmp_path / "sb", size="small", seed=3) as sb:
            acc = sb.accounts["member"]
            httpx.post(
                f"{sb.site}/api/v1/messages",
                data={"type": "stream", "to": "general", "topic": "t", "content": "x"},
                auth=(acc.email, acc.api_key),
            ).raise_for_status()
            httpx.post(
                f"{sb.site}/api/v1/user_uploads",
                files={"file": ("a.txt", b"secret", "text/plain")},
                auth=(acc.email, acc.api_key),
            ).raise_for_status()
            data = sb.data_dir
            assert (data / "sandbox.sqlite3-wal").exists()
            found = [data, *data.rglob("*")]
            assert len(found) > 10
            loose = {
                str(p.relative_to(tmp_path)): oct(p.stat().st_mode & 0o777)
                for p in found
                if p.stat().st_mode & 0o077
            }
            assert loose == {}
            assert stat.S_IMODE(data.stat().st_mode) == 0o700
            assert stat.S_IMODE((data / "sandbox.sqlite3").stat().st_mode) == 0o600
    finally:
        os.umask(old)
