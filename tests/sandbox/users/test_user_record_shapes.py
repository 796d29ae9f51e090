"""User records have the real server's shape (``format_user_row``), checked against the OpenAPI
schema (``additionalProperties: false``): ``bot_type`` and ``bot_owner_id`` only for bots,
``is_system_bot`` only for system bots, ``profile_data`` only for people."""

from __future__ import annotations

import functools
import json
from typing import Any

import httpx
import jsonschema
import pytest
import referencing
import yaml
from referencing.jsonschema import DRAFT4

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.conformance import SKIP_WITHOUT_SPEC, SPEC

BASE = "urn:zulip-openapi"

pytestmark = pytest.mark.skipif(**SKIP_WITHOUT_SPEC)


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0 to JSON Schema: ``nullable: true`` becomes a ``null`` type."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k != "example"}
    if out.pop("nullable", False):
        if "type" in out:
            out["type"] = [out["type"], "null"]
        if "enum" in out:
            out["enum"] = [*out["enum"], None]
        if "allOf" in out or "$ref" in out or "oneOf" in out:
            out = {"anyOf": [{"type": "null"}, out]}
    return out


@functools.cache
def _registry() -> referencing.Registry[Any]:
    with SPEC.open(encoding="utf-8") as f:
        doc = _json_schema(yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))
    resource = referencing.Resource.from_contents(doc, default_specification=DRAFT4)
    return referencing.Registry().with_resource(BASE, resource)


def _pointer(*parts: str) -> str:
    return "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def validate(instance: Any, *parts: str) -> None:
    """Validate against the schema at ``#/parts...`` of the OpenAPI document."""
    schema = {"$ref": f"{BASE}#/{_pointer(*parts)}"}
    jsonschema.Draft4Validator(schema, registry=_registry()).validate(instance)


def validate_response(body: Any, path: str, method: str = "get") -> None:
    validate(
        body, "paths", path, method, "responses", "200", "content", "application/json", "schema"
    )


def _get(sb: Sandbox, account: str, path: str, **params: Any) -> Any:
    acc = sb.accounts[account]
    r = httpx.get(f"{sb.site}/api/v1{path}", params=params, auth=(acc.email, acc.api_key))
    assert r.status_code == 200, r.text
    return r.json()


def test_the_validation_refuses_the_old_shape() -> None:
    """The check can fail: a person with bot fields is refused by the schema."""
    person = {
        "user_id": 1, "email": "a@b.test", "delivery_email": None, "full_name": "A",
        "date_joined": "2024-01-01T00:00:00+00:00", "is_active": True, "is_owner": False,
        "is_admin": False, "is_guest": False, "is_bot": False, "role": 400, "timezone": "",
        "avatar_url": None, "avatar_version": 1,
    }  # fmt: skip
    validate({"result": "success", "msg": "", "user": person}, "paths", "/users/{user_id}", "get",
             "responses", "200", "content", "application/json", "schema")  # fmt: skip
    with pytest.raises(jsonschema.ValidationError, match="is_system_bot"):
        validate({"result": "success", "msg": "", "user": {**person, "is_system_bot": False}},
                 "paths", "/users/{user_id}", "get", "responses", "200", "content",
                 "application/json", "schema")  # fmt: skip


def test_get_users_matches_the_schema(sandbox: Sandbox) -> None:
    for params in ({}, {"include_custom_profile_fields": "true", "client_gravatar": "false"}):
        body = _get(sandbox, "member", "/users", **params)
        validate_response(body, "/users")
        for user in body["members"]:
            assert ("bot_type" in user) == ("bot_owner_id" in user) == user["is_bot"]
            assert "is_system_bot" not in user
            assert ("profile_data" in user) == (bool(params) and not user["is_bot"])


