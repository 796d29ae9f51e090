"""Message ids are never reused: not after deleting the newest, not across a restart, not after
migrating a database made before ids were kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import chatops
from chatops.sandbox import Sandbox, Store
from chatops.sandbox.schema import MIGRATIONS


def _newest_deleted_then_sent(sb: Sandbox) -> tuple[int, int]:
    with (
        chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
        chatops.Client.from_zuliprc(sb.zuliprc("member")) as member,
    ):
        newest = member.messages.send_to_channel("general", "ids", "to be deleted").id
        admin.messages.delete(newest)
        return newest, member.messages.send_to_channel("general", "ids", "after").id


def test_the_id_of_a_deleted_newest_message_is_not_given_again(tmp_path: Path) -> None:
    with Sandbox.start(tmp_path, size="small", seed=3) as sb:
        deleted, sent = _newest_deleted_then_sent(sb)
        assert sent > deleted
        with (
            chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
            chatops.Client.from_zuliprc(sb.zuliprc("member")) as member,
        ):
            newest = member.messages.send_to_channel("general", "ids", "deleted, then stop").id
            admin.messages.delete(newest)
    with (
        Sandbox.start(tmp_path, size="small", seed=3) as sb,  # the same data folder
        chatops.Client.from_zuliprc(sb.zuliprc("member")) as member,
    ):
        after_restart = member.messages.send_to_channel("general", "ids", "restarted").id
    assert after_restart == newest + 1


def _old_database(path: Path) -> None:
    """A database as the sandbox made it before message ids were kept (every earlier migration)."""
    last = next(i for i, script in enumerate(MIGRATIONS) if "messages_new" in script)
    conn = sqlite3.connect(path, isolation_level=None)
    for number, script in enumerate(MIGRATIONS[:last], start=1):
        conn.executescript("BEGIN;" + script + f";PRAGMA user_version={number};COMMIT;")
    conn.execute(
        "INSERT INTO users (id, delivery_email, full_name, api_key, date_joined) "
        "VALUES (1, 'a@example.com', 'A', 'k', 0)"
    )
    conn.execute("INSERT INTO recipients (id, stream_id) VALUES (1, 1)")
    for mid in (10, 11, 12):
        conn.execute(
            "INSERT INTO messages (id, sender_id, recipient_id, stream_id, topic, content, "
            "timestamp) VALUES (?, 1, 1, 1, 't', ?, 0)",
            [mid, f"message {mid}"],
        )
    conn.close()


def test_an_existing_database_is_migrated_and_keeps_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _old_database(path)
    store = Store(path)
    try:
        assert store.scalar("PRAGMA user_version") == len(MIGRATIONS)
        rows = store.query("SELECT id, content FROM messages ORDER BY id")
        assert rows == [{"id": i, "content": f"message {i}"} for i in (10, 11, 12)]
        indexes = {
            r["name"]
            for r in store.query("SELECT name FROM sqlite_master WHERE tbl_name = 'messages'")
        }
        assert {"messages_stream_topic", "messages_stream_id", "messages_sender"} <= indexes
        store.execute("DELETE FROM messages WHERE id = 12")
        new_id = store.insert(
            "messages",
            {"sender_id": 1, "recipient_id": 1, "content": "new", "timestamp": 1},
        )
        assert new_id == 13
    finally:
        store.close()
