"""The Store: transactions that leave nothing behind, and events that wait for the commit."""

from __future__ import annotations

import sqlite3

import pytest

from chatops.sandbox import Store
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
