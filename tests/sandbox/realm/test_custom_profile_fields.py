"""Custom profile fields of the organization (``/realm/profile_fields``): the real server's
validation, errors and ``custom_profile_fields`` events."""

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

OPTIONS = {"py": {"text": "Python", "order": "1"}, "rs": {"text": "Rust", "order": "2"}}


@pytest.fixture
def admin(fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture
def member(fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]) -> chatops.Client:
    return client_for("member", fresh_sandbox)


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "member")
    yield q
    q.close()


def _field(client: chatops.Client, field_id: int) -> chatops.types.CustomProfileField:
    return next(f for f in client.realm.profile_fields() if f.id == field_id)


def test_demo_fields(member: chatops.Client) -> None:
    fields = member.realm.profile_fields()
    assert [f.name for f in fields][:3] == ["Team", "Pronouns", "Office"]
    office = fields[2]
    assert office.type == 3
    assert {v["text"] for v in json.loads(office.field_data).values()} == {
        "Berlin",
        "New York",
        "Tokyo",
    }
    assert [f.order for f in fields] == sorted(f.order for f in fields)


def test_create_each_type(admin: chatops.Client, queue: Queue) -> None:
    short = admin.realm.create_profile_field(field_type=1, name="Desk", hint="Where you sit")
    event = queue.wait_for("custom_profile_fields")
    assert short in [f["id"] for f in event["fields"]]
    record = _field(admin, short)
    assert (record.name, record.type, record.hint, record.field_data) == (
        "Desk",
        1,
        "Where you sit",
        "",
    )
    assert record.order == short and record.editable_by_user and not record.required
    select = admin.realm.create_profile_field(
        field_type=3, name="Language", field_data=OPTIONS, required=True
    )
    assert json.loads(_field(admin, select).field_data) == OPTIONS
    assert _field(admin, select).required is True
    github = admin.realm.create_profile_field(field_type=7, field_data={"subtype": "github"})
    gh = _field(admin, github)
    assert (gh.name, gh.hint, json.loads(gh.field_data)) == (
        "GitHub",
        "Enter your GitHub username",
        {"subtype": "github"},
    )
    custom = admin.realm.create_profile_field(
        field_type=7,
        name="Forge",
        field_data={"subtype": "custom", "url_pattern": "https://forge.test/%(username)s"},
    )
    assert json.loads(_field(admin, custom).field_data)["subtype"] == "custom"
    for field_type, name in ((2, "Bio"), (4, "Birthday"), (5, "Site"), (6, "Mentor"), (8, "Pr")):
        fid = admin.realm.create_profile_field(field_type=field_type, name=name)
        assert _field(admin, fid).type == field_type


@pytest.mark.parametrize(
    ("params", "msg"),
    [
        ({"field_type": 1, "name": "  "}, "Label cannot be blank."),
        ({"field_type": 1, "name": "n" * 41}, "name is too long (limit: 40 characters)"),
        (
            {"field_type": 1, "name": "Hinted", "hint": "h" * 81},
            "hint is too long (limit: 80 characters)",
        ),
        ({"field_type": 9, "name": "Nine"}, "Invalid field type."),
        ({"field_type": 1, "name": "Team"}, "A field with that label already exists."),
        ({"field_type": 3, "name": "Empty choice"}, "Field must have at least one choice."),
        (
            {"field_type": 3, "name": "Blank", "field_data": {"a": {"text": "", "order": "1"}}},
            'field_data["a"]["text"] cannot be blank.',
        ),
        (
            {"field_type": 3, "name": "No order", "field_data": {"a": {"text": "A"}}},
            'order key is missing from field_data["a"]',
        ),
        (
            {
                "field_type": 3,
                "name": "Twice",
                "field_data": {"a": {"text": "A", "order": "1"}, "b": {"text": "A", "order": "2"}},
            },
            "Field must not have duplicate choices.",
        ),
        (
            {
                "field_type": 7,
                "name": "X",
                "field_data": {"subtype": "custom", "url_pattern": "https://x.test/"},
            },
            "URL pattern must contain '%(username)s'.",
        ),
        (
            {"field_type": 7, "name": "X", "field_data": {"subtype": "myspace"}},
            "Invalid external account type",
        ),
        (
            {"field_type": 7, "name": "X", "field_data": {"subtype": "custom"}},
            "Custom external account must define URL pattern",
        ),
        (
            {"field_type": 2, "name": "Long", "display_in_profile_summary": True},
            "Field type not supported for display in profile summary.",
        ),
    ],
)
def test_create_refusals(
    fresh_sandbox: Sandbox, admin: chatops.Client, params: dict[str, Any], msg: str
) -> None:
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        admin.realm.create_profile_field(**params)
    assert info.value.msg == msg


