"""Own account: settings (PATCH /settings and the legacy paths), alert words, drafts, muted
users; each with its event, its errors, and nothing changed when refused."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import realm_settings, unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, raw, stream_id


@pytest.fixture
def queue(sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(sandbox, "member")
    yield q
    q.close()


def _stored_setting(sandbox: Sandbox, account: str, name: str) -> Any:
    value = sandbox.store.scalar(
        "SELECT settings FROM user_settings WHERE user_id = ?", [sandbox.accounts[account].user_id]
    )
    return None if value is None else json.loads(value).get(name)


def _events_until(
    queue: Queue, done: Callable[[list[dict[str, Any]]], bool], timeout: float = 5.0
) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while not done(events) and time.monotonic() < deadline:
        events += queue.poll()
        time.sleep(0.02)
    return events


# -- settings --------------------------------------------------------------------------------------
def test_settings_change_with_events(
    member: chatops.Client, sandbox: Sandbox, queue: Queue
) -> None:
    member.users.update_settings(twenty_four_hour_time=True, emojiset="text")
    try:
        assert _stored_setting(sandbox, "member", "twenty_four_hour_time") is True
        events = _events_until(queue, lambda es: len(es) >= 4)
        new = next(e for e in events if e.get("property") == "twenty_four_hour_time")
        assert new["type"] == "user_settings" and new["op"] == "update" and new["value"] is True
        legacy = next(e for e in events if e.get("setting_name") == "emojiset")
        assert legacy["type"] == "update_display_settings" and legacy["setting"] == "text"
        assert legacy["user"] == sandbox.accounts["member"].email
        state = member.server.register(fetch_event_types=["user_settings"])
        assert state["user_settings"]["emojiset"] == "text"
    finally:
        member.users.update_settings(twenty_four_hour_time=False, emojiset="google")


def test_capable_clients_get_no_legacy_settings_events(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    q = Queue(sandbox, "member", client_capabilities={"user_settings_object": True})
    try:
        member.users.update_settings(enable_sounds=False)
        event = q.wait_for("user_settings", property="enable_sounds")
        assert event["value"] is False
        assert not [e for e in q.poll() if e["type"] == "update_global_notifications"]
    finally:
        member.users.update_settings(enable_sounds=True)
        q.close()


@pytest.mark.parametrize("path", ["/settings/display", "/settings/notifications"])
def test_legacy_settings_paths(sandbox: Sandbox, path: str) -> None:
    status, body = raw(sandbox, "member", "PATCH", path, default_language="de")
    assert status == 200, body
    try:
        assert _stored_setting(sandbox, "member", "default_language") == "de"
    finally:
        raw(sandbox, "member", "PATCH", "/settings", default_language="en")


def test_timezone_is_kept_on_the_user(member: chatops.Client, sandbox: Sandbox) -> None:
    old = member.users.me().timezone
    member.users.update_settings(timezone="Europe/Berlin")
    try:
        assert member.users.me().timezone == "Europe/Berlin"
    finally:
        member.users.update_settings(timezone=old)


@pytest.mark.parametrize(
    ("params", "var_name", "msg"),
    [
        ({"color_scheme": "7"}, "color_scheme", "Invalid color_scheme"),
        ({"emojiset": "comic"}, "emojiset", "Invalid emojiset"),
        ({"timezone": "Mars/Olympus"}, "timezone", "Not a recognized time zone"),
        ({"enable_sounds": "maybe"}, "enable_sounds", None),
        ({"web_font_size_px": "99", "enable_sounds": "false"}, "web_font_size_px", None),
    ],
)
def test_bad_settings_are_refused(
    sandbox: Sandbox, params: dict[str, str], var_name: str, msg: str | None
) -> None:
    with unchanged(sandbox.store):
        status, body = raw(sandbox, "member", "PATCH", "/settings", **params)
    assert status == 400
    # the real server's BAD_REQUEST has no var_name field (only REQUEST_VARIABLE_* errors do)
    assert body["code"] == "BAD_REQUEST" and "var_name" not in body
    if msg is not None:
        assert body["msg"] == msg
    else:
        assert var_name in body["msg"]


def test_unknown_setting_is_ignored(sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        status, body = raw(sandbox, "member", "PATCH", "/settings", shoe_size="44")
    assert status == 200 and body["ignored_parameters_unsupported"] == ["shoe_size"]


# -- alert words -----------------------------------------------------------------------------------
def test_alert_words(member: chatops.Client, queue: Queue) -> None:
    assert member.alert_words.add(["deploy", " Outage ", ""]) == ["deploy", "Outage"]
    assert queue.wait_for("alert_words")["alert_words"] == ["deploy", "Outage"]
    assert member.alert_words.add(["DEPLOY", "rollback"]) == ["deploy", "Outage", "rollback"]
    assert member.alert_words.list() == ["deploy", "Outage", "rollback"]
    assert member.alert_words.remove(["outage", "never added"]) == ["deploy", "rollback"]
    state = member.server.register(fetch_event_types=["alert_words"])
    assert state["alert_words"] == ["deploy", "rollback"]
    member.alert_words.remove(["deploy", "rollback"])
    assert member.alert_words.list() == []


def test_alert_words_refused(sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        status, body = raw(
            sandbox, "member", "POST", "/users/me/alert_words", alert_words=json.dumps(["x" * 101])
        )
        assert status == 400
        assert body["msg"] == "alert_words[0] is too long (limit: 100 characters)"
        status, body = raw(
            sandbox, "member", "POST", "/users/me/alert_words", alert_words=json.dumps("word")
        )
        assert status == 400 and body["msg"] == "alert_words is not a list"
        status, body = raw(sandbox, "member", "POST", "/users/me/alert_words")
        assert status == 400 and body["code"] == "REQUEST_VARIABLE_MISSING"


# -- drafts ----------------------------------------------------------------------------------------
def test_draft_life_cycle(member: chatops.Client, sandbox: Sandbox, queue: Queue) -> None:
    general = stream_id(sandbox, "general")
    admin_id = sandbox.accounts["admin"].user_id
    ids = member.drafts.create(
        [
            {
                "type": "stream",
                "to": [general],
                "topic": "plans",
                "content": "half",
                "timestamp": 5,
            },
            {
                "type": "private",
                "to": [admin_id, admin_id],
                "topic": "",
                "content": "psst",
                "timestamp": 10,
            },
        ]
    )
    assert len(ids) == 2
    added = queue.wait_for("drafts", op="add")
    assert [d["id"] for d in added["drafts"]] == ids
    drafts = {d.id: d for d in member.drafts.list()}
    assert drafts[ids[0]].to == [general] and drafts[ids[0]].timestamp == 5
    assert drafts[ids[1]].to == [admin_id]
    member.drafts.edit(
        ids[0], {"type": "stream", "to": [general], "topic": "plans", "content": "whole"}
    )
    assert queue.wait_for("drafts", op="update")["draft"]["content"] == "whole"
    state = member.server.register(fetch_event_types=["drafts"])
    assert state["drafts"][0]["id"] == ids[0]  # most recently edited first
    for draft_id in ids:
        member.drafts.delete(draft_id)
    assert queue.wait_for("drafts", op="remove")["draft_id"] == ids[0]
    assert not {d.id for d in member.drafts.list()} & set(ids)


def test_drafts_refused(member: chatops.Client, sandbox: Sandbox) -> None:
    private = sandbox.store.scalar(
        "SELECT s.id FROM streams s WHERE s.invite_only = 1 AND s.id NOT IN "
        "(SELECT stream_id FROM subscriptions WHERE user_id = ?)",
        [sandbox.accounts["member"].user_id],
    )
    general = stream_id(sandbox, "general")
    with unchanged(sandbox.store):
        with api_error("BAD_REQUEST", msg="Must specify exactly 1 channel ID for channel messages"):
            member.drafts.create(
                [{"type": "stream", "to": [general, general], "topic": "t", "content": "c"}]
            )
        with api_error("BAD_REQUEST", msg="Invalid channel ID"):
            member.drafts.create(
                [{"type": "stream", "to": [private], "topic": "t", "content": "c"}]
            )
        with api_error("BAD_REQUEST", msg="Invalid user ID 999999"):
            member.drafts.create([{"type": "private", "to": [999999], "topic": "", "content": "c"}])
        with api_error("BAD_REQUEST", msg="Timestamp must not be negative."):
            member.drafts.create(
                [{"type": "", "to": [], "topic": "", "content": "c", "timestamp": -1}]
            )
        with api_error("BAD_REQUEST", 404, msg="Draft does not exist"):
            member.drafts.delete(999999)


def test_drafts_refused_when_synchronization_is_off(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    member.users.update_settings(enable_drafts_synchronization=False)
    try:
        with (
            unchanged(sandbox.store),
            api_error("BAD_REQUEST", msg="User has disabled synchronizing drafts."),
        ):
            member.drafts.create([{"type": "", "to": [], "topic": "", "content": "c"}])
    finally:
        member.users.update_settings(enable_drafts_synchronization=True)


def test_someone_elses_draft_does_not_exist(
    member: chatops.Client, admin: chatops.Client, sandbox: Sandbox
) -> None:
    [draft_id] = admin.drafts.create([{"type": "", "to": [], "topic": "", "content": "mine"}])
    try:
        with unchanged(sandbox.store), api_error("BAD_REQUEST", 404):
            member.drafts.edit(draft_id, {"type": "", "to": [], "topic": "", "content": "x"})
    finally:
        admin.drafts.delete(draft_id)


# -- muted users -----------------------------------------------------------------------------------
def test_mute_and_unmute(member: chatops.Client, sandbox: Sandbox, queue: Queue) -> None:
    guest_id = sandbox.accounts["guest"].user_id
    member.users.mute(guest_id)
    try:
        event = queue.wait_for("muted_users")
        assert [m["id"] for m in event["muted_users"]] == [guest_id]
        state = member.server.register(fetch_event_types=["muted_users"])
        assert [m["id"] for m in state["muted_users"]] == [guest_id]
        with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="User already muted"):
            member.users.mute(guest_id)
    finally:
        member.users.unmute(guest_id)
    assert queue.wait_for("muted_users", muted_users=[])["muted_users"] == []
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="User is not muted"):
        member.users.unmute(guest_id)


def test_mute_refused(member: chatops.Client, sandbox: Sandbox) -> None:
    me = sandbox.accounts["member"].user_id
    bot = sandbox.accounts["bot"].user_id
    with unchanged(sandbox.store):
        with api_error("BAD_REQUEST", msg="Cannot mute self"):
            member.users.mute(me)
        with api_error("BAD_REQUEST", msg="No such user"):
            member.users.mute(999999)
        with api_error("BAD_REQUEST", msg="No such user"):
            member.users.mute(bot)
        with api_error("BAD_REQUEST", msg="Cannot unmute self"):
            member.users.unmute(me)


def test_own_name_change(member: chatops.Client, sandbox: Sandbox, queue: Queue) -> None:
    old = member.users.me().full_name
    member.users.update_settings(full_name="  Mei M. Member ")
    try:
        assert member.users.me().full_name == "Mei M. Member"
        event = queue.wait_for("realm_user", op="update")
        assert event["person"] == {
            "user_id": sandbox.accounts["member"].user_id,
            "full_name": "Mei M. Member",
        }
    finally:
        member.users.update_settings(full_name=old)


def test_own_name_change_refused(member: chatops.Client, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Name too short!"):
        member.users.update_settings(full_name="   ", enable_sounds=False)
    # the real server's check_full_name: printable, none of * ` \\ > " @, no trailing |<id>
    for bad in ("Guest\x1b[2K\x1b[1A", "tab\there", 'Say "hi"', "a@b", "x*y", "Sam|12"):
        message = "Invalid format!" if bad.endswith("|12") else "Invalid characters in name!"
        with unchanged(sandbox.store), api_error("BAD_REQUEST", msg=message):
            member.users.update_settings(full_name=bad)
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Name too long!"):
        member.users.update_settings(full_name="n" * 101)
    with realm_settings(sandbox.store, name_changes_disabled=True):
        with (
            unchanged(sandbox.store),
            api_error("BAD_REQUEST", msg="Name changes are disabled in this organization."),
        ):
            member.users.update_settings(full_name="Someone Else")
