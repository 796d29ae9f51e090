"""The generated demo organization: deterministic, and realistic where audits look."""

from __future__ import annotations

from pathlib import Path

import chatops
from chatops.sandbox import Sandbox, Store, demo

PREFIX = "\u2714 "


def _shape(store: Store) -> list[tuple[object, ...]]:
    rows = store.query("SELECT sender_id, stream_id, topic, content FROM messages ORDER BY id")
    return [tuple(r.values()) for r in rows]


def test_same_seed_same_organization() -> None:
    a, b, c = Store(), Store(), Store()
    demo.generate(a, seed=3, now=1_800_000_000)
    demo.generate(b, seed=3, now=1_800_000_000)
    demo.generate(c, seed=4, now=1_800_000_000)
    assert _shape(a) == _shape(b)
    assert _shape(a) != _shape(c)


def test_every_role_and_the_bots(sandbox: Sandbox) -> None:
    roles = {name: acc.role for name, acc in sandbox.accounts.items()}
    assert roles == {
        "owner": 100,
        "admin": 200,
        "moderator": 300,
        "member": 400,
        "guest": 600,
        "bot": 400,
    }
    bot_types = {
        r["bot_type"]
        for r in sandbox.store.query(
            "SELECT bot_type FROM users WHERE is_bot = 1 AND is_system_bot = 0"
        )
    }
    assert {1, 3} <= bot_types


def test_history_has_edits_moves_and_resolved_topics(admin: chatops.Client) -> None:
    seen = {"edited": 0, "moved_channel": 0, "renamed": 0, "resolved": 0}
    for message in admin.messages.iter_history():
        history = message.edit_history or []
        if message.last_edit_timestamp is not None:
            seen["edited"] += 1
        if any(e.prev_stream is not None for e in history):
            seen["moved_channel"] += 1
            assert message.last_moved_timestamp is not None
        if any(e.prev_topic and not (e.topic or "").startswith(PREFIX) for e in history):
            seen["renamed"] += 1
        if message.subject.startswith(PREFIX):
            seen["resolved"] += 1
        timestamps = [e.timestamp for e in history]
        assert timestamps == sorted(timestamps, reverse=True), "edit history is newest first"
        assert all(e.user_id is not None for e in history)
    assert all(count > 0 for count in seen.values()), seen


def test_uploads_are_shared_by_messages(sandbox: Sandbox, tmp_path: Path) -> None:
    store = sandbox.store
    shared = store.one(
        "SELECT a.path_id, m.stream_id FROM attachments a JOIN attachment_messages am "
        "ON am.attachment_id = a.id JOIN messages m ON m.id = am.message_id "
        "JOIN streams s ON s.id = m.stream_id WHERE s.invite_only = 0 LIMIT 1"
    )
    orphan = store.one(
        "SELECT a.path_id, a.owner_id FROM attachments a WHERE NOT EXISTS "
        "(SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id) LIMIT 1"
    )
    assert shared is not None and orphan is not None
    member = chatops.Client.from_zuliprc(sandbox.zuliprc("member"))
    body = member.uploads.download(f"/user_uploads/{shared['path_id']}")
    assert body.split(b" ")[0] in (b"notes", b"metrics", b"agenda")
    if orphan["owner_id"] != sandbox.accounts["member"].user_id:
        try:
            member.uploads.download(f"/user_uploads/{orphan['path_id']}")
        except chatops.ApiError as exc:
            assert exc.status == 403
        else:
            raise AssertionError("an unshared upload was readable by someone else")


def test_generation_restores_journal_fsync_and_indexes(tmp_path: Path) -> None:
    """The bulk load turns the journal and fsync off and drops the message indexes: all back."""

    def settings(store: Store) -> tuple[object, ...]:
        indexes = store.query(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name"
        )
        return (
            store.scalar("PRAGMA journal_mode"),
            store.scalar("PRAGMA synchronous"),
            [tuple(r.values()) for r in indexes],
        )

    store = Store(tmp_path / "demo.sqlite3")
    before = settings(store)
    assert before[0] == "wal"
    demo.generate(store, seed=2, now=1_800_000_000)
    assert settings(store) == before
    plan = store.one(
        "EXPLAIN QUERY PLAN SELECT id FROM messages WHERE stream_id = 3 ORDER BY id DESC LIMIT 5"
    )
    assert plan is not None and "messages_stream_id" in str(plan["detail"])
    store.close()


def test_people_join_over_time_and_before_they_post() -> None:
    """Newcomer analysis on the demo says something: people join throughout the first half of
    its history, and nobody's first message comes before the day they joined."""
    store = Store()
    demo.generate(store, seed=3, now=1_800_000_000)
    rows = store.query(
        "SELECT u.id, u.date_joined AS joined, f.t AS first FROM users u JOIN "
        "(SELECT sender_id, min(timestamp) AS t FROM messages GROUP BY sender_id) f "
        "ON f.sender_id = u.id WHERE u.is_bot = 0"
    )
    assert len(rows) > 20
    assert [r["id"] for r in rows if r["first"] < r["joined"]] == []
    joined = sorted(r["joined"] for r in rows)
    assert joined[-1] - joined[0] > 20 * 86400  # not everyone on the first day
