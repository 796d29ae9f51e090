"""Channel rules of spec 4.2, 4.4, 4.6 and section 9 (an older server: 208, 219, 361, 362)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import user_topics as user_topics_mod
from tests.conftest import age_messages, unchanged
from tests.sandbox.helpers import assert_error, post, raw, stream_id


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


# -- is_recently_active: the channel's newest message is less than a week old ---------------
def test_recently_active_follows_the_newest_message(
    admin: chatops.Client, sandbox: Sandbox
) -> None:
    name = "activity check"
    admin.channels.subscribe([name])
    sid = stream_id(sandbox, name)

    def active() -> bool:
        return {c.stream_id: c.is_recently_active for c in admin.channels.list()}[sid]

    assert active() is False  # no message at all
    old = admin.messages.send_to_channel(name, "t", "old").id
    age_messages(sandbox.store, [old], 8 * 86400)
    assert active() is False
    new = admin.messages.send_to_channel(name, "t", "new").id
    assert active() is True
    age_messages(sandbox.store, [new], 6 * 86400)
    assert active() is True
    age_messages(sandbox.store, [new], 2 * 86400)  # now eight days old
    assert active() is False
