"""HTTP views of the realm area. Organization: server settings, organization settings, linkifiers, custom emoji (spec 4.15)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import group_settings as gs
from .. import (
    linkifiers,
    realm_settings,
)
from .. import realm as realm_mod
from ..errors import ApiError
from ..params import (
    P,
    Param,
    Params,
    int_list,
    json_value,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, endpoint
from ._http import me as _me


@endpoint(auth=False)
def server_settings(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    realm = realm_mod.realm_row(state.store)
    base = str(request.base_url).rstrip("/")
    return {
        "authentication_methods": {
            "password": state.password_auth,
            "dev": False,
            "email": state.password_auth,
            "ldap": False,
            "saml": False,
            "github": False,
            "google": False,
        },
        "zulip_version": realm_mod.ZULIP_VERSION,
        "zulip_merge_base": realm_mod.ZULIP_VERSION,
        "zulip_feature_level": state.feature_level,
        "push_notifications_enabled": True,
        "is_incompatible": False,
        "email_auth_enabled": state.password_auth,
        "require_email_format_usernames": True,
        "realm_url": base,
        "realm_uri": base,
        "realm_name": realm["name"],
        "realm_icon": "/static/images/logo/zulip-icon-128x128.png",
        "realm_description": realm["description"],
        "realm_web_public_access_enabled": False,
        "external_authentication_methods": [],
    }


def _template(p: Params) -> str:
    if p.given("url_template"):
        return str(p["url_template"])
    if p.given("url_format_string"):  # before feature level 176: %(name)s placeholders
        return str(p["url_format_string"]).replace("%(", "{").replace(")s", "}")
    raise ApiError(
        "Missing 'url_template' argument", code="REQUEST_VARIABLE_MISSING", var_name="url_template"
    )


LINKIFIER_SPEC: dict[str, Param] = {
    "pattern": P(required=True),
    "url_template": P(),
    "url_format_string": P(),
}


@endpoint(LINKIFIER_SPEC)
def add_linkifier(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return {"id": linkifiers.add(state.store, _me(user), p["pattern"], _template(p))}


@endpoint(LINKIFIER_SPEC)
def update_linkifier(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    linkifiers.update(
        state.store, _me(user), request.path_params["filter_id"], p["pattern"], _template(p)
    )
    return {}


@endpoint()
def remove_linkifier(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    linkifiers.remove(state.store, _me(user), request.path_params["filter_id"])
    return {}


@endpoint()
def list_linkifiers(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    return {"linkifiers": linkifiers.list_linkifiers(state.store)}


@endpoint({"ordered_linkifier_ids": P(int_list, required=True)})
def reorder_linkifiers(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    linkifiers.reorder(state.store, _me(user), p["ordered_linkifier_ids"])
    return {}


@endpoint()
def list_realm_emoji(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    return {"emoji": realm_mod.custom_emoji(state.store)}


def _json_or_text(name: str, raw: str) -> Any:
    """JSON values, or a bare word such as ``unlimited`` as the real server also accepts."""
    try:
        return json_value(name, raw)
    except ApiError:
        return raw


@endpoint(
    {
        "name": P(),
        "description": P(),
        **{name: P(_json_or_text) for name in realm_settings.PLAIN_SETTINGS},
        **{name: P(gs.parse_update) for name in gs.REALM_GROUP_SETTINGS},
    }
)
def update_realm(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    realm_settings.update_realm(
        state.store,
        _me(user),
        plain={n: p[n] for n in realm_settings.PLAIN_SETTINGS if p.given(n)},
        groups={n: p[n] for n in gs.REALM_GROUP_SETTINGS if p.given(n)},
        name=p.optional("name"),
        description=p.optional("description"),
    )
    return {}


ROUTES: list[Route] = [
    Route(f"{API}/server_settings", server_settings, methods=["GET"]),
    Route(f"{API}/realm/filters", add_linkifier, methods=["POST"]),
    Route(f"{API}/realm/filters/{{filter_id:int}}", update_linkifier, methods=["PATCH"]),
    Route(f"{API}/realm/filters/{{filter_id:int}}", remove_linkifier, methods=["DELETE"]),
    Route(f"{API}/realm/linkifiers", list_linkifiers, methods=["GET"]),
    Route(f"{API}/realm/linkifiers", reorder_linkifiers, methods=["PATCH"]),
    Route(f"{API}/realm/emoji", list_realm_emoji, methods=["GET"]),
    Route(f"{API}/realm", update_realm, methods=["PATCH"]),
]