def test_only_administrators(fresh_sandbox: Sandbox, member: chatops.Client) -> None:
    with unchanged(fresh_sandbox.store):
        with api_error("UNAUTHORIZED_PRINCIPAL"):
            member.realm.create_profile_field(field_type=1, name="Mine")
        with api_error("UNAUTHORIZED_PRINCIPAL"):
            member.realm.update_profile_field(1, name="Squad")
        with api_error("UNAUTHORIZED_PRINCIPAL"):
            member.realm.reorder_profile_fields([1, 2, 3])
        with api_error("UNAUTHORIZED_PRINCIPAL"):
            member.realm.delete_profile_field(1)
        body = assert_error(
            raw(fresh_sandbox, "admin", "POST", "/realm/profile_fields", name="No type"),
            "REQUEST_VARIABLE_MISSING",
        )
        assert body["var_name"] == "field_type"


def test_summary_limit(fresh_sandbox: Sandbox, admin: chatops.Client) -> None:
    first = admin.realm.create_profile_field(
        field_type=1, name="Summary one", display_in_profile_summary=True
    )
    admin.realm.create_profile_field(
        field_type=1, name="Summary two", display_in_profile_summary=True
    )
    assert _field(admin, first).display_in_profile_summary is True
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        admin.realm.create_profile_field(
            field_type=1, name="Summary three", display_in_profile_summary=True
        )
    assert info.value.msg == "Only 2 custom profile fields can be displayed in the profile summary."
    admin.realm.update_profile_field(first, display_in_profile_summary=True)  # itself not counted


def test_update(fresh_sandbox: Sandbox, admin: chatops.Client, queue: Queue) -> None:
    fid = admin.realm.create_profile_field(field_type=3, name="Shift", field_data=OPTIONS)
    queue.wait_for("custom_profile_fields")
    admin.users.update(fresh_sandbox.accounts["member"].user_id, profile_data={fid: "rs"})
    admin.realm.update_profile_field(
        fid,
        name="Rota",
        hint="When you work",
        field_data={"py": OPTIONS["py"]},
        required=True,
        editable_by_user=False,
    )
    record = _field(admin, fid)
    assert (record.name, record.hint, record.required, record.editable_by_user) == (
        "Rota",
        "When you work",
        True,
        False,
    )
    assert json.loads(record.field_data) == {"py": OPTIONS["py"]}
    # a value naming a removed option goes with it
    assert (
        fresh_sandbox.store.one("SELECT 1 FROM custom_profile_values WHERE field_id = ?", [fid])
        is None
    )
    event = queue.wait_for("custom_profile_fields")
    assert next(f for f in event["fields"] if f["id"] == fid)["name"] == "Rota"


def test_update_refusals(fresh_sandbox: Sandbox, admin: chatops.Client) -> None:
    github = admin.realm.create_profile_field(field_type=7, field_data={"subtype": "twitter"})
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST") as info:
            admin.realm.update_profile_field(999_999, name="Gone")
        assert info.value.msg == "Field id 999999 not found."
        with api_error("BAD_REQUEST") as info:
            admin.realm.update_profile_field(github, name="Bird site")
        assert info.value.msg == "Default custom field cannot be updated."
        with api_error("BAD_REQUEST") as info:
            admin.realm.update_profile_field(1, name="Pronouns")
        assert info.value.msg == "A field with that label already exists."
        with api_error("BAD_REQUEST") as info:
            admin.realm.update_profile_field(1, name="")
        assert info.value.msg == "Label cannot be blank."
    admin.realm.update_profile_field(github, required=True)  # name, hint and data untouched
    assert _field(admin, github).required is True


def test_reorder_and_delete(fresh_sandbox: Sandbox, admin: chatops.Client, queue: Queue) -> None:
    ids = [f.id for f in admin.realm.profile_fields()]
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        admin.realm.reorder_profile_fields(ids[1:])
    assert info.value.msg == "Invalid order mapping."
    admin.realm.reorder_profile_fields(list(reversed(ids)))
    assert [f.id for f in admin.realm.profile_fields()] == list(reversed(ids))
    assert [f["id"] for f in queue.wait_for("custom_profile_fields")["fields"]] == list(
        reversed(ids)
    )
    team = next(f.id for f in admin.realm.profile_fields() if f.name == "Team")
    admin.realm.delete_profile_field(team)
    assert team not in [f.id for f in admin.realm.profile_fields()]
    assert (
        fresh_sandbox.store.one("SELECT 1 FROM custom_profile_values WHERE field_id = ?", [team])
        is None
    )
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        admin.realm.delete_profile_field(team)
    assert info.value.msg == f"Field id {team} not found."
