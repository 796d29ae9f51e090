"""Spec 4.2: subscribing, creating channels with initial settings, group-setting values; companions."""

from __future__ import annotations

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import group_id, realm_settings, unchanged
from tests.sandbox.helpers import api_error, assert_error, raw, stream_id


def _channel(sandbox: Sandbox, name: str) -> dict[str, object]:
    row = sandbox.store.one("SELECT * FROM streams WHERE name = ?", [name])
    assert row is not None
    return row


def test_subscribe_creates_channel_with_initial_settings(
    owner: chatops.Client, sandbox: Sandbox
) -> None:
    leads = group_id(sandbox.store, "leads")
    result = owner.channels.subscribe(
        [{"name": "  init-settings ", "description": "line one\nline two"}],
        invite_only=True,
        history_public_to_subscribers=False,
        message_retention_days=30,
        topics_policy="disable_empty_topic",
        group_settings={
            "can_add_subscribers_group": leads,
            "can_remove_subscribers_group": {"direct_members": [], "direct_subgroups": [leads]},
        },
    )
    owner_id = sandbox.accounts["owner"].user_id
    assert result.subscribed == {str(owner_id): ["init-settings"]}
    assert result.already_subscribed == {}
    channel = owner.channels.get(owner.channels.get_id("init-settings"))
    assert channel.description == "line one line two"
    assert channel.invite_only and not channel.history_public_to_subscribers
    assert channel.message_retention_days == 30
    assert channel.topics_policy == "disable_empty_topic"
    assert channel.can_add_subscribers_group == leads
    # an anonymous group with only one subgroup is normalised to that group
    assert channel.can_remove_subscribers_group == leads
    assert channel.can_administer_channel_group == chatops.AnonymousGroup(
        direct_members=[owner_id], direct_subgroups=[]
    )
    assert channel.creator_id == owner_id


def test_retention_keywords(owner: chatops.Client, sandbox: Sandbox) -> None:
    owner.channels.subscribe(["ret-default"], message_retention_days="realm_default")
    owner.channels.subscribe(["ret-unlimited"], message_retention_days="unlimited")
    assert _channel(sandbox, "ret-default")["message_retention_days"] is None
    assert _channel(sandbox, "ret-unlimited")["message_retention_days"] == -1
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        owner.channels.subscribe(["ret-bad"], message_retention_days=0)


def test_retention_needs_an_owner(admin: chatops.Client, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        admin.channels.subscribe(["ret-admin"], message_retention_days=5)


def test_settings_apply_only_to_created_channels(admin: chatops.Client, sandbox: Sandbox) -> None:
    before = _channel(sandbox, "general")
    admin.channels.subscribe(["general"], invite_only=True, topics_policy="empty_topic_only")
    after = _channel(sandbox, "general")
    assert (after["invite_only"], after["topics_policy"]) == (
        before["invite_only"],
        before["topics_policy"],
    )


def test_empty_topic_only_on_creation(admin: chatops.Client, sandbox: Sandbox) -> None:
    admin.channels.subscribe(["only-general-chat"], topics_policy="empty_topic_only")
    assert _channel(sandbox, "only-general-chat")["topics_policy"] == "empty_topic_only"


def test_empty_topic_only_needs_all_messages_in_empty_topic(
    admin: chatops.Client, sandbox: Sandbox
) -> None:
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.channels.update(stream_id(sandbox, "general"), topics_policy="empty_topic_only")


def test_is_default_stream(admin: chatops.Client, member: chatops.Client, sandbox: Sandbox) -> None:
    admin.channels.subscribe(["default-new"], is_default_stream=True)
    assert _channel(sandbox, "default-new")["is_default"] == 1
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.channels.subscribe(["default-private"], is_default_stream=True, invite_only=True)
    with unchanged(sandbox.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        member.channels.subscribe(["default-by-member"], is_default_stream=True)


def test_web_public_three_conditions(owner: chatops.Client, sandbox: Sandbox) -> None:
    store = sandbox.store
    with unchanged(store), api_error("BAD_REQUEST"):
        owner.channels.subscribe(["web-off"], is_web_public=True)
    nobody = group_id(store, "role:nobody")
    with realm_settings(
        store, enable_spectator_access=True, can_create_web_public_channel_group=nobody
    ):
        with unchanged(store), api_error("BAD_REQUEST"):
            owner.channels.subscribe(["web-nobody"], is_web_public=True)
    with realm_settings(store, enable_spectator_access=True):
        owner.channels.subscribe(["web-on"], is_web_public=True)
    channel = _channel(sandbox, "web-on")
    assert channel["is_web_public"] == 1 and channel["invite_only"] == 0


def test_create_permission(member: chatops.Client, sandbox: Sandbox) -> None:
    store = sandbox.store
    admins = group_id(store, "role:administrators")
    with realm_settings(store, can_create_public_channel_group=admins):
        with unchanged(store), api_error("BAD_REQUEST"):
            member.channels.subscribe(["member-public"])
    with realm_settings(store, can_create_private_channel_group=admins):
        with unchanged(store), api_error("BAD_REQUEST"):
            member.channels.subscribe(["member-private"], invite_only=True)


def test_principals_ids_and_emails(admin: chatops.Client, sandbox: Sandbox) -> None:
    member = sandbox.accounts["member"]
    moderator = sandbox.accounts["moderator"]
    result = admin.channels.subscribe(
        ["principals-mix"],
        principals=[member.user_id, moderator.email],  # type: ignore[list-item]
    )
    assert set(result.subscribed) == {str(member.user_id), str(moderator.user_id)}
    assert str(sandbox.accounts["admin"].user_id) not in result.subscribed


@pytest.mark.parametrize("principal", [999999, "ghost@demo.chatops.test"])
def test_nonexistent_principal_is_bad_request(
    admin: chatops.Client, sandbox: Sandbox, principal: int | str
) -> None:
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 400):
        admin.channels.subscribe(["nobody-here"], principals=[principal])  # type: ignore[list-item]


def test_deactivated_principal_is_bad_request(admin: chatops.Client, sandbox: Sandbox) -> None:
    gone = sandbox.store.scalar("SELECT id FROM users WHERE is_active = 0 LIMIT 1")
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 400):
        admin.channels.subscribe(["deactivated-here"], principals=[int(gone)])


