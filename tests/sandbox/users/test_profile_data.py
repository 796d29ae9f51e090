"""Users' custom profile field values: ``PATCH``/``DELETE /users/me/profile_data``, an
administrator's ``PATCH /users/{id}`` ``profile_data``, and 4.18's
``include_custom_profile_fields``."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, assert_error, raw


@pytest.fixture
def admin(fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture
def member(fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]) -> chatops.Client:
    return client_for("member", fresh_sandbox)


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "admin")
    yield q
    q.close()


@pytest.fixture(scope="module")
def fields(fresh_sandbox: Sandbox) -> dict[str, int]:
    """One field of each type, made by the demo administrator."""
    made: dict[str, int] = {}
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin")) as admin:
        for field_type, name, data in (
            (1, "Nickname", None),
            (2, "About", None),
            (
                3,
                "Tabs or spaces",
                {"t": {"text": "Tabs", "order": "1"}, "s": {"text": "Spaces", "order": "2"}},
            ),
            (4, "Started", None),
            (5, "Homepage", None),
            (6, "Buddy", None),
            (7, "GitHub", {"subtype": "github"}),
        ):
            made[name] = admin.realm.create_profile_field(
                field_type=field_type, name=name, field_data=data or chatops.NOT_GIVEN
            )
        made["Badge"] = admin.realm.create_profile_field(
            field_type=1, name="Badge", editable_by_user=False
        )
    return made


def _values(client: chatops.Client, user_id: int) -> dict[str, Any]:
    record = client.users.get(user_id, include_custom_profile_fields=True)
    assert record.profile_data is not None
    return {str(k): v for k, v in record.profile_data.items()}


def test_set_own_values(
    fresh_sandbox: Sandbox, member: chatops.Client, fields: dict[str, int], queue: Queue
) -> None:
    me = fresh_sandbox.accounts["member"].user_id
    buddy = fresh_sandbox.accounts["moderator"].user_id
    member.users.update_profile_data(
        {
            fields["Nickname"]: "**Mei**",
            fields["About"]: "Likes *tea*",
            fields["Tabs or spaces"]: "s",
            fields["Started"]: "2020-02-29",
            fields["Homepage"]: "https://mei.example.com/",
            fields["Buddy"]: [buddy],
            fields["GitHub"]: "mei",
        }
    )
    values = _values(member, me)
    assert values[str(fields["Nickname"])].value == "**Mei**"
    assert "<strong>Mei</strong>" in (values[str(fields["Nickname"])].rendered_value or "")
    assert "<em>tea</em>" in (values[str(fields["About"])].rendered_value or "")
    assert values[str(fields["Tabs or spaces"])].value == "s"
    assert values[str(fields["Tabs or spaces"])].rendered_value is None
    assert json.loads(values[str(fields["Buddy"])].value) == [buddy]
    event = queue.wait_for("realm_user", op="update")
    assert event["person"]["user_id"] == me
    assert event["person"]["custom_profile_field"]["id"] == fields["Nickname"]
    assert event["person"]["custom_profile_field"]["value"] == "**Mei**"
    # the other users see the values only when they ask for them
    admin_view = raw(fresh_sandbox, "admin", "GET", f"/users/{me}")[1]["user"]
    assert "profile_data" not in admin_view
    listed = raw(fresh_sandbox, "admin", "GET", "/users", include_custom_profile_fields="true")
    row = next(u for u in listed[1]["members"] if u["user_id"] == me)
    assert row["profile_data"][str(fields["GitHub"])] == {"value": "mei"}


@pytest.mark.parametrize(
    ("name", "value", "msg"),
    [
        ("Nickname", "n" * 51, "Nickname is too long (limit: 50 characters)"),
        ("Nickname", 5, "Nickname is not a string"),
        ("About", "a" * 501, "About is too long (limit: 500 characters)"),
        ("Tabs or spaces", "x", "'x' is not a valid choice for 'Tabs or spaces'."),
        ("Started", "2020-02-30", "Started is not a date"),
        ("Homepage", "not a url", "Homepage is not a URL"),
        ("Buddy", "someone", "Buddy is not a list"),
        ("Buddy", [999_999], "Invalid user ID: 999999"),
        (
            "Badge",
            "gold",
            "You are not allowed to change this field. Contact an administrator to update it.",
        ),
    ],
)
def test_value_refusals(
    fresh_sandbox: Sandbox,
    member: chatops.Client,
    fields: dict[str, int],
    name: str,
    value: Any,
    msg: str,
) -> None:
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        member.users.update_profile_data({fields["Nickname"]: "ok", fields[name]: value})
    assert info.value.msg == msg


def test_malformed_data(fresh_sandbox: Sandbox, fields: dict[str, int]) -> None:
    with unchanged(fresh_sandbox.store):
        body = assert_error(
            raw(
                fresh_sandbox,
                "member",
                "PATCH",
                "/users/me/profile_data",
                data=json.dumps([{"id": 999_999, "value": "x"}]),
            ),
            "BAD_REQUEST",
        )
        assert body["msg"] == "Field id 999999 not found."
        body = assert_error(
            raw(
                fresh_sandbox,
                "member",
                "PATCH",
                "/users/me/profile_data",
                data=json.dumps([{"value": "x"}]),
            ),
            "BAD_REQUEST",
        )
        assert body["msg"] == "id key is missing from data[0]"
        body = assert_error(
            raw(
                fresh_sandbox,
                "bot",
                "PATCH",
                "/users/me/profile_data",
                data=json.dumps([{"id": fields["Nickname"], "value": "x"}]),
            ),
            "BAD_REQUEST",
        )
        assert body["msg"] == "This endpoint does not accept bot requests."


def test_remove_own_value(
    fresh_sandbox: Sandbox, member: chatops.Client, fields: dict[str, int]
) -> None:
    me = fresh_sandbox.accounts["member"].user_id
    member.users.update_profile_data({fields["GitHub"]: "mei-m"})
    member.users.remove_profile_data([fields["GitHub"]])
    assert str(fields["GitHub"]) not in _values(member, me)
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST") as info:
            member.users.remove_profile_data([fields["Badge"]])
        assert info.value.msg.startswith("You are not allowed to change this field.")
        with api_error("BAD_REQUEST") as info:
            member.users.remove_profile_data([999_999])
        assert info.value.msg == "Field id 999999 not found."


def test_administrator_sets_and_clears(
    fresh_sandbox: Sandbox, admin: chatops.Client, member: chatops.Client, fields: dict[str, int]
) -> None:
    target = fresh_sandbox.accounts["member"].user_id
    admin.users.update(target, profile_data={fields["Badge"]: "gold", fields["Nickname"]: "M"})
    values = _values(admin, target)
    assert values[str(fields["Badge"])].value == "gold"
    admin.users.update(target, profile_data={fields["Badge"]: ""})  # empty removes
    assert str(fields["Badge"]) not in _values(admin, target)
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST") as info:
            admin.users.update(target, role=300, profile_data={fields["Started"]: "soon"})
        assert info.value.msg == "Started is not a date"
        with api_error("UNAUTHORIZED_PRINCIPAL"):
            member.users.update(target, profile_data={fields["Nickname"]: "Me"})
