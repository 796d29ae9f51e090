"""``GET /users/{email}`` (feature level 39; level 302 semantics): the real address when its owner's
email visibility lets the requester see it, the ``user<ID>@<host>`` placeholder for anyone."""

from __future__ import annotations

import asyncio

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.helpers import api_error


def test_a_user_by_real_email_over_http(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    target = sandbox.accounts["admin"]
    r = httpx.get(
        f"{sandbox.site}/api/v1/users/{target.email}",
        params={"include_custom_profile_fields": "true"},
        auth=(acc.email, acc.api_key),
    )
    assert r.status_code == 200, r.text
    user = r.json()["user"]
    assert (user["user_id"], user["email"], user["full_name"]) == (
        target.user_id,
        target.email,
        sandbox.store.scalar("SELECT full_name FROM users WHERE id = ?", [target.user_id]),
    )
    assert "profile_data" in user


def test_by_email_matches_by_id(member: chatops.Client, sandbox: Sandbox) -> None:
    for name in ("admin", "guest", "bot"):
        acc = sandbox.accounts[name]
        by_email = member.users.get_by_email(acc.email.upper())  # addresses ignore case
        assert by_email == member.users.get(acc.user_id)


def test_a_hidden_email_finds_nobody_but_the_placeholder_does(
    member: chatops.Client, admin: chatops.Client, sandbox: Sandbox
) -> None:
    hidden = sandbox.store.one(
        "SELECT id, delivery_email FROM users WHERE email_address_visibility = 3 "
        "AND is_bot = 0 AND is_active = 1 LIMIT 1"
    )
    assert hidden is not None
    with api_error("BAD_REQUEST") as info:
        member.users.get_by_email(hidden["delivery_email"])
    assert info.value.msg == "No such user"
    placeholder = f"user{hidden['id']}@demo.chatops.test"
    assert member.users.get_by_email(placeholder).user_id == hidden["id"]
    assert admin.users.get_by_email(hidden["delivery_email"]).user_id == hidden["id"]


def test_an_unknown_address_is_no_such_user(member: chatops.Client) -> None:
    for email in ("nobody@example.com", "user999999@demo.chatops.test", "user1@elsewhere.test"):
        with api_error("BAD_REQUEST") as info:
            member.users.get_by_email(email)
        assert info.value.msg == "No such user"


def test_the_async_twin(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["moderator"]

    async def main() -> int:
        async with chatops.AsyncClient.from_zuliprc(sandbox.zuliprc("member")) as client:
            return (await client.users.get_by_email(acc.email)).user_id

    assert asyncio.run(main()) == acc.user_id


def test_the_client_refuses_what_is_not_an_address(member: chatops.Client) -> None:
    with pytest.raises(ValueError, match="email address"):
        member.users.get_by_email("  ")


def test_an_administrator_updates_a_user_by_email(sandbox: Sandbox) -> None:
    """``PATCH /users/{email}`` (feature level 313) changes the user ``GET /users/{email}`` finds."""
    owner = sandbox.accounts["owner"]
    target = sandbox.accounts["guest"]
    before = sandbox.store.scalar("SELECT full_name FROM users WHERE id = ?", [target.user_id])
    try:
        r = httpx.patch(
            f"{sandbox.site}/api/v1/users/{target.email}",
            data={"full_name": "Renamed By Email"},
            auth=(owner.email, owner.api_key),
        )
        assert r.status_code == 200, r.text
        assert (
            sandbox.store.scalar("SELECT full_name FROM users WHERE id = ?", [target.user_id])
            == "Renamed By Email"
        )
        r = httpx.patch(
            f"{sandbox.site}/api/v1/users/nobody@example.com",
            data={"full_name": "X"},
            auth=(owner.email, owner.api_key),
        )
        assert (r.status_code, r.json()["msg"]) == (400, "No such user")
    finally:
        sandbox.store.execute(
            "UPDATE users SET full_name = ? WHERE id = ?", [before, target.user_id]
        )
