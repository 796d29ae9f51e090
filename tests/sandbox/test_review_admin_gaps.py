"""Review: rules of spec 4.2, 4.3, 4.4, 4.6, 4.11 and section 9 that had no failing test yet."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import user_topics as user_topics_mod
from tests.conftest import unchanged

from .helpers import assert_error, post, raw, stream_id

LATER = 3600


# -- 4.6: description bounded by max_channel_folder_description_length ------------------------
def test_folder_description_limit(admin: chatops.Client, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        assert_error(
            raw(
                sandbox,
                "admin",
                "POST",
                "/channel_folders/create",
                name="too long description",
                description="d" * 1025,
            ),
            "BAD_REQUEST",
        )
    with pytest.raises(chatops.LimitError):
        admin.channels.create_folder("too long description", description="d" * 1025)
    fid = admin.channels.create_folder("long description", description="d" * 1024)
    assert isinstance(fid, int)


# -- 4.3: content and topic limits, topic ignored for direct, legacy `private` ------------------
def _scheduled(member: chatops.Client, sandbox: Sandbox) -> int:
    return member.scheduled_messages.create(
        "channel",
        stream_id(sandbox, "general"),
        "scheduled text",
        topic="review plan",
        scheduled_delivery_timestamp=int(time.time()) + LATER,
    )


def _record(client: chatops.Client, sid: int) -> chatops.ScheduledMessage:
    return {s.scheduled_message_id: s for s in client.scheduled_messages.list()}[sid]


def test_scheduled_edit_limits(member: chatops.Client, sandbox: Sandbox) -> None:
    sid = _scheduled(member, sandbox)
    path = f"/scheduled_messages/{sid}"
    with unchanged(sandbox.store):
        assert_error(raw(sandbox, "member", "PATCH", path, content="x" * 10001), "BAD_REQUEST")
        assert_error(raw(sandbox, "member", "PATCH", path, topic="t" * 61), "BAD_REQUEST")
    with pytest.raises(chatops.LimitError):
        member.scheduled_messages.update(sid, content="x" * 10001)
    member.scheduled_messages.update(sid, content="x" * 10000, topic="t" * 60)
    record = _record(member, sid)
    assert (len(record.content), record.topic) == (10000, "t" * 60)


def test_scheduled_edit_topic_ignored_for_direct_and_private_is_direct(
    member: chatops.Client, sandbox: Sandbox
) -> None:
    admin_id = sandbox.accounts["admin"].user_id
    dm = member.scheduled_messages.create(
        "direct", [admin_id], "dm later", scheduled_delivery_timestamp=int(time.time()) + LATER
    )
    member.scheduled_messages.update(dm, topic="ignored for direct")
    assert not _record(member, dm).topic
    sid = _scheduled(member, sandbox)
    status, body = raw(
        sandbox,
        "member",
        "PATCH",
        f"/scheduled_messages/{sid}",
        type="private",
        to=json.dumps([admin_id]),
    )
    assert (status, body["result"]) == (200, "success"), body
    record = _record(member, sid)
    assert (record.type, record.to) == ("private", [admin_id])


# -- 4.4 with convention 5: the empty-topic display name names the empty topic ---------------
def test_user_topic_display_name_is_the_empty_topic(sandbox: Sandbox) -> None:
    general = stream_id(sandbox, "general")
    uid = sandbox.accounts["moderator"].user_id
    status, body = raw(
        sandbox,
        "moderator",
        "POST",
        "/user_topics",
        stream_id=general,
        topic="general chat",
        visibility_policy=1,
    )
    assert (status, body) == (200, {"result": "success", "msg": ""})
    assert user_topics_mod.policy_of(sandbox.store, uid, general, "") == 1
    raw(
        sandbox,
        "moderator",
        "POST",
        "/user_topics",
        stream_id=general,
        topic="",
        visibility_policy=0,
    )
    assert user_topics_mod.policy_of(sandbox.store, uid, general, "") == 0


# -- 4.2: announce defaults to false ---------------------------------------------------------
def test_no_announcement_by_default(admin: chatops.Client, sandbox: Sandbox) -> None:
    last = sandbox.store.scalar("SELECT max(id) FROM messages")
    admin.channels.subscribe(["quietly-created"])
    assert sandbox.store.scalar("SELECT max(id) FROM messages") == last


# -- section 9: behaviour of an older server -----------------------------------------------------
@pytest.fixture(scope="module")
def old_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A server at feature level 207: before 208, 219, 361 and 362."""
    with Sandbox.start(
        tmp_path_factory.mktemp("old207"), size="small", seed=13, feature_level=207
    ) as sb:
        yield sb


def test_bad_principal_is_403_before_208(old_sandbox: Sandbox) -> None:
    sb = old_sandbox
    with unchanged(sb.store):
        assert_error(
            raw(
                sb,
                "admin",
                "POST",
                "/users/me/subscriptions",
                subscriptions=json.dumps([{"name": "general"}]),
                principals=json.dumps([999999]),
            ),
            "UNAUTHORIZED_PRINCIPAL",
            403,
        )


def test_followed_policy_needs_219(old_sandbox: Sandbox) -> None:
    sb = old_sandbox
    general = stream_id(sb, "general")
    with unchanged(sb.store):
        assert_error(
            raw(
                sb,
                "member",
                "POST",
                "/user_topics",
                stream_id=general,
                topic="old",
                visibility_policy=3,
            ),
            "BAD_REQUEST",
        )
    status, body = raw(
        sb, "member", "POST", "/user_topics", stream_id=general, topic="old", visibility_policy=1
    )
    assert status == 200, body


def test_edit_typing_path_missing_before_361(old_sandbox: Sandbox) -> None:
    sb = old_sandbox
    mid = post(sb, "member", "general", "old typing", "to edit")
    status, _ = raw(sb, "member", "POST", f"/messages/{mid}/typing", op="start")
    assert status == 404


def test_archived_channel_subscriptions_refused_before_362(old_sandbox: Sandbox) -> None:
    sb = old_sandbox
    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin:
        admin.channels.subscribe(["old-archive"])
        admin.channels.archive(stream_id(sb, "old-archive"))
        with unchanged(sb.store), pytest.raises(chatops.ApiError) as info:
            admin.channels.unsubscribe(["old-archive"])
        assert info.value.code == "BAD_REQUEST"
        with unchanged(sb.store), pytest.raises(chatops.ApiError):
            admin.channels.subscribe(["old-archive"], principals=[sb.accounts["member"].user_id])


# -- 4.12: a blank fragment is refused even with a name ------------------------------------------
def test_blank_fragment_with_a_name_is_refused(sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        for blank in ("", "   "):
            assert_error(
                raw(
                    sandbox,
                    "member",
                    "POST",
                    "/navigation_views",
                    fragment=blank,
                    is_pinned="true",
                    name="Blank view",
                ),
                "BAD_REQUEST",
            )
