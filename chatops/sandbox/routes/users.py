"""HTTP handlers of the users area. Users: the own user, user records, API keys, status, and user administration (spec 4.7)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    clock,
    custom_profile_fields,
    presence,
    user_admin,
    user_settings,
    user_status,
    users,
)
from ..errors import ApiError
from ..params import (
    P,
    Param,
    Params,
    boolean,
    int_list,
    integer,
    json_value,
    optional_integer,
    text,
)
from ..roles import REALM_ADMIN
from ..state import SandboxState
from ..store import Row
from ._http import API, endpoint
from ._http import me as _me


@endpoint({"username": P(required=True), "password": P(required=True)}, auth=False)
def fetch_api_key(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    if not state.password_auth:
        raise ApiError(
            "Password authentication is disabled in this organization",
            code="PASSWORD_AUTH_DISABLED",
            status=401,
        )
    result = users.fetch_api_key(state.store, p["username"], p["password"])
    if state.feature_level < 171:  # user_id was added at feature level 171
        result.pop("user_id", None)
    return result


@endpoint(on_loop=True)
def users_me(request: Request, state: SandboxState, user: Row | None, p: Params) -> dict[str, Any]:
    assert user is not None
    return users.own_user(state.store, user)


USER_SPEC = {
    "client_gravatar": P(boolean, default=True),
    "include_custom_profile_fields": P(boolean, default=False),
}


@endpoint(USER_SPEC, on_loop=True)
def get_user(request: Request, state: SandboxState, user: Row | None, p: Params) -> dict[str, Any]:
    assert user is not None
    record = users.get_user_record(
        state.store,
        user,
        request.path_params["user_id"],
        client_gravatar=p["client_gravatar"],
        include_custom_profile_fields=p["include_custom_profile_fields"],
    )
    return {"user": record}


@endpoint(USER_SPEC, on_loop=True)
def get_user_by_email(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``GET /users/{email}`` (feature level 39)."""
    record = users.get_user_record_by_email(
        state.store,
        _me(user),
        str(request.path_params["email"]),
        client_gravatar=p["client_gravatar"],
        include_custom_profile_fields=p["include_custom_profile_fields"],
    )
    return {"user": record}


