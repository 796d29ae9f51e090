"""Presence: POST /users/me/presence, GET /realm/presence, GET /users/{id or email}/presence,
in the modern and legacy shapes, with the presence events; and the demo's presence history."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import presence as presence_mod
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, raw


def _row(sandbox: Sandbox, account: str) -> dict[str, int] | None:
    row = sandbox.store.one(
        "SELECT * FROM user_presence WHERE user_id = ?", [sandbox.accounts[account].user_id]
    )
    return None if row is None else dict(row)


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "admin")
    yield q
    q.close()


def test_report_and_answer_in_the_legacy_shape(fresh_sandbox: Sandbox, client_for: object) -> None:
    member: chatops.Client = client_for("member", fresh_sandbox)  # type: ignore[operator]
    before = time.time()
    answer = member.users.update_presence("active", new_user_input=True)
    row = _row(fresh_sandbox, "member")
    assert row is not None and row["last_active_time"] >= int(before)
    assert row["last_connected_time"] == row["last_active_time"]
    email = fresh_sandbox.accounts["member"].email
    mine = answer.presences[email]
    assert set(mine) == {"aggregated", "website"}
    assert mine["aggregated"] == {
        "client": "website",
        "status": "active",
        "timestamp": row["last_active_time"],
    }
    assert mine["website"]["pushable"] is False
    assert answer.server_timestamp is not None and answer.server_timestamp >= before


def test_modern_shape_and_incremental_fetch(fresh_sandbox: Sandbox, client_for: object) -> None:
    member: chatops.Client = client_for("member", fresh_sandbox)  # type: ignore[operator]
    admin: chatops.Client = client_for("admin", fresh_sandbox)  # type: ignore[operator]
    first = member.users.update_presence("idle", last_update_id=-1)
    member_id = fresh_sandbox.accounts["member"].user_id
    modern = first.modern()
    assert member_id in modern
    assert all(k.isdigit() for k in first.presences)
    row = _row(fresh_sandbox, "member")
    assert row is not None
    assert modern[member_id].idle_timestamp == row["last_connected_time"]
    newest = first.presence_last_update_id
    assert newest is not None and newest >= row["last_update_id"]
    admin.users.update_presence("active", ping_only=True)
    second = member.users.update_presence("idle", last_update_id=newest)
    admin_id = fresh_sandbox.accounts["admin"].user_id
    assert set(second.modern()) == {admin_id, member_id}  # only what changed since
    assert second.presence_last_update_id is not None
    assert second.presence_last_update_id > newest
    slim = member.users.update_presence("idle", slim_presence=True)
    assert admin_id in slim.modern()


def test_ping_only_answers_nothing(fresh_sandbox: Sandbox) -> None:
    status, body = raw(
        fresh_sandbox, "member", "POST", "/users/me/presence", status="idle", ping_only="true"
    )
    assert status == 200 and set(body) == {"result", "msg"}


def test_realm_and_user_presence(fresh_sandbox: Sandbox, client_for: object) -> None:
    member: chatops.Client = client_for("member", fresh_sandbox)  # type: ignore[operator]
    admin: chatops.Client = client_for("admin", fresh_sandbox)  # type: ignore[operator]
    member.users.update_presence("active")
    realm = admin.users.realm_presence()
    email = fresh_sandbox.accounts["member"].email
    assert realm.legacy()[email].status == "active"
    member_id = fresh_sandbox.accounts["member"].user_id
    by_id = admin.users.presence(member_id)
    by_email = admin.users.presence(email)
    assert by_id == by_email
    assert set(by_id.presence) == {"aggregated", "website"}
    assert by_id.aggregated is not None and by_id.aggregated.status == "active"
    assert by_id.aggregated.client is None  # the single-user answer has status and time only


def test_a_stale_report_reads_offline(fresh_sandbox: Sandbox, client_for: object) -> None:
    admin: chatops.Client = client_for("admin", fresh_sandbox)  # type: ignore[operator]
    moderator_id = fresh_sandbox.accounts["moderator"].user_id
    old = int(time.time()) - 3600
    fresh_sandbox.store.execute(
        "INSERT OR REPLACE INTO user_presence VALUES (?, ?, ?, ?)",
        [moderator_id, old, old, 10_000],
    )
    assert admin.users.presence(moderator_id).aggregated.status == "offline"  # type: ignore[union-attr]


def test_presence_events(fresh_sandbox: Sandbox, client_for: object, queue: Queue) -> None:
    guest: chatops.Client = client_for("guest", fresh_sandbox)  # type: ignore[operator]
    modern = Queue(fresh_sandbox, "admin", client_capabilities={"simplified_presence_events": True})
    slim = Queue(fresh_sandbox, "admin", slim_presence=True)
    try:
        fresh_sandbox.store.execute(
            "DELETE FROM user_presence WHERE user_id = ?", [fresh_sandbox.accounts["guest"].user_id]
        )
        guest.users.update_presence("active")
        guest_id = fresh_sandbox.accounts["guest"].user_id
        event = queue.wait_for("presence", user_id=guest_id)
        assert event["email"] == fresh_sandbox.accounts["guest"].email
        assert event["presence"]["website"]["status"] == "active"
        assert set(event["presence"]["website"]) == {"client", "status", "timestamp", "pushable"}
        slim_event = slim.wait_for("presence", user_id=guest_id)
        assert "email" not in slim_event and slim_event["presence"] == event["presence"]
        simple = modern.wait_for("presence")
        assert set(simple) >= {"type", "presences", "id"}
        assert simple["presences"][str(guest_id)]["active_timestamp"] > 0
        # A second report while still active changes nothing anyone sees: no event.
        guest.users.update_presence("active")
        time.sleep(0.2)
        assert [e for e in queue.poll() if e["type"] == "presence"] == []
    finally:
        modern.close()
        slim.close()


def test_bad_reports_are_refused(fresh_sandbox: Sandbox) -> None:
    with unchanged(fresh_sandbox.store):
        status, body = raw(fresh_sandbox, "member", "POST", "/users/me/presence", status="away")
        assert status == 400 and body["msg"] == "Invalid status: away"
        status, body = raw(fresh_sandbox, "member", "POST", "/users/me/presence")
        assert status == 400 and body["code"] == "REQUEST_VARIABLE_MISSING"


def test_unknown_users_and_bots(fresh_sandbox: Sandbox, client_for: object) -> None:
    admin: chatops.Client = client_for("admin", fresh_sandbox)  # type: ignore[operator]
    bot = fresh_sandbox.accounts["bot"].user_id
    never = admin.users.create(
        email="never@demo.chatops.test", password="pw-never-123456", full_name="Never Seen"
    )
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST", msg="No such user"):
            admin.users.presence(999999)
        with api_error("BAD_REQUEST", msg="No such user"):
            admin.users.presence("nobody@demo.chatops.test")
        with api_error("BAD_REQUEST", msg="Presence is not supported for bot users."):
            admin.users.presence(bot)
        with api_error("BAD_REQUEST", msg=f"No presence data for {never}"):
            admin.users.presence(never)


def test_invisible_people_report_nothing(fresh_sandbox: Sandbox, client_for: object) -> None:
    member: chatops.Client = client_for("member", fresh_sandbox)  # type: ignore[operator]
    admin: chatops.Client = client_for("admin", fresh_sandbox)  # type: ignore[operator]
    member.users.update_settings(presence_enabled=False)
    try:
        before = _row(fresh_sandbox, "member")
        member.users.update_presence("active")
        assert _row(fresh_sandbox, "member") == before
        email = fresh_sandbox.accounts["member"].email
        assert email not in admin.users.realm_presence().presences
    finally:
        member.users.update_settings(presence_enabled=True)


def test_register_presences(fresh_sandbox: Sandbox, client_for: object) -> None:
    admin: chatops.Client = client_for("admin", fresh_sandbox)  # type: ignore[operator]
    legacy = admin.server.register(fetch_event_types=["presence"])
    slim = admin.server.register(fetch_event_types=["presence"], slim_presence=True)
    assert legacy["presences"] and all("@" in k for k in legacy["presences"])
    assert len(slim["presences"]) == len(legacy["presences"])
    assert all(set(v) == {"active_timestamp", "idle_timestamp"} for v in slim["presences"].values())


def test_demo_presence_history(tmp_path: Path) -> None:
    """Some people active now, some idle, some seen earlier; nobody posted after they were last
    active; the same seed gives the same history."""
    with Sandbox.start(tmp_path / "a", size="small", seed=5) as sb:
        now = time.time()
        rows = sb.store.query(
            "SELECT p.*, (SELECT max(timestamp) FROM messages m WHERE m.sender_id = p.user_id) "
            "AS last FROM user_presence p ORDER BY p.user_id"
        )
        shown = {r["user_id"]: r for r in rows}
        states: dict[str, int] = {}
        for r in rows:
            status, stamp = presence_mod.legacy_status(r)
            if now - stamp > presence_mod.OFFLINE_THRESHOLD_SECONDS:
                status = "offline"
            states[status] = states.get(status, 0) + 1
            if r["last"] is not None:
                assert r["last_active_time"] >= r["last"]
            assert r["last_connected_time"] >= r["last_active_time"]
        humans = sb.store.scalar(
            "SELECT count(*) FROM users WHERE is_bot = 0 AND is_system_bot = 0"
        )
    assert states.get("active", 0) > 0 and states.get("idle", 0) > 0
    assert states.get("offline", 0) > 0
    assert len(rows) <= humans
    with Sandbox.start(tmp_path / "b", size="small", seed=5) as again:
        same = again.store.query(
            "SELECT user_id, last_update_id FROM user_presence ORDER BY user_id"
        )
    assert [(r["user_id"], r["last_update_id"]) for r in same] == [
        (uid, r["last_update_id"]) for uid, r in shown.items()
    ]
