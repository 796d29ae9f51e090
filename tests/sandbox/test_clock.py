"""The sandbox's clock, and a demo organization dated for a chosen moment: the same on any day."""

from __future__ import annotations

import time
from pathlib import Path

import chatops
from chatops.sandbox import Sandbox, Store, clock, demo

PINNED = 1_780_315_200  # 2026-06-01T12:00:00Z
SECRET_COLUMNS = {"api_key", "password_hash", "password", "salt"}
#: tables whose every row depends on the time the organization was generated for
DATED = (
    "messages",
    "users",
    "invites",
    "scheduled_messages",
    "channel_folders",
    "saved_snippets",
    "user_topics",
    "user_status",
    "attachments",
)


def _dated_rows(store: Store) -> dict[str, list[list[tuple[str, object]]]]:
    return {
        table: [
            sorted((k, v) for k, v in row.items() if k not in SECRET_COLUMNS)
            for row in store.query(f"SELECT * FROM {table} ORDER BY rowid")
        ]
        for table in DATED
    }


def test_clock_moves_and_resets() -> None:
    try:
        clock.start_at(PINNED)
        assert PINNED <= clock.now() < PINNED + 5
        time.sleep(0.05)
        assert clock.now() > PINNED  # it runs on from the moment given
    finally:
        clock.reset()
    assert abs(clock.now() - time.time()) < 1


def test_demo_for_a_moment_is_the_same_whenever_it_is_generated(tmp_path: Path) -> None:
    first, second = Store(), Store()
    demo.generate(first, seed=5, now=PINNED, upload_dir=tmp_path / "a")
    time.sleep(1.1)  # a second later on the wall clock
    demo.generate(second, seed=5, now=PINNED, upload_dir=tmp_path / "b")
    rows = _dated_rows(first)
    assert rows == _dated_rows(second)
    stamps = [r["timestamp"] for r in first.query("SELECT timestamp FROM messages")]
    assert max(stamps) <= PINNED
    due = first.query("SELECT scheduled_delivery_timestamp AS t FROM scheduled_messages")
    assert all(abs(r["t"] - PINNED) < 5 * 86400 for r in due)  # around the moment, not today


def test_sandbox_started_at_a_moment_answers_as_then(tmp_path: Path) -> None:
    with Sandbox.start(tmp_path / "pinned", seed=5, now=PINNED) as sandbox:
        assert PINNED <= clock.now() < PINNED + 120
        with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as admin:
            pinned_invites = [i.id for i in admin.invitations.list()]
            newest = admin.messages.get(anchor="newest", num_before=1, num_after=0).messages
            channels = {c.name: c.is_recently_active for c in admin.channels.list()}
    assert abs(clock.now() - time.time()) < 1  # stop() gave the wall clock back
    # the invitations the demo made around the moment are still valid at it
    assert pinned_invites
    assert newest and newest[0].timestamp <= PINNED
    assert any(channels.values())


def test_sandbox_without_a_moment_keeps_the_wall_clock(tmp_path: Path) -> None:
    with Sandbox.start(tmp_path / "wall", seed=5) as sandbox:
        assert abs(clock.now() - time.time()) < 1
        newest = sandbox.store.scalar("SELECT max(timestamp) FROM messages")
        assert time.time() - 86400 < newest <= time.time()
