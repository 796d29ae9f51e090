"""Spec 4.17 (own user) and 4.18 (a user), over HTTP."""

from __future__ import annotations

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.helpers import api_error

USER_FIELDS = {
    "user_id",
    "email",
    "delivery_email",
    "full_name",
    "date_joined",
    "is_active",
    "is_owner",
    "is_admin",
    "is_guest",
    "is_bot",
    "role",
    "timezone",
    "avatar_url",
    "avatar_version",
}


def test_own_user(member: chatops.Client, sandbox: Sandbox) -> None:
    me = member.users.me()
    acc = sandbox.accounts["member"]
    assert (me.user_id, me.email, me.delivery_email, me.role) == (
        acc.user_id,
        acc.email,
        acc.email,
        400,
    )
    assert me.is_admin is False and me.is_owner is False and me.is_guest is False
    assert me.max_message_id is not None and me.max_message_id > 0
    assert isinstance(me.profile_data, dict)


def test_own_user_raw_fields(sandbox: Sandbox) -> None:
    import httpx

    acc = sandbox.accounts["owner"]
    body = httpx.get(f"{sandbox.site}/api/v1/users/me", auth=(acc.email, acc.api_key)).json()
    assert USER_FIELDS | {"max_message_id", "profile_data"} <= set(body)
    assert "is_billing_admin" not in body
    assert not {"bot_type", "bot_owner_id", "is_system_bot"} & set(body), "bot fields for bots"
    assert body["is_owner"] and body["is_admin"], "an owner is also an administrator"


def test_get_user_and_roles(admin: chatops.Client, sandbox: Sandbox) -> None:
    for name, role in [
        ("owner", 100),
        ("admin", 200),
        ("moderator", 300),
        ("member", 400),
        ("guest", 600),
    ]:
        user = admin.users.get(sandbox.accounts[name].user_id)
        assert user.role == role
        assert user.is_guest == (role == 600)


def test_bot_fields(admin: chatops.Client, sandbox: Sandbox) -> None:
    bot = admin.users.get(sandbox.accounts["bot"].user_id)
    assert bot.is_bot and bot.bot_type == 1
    assert bot.bot_owner_id == sandbox.accounts["admin"].user_id
    human = admin.users.get(sandbox.accounts["member"].user_id)
    assert human.bot_type is None and human.bot_owner_id is None


def test_client_gravatar(member: chatops.Client, sandbox: Sandbox) -> None:
    uid = sandbox.accounts["admin"].user_id
    assert member.users.get(uid, client_gravatar=True).avatar_url is None
    url = member.users.get(uid, client_gravatar=False).avatar_url
    assert url is not None and url.startswith("https://secure.gravatar.com/avatar/")


def test_hidden_email(member: chatops.Client, admin: chatops.Client, sandbox: Sandbox) -> None:
    hidden = sandbox.store.one(
        "SELECT id, delivery_email FROM users WHERE email_address_visibility = 3 "
        "AND is_bot = 0 LIMIT 1"
    )
    assert hidden is not None
    seen_by_member = member.users.get(hidden["id"])
    assert seen_by_member.delivery_email is None
    assert seen_by_member.email == f"user{hidden['id']}@demo.chatops.test"
    assert seen_by_member.avatar_url is not None, "client_gravatar needs a visible email"
    assert admin.users.get(hidden["id"]).delivery_email == hidden["delivery_email"]


def test_custom_profile_fields(member: chatops.Client, sandbox: Sandbox) -> None:
    uid = sandbox.accounts["admin"].user_id
    assert member.users.get(uid).profile_data is None
    data = member.users.get(uid, include_custom_profile_fields=True).profile_data
    assert data is not None and "1" in {str(k) for k in data}
    bot = member.users.get(sandbox.accounts["bot"].user_id, include_custom_profile_fields=True)
    assert not bot.profile_data


def test_unknown_user(member: chatops.Client) -> None:
    with api_error("BAD_REQUEST") as info:
        member.users.get(999_999)
    assert info.value.msg == "No such user"


def test_list_users_includes_deactivated(admin: chatops.Client, sandbox: Sandbox) -> None:
    people = admin.users.list()
    inactive = sandbox.store.scalar(
        "SELECT count(*) FROM users WHERE is_active = 0 AND is_system_bot = 0"
    )
    assert sum(1 for u in people if not u.is_active) == inactive
    assert {sandbox.accounts[a].user_id for a in sandbox.accounts} <= {u.user_id for u in people}
