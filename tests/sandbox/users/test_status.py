"""User status over HTTP (spec 4.7): own, another user's as an administrator, bulk updates."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error, assert_error, raw

Make = Callable[..., chatops.Client]


@pytest.fixture
def admin(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture
def member(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("member", fresh_sandbox)


def test_set_and_get_own_status(fresh_sandbox: Sandbox, member: chatops.Client) -> None:
    uid = fresh_sandbox.accounts["member"].user_id
    member.users.set_status(status_text="  In a meeting  ", emoji_name="calendar")
    status = member.users.get_status(uid)
    assert status.status_text == "In a meeting"
    assert (status.emoji_name, status.reaction_type) == ("calendar", "unicode_emoji")
    assert status.emoji_code == "1f4c5"
    member.users.set_status(emoji_name="")  # clears the emoji, keeps the text
    status = member.users.get_status(uid)
    assert status.emoji_name is None and status.status_text == "In a meeting"
    member.users.set_status(status_text="")
    assert member.users.get_status(uid) == chatops.UserStatus()


def test_emoji_names_resolve_through_three_namespaces(
    fresh_sandbox: Sandbox, member: chatops.Client
) -> None:
    uid = fresh_sandbox.accounts["member"].user_id
    shipit = str(fresh_sandbox.store.scalar("SELECT id FROM realm_emoji WHERE name = 'shipit'"))
    member.users.set_status(emoji_name="shipit")
    s = member.users.get_status(uid)
    assert (s.emoji_code, s.reaction_type) == (shipit, "realm_emoji")
    member.users.set_status(emoji_name="zulip")
    s = member.users.get_status(uid)
    assert (s.emoji_code, s.reaction_type) == ("zulip", "service_extra_emoji")
    member.users.set_status(emoji_name="octopus")
    s = member.users.get_status(uid)
    assert (s.emoji_code, s.reaction_type) == ("1f419", "unicode_emoji")


def test_administrator_sets_another_users_status(
    fresh_sandbox: Sandbox, admin: chatops.Client, member: chatops.Client
) -> None:
    sb = fresh_sandbox
    target = sb.accounts["member"].user_id
    admin.users.set_user_status(target, status_text="On leave", emoji_name="palm_tree")
    assert member.users.get_status(target).status_text == "On leave"
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        member.users.set_user_status(sb.accounts["admin"].user_id, status_text="hacked")


@pytest.mark.parametrize(
    ("params", "msg"),
    [
        ({}, "Client did not pass any new values."),
        ({"status_text": "x" * 61}, None),
        ({"emoji_code": "1f419"}, "Client must pass emoji_name"),
        ({"reaction_type": "unicode_emoji"}, "Client must pass emoji_name"),
        ({"emoji_name": "no_such_emoji_here"}, "Emoji 'no_such_emoji_here' does not exist"),
        (
            {"emoji_name": "octopus", "emoji_code": "1f600", "reaction_type": "unicode_emoji"},
            "Invalid emoji name.",
        ),
        (
            {"emoji_name": "shipit", "emoji_code": "99999", "reaction_type": "realm_emoji"},
            "Invalid custom emoji.",
        ),
        ({"emoji_name": "old_logo"}, "does not exist"),
        ({"emoji_name": "octopus", "reaction_type": "bogus"}, "Invalid emoji type."),
    ],
)
def test_status_errors_change_nothing(
    fresh_sandbox: Sandbox, params: dict[str, str], msg: str | None
) -> None:
    sb = fresh_sandbox
    target = sb.accounts["member"].user_id
    for account, path in (("member", "/users/me/status"), ("admin", f"/users/{target}/status")):
        with unchanged(sb.store):
            body = assert_error(raw(sb, account, "POST", path, **params), "BAD_REQUEST")
        if msg is not None:
            assert msg in body["msg"], body


def test_client_checks_status_text_length(member: chatops.Client) -> None:
    with pytest.raises(chatops.LimitError) as info:
        member.users.set_status(status_text="x" * 61)
    assert (info.value.param, info.value.limit) == ("status_text", 60)


def test_unknown_user(fresh_sandbox: Sandbox, admin: chatops.Client) -> None:
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST", msg="No such user"):
        admin.users.set_user_status(99999, status_text="x")
    with api_error("BAD_REQUEST", msg="No such user"):
        admin.users.get_status(99999)


def test_bulk_status_updates_report_every_item(fresh_sandbox: Sandbox) -> None:
    sb = fresh_sandbox
    people = [
        int(r["id"])
        for r in sb.store.query(
            "SELECT id FROM users WHERE is_active = 1 AND is_bot = 0 ORDER BY id LIMIT 30"
        )
    ]
    updates: list[dict[str, object]] = [
        {"user_id": uid, "status_text": f"shift {i}", "emoji_name": "coffee"}
        for i, uid in enumerate(people)
    ]
    updates.insert(5, {"user_id": 99999, "status_text": "nobody"})
    updates.insert(9, {"user_id": people[0], "status_text": "x" * 61})
    updates.insert(12, {"user_id": people[1], "emoji_name": "no_such_emoji_here"})

    async def run() -> chatops.BulkReport[object]:
        async with chatops.AsyncClient.from_zuliprc(sb.zuliprc("admin")) as client:
            report = await client.users.set_status_many(updates, concurrency=6)  # type: ignore[arg-type]
            return report  # type: ignore[return-value]

    report = asyncio.run(run())
    assert len(report) == len(updates)
    assert [item.item for item in report] == updates
    failed = {updates.index(i.item) for i in report.failed}  # type: ignore[arg-type]
    assert failed == {5, 9, 12}
    assert isinstance(report.items[9].error, chatops.LimitError)
    assert isinstance(report.items[5].error, chatops.BadRequest)
    for i, uid in enumerate(people[2:], start=2):
        assert sb.store.scalar("SELECT status_text FROM user_status WHERE user_id = ?", [uid]) == (
            f"shift {i}"
        )

    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as client:
        sync_report = client.users.set_status_many(updates[:6])  # type: ignore[arg-type]
    assert [i.ok for i in sync_report] == [True] * 5 + [False]
