"""The console's actions in its change log: each click's changes are one action, and undoing
an action puts back its changes only, newest action first, each once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.changes.kinds import SetUserStatus
from chatops.changes.log import ChangeLog
from chatops.sandbox import Sandbox
from tests.conftest import unchanged

MEMBER, MODERATOR = 5, 4


@pytest.fixture
def admin(fresh_sandbox: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin")) as client:
        yield client


def _status(client: chatops.Client, user_id: int) -> tuple[str, str]:
    s = client.users.get_status(user_id)
    return (s.status_text or "", s.emoji_name or "")


def test_undo_puts_back_one_action_at_a_time(
    admin: chatops.Client, fresh_sandbox: Sandbox, tmp_path: Path
) -> None:
    admin.users.set_user_status(MEMBER, status_text="On vacation", emoji_name="palm_tree")
    before = {u: _status(admin, u) for u in (MEMBER, MODERATOR)}
    log = ChangeLog(admin, path=tmp_path / "console.jsonl")
    assert log.last_action() is None
    log.begin("Status: Apply status")
    log.make(SetUserStatus(user_id=MEMBER, status={"status_text": "Offsite"}))
    log.make(SetUserStatus(user_id=MODERATOR, status={"status_text": "Offsite"}))
    log.begin("Status: Clear status")
    log.make(SetUserStatus(user_id=MEMBER, status={"status_text": "", "emoji_name": ""}))
    assert log.last_action() == 2 and log.label(2) == "Status: Clear status"
    items, cannot = log.undo_preview(2)
    assert [i.change.call().path for i in items] == [f"/users/{MEMBER}/status"] and cannot == []

    tally = log.undo_action(2)
    assert tally["done"] == 1
    assert _status(admin, MEMBER) == ("Offsite", "palm_tree")
    assert log.last_action() == 1 and log.made(2) == []
    tally = log.undo_action(1)
    assert tally["done"] == 2
    assert {u: _status(admin, u) for u in (MEMBER, MODERATOR)} == before
    assert log.last_action() is None
    with unchanged(fresh_sandbox.store):
        assert log.undo_action(1)["done"] == 0  # undone already: nothing is sent again


def test_two_logs_begun_in_the_same_second_keep_their_own_journals(
    admin: chatops.Client, fresh_sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two console sessions of one process whose first changes fall in the same second: each
    has a journal of its own, so undoing the one's action leaves the other's change alone."""
    from datetime import UTC, datetime

    import chatops.changes.log as log_module

    moment = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: object = None) -> datetime:  # type: ignore[override]
            return moment

    monkeypatch.setattr(log_module, "datetime", Frozen)
    first, second = ChangeLog(admin), ChangeLog(admin)
    first.begin("Status: Apply status")
    first.make(SetUserStatus(user_id=MEMBER, status={"status_text": "First"}))
    second.begin("Status: Apply status")
    second.make(SetUserStatus(user_id=MODERATOR, status={"status_text": "Second"}))
    assert first.path != second.path
    assert first.path.name.startswith("console-20261129T120000Z-")
    assert [len(log.made(1)) for log in (first, second)] == [1, 1]
    assert second.undo_action(1)["done"] == 1
    assert _status(admin, MODERATOR)[0] != "Second"
    assert _status(admin, MEMBER)[0] == "First"  # the other session's change stays
    assert first.last_action() == 1 and second.last_action() is None
