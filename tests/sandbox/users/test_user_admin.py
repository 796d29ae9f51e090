"""The user life cycle and organization settings over HTTP: create, deactivate, reactivate, roles, bots."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import realm as realm_mod
from tests.conftest import group_id, unchanged
from tests.sandbox.helpers import api_error, raw

Make = Callable[..., chatops.Client]


@pytest.fixture
def owner(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("owner", fresh_sandbox)


@pytest.fixture
def admin(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture
def member(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("member", fresh_sandbox)


def test_user_life_cycle(
    fresh_sandbox: Sandbox, admin: chatops.Client, member: chatops.Client
) -> None:
    sb = fresh_sandbox
    uid = admin.users.create(email="temp@demo.chatops.test", password="pw-123456", full_name="Temp")
    assert admin.users.get(uid).role == 400
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        admin.users.create(email="temp@demo.chatops.test", password="x", full_name="Again")
    with unchanged(sb.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        member.users.create(email="m@demo.chatops.test", password="x", full_name="M")

    admin.users.update(uid, role=300, full_name="Temp Mod")
    user = admin.users.get(uid)
    assert (user.role, user.full_name) == (300, "Temp Mod")
    with unchanged(sb.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        admin.users.update(uid, role=100)  # only owners make owners
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        admin.users.update(uid, role=250)

    admin.users.deactivate(uid)
    assert not admin.users.get(uid).is_active
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        admin.users.deactivate(uid)
    admin.users.reactivate(uid)
    assert admin.users.get(uid).is_active
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        admin.users.reactivate(uid)
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="No such user"):
        admin.users.deactivate(99999)


#: the real ``deactivate_user_backend``'s refusal: a plain ``JsonableError``, no extra field
ONLY_OWNER = {
    "result": "error",
    "msg": "Cannot deactivate the only organization owner",
    "code": "BAD_REQUEST",
}


def test_last_owner_is_protected(fresh_sandbox: Sandbox, owner: chatops.Client) -> None:
    sb = fresh_sandbox
    owner_id = sb.accounts["owner"].user_id
    with unchanged(sb.store):
        assert raw(sb, "owner", "DELETE", f"/users/{owner_id}") == (400, ONLY_OWNER)
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.users.deactivate(owner_id)
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.users.update(owner_id, role=200)


def test_the_only_user_left_is_refused_as_the_only_owner(
    fresh_sandbox: Sandbox, owner: chatops.Client
) -> None:
    """``DELETE /users/{id}`` has no only-user refusal of its own (``DELETE /users/me`` has):
    the owner left alone in the organization gets the only-owner answer, unchanged."""
    sb = fresh_sandbox
    owner_id = sb.accounts["owner"].user_id
    # test set-up: everyone else, bots included, has left (and comes back for the next tests)
    others = [
        int(r["id"])
        for r in sb.store.query(
            "SELECT id FROM users WHERE is_active = 1 AND id != ? AND is_system_bot = 0",
            [owner_id],
        )
    ]
    sb.store.executemany("UPDATE users SET is_active = 0 WHERE id = ?", [(i,) for i in others])
    try:
        with unchanged(sb.store):
            assert raw(sb, "owner", "DELETE", f"/users/{owner_id}") == (400, ONLY_OWNER)
    finally:
        sb.store.executemany("UPDATE users SET is_active = 1 WHERE id = ?", [(i,) for i in others])


def test_bots(fresh_sandbox: Sandbox, member: chatops.Client, admin: chatops.Client) -> None:
    sb = fresh_sandbox
    bot = member.bots.create(full_name="Standup Bot", short_name="standup")
    assert "api_key" not in repr(bot) and bot.api_key not in repr(bot)
    assert bot.email == "standup-bot@demo.chatops.test"
    record = admin.users.get(bot.user_id)
    assert record.is_bot and record.bot_owner_id == sb.accounts["member"].user_id
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        member.bots.create(full_name="Standup Bot", short_name="standup")
    with chatops.Client(sb.site, bot.email, bot.api_key) as as_bot:
        assert as_bot.users.me().user_id == bot.user_id
    # deactivating the owner deactivates their bots
    admin.users.deactivate(sb.accounts["member"].user_id)
    assert not admin.users.get(bot.user_id).is_active
    admin.users.reactivate(sb.accounts["member"].user_id)


def test_realm_settings(
    fresh_sandbox: Sandbox, owner: chatops.Client, member: chatops.Client
) -> None:
    sb = fresh_sandbox
    owner.realm.update(
        allow_message_editing=False,
        move_messages_within_stream_limit_seconds=3600,
        message_content_edit_limit_seconds="unlimited",
    )
    settings = realm_mod.settings(sb.store)
    assert settings["allow_message_editing"] is False
    assert settings["move_messages_within_stream_limit_seconds"] == 3600
    assert settings["message_content_edit_limit_seconds"] is None
    mods = group_id(sb.store, "role:moderators")
    owner.realm.update(can_move_messages_between_topics_group=mods)
    assert realm_mod.settings(sb.store)["can_move_messages_between_topics_group"] == mods
    with unchanged(sb.store), api_error("EXPECTATION_MISMATCH"):
        owner.realm.update(
            can_move_messages_between_topics_group=(group_id(sb.store, "role:members"), 99)
        )
    with (
        unchanged(sb.store),
        api_error("SYSTEM_GROUP_REQUIRED", setting_name="create_multiuse_invite_group"),
    ):
        owner.realm.update(
            create_multiuse_invite_group=group_id(sb.store, "leads"),
        )
    with unchanged(sb.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        member.realm.update(allow_message_editing=True)
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.realm.update(move_messages_within_stream_limit_seconds=-5)
    owner.realm.update(allow_message_editing=True)