@endpoint({**USER_SPEC, "user_ids": P(int_list, default=None)})
def list_users(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return {
        "members": users.list_users(
            state.store,
            user,
            client_gravatar=p["client_gravatar"],
            include_custom_profile_fields=p["include_custom_profile_fields"],
            user_ids=p["user_ids"],
        )
    }


STATUS_SPEC: dict[str, Param] = {
    "status_text": P(),
    "emoji_name": P(),
    "emoji_code": P(),
    "reaction_type": P(),
}


def _update_status(state: SandboxState, user: Row, target: int, p: Params) -> dict[str, Any]:
    user_status.update_status(
        state.store,
        user,
        target,
        status_text=p.optional("status_text"),
        emoji_name=p.optional("emoji_name"),
        emoji_code=p.optional("emoji_code"),
        reaction_type=p.optional("reaction_type"),
        away=p.optional("away") if "away" in p else None,
    )
    return {}


@endpoint({**STATUS_SPEC, "away": P(boolean)})
def update_own_status(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    me = _me(user)
    return _update_status(state, me, int(me["id"]), p)


@endpoint(STATUS_SPEC)
def update_user_status(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return _update_status(state, _me(user), request.path_params["user_id"], p)


@endpoint()
def get_user_status(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    return {"status": user_status.get_status(state.store, request.path_params["user_id"])}


@endpoint(
    {"email": P(required=True), "password": P(required=True), "full_name": P(required=True)},
    role=REALM_ADMIN,
)
def create_user(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_id = user_admin.create_user(
        state.store, _me(user), email=p["email"], password=p["password"], full_name=p["full_name"]
    )
    return {"user_id": user_id}


@endpoint()
def deactivate_user(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_admin.deactivate_user(state.store, _me(user), request.path_params["user_id"])
    return {}


@endpoint()
def deactivate_own_account(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``DELETE /users/me``."""
    user_admin.deactivate_own_account(state.store, _me(user))
    return {}


@endpoint()
def reactivate_user(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_admin.reactivate_user(state.store, _me(user), request.path_params["user_id"])
    return {}


@endpoint({"role": P(integer), "full_name": P(text), "profile_data": P(json_value)})
def update_user(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_admin.update_user(
        state.store,
        _me(user),
        request.path_params["user_id"],
        role=p.optional("role"),
        full_name=p.optional("full_name"),
        profile_data=p.optional("profile_data"),
    )
    return {}


@endpoint({"role": P(integer), "full_name": P(text), "profile_data": P(json_value)})
def update_user_by_email(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``PATCH /users/{email}`` (feature level 313): the user found as ``GET /users/{email}``."""
    me = _me(user)
    target = users.user_by_api_email(state.store, me, str(request.path_params["email"]))
    if target is None:
        raise ApiError("No such user")
    user_admin.update_user(
        state.store,
        me,
        int(target["id"]),
        role=p.optional("role"),
        full_name=p.optional("full_name"),
        profile_data=p.optional("profile_data"),
    )
    return {}


@endpoint({"data": P(json_value, required=True)})
def update_profile_data(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    me = _me(user)
    custom_profile_fields.update_values(state.store, me, me, p["data"])
    return {}


@endpoint({"data": P(int_list, required=True)})
def remove_profile_data(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    custom_profile_fields.remove_values(state.store, _me(user), p["data"])
    return {}


# -- own settings and presence ---------------------------------------------------------------------
def _setting_param(default: Any) -> Param:
    if isinstance(default, bool):
        return P(boolean)
    if isinstance(default, int):
        return P(integer)
    return P(text)


SETTINGS_SPEC: dict[str, Param] = {
    **{name: _setting_param(default) for name, (default, _) in user_settings.SETTINGS.items()},
    "timezone": P(text),
    "email_address_visibility": P(integer),
    "full_name": P(text),
}


@endpoint(SETTINGS_SPEC)
def update_settings(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``PATCH /settings`` (and the legacy ``/settings/display``, ``/settings/notifications``)."""
    changes = {name: p[name] for name in SETTINGS_SPEC if p.given(name)}
    return user_settings.update_settings(state.store, _me(user), changes)


@endpoint(
    {
        "status": P(required=True),
        "ping_only": P(boolean, default=False),
        "new_user_input": P(boolean, default=False),
        "slim_presence": P(boolean, default=False),
        "last_update_id": P(optional_integer, default=None),
        "history_limit_days": P(optional_integer, default=None),
    }
)
def update_presence(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return presence.update_presence(
        state.store,
        _me(user),
        status=p["status"],
        ping_only=p["ping_only"],
        slim_presence=p["slim_presence"],
        last_update_id=p["last_update_id"],
        history_limit_days=p["history_limit_days"],
    )


@endpoint({"slim_presence": P(boolean, default=False)})
def realm_presence(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    presences, _newest = presence.realm_presences(state.store, _me(user), slim=p["slim_presence"])
    return {"presences": presences, "server_timestamp": clock.now()}


@endpoint()
def user_presence(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return presence.user_presence(
        state.store, _me(user), str(request.path_params["user_id_or_email"])
    )


ROUTES: list[Route] = [
    Route(f"{API}/fetch_api_key", fetch_api_key, methods=["POST"]),
    Route(f"{API}/users/me", users_me, methods=["GET"]),
    Route(f"{API}/users/me", deactivate_own_account, methods=["DELETE"]),
    Route(f"{API}/users", list_users, methods=["GET"]),
    Route(f"{API}/users/{{user_id:int}}", get_user, methods=["GET"]),
    Route(f"{API}/users/{{email}}", get_user_by_email, methods=["GET"]),
    Route(f"{API}/users/me/status", update_own_status, methods=["POST"]),
    Route(f"{API}/users/me/profile_data", update_profile_data, methods=["PATCH"]),
    Route(f"{API}/users/me/profile_data", remove_profile_data, methods=["DELETE"]),
    Route(f"{API}/users/{{user_id:int}}/status", update_user_status, methods=["POST"]),
    Route(f"{API}/users/{{user_id:int}}/status", get_user_status, methods=["GET"]),
    Route(f"{API}/users", create_user, methods=["POST"]),
    Route(f"{API}/users/{{user_id:int}}", deactivate_user, methods=["DELETE"]),
    Route(f"{API}/users/{{user_id:int}}", update_user, methods=["PATCH"]),
    # after the integer route: a number is a user id, anything else an email
    Route(f"{API}/users/{{email}}", update_user_by_email, methods=["PATCH"]),
    Route(f"{API}/users/{{user_id:int}}/reactivate", reactivate_user, methods=["POST"]),
    Route(f"{API}/bots/{{user_id:int}}", deactivate_user, methods=["DELETE"]),
    Route(f"{API}/settings", update_settings, methods=["PATCH"]),
    Route(f"{API}/settings/display", update_settings, methods=["PATCH"]),
    Route(f"{API}/settings/notifications", update_settings, methods=["PATCH"]),
    Route(f"{API}/users/me/presence", update_presence, methods=["POST"]),
    Route(f"{API}/realm/presence", realm_presence, methods=["GET"]),
    Route(f"{API}/users/{{user_id_or_email}}/presence", user_presence, methods=["GET"]),
]
