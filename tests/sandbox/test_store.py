"""The Store: transactions that leave nothing behind, and events that wait for the commit."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
import time
from collections import Counter
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


def _emoji_count(store: Store) -> int:
    return int(store.scalar("SELECT count(*) FROM realm_emoji"))


def test_reads_go_on_beside_an_open_write_and_see_none_of_it(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    written, release = threading.Event(), threading.Event()

    def write_five() -> None:
        with store.atomic():
            for n in range(5):
                store.execute("INSERT INTO realm_emoji (name, author_id) VALUES (?, 1)", [f"e{n}"])
            written.set()
            release.wait(10)

    writer = threading.Thread(target=write_five)
    writer.start()
    try:
        assert written.wait(10)
        seen: list[int] = []
        before_commit = store.reading()
        before_commit.__enter__()

        def read_in_block() -> None:
            with store.reading():
                seen.append(_emoji_count(store))

        reader = threading.Thread(target=read_in_block)
        reader.start()
        reader.join(5)
        # the read did not wait for the writer's lock, and saw nothing of the open transaction
        assert not reader.is_alive()
        assert seen == [0]
        assert _emoji_count(store) == 0  # this thread's block: its snapshot starts here
    finally:
        release.set()
        writer.join(10)
    assert _emoji_count(store) == 0  # same snapshot, though the five rows are committed now
    before_commit.__exit__(None, None, None)
    with store.reading():
        assert _emoji_count(store) == 5
    store.close()


def test_a_reading_block_reads_its_own_writes(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    with store.reading():
        assert _emoji_count(store) == 0
        with store.atomic():
            store.execute("INSERT INTO realm_emoji (name, author_id) VALUES ('a', 1)")
            assert _emoji_count(store) == 1  # inside the transaction: the writing connection
        assert _emoji_count(store) == 1  # after the commit: a new snapshot
        store.execute("INSERT INTO realm_emoji (name, author_id) VALUES ('b', 1)")
        assert _emoji_count(store) == 2  # a write outside a transaction ends the snapshot too
    store.close()


def test_a_reader_racing_a_multi_row_write_sees_all_or_nothing(fresh_sandbox: Sandbox) -> None:
    """Moving a topic rewrites every message of it in one transaction; a page sees one name."""
    acc = fresh_sandbox.accounts["admin"]
    api = f"{fresh_sandbox.site}/api/v1"
    auth = (acc.email, acc.api_key)
    with httpx.Client(base_url=api, auth=auth, timeout=30) as c:
        ids = [
            c.post(
                "/messages",
                data={"type": "stream", "to": "general", "topic": "left", "content": f"m{n}"},
            ).json()["id"]
            for n in range(60)
        ]
    stop = threading.Event()
    moves = {"done": 0}
    seen: Counter[str] = Counter()
    torn: list[dict[str, int]] = []

    def move() -> None:
        with httpx.Client(base_url=api, auth=auth, timeout=30) as c:
            names = ["left", "right"]
            while not stop.is_set():
                new = names[(moves["done"] + 1) % 2]
                r = c.patch(
                    f"/messages/{ids[0]}",
                    data={
                        "topic": new,
                        "propagate_mode": "change_all",
                        "send_notification_to_new_thread": "false",
                    },
                )
                assert r.status_code == 200, r.text
                moves["done"] += 1

    def read() -> None:
        with httpx.Client(base_url=api, auth=auth, timeout=30) as c:
            while not stop.is_set():
                r = c.get(
                    "/messages",
                    params={"message_ids": json.dumps(ids)},
                )
                assert r.status_code == 200, r.text
                topics = Counter(m["subject"] for m in r.json()["messages"])
                if len(topics) != 1:
                    torn.append(dict(topics))
                seen.update(topics.keys())

    threads = [threading.Thread(target=move), *(threading.Thread(target=read) for _ in range(3))]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (moves["done"] < 20 or len(seen) < 2):
        time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join(30)
    assert torn == []
    assert moves["done"] >= 20
    assert set(seen) == {"left", "right"}  # the readers did read between the moves
