"""HTTP handlers of the user_groups area. User groups: list, create, change, members, subgroups, deactivate (spec 4.21)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import group_settings as gs
from .. import (
    user_groups,
)
from ..params import (
    P,
    Params,
    boolean,
    int_list,
)
from ..roles import MEMBER_OR_ADMIN, USER_GROUP_CREATE
from ..state import SandboxState
from ..store import Row
from ._http import API, endpoint
from ._http import me as _me


@endpoint({"include_deactivated_groups": P(boolean, default=False)}, role=MEMBER_OR_ADMIN)
def list_user_groups(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    return {
        "user_groups": user_groups.list_groups(
            state.store, include_deactivated_groups=p["include_deactivated_groups"]
        )
    }


@endpoint(
    {
        "name": P(required=True),
        "description": P(required=True),
        "members": P(int_list, required=True),
        "subgroups": P(int_list, default=[]),
        **{name: P(gs.parse_value) for name in gs.USER_GROUP_SETTINGS},
    },
    role=USER_GROUP_CREATE,
)
def create_user_group(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    settings = {n: p[n] for n in gs.USER_GROUP_SETTINGS if p.given(n)}
    group_id = user_groups.create_group(
        state.store,
        _me(user),
        name=p["name"],
        description=p["description"],
        members=p["members"],
        subgroups=p["subgroups"],
        settings=settings,
    )
    return {"group_id": group_id}


@endpoint(
    {
        "name": P(),
        "description": P(),
        "deactivated": P(boolean),
        **{name: P(gs.parse_update) for name in gs.USER_GROUP_SETTINGS},
    },
    role=MEMBER_OR_ADMIN,
)
def update_user_group(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_groups.update_group(
        state.store,
        _me(user),
        request.path_params["group_id"],
        name=p.optional("name"),
        description=p.optional("description"),
        deactivated=p.optional("deactivated"),
        settings={n: p[n] for n in gs.USER_GROUP_SETTINGS if p.given(n)},
    )
    return {}


@endpoint(
    {
        "add": P(int_list, default=[]),
        "delete": P(int_list, default=[]),
        "add_subgroups": P(int_list, default=[]),
        "delete_subgroups": P(int_list, default=[]),
    },
    role=MEMBER_OR_ADMIN,
)
def update_user_group_members(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_groups.update_members(
        state.store,
        _me(user),
        request.path_params["group_id"],
        add=p["add"],
        delete=p["delete"],
        add_subgroups=p["add_subgroups"],
        delete_subgroups=p["delete_subgroups"],
    )
    return {}


@endpoint({"add": P(int_list, default=[]), "delete": P(int_list, default=[])}, role=MEMBER_OR_ADMIN)
def update_user_group_subgroups(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_groups.update_subgroups(
        state.store, _me(user), request.path_params["group_id"], add=p["add"], delete=p["delete"]
    )
    return {}


@endpoint({"direct_member_only": P(boolean, default=False)}, role=MEMBER_OR_ADMIN)
def get_user_group_members(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    members = user_groups.member_ids(
        state.store, request.path_params["group_id"], direct_member_only=p["direct_member_only"]
    )
    return {"members": members}


@endpoint({"direct_member_only": P(boolean, default=False)}, role=MEMBER_OR_ADMIN)
def get_is_user_group_member(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    is_member = user_groups.is_member(
        state.store,
        request.path_params["group_id"],
        request.path_params["user_id"],
        direct_member_only=p["direct_member_only"],
    )
    return {"is_user_group_member": is_member}


@endpoint({"direct_subgroup_only": P(boolean, default=False)}, role=MEMBER_OR_ADMIN)
def get_user_group_subgroups(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    subgroups = user_groups.subgroup_ids(
        state.store,
        request.path_params["group_id"],
        direct_subgroup_only=p["direct_subgroup_only"],
    )
    return {"subgroups": subgroups}


@endpoint()
def deactivate_user_group(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_groups.deactivate_group(state.store, _me(user), request.path_params["group_id"])
    return {}


ROUTES: list[Route] = [
    Route(f"{API}/user_groups", list_user_groups, methods=["GET"]),
    Route(f"{API}/user_groups/create", create_user_group, methods=["POST"]),
    Route(f"{API}/user_groups/{{group_id:int}}", update_user_group, methods=["PATCH"]),
    Route(
        f"{API}/user_groups/{{group_id:int}}/members", update_user_group_members, methods=["POST"]
    ),
    Route(
        f"{API}/user_groups/{{group_id:int}}/subgroups",
        update_user_group_subgroups,
        methods=["POST"],
    ),
    Route(
        f"{API}/user_groups/{{group_id:int}}/deactivate", deactivate_user_group, methods=["POST"]
    ),
    Route(f"{API}/user_groups/{{group_id:int}}/members", get_user_group_members, methods=["GET"]),
    Route(
        f"{API}/user_groups/{{group_id:int}}/members/{{user_id:int}}",
        get_is_user_group_member,
        methods=["GET"],
    ),
    Route(
        f"{API}/user_groups/{{group_id:int}}/subgroups", get_user_group_subgroups, methods=["GET"]
    ),
]