@pytest.mark.parametrize("who", ["admin", "guest", "bot"])
def test_get_one_user_matches_the_schema(sandbox: Sandbox, who: str) -> None:
    acc = sandbox.accounts[who]
    by_id = _get(sandbox, "member", f"/users/{acc.user_id}", include_custom_profile_fields="true")
    validate_response(by_id, "/users/{user_id}")
    by_email = _get(sandbox, "member", f"/users/{acc.email}")
    validate_response(by_email, "/users/{email}")
    user = by_id["user"]
    if who == "bot":
        assert user["bot_type"] == 1 and user["bot_owner_id"] == sandbox.accounts["admin"].user_id
        assert "profile_data" not in user
    else:
        assert not {"bot_type", "bot_owner_id", "is_system_bot"} & set(user)
        assert "profile_data" in user


def test_own_user_matches_the_schema(sandbox: Sandbox) -> None:
    body = _get(sandbox, "member", "/users/me")
    validate_response(body, "/users/me")
    assert not {"bot_type", "bot_owner_id", "is_system_bot"} & set(body)
    bot = _get(sandbox, "bot", "/users/me")  # bots get the bot fields (beyond the schema)
    assert bot["bot_type"] == 1 and bot["bot_owner_id"] == sandbox.accounts["admin"].user_id
    assert "profile_data" not in bot and "is_system_bot" not in bot


def test_a_system_bot_is_not_a_user_of_the_organization(
    sandbox: Sandbox, member: chatops.Client
) -> None:
    bot_id = int(sandbox.store.scalar("SELECT id FROM users WHERE is_system_bot = 1 LIMIT 1"))
    acc = sandbox.accounts["member"]
    r = httpx.get(f"{sandbox.site}/api/v1/users/{bot_id}", auth=(acc.email, acc.api_key))
    assert (r.status_code, r.json()["msg"]) == (400, "No such user")


def _register(sb: Sandbox, account: str, **params: Any) -> Any:
    acc = sb.accounts[account]
    data = {k: json.dumps(v) for k, v in params.items()}
    r = httpx.post(f"{sb.site}/api/v1/register", data=data, auth=(acc.email, acc.api_key))
    assert r.status_code == 200, r.text
    return r.json()


def test_register_realm_users_match_the_schema(sandbox: Sandbox) -> None:
    state = _register(sandbox, "member", fetch_event_types=["realm_user"])
    register = ("paths", "/register", "post", "responses", "200", "content", "application/json",
                "schema", "allOf", "1", "properties")  # fmt: skip
    validate(state["realm_users"], *register, "realm_users")
    for user in state["realm_users"] + state["realm_non_active_users"]:
        validate(user, "components", "schemas", "User")
    validate(state["cross_realm_bots"], *register, "cross_realm_bots")
    assert state["cross_realm_bots"]
    assert all(b["is_system_bot"] is True and b["is_bot"] for b in state["cross_realm_bots"])


def test_the_user_added_event_carries_the_whole_record(
    fresh_sandbox: Sandbox, client_for: Any
) -> None:
    sb = fresh_sandbox
    queue = _register(sb, "member", event_types=["realm_user"])
    owner = client_for("owner", sb)
    new_id = owner.users.create(email="shape@example.com", password="pw-123456", full_name="Shape")
    acc = sb.accounts["member"]
    r = httpx.get(
        f"{sb.site}/api/v1/events",
        params={"queue_id": queue["queue_id"], "last_event_id": -1, "dont_block": "true"},
        auth=(acc.email, acc.api_key),
    )
    [added] = [e for e in r.json()["events"] if e["type"] == "realm_user" and e["op"] == "add"]
    person = added["person"]
    validate(person, "components", "schemas", "User")
    seen = _get(sb, "member", f"/users/{new_id}", client_gravatar="false")["user"]
    assert person == {**seen, "profile_data": {}}


def test_the_typed_records_read_the_real_shape(sandbox: Sandbox, member: chatops.Client) -> None:
    people = {u.user_id: u for u in member.users.list()}
    human = people[sandbox.accounts["guest"].user_id]
    assert (human.bot_type, human.bot_owner_id, human.is_system_bot) == (None, None, False)
    bot = people[sandbox.accounts["bot"].user_id]
    assert (bot.bot_type, bot.bot_owner_id, bot.is_system_bot) == (
        1,
        sandbox.accounts["admin"].user_id,
        False,
    )
    me = member.users.me()
    assert me.bot_type is None and me.profile_data is not None