def test_authorization_errors_fatal(
    admin: chatops.Client, member: chatops.Client, sandbox: Sandbox
) -> None:
    admin.channels.subscribe(["secret-club"], invite_only=True)
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.channels.subscribe(["secret-club", "open-club"])
    result = member.channels.subscribe(
        ["secret-club", "open-club"], authorization_errors_fatal=False
    )
    assert result.unauthorized == ["secret-club"]
    assert result.subscribed == {str(sandbox.accounts["member"].user_id): ["open-club"]}


def test_subscribe_group_lets_members_join_private(
    admin: chatops.Client, member: chatops.Client, sandbox: Sandbox
) -> None:
    members = group_id(sandbox.store, "role:members")
    admin.channels.subscribe(
        ["joinable-private"], invite_only=True, group_settings={"can_subscribe_group": members}
    )
    result = member.channels.subscribe(["joinable-private"])
    assert result.subscribed == {str(sandbox.accounts["member"].user_id): ["joinable-private"]}


def test_adding_others_needs_permission(
    admin: chatops.Client, member: chatops.Client, sandbox: Sandbox
) -> None:
    store = sandbox.store
    admin.channels.subscribe(["add-others"])
    moderator = sandbox.accounts["moderator"].user_id
    admins = group_id(store, "role:administrators")
    with realm_settings(store, can_add_subscribers_group=admins):
        with unchanged(store), api_error("BAD_REQUEST"):
            member.channels.subscribe(["add-others"], principals=[moderator])
    # the channel's own add-subscribers group grants it
    channel = stream_id(sandbox, "add-others")
    admin.channels.update(
        channel, group_settings={"can_add_subscribers_group": group_id(store, "role:members")}
    )
    with realm_settings(store, can_add_subscribers_group=admins):
        member.channels.subscribe(["add-others"], principals=[moderator])
    assert moderator in admin.channels.members(channel)


def test_announce_posts_a_notification_bot_message(admin: chatops.Client, sandbox: Sandbox) -> None:
    admin.channels.subscribe(["announced-channel"], announce=True)
    row = sandbox.store.one(
        "SELECT m.content, u.is_system_bot FROM messages m JOIN users u ON u.id = m.sender_id "
        "ORDER BY m.id DESC LIMIT 1"
    )
    assert row is not None and row["is_system_bot"] == 1
    assert "#**announced-channel**" in row["content"]


def test_archived_channel_subscriptions(admin: chatops.Client, sandbox: Sandbox) -> None:
    admin.channels.subscribe(["to-archive"])
    channel = stream_id(sandbox, "to-archive")
    admin.channels.archive(channel)
    assert _channel(sandbox, "to-archive")["is_archived"] == 1
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.channels.archive(channel)
    # subscriptions in archived channels can be modified from feature level 362
    result = admin.channels.unsubscribe(["to-archive"])
    assert result.removed == ["to-archive"]
    admin.channels.unarchive(channel)
    assert _channel(sandbox, "to-archive")["is_archived"] == 0


