"""The real server's role decorators come before parameter parsing.

``@require_realm_admin``, ``@require_member_or_admin`` and ``@require_non_guest_user`` wrap
these views outside ``@typed_endpoint`` (zerver/views/*.py), so a caller without the role is
refused with the decorator's error whatever parameters they send, none included. The list is
the real server's, written out here; the sandbox's routes must declare exactly these guards.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.routing import Route

from chatops.sandbox import Sandbox
from chatops.sandbox.app import routes
from chatops.sandbox.routes._http import guard_of
from tests.conftest import group_id, realm_settings, unchanged

#: (method, path) of each guarded operation the sandbox serves -> the real view's decorator
GUARDED: dict[tuple[str, str], str] = {
    # zerver/views/realm_linkifiers.py
    ("POST", "/realm/filters"): "require_realm_admin",
    ("PATCH", "/realm/filters/{filter_id}"): "require_realm_admin",
    ("DELETE", "/realm/filters/{filter_id}"): "require_realm_admin",
    ("PATCH", "/realm/linkifiers"): "require_realm_admin",
    # zerver/views/realm_playgrounds.py
    ("POST", "/realm/playgrounds"): "require_realm_admin",
    ("POST", "/export/realm"): "require_realm_admin",
    ("GET", "/export/realm"): "require_realm_admin",
    ("GET", "/export/realm/consents"): "require_realm_admin",
    ("DELETE", "/realm/playgrounds/{playground_id}"): "require_realm_admin",
    # zerver/views/custom_profile_fields.py
    ("POST", "/realm/profile_fields"): "require_realm_admin",
    ("PATCH", "/realm/profile_fields"): "require_realm_admin",
    ("PATCH", "/realm/profile_fields/{field_id}"): "require_realm_admin",
    ("DELETE", "/realm/profile_fields/{field_id}"): "require_realm_admin",
    # zerver/views/realm.py
    ("PATCH", "/realm"): "require_realm_admin",
    ("PATCH", "/realm/user_settings_defaults"): "require_realm_admin",
    # zerver/views/streams.py
    ("POST", "/default_streams"): "require_realm_admin",
    ("DELETE", "/default_streams"): "require_realm_admin",
    ("POST", "/streams/{stream_id}/delete_topic"): "require_realm_admin",
    ("POST", "/users/me/subscriptions"): "require_non_guest_user",
    # zerver/views/channel_folders.py
    ("POST", "/channel_folders/create"): "require_realm_admin",
    ("PATCH", "/channel_folders"): "require_realm_admin",
    ("PATCH", "/channel_folders/{folder_id}"): "require_realm_admin",
    # zerver/views/users.py
    ("POST", "/users"): "require_realm_admin",
    ("POST", "/bots"): "require_member_or_admin",
    ("PATCH", "/bots/{bot_id}"): "require_member_or_admin",
    ("POST", "/bots/{bot_id}/api_key/regenerate"): "require_member_or_admin",
    # zerver/views/invite.py
    ("POST", "/invites"): "require_member_or_admin",
    ("GET", "/invites"): "require_member_or_admin",
    ("DELETE", "/invites/{invite_id}"): "require_member_or_admin",
    ("POST", "/invites/{invite_id}/resend"): "require_member_or_admin",
    ("POST", "/invites/multiuse"): "require_member_or_admin",
    ("DELETE", "/invites/multiuse/{invite_id}"): "require_member_or_admin",
    # zerver/views/user_groups.py
    ("GET", "/user_groups"): "require_member_or_admin",
    ("POST", "/user_groups/create"): "require_user_group_create_permission",
    ("PATCH", "/user_groups/{group_id}"): "require_member_or_admin",
    ("POST", "/user_groups/{group_id}/members"): "require_member_or_admin",
    ("POST", "/user_groups/{group_id}/subgroups"): "require_member_or_admin",
    ("GET", "/user_groups/{group_id}/members"): "require_member_or_admin",
    ("GET", "/user_groups/{group_id}/members/{user_id}"): "require_member_or_admin",
    ("GET", "/user_groups/{group_id}/subgroups"): "require_member_or_admin",
}

ADMINS_ONLY = {
    "result": "error",
    "msg": "Must be an organization administrator",
    "code": "UNAUTHORIZED_PRINCIPAL",
}
NO_GUESTS = {"result": "error", "msg": "Not allowed for guest users", "code": "BAD_REQUEST"}
NO_BOTS = {
    "result": "error",
    "msg": "This endpoint does not accept bot requests.",
    "code": "BAD_REQUEST",
}

#: decorator -> the demo accounts it refuses, and the answer each gets
REFUSALS: dict[str, dict[str, dict[str, str]]] = {
    "require_realm_admin": {
        "moderator": ADMINS_ONLY,
        "member": ADMINS_ONLY,
        "guest": ADMINS_ONLY,
        "bot": ADMINS_ONLY,
    },
    "require_member_or_admin": {"guest": NO_GUESTS, "bot": NO_BOTS},
    "require_non_guest_user": {"guest": NO_GUESTS},
    # require_member_or_admin first; then "Insufficient permission" without can_create_groups
    "require_user_group_create_permission": {"guest": NO_GUESTS, "bot": NO_BOTS},
}

CASES = [
    pytest.param(method, path, account, id=f"{method} {path} as {account}")
    for (method, path), decorator in GUARDED.items()
    for account in REFUSALS[decorator]
]


def _concrete(path: str) -> str:
    """The path with an id that names nothing: the role is refused before the id is looked up."""
    names = ("filter_id", "playground_id", "field_id", "stream_id", "folder_id", "bot_id")
    for name in (*names, "group_id", "user_id"):
        path = path.replace(f"{{{name}}}", "999999")
    return path.replace("{invite_id}", "999999")


def _call(sandbox: Sandbox, account: str, method: str, path: str) -> tuple[int, Any]:
    acc = sandbox.accounts[account]
    url = f"{sandbox.site}/api/v1{_concrete(path)}"
    r = httpx.request(method, url, auth=(acc.email, acc.api_key))
    return r.status_code, r.json()


@pytest.mark.parametrize(("method", "path", "account"), CASES)
def test_the_role_is_refused_before_any_parameter_is_read(
    fresh_sandbox: Sandbox, method: str, path: str, account: str
) -> None:
    expected = REFUSALS[GUARDED[method, path]][account]
    with unchanged(fresh_sandbox.store):
        assert _call(fresh_sandbox, account, method, path) == (400, expected)


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/realm/playgrounds"), ("POST", "/realm/filters"), ("POST", "/invites")],
)
def test_those_with_the_role_still_hear_of_the_missing_parameter(
    fresh_sandbox: Sandbox, method: str, path: str
) -> None:
    status, body = _call(fresh_sandbox, "admin", method, path)
    assert (status, body["code"]) == (400, "REQUEST_VARIABLE_MISSING"), body


def test_creating_a_group_without_the_setting_is_refused_before_the_parameters(
    fresh_sandbox: Sandbox,
) -> None:
    """``@require_user_group_create_permission``'s second step: ``can_create_groups``."""
    store = fresh_sandbox.store
    admins = group_id(store, "role:administrators")
    with realm_settings(store, can_create_groups=admins), unchanged(store):
        assert _call(fresh_sandbox, "member", "POST", "/user_groups/create") == (
            400,
            {"result": "error", "msg": "Insufficient permission", "code": "BAD_REQUEST"},
        )
    status, body = _call(fresh_sandbox, "member", "POST", "/user_groups/create")
    assert (status, body["code"]) == (400, "REQUEST_VARIABLE_MISSING"), body


def _declared() -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    for route in routes():
        if not isinstance(route, Route) or not route.path.startswith("/api/v1/"):
            continue
        guard = guard_of(route.endpoint)
        if guard is None:
            continue
        path = route.path.removeprefix("/api/v1").replace(":int}", "}")
        for method in route.methods or ():
            if method != "HEAD":
                out[method, path] = guard.name
    return out


def test_the_routes_declare_exactly_the_real_servers_guards() -> None:
    declared = _declared()
    assert declared == GUARDED
