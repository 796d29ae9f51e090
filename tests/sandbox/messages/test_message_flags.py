"""Personal message flags: ``POST /messages/flags``, ``/messages/flags/narrow``,
``/mark_stream_as_read`` and ``/mark_topic_as_read`` with their ``update_message_flags`` events.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import assert_error, post, raw, stream_id


@pytest.fixture
def queue(sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(
        sandbox,
        "member",
        event_types=["update_message_flags"],
        client_capabilities={"empty_topic_name": True},
    )
    yield q
    q.close()


def ok(result: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    status, body = result
    assert status == 200, body
    assert body["result"] == "success", body
    return body


def flags_of(sandbox: Sandbox, account: str, message_id: int) -> list[str]:
    body = ok(
        raw(
            sandbox,
            account,
            "GET",
            "/messages",
            anchor=message_id,
            num_before=0,
            num_after=0,
            narrow="[]",
        )
    )
    [message] = body["messages"]
    return list(message["flags"])


def set_flags(sandbox: Sandbox, account: str, ids: list[int], op: str, flag: str) -> Any:
    return raw(
        sandbox, account, "POST", "/messages/flags", messages=json.dumps(ids), op=op, flag=flag
    )


def unsubscribed_public_channel(sandbox: Sandbox, account: str) -> str:
    """A public channel ``account`` is not subscribed to (its messages are history to them)."""
    uid = sandbox.accounts[account].user_id
    name = sandbox.store.scalar(
        "SELECT name FROM streams s WHERE invite_only = 0 AND is_archived = 0 AND NOT EXISTS "
        "(SELECT 1 FROM subscriptions x WHERE x.stream_id = s.id AND x.user_id = ? AND x.active = 1) "
        "ORDER BY id LIMIT 1",
        [uid],
    )
    assert name is not None
    return str(name)


# -- by message ids ---------------------------------------------------------------------------------
def test_star_and_unstar_with_their_events(sandbox: Sandbox, queue: Queue) -> None:
    mid = post(sandbox, "admin", "general", "flags star", "star me")
    body = ok(set_flags(sandbox, "member", [mid], "add", "starred"))
    assert body["messages"] == [mid]
    assert "ignored_because_not_subscribed_channels" not in body
    assert "starred" in flags_of(sandbox, "member", mid)
    event = queue.wait_for("update_message_flags", flag="starred", op="add")
    assert event["operation"] == "add" and event["messages"] == [mid] and event["all"] is False
    assert "message_details" not in event

    ok(set_flags(sandbox, "member", [mid], "remove", "starred"))
    assert "starred" not in flags_of(sandbox, "member", mid)
    removed = queue.wait_for("update_message_flags", flag="starred", op="remove")
    assert removed["messages"] == [mid] and "message_details" not in removed


def test_collapsed_is_a_flag_the_user_may_change(sandbox: Sandbox) -> None:
    mid = post(sandbox, "admin", "general", "flags collapse", "long message")
    ok(set_flags(sandbox, "member", [mid], "add", "collapsed"))
    assert "collapsed" in flags_of(sandbox, "member", mid)
    ok(set_flags(sandbox, "member", [mid], "remove", "collapsed"))
    assert "collapsed" not in flags_of(sandbox, "member", mid)


def test_marking_unread_sends_the_message_details(sandbox: Sandbox, queue: Queue) -> None:
    mid = post(sandbox, "admin", "general", "flags unread", "read me twice")
    ok(set_flags(sandbox, "member", [mid], "add", "read"))
    assert "read" in flags_of(sandbox, "member", mid)
    body = ok(set_flags(sandbox, "member", [mid], "remove", "read"))
    assert body["ignored_because_not_subscribed_channels"] == []
    assert "read" not in flags_of(sandbox, "member", mid)
    event = queue.wait_for("update_message_flags", flag="read", op="remove")
    assert event["messages"] == [mid]
    assert event["message_details"] == {
        str(mid): {
            "type": "stream",
            "stream_id": stream_id(sandbox, "general"),
            "topic": "flags unread",
            "unmuted_stream_msg": True,
        }
    }


def test_direct_message_details_name_the_other_people(sandbox: Sandbox, queue: Queue) -> None:
    admin = sandbox.accounts["admin"].user_id
    member = sandbox.accounts["member"].user_id
    sent = ok(
        raw(
            sandbox,
            "admin",
            "POST",
            "/messages",
            type="direct",
            to=json.dumps([member]),
            content="hello",
        )
    )
    mid = sent["id"]
    ok(set_flags(sandbox, "member", [mid], "add", "read"))
    ok(set_flags(sandbox, "member", [mid], "remove", "read"))
    event = queue.wait_for("update_message_flags", flag="read", op="remove")
    assert event["message_details"] == {str(mid): {"type": "private", "user_ids": [admin]}}


@pytest.mark.parametrize(
    "flag",
    [
        "mentioned",
        "stream_wildcard_mentioned",
        "topic_wildcard_mentioned",
        "group_mentioned",
        "has_alert_word",
        "historical",
        "force_expand",
        "force_collapse",
    ],
)
def test_flags_the_server_keeps_are_refused(sandbox: Sandbox, flag: str) -> None:
    mid = post(sandbox, "admin", "general", "flags refused", "not yours to change")
    with unchanged(sandbox.store):
        for op in ("add", "remove"):
            body = assert_error(set_flags(sandbox, "member", [mid], op, flag), "BAD_REQUEST")
            assert body["msg"] == f"Flag not editable: '{flag}'"


@pytest.mark.parametrize("flag", ["wildcard_mentioned", "is_private", "bogus", ""])
def test_flags_outside_the_api_are_invalid(sandbox: Sandbox, flag: str) -> None:
    mid = post(sandbox, "admin", "general", "flags invalid", "no such flag")
    with unchanged(sandbox.store):
        body = assert_error(set_flags(sandbox, "member", [mid], "add", flag), "BAD_REQUEST")
        assert body["msg"] == f"Invalid flag: '{flag}'"


def test_an_unknown_operation_is_refused(sandbox: Sandbox) -> None:
    mid = post(sandbox, "admin", "general", "flags op", "toggle?")
    with unchanged(sandbox.store):
        body = assert_error(set_flags(sandbox, "member", [mid], "toggle", "starred"), "BAD_REQUEST")
        assert body["msg"] == "Invalid message flag operation: 'toggle'"


def test_missing_parameters_are_named(sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "POST", "/messages/flags", op="add", flag="read"),
            "REQUEST_VARIABLE_MISSING",
        )
        assert body["var_name"] == "messages"


def test_starring_history_creates_a_historical_row(sandbox: Sandbox) -> None:
    channel = unsubscribed_public_channel(sandbox, "member")
    mid = post(sandbox, "admin", channel, "flags history", "before you came")
    assert flags_of(sandbox, "member", mid) == ["read", "historical"]
    ok(set_flags(sandbox, "member", [mid], "add", "starred"))
    assert flags_of(sandbox, "member", mid) == ["read", "starred", "historical"]


def test_flags_of_messages_the_user_cannot_read_are_refused(sandbox: Sandbox) -> None:
    admin = sandbox.accounts["admin"].user_id
    owner = sandbox.accounts["owner"].user_id
    private = ok(
        raw(
            sandbox,
            "admin",
            "POST",
            "/messages",
            type="direct",
            to=json.dumps([owner]),
            content="secret",
        )
    )["id"]
    mine = post(sandbox, "admin", "general", "flags access", "readable")
    assert admin != owner
    with unchanged(sandbox.store):
        for ids in ([private], [mine, private], [10**9]):
            body = assert_error(set_flags(sandbox, "member", ids, "add", "starred"), "BAD_REQUEST")
            assert body["msg"] == "Invalid message(s)"


def test_adding_read_to_history_changes_nothing(sandbox: Sandbox) -> None:
    """History already reads as read, so there is nothing to change and nothing to check."""
    channel = unsubscribed_public_channel(sandbox, "member")
    mid = post(sandbox, "admin", channel, "flags read history", "old news")
    with unchanged(sandbox.store):
        body = ok(set_flags(sandbox, "member", [mid, 10**9], "add", "read"))
    assert body["messages"] == [mid, 10**9]


def test_marking_unread_skips_channels_the_user_is_not_subscribed_to(sandbox: Sandbox) -> None:
    channel = unsubscribed_public_channel(sandbox, "member")
    there = post(sandbox, "admin", channel, "flags skip", "not subscribed here")
    here = post(sandbox, "admin", "general", "flags skip", "subscribed here")
    ok(set_flags(sandbox, "member", [here], "add", "read"))
    body = ok(set_flags(sandbox, "member", [there, here], "remove", "read"))
    assert body["ignored_because_not_subscribed_channels"] == [stream_id(sandbox, channel)]
    assert "read" in flags_of(sandbox, "member", there)
    assert "read" not in flags_of(sandbox, "member", here)


# -- over a narrow ----------------------------------------------------------------------------------
def narrow_of(topic: str) -> str:
    return json.dumps(
        [{"operator": "channel", "operand": "general"}, {"operator": "topic", "operand": topic}]
    )


def flags_narrow(sandbox: Sandbox, account: str = "member", **params: Any) -> Any:
    body = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    return raw(sandbox, account, "POST", "/messages/flags/narrow", **body)


def test_flags_for_narrow_walks_a_topic_in_ranges(sandbox: Sandbox, queue: Queue) -> None:
    ids = [post(sandbox, "admin", "general", "flags narrow", f"n{i}") for i in range(5)]
    narrow = narrow_of("flags narrow")
    first = ok(
        flags_narrow(
            sandbox,
            anchor="oldest",
            num_before=0,
            num_after=2,
            narrow=narrow,
            op="add",
            flag="read",
        )
    )
    assert {k: first[k] for k in first if k not in ("result", "msg")} == {
        "processed_count": 2,
        "updated_count": 2,
        "first_processed_id": ids[0],
        "last_processed_id": ids[1],
        "found_oldest": True,
        "found_newest": False,
    }
    event = queue.wait_for("update_message_flags", flag="read", op="add")
    assert event["messages"] == ids[:2]
    # exactly the rest: the range reaches the newest message but is not short of num_after
    rest = ok(
        flags_narrow(
            sandbox,
            anchor=str(ids[1]),
            include_anchor=False,
            num_before=0,
            num_after=3,
            narrow=narrow,
            op="add",
            flag="read",
        )
    )
    assert (rest["processed_count"], rest["first_processed_id"], rest["last_processed_id"]) == (
        3,
        ids[2],
        ids[4],
    )
    assert rest["found_newest"] is False and rest["found_oldest"] is False
    done = ok(
        flags_narrow(
            sandbox,
            anchor=str(ids[4]),
            include_anchor=False,
            num_before=0,
            num_after=3,
            narrow=narrow,
            op="add",
            flag="read",
        )
    )
    assert done["processed_count"] == 0 and done["updated_count"] == 0
    assert done["first_processed_id"] is None and done["last_processed_id"] is None
    assert done["found_newest"] is True
    assert all("read" in flags_of(sandbox, "member", m) for m in ids)
    again = ok(
        flags_narrow(
            sandbox,
            anchor="newest",
            num_before=10,
            num_after=0,
            narrow=narrow,
            op="add",
            flag="read",
        )
    )
    assert (again["processed_count"], again["updated_count"]) == (5, 0)
    assert again["found_newest"] is True and again["found_oldest"] is True


def test_flags_for_narrow_marking_unread_lists_skipped_channels(sandbox: Sandbox) -> None:
    ids = [post(sandbox, "admin", "general", "flags narrow unread", f"u{i}") for i in range(2)]
    narrow = narrow_of("flags narrow unread")
    ok(
        flags_narrow(
            sandbox,
            anchor="oldest",
            num_before=0,
            num_after=5,
            narrow=narrow,
            op="add",
            flag="read",
        )
    )
    body = ok(
        flags_narrow(
            sandbox,
            anchor="oldest",
            num_before=0,
            num_after=5,
            narrow=narrow,
            op="remove",
            flag="read",
        )
    )
    assert body["updated_count"] == 2 and body["ignored_because_not_subscribed_channels"] == []
    assert all("read" not in flags_of(sandbox, "member", m) for m in ids)


def test_flags_for_narrow_refusals_change_nothing(sandbox: Sandbox) -> None:
    post(sandbox, "admin", "general", "flags narrow refused", "x")
    narrow = narrow_of("flags narrow refused")
    base = dict(anchor="oldest", num_before=0, num_after=5, narrow=narrow, op="add", flag="read")
    with unchanged(sandbox.store):
        body = assert_error(flags_narrow(sandbox, **{**base, "flag": "mentioned"}), "BAD_REQUEST")
        assert body["msg"] == "Flag not editable: 'mentioned'"
        body = assert_error(flags_narrow(sandbox, **{**base, "op": "flip"}), "BAD_REQUEST")
        assert body["msg"] == "Invalid message flag operation: 'flip'"
        for missing in ("anchor", "num_before", "num_after", "narrow"):
            params = {k: v for k, v in base.items() if k != missing}
            body = assert_error(flags_narrow(sandbox, **params), "REQUEST_VARIABLE_MISSING")
            assert body["var_name"] == missing
        body = assert_error(
            flags_narrow(
                sandbox, **{**base, "anchor": "5", "num_before": 1, "include_anchor": False}
            ),
            "BAD_REQUEST",
        )
        assert body["msg"] == "The anchor can only be excluded at an end of the range"
        body = assert_error(
            flags_narrow(
                sandbox, **{**base, "narrow": json.dumps([{"operator": "nope", "operand": 1}])}
            ),
            "BAD_NARROW",
        )


# -- per channel and topic ----------------------------------------------------------------------------
def test_mark_topic_then_channel_as_read(sandbox: Sandbox, queue: Queue) -> None:
    sid = stream_id(sandbox, "general")
    in_topic = [post(sandbox, "admin", "general", "flags mark topic", f"t{i}") for i in range(2)]
    elsewhere = post(sandbox, "admin", "general", "flags mark other", "other")
    ok(
        raw(
            sandbox,
            "member",
            "POST",
            "/mark_topic_as_read",
            stream_id=sid,
            topic_name="flags mark topic",
        )
    )
    assert all("read" in flags_of(sandbox, "member", m) for m in in_topic)
    assert "read" not in flags_of(sandbox, "member", elsewhere)
    event = queue.wait_for("update_message_flags", flag="read", op="add")
    assert event["messages"] == in_topic and event["all"] is False

    ok(raw(sandbox, "member", "POST", "/mark_stream_as_read", stream_id=sid))
    assert "read" in flags_of(sandbox, "member", elsewhere)
    unread = sandbox.store.scalar(
        "SELECT count(*) FROM message_flags f JOIN messages m ON m.id = f.message_id "
        "WHERE f.user_id = ? AND m.stream_id = ? AND (f.flags & 1) = 0",
        [sandbox.accounts["member"].user_id, sid],
    )
    assert unread == 0


def test_mark_as_read_refusals_change_nothing(sandbox: Sandbox) -> None:
    sid = stream_id(sandbox, "general")
    post(sandbox, "admin", "general", "flags mark refused", "unread")
    with unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "POST", "/mark_stream_as_read", stream_id=10**6), "BAD_REQUEST"
        )
        assert body["msg"] == "Invalid channel ID"
        body = assert_error(
            raw(
                sandbox,
                "member",
                "POST",
                "/mark_topic_as_read",
                stream_id=sid,
                topic_name="no topic like this",
            ),
            "BAD_REQUEST",
        )
        assert body["msg"] == "No such topic 'no topic like this'"
        body = assert_error(
            raw(sandbox, "member", "POST", "/mark_topic_as_read", stream_id=sid),
            "REQUEST_VARIABLE_MISSING",
        )
        assert body["var_name"] == "topic_name"


def test_older_feature_levels(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Before 155 there is no flags-for-narrow endpoint; before 355 no skipped-channel list."""
    with Sandbox.start(tmp_path_factory.mktemp("fl154"), feature_level=154) as old:
        mid = post(old, "admin", "general", "old flags", "x")
        ok(set_flags(old, "member", [mid], "add", "read"))
        body = ok(set_flags(old, "member", [mid], "remove", "read"))
        assert "ignored_because_not_subscribed_channels" not in body
        with unchanged(old.store):
            assert_error(
                flags_narrow(
                    old,
                    anchor="oldest",
                    num_before=0,
                    num_after=1,
                    narrow="[]",
                    op="add",
                    flag="read",
                ),
                "BAD_REQUEST",
                status=404,
            )


def test_mark_all_as_read_announces_all(sandbox: Sandbox, queue: Queue) -> None:
    post(sandbox, "admin", "general", "flags all", "unread until now")
    ok(raw(sandbox, "member", "POST", "/mark_all_as_read"))
    event = queue.wait_for("update_message_flags", flag="read", op="add", all=True)
    assert event["messages"] == [] and event["operation"] == "add"


def test_an_edit_that_adds_or_removes_a_mention_changes_the_flag(sandbox: Sandbox) -> None:
    name = sandbox.store.scalar(
        "SELECT full_name FROM users WHERE id = ?", [sandbox.accounts["member"].user_id]
    )
    mid = post(sandbox, "admin", "general", "flags edit mention", "nobody named yet")
    assert "mentioned" not in flags_of(sandbox, "member", mid)
    ok(raw(sandbox, "admin", "PATCH", f"/messages/{mid}", content=f"now @**{name}**"))
    assert "mentioned" in flags_of(sandbox, "member", mid)
    ok(raw(sandbox, "admin", "PATCH", f"/messages/{mid}", content="nobody again"))
    assert "mentioned" not in flags_of(sandbox, "member", mid)