def test_name_and_description_limits(admin: chatops.Client, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        assert_error(
            raw(
                sandbox,
                "admin",
                "POST",
                "/users/me/subscriptions",
                subscriptions='[{"name": "' + "x" * 61 + '"}]',
            ),
            "BAD_REQUEST",
        )
        assert_error(
            raw(
                sandbox,
                "admin",
                "POST",
                "/users/me/subscriptions",
                subscriptions='[{"name": "  "}]',
            ),
            "BAD_REQUEST",
        )
        assert_error(
            raw(
                sandbox,
                "admin",
                "POST",
                "/users/me/subscriptions",
                subscriptions='[{"name": "long-desc", "description": "' + "d" * 1025 + '"}]',
            ),
            "BAD_REQUEST",
        )
    with pytest.raises(chatops.LimitError):
        admin.channels.subscribe(["y" * 61])


# -- group-setting values (spec 2) ----------------------------------------------------------------
def test_group_setting_rules(admin: chatops.Client, sandbox: Sandbox) -> None:
    store = sandbox.store
    everyone = group_id(store, "role:everyone")
    internet = group_id(store, "role:internet")
    with unchanged(store), api_error("BAD_REQUEST"):
        admin.channels.subscribe(["gs-bad"], group_settings={"can_add_subscribers_group": 99999})
    with unchanged(store), api_error("BAD_REQUEST"):
        admin.channels.subscribe(
            ["gs-internet"], group_settings={"can_send_message_group": internet}
        )
    with unchanged(store), api_error("BAD_REQUEST"):
        admin.channels.subscribe(
            ["gs-everyone"], group_settings={"can_add_subscribers_group": everyone}
        )
    with unchanged(store), api_error("BAD_REQUEST"):
        admin.channels.subscribe(
            ["gs-user"],
            group_settings={
                "can_add_subscribers_group": {"direct_members": [999999], "direct_subgroups": []}
            },
        )
    admin.channels.subscribe(
        ["gs-empty"],
        group_settings={
            "can_add_subscribers_group": {"direct_members": [], "direct_subgroups": []}
        },
    )
    assert admin.channels.get(stream_id(sandbox, "gs-empty")).can_add_subscribers_group == (
        group_id(store, "role:nobody")
    )


def test_group_setting_old_value_check(admin: chatops.Client, sandbox: Sandbox) -> None:
    store = sandbox.store
    admin.channels.subscribe(["gs-old"])
    channel = stream_id(sandbox, "gs-old")
    leads, members = group_id(store, "leads"), group_id(store, "role:members")
    current = admin.channels.get(channel).can_remove_subscribers_group
    with unchanged(store), api_error("EXPECTATION_MISMATCH"):
        admin.channels.update(
            channel, group_settings={"can_remove_subscribers_group": {"new": leads, "old": members}}
        )
    admin.channels.update(
        channel, group_settings={"can_remove_subscribers_group": {"new": leads, "old": current}}
    )
    assert admin.channels.get(channel).can_remove_subscribers_group == leads


def test_system_group_required(sandbox: Sandbox) -> None:
    from chatops.sandbox import group_settings
    from chatops.sandbox.errors import ApiError

    store = sandbox.store
    leads = group_id(store, "leads")
    with pytest.raises(ApiError) as info:
        group_settings.validate(store, "create_multiuse_invite_group", leads)
    assert (info.value.code, info.value.extra) == (
        "SYSTEM_GROUP_REQUIRED",
        {"setting_name": "create_multiuse_invite_group"},
    )
    with pytest.raises(ApiError) as anon:
        group_settings.validate(
            store,
            "create_multiuse_invite_group",
            {"direct_members": [1], "direct_subgroups": []},
        )
    assert anon.value.code == "SYSTEM_GROUP_REQUIRED"
    assert group_settings.members_of(store, {"direct_members": [], "direct_subgroups": [leads]})


# -- companions --------------------------------------------------------------------------------
def test_get_update_and_members(
    admin: chatops.Client, member: chatops.Client, sandbox: Sandbox
) -> None:
    admin.channels.subscribe(["companion"])
    channel = stream_id(sandbox, "companion")
    admin.channels.update(channel, new_name="companion-2", description="new words")
    got = admin.channels.get(channel)
    assert (got.name, got.description) == ("companion-2", "new words")
    assert admin.channels.members(channel) == [sandbox.accounts["admin"].user_id]
    with unchanged(sandbox.store), api_error("CANNOT_ADMINISTER_CHANNEL"):
        member.channels.update(channel, description="mine now")
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        admin.channels.get(999999)
    subs = {s.name for s in admin.channels.subscriptions()}
    assert "companion-2" in subs


def test_private_channel_hidden_from_outsiders(
    admin: chatops.Client, member: chatops.Client, sandbox: Sandbox
) -> None:
    admin.channels.subscribe(["hidden-private"], invite_only=True)
    channel = stream_id(sandbox, "hidden-private")
    with api_error("BAD_REQUEST"):
        member.channels.get(channel)
    with api_error("BAD_REQUEST"):
        member.channels.members(channel)
    assert "hidden-private" not in {c.name for c in member.channels.list()}
