"""HTTP handlers of the realm area. Organization: server settings, organization settings, linkifiers, custom emoji (spec 4.15)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Route

from .. import custom_profile_fields as profile_fields
from .. import group_settings as gs
from .. import (
    linkifiers,
    realm_emoji,
    realm_export,
    realm_playgrounds,
    realm_settings,
    user_settings,
    video_calls,
)
from .. import realm as realm_mod
from ..errors import ApiError
from ..params import (
    P,
    Param,
    Params,
    boolean,
    int_list,
    integer,
    json_value,
)
from ..roles import REALM_ADMIN
from ..state import SandboxState
from ..store import Row
from ._http import API, Background, authenticate, endpoint, since
from ._http import base_url as _base_url
from ._http import me as _me
from ._http import path_int as _path_int
from .uploads import UPLOAD_CSP

log = logging.getLogger("chatops.sandbox")


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


@endpoint(LINKIFIER_SPEC, role=REALM_ADMIN)
def add_linkifier(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return {"id": linkifiers.add(state.store, _me(user), p["pattern"], _template(p))}


@endpoint(LINKIFIER_SPEC, role=REALM_ADMIN)
def update_linkifier(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    linkifiers.update(
        state.store, _me(user), request.path_params["filter_id"], p["pattern"], _template(p)
    )
    return {}


@endpoint(role=REALM_ADMIN)
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


@endpoint({"ordered_linkifier_ids": P(int_list, required=True)}, role=REALM_ADMIN)
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
    return {"emoji": realm_emoji.all_emoji(state.store)}


@endpoint()
async def upload_emoji(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    files: list[bytes] = []
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        limit = realm_emoji.MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024 + 1
        form = await request.form(max_part_size=limit)
        for _, value in form.multi_items():
            if isinstance(value, UploadFile):
                files.append(await value.read())
    return await run_in_threadpool(
        realm_emoji.upload,
        state.store,
        _me(user),
        request.path_params["emoji_name"],
        files,
        state.upload_dir,
    )


@endpoint()
def deactivate_emoji(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    realm_emoji.deactivate(
        state.store, _me(user), request.path_params["emoji_name"], feature_level=state.feature_level
    )
    return {}


async def serve_emoji(request: Request) -> Response:
    """A custom emoji's image, public as the real server's ``/user_avatars`` are."""
    state: SandboxState = request.app.state.sandbox
    path, content_type = await run_in_threadpool(
        realm_emoji.image, state.store, state.upload_dir, request.path_params["file_name"]
    )
    return FileResponse(
        path,
        media_type=content_type,
        headers={"X-Content-Type-Options": "nosniff", "Content-Security-Policy": UPLOAD_CSP},
    )


# -- custom profile fields -----------------------------------------------------------------------


@endpoint()
def list_profile_fields(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    return {"custom_fields": profile_fields.list_fields(state.store)}


FIELD_SPEC: dict[str, Param] = {
    "name": P(),
    "hint": P(),
    "field_data": P(json_value),
    "display_in_profile_summary": P(boolean),
    "required": P(boolean),
    "editable_by_user": P(boolean),
}


@endpoint({**FIELD_SPEC, "field_type": P(integer, required=True)}, role=REALM_ADMIN)
def create_profile_field(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    field_id = profile_fields.create_field(
        state.store,
        _me(user),
        field_type=p["field_type"],
        name=p.optional("name", ""),
        hint=p.optional("hint", ""),
        field_data=p.optional("field_data"),
        display_in_profile_summary=p.optional("display_in_profile_summary", False),
        required=p.optional("required", False),
        editable_by_user=p.optional("editable_by_user", True),
    )
    return {"id": field_id}


@endpoint(FIELD_SPEC, role=REALM_ADMIN)
def update_profile_field(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    profile_fields.update_field(
        state.store,
        _me(user),
        _path_int(request, "field_id"),
        name=p.optional("name"),
        hint=p.optional("hint"),
        field_data=p.optional("field_data"),
        display_in_profile_summary=p.optional("display_in_profile_summary"),
        required=p.optional("required"),
        editable_by_user=p.optional("editable_by_user"),
    )
    return {}


@endpoint({"order": P(int_list, required=True)}, role=REALM_ADMIN)
def reorder_profile_fields(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    profile_fields.reorder_fields(state.store, _me(user), p["order"])
    return {}


@endpoint(role=REALM_ADMIN)
def delete_profile_field(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    profile_fields.delete_field(state.store, _me(user), _path_int(request, "field_id"))
    return {}


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
    },
    role=REALM_ADMIN,
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


# -- organization data exports ----------------------------------------------------------------

#: ``export_type`` and the records' field of the same name are new in feature level 304.
EXPORT_TYPE_FEATURE_LEVEL = 304
#: ``GET /export/realm/consents`` is new in feature level 295.
CONSENTS_FEATURE_LEVEL = 295
#: How often the background job looks for requested exports.
EXPORT_INTERVAL_SECONDS = 0.5


def _export_records(state: SandboxState, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if state.feature_level < EXPORT_TYPE_FEATURE_LEVEL:
        for record in records:
            record.pop("export_type", None)
    return records


@endpoint({"export_type": P(integer, default=realm_export.EXPORT_PUBLIC)}, role=REALM_ADMIN)
def create_export(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    export_type = p["export_type"]
    if state.feature_level < EXPORT_TYPE_FEATURE_LEVEL:
        export_type = realm_export.EXPORT_PUBLIC  # only public exports before
    export_id = realm_export.request_export(
        state.store, _me(user), export_type, _base_url(request, state)
    )
    return {"id": export_id}


@endpoint(role=REALM_ADMIN)
def list_exports(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    records = realm_export.list_exports(state.store, _me(user))
    return {"exports": _export_records(state, records)}


@endpoint(role=REALM_ADMIN)
def export_consents(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    since(state, CONSENTS_FEATURE_LEVEL)
    return {"export_consents": realm_export.consents(state.store, _me(user))}


async def serve_export(request: Request) -> Response:
    """An export's tarball, for an administrator of the organization (HTTP Basic)."""
    state: SandboxState = request.app.state.sandbox
    user = await authenticate(request)
    params = request.path_params
    path = f"exports/{params['realm_id']}/{params['token']}/{params['file_name']}"

    def find() -> Any:
        with state.store.reading():
            return realm_export.export_file(state.store, user, path, state.upload_dir)

    file = await run_in_threadpool(find)
    return FileResponse(
        file,
        media_type="application/gzip",
        filename=params["file_name"],
        headers={"X-Content-Type-Options": "nosniff", "Content-Security-Policy": UPLOAD_CSP},
    )


async def produce_exports(state: SandboxState) -> None:
    """Write the requested organization exports in the background."""
    while True:
        try:
            await asyncio.to_thread(realm_export.produce_requested, state.store, state.upload_dir)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("organization export failed")
        await asyncio.sleep(EXPORT_INTERVAL_SECONDS)


# -- code playgrounds ---------------------------------------------------------------------------


@endpoint(
    {
        "name": P(required=True),
        "url_template": P(required=True),
        "pygments_language": P(required=True),
    },
    role=REALM_ADMIN,
)
def add_playground(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``POST /realm/playgrounds``."""
    new_id = realm_playgrounds.add(
        state.store,
        _me(user),
        name=p["name"],
        pygments_language=p["pygments_language"],
        url_template=p["url_template"],
    )
    return {"id": new_id}


@endpoint(role=REALM_ADMIN)
def remove_playground(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``DELETE /realm/playgrounds/{playground_id}``."""
    realm_playgrounds.remove(state.store, _me(user), _path_int(request, "playground_id"))
    return {}


# -- settings for new users ----------------------------------------------------------------------


def _default_param(name: str) -> Param:
    if name == "email_address_visibility":
        return P(integer)
    default = user_settings.SETTINGS[name][0]
    if isinstance(default, bool):
        return P(boolean)
    return P(integer) if isinstance(default, int) else P()


@endpoint(
    {name: _default_param(name) for name in user_settings.DEFAULTS_SETTINGS},
    role=REALM_ADMIN,
)
def update_user_settings_defaults(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``PATCH /realm/user_settings_defaults``."""
    changes = {name: p[name] for name in user_settings.DEFAULTS_SETTINGS if p.given(name)}
    user_settings.update_realm_defaults(state.store, _me(user), changes)
    return {}


# -- video calls ---------------------------------------------------------------------------------


@endpoint({"meeting_name": P(required=True), "voice_only": P(boolean, default=False)})
def create_bigbluebutton_call(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``GET /calls/bigbluebutton/create``: a signed join link (no video server is asked)."""
    url = video_calls.bigbluebutton_url(state.secret, _me(user), p["meeting_name"], p["voice_only"])
    return {"url": url}


async def join_bigbluebutton_call(request: Request) -> Response:
    """``/calls/bigbluebutton/join``: a page for logged-in browsers; the sandbox keeps no
    browser sessions, so, as the real server does without one, it redirects to the login
    page (HTTP 302) whatever credentials the request carries."""
    query = request.url.query
    full_path = request.url.path + (f"?{query}" if query else "")
    return RedirectResponse(video_calls.login_redirect(full_path), status_code=302)


ROUTES: list[Route] = [
    Route(f"{API}/server_settings", server_settings, methods=["GET"]),
    Route(f"{API}/realm/filters", add_linkifier, methods=["POST"]),
    Route(f"{API}/realm/filters/{{filter_id:int}}", update_linkifier, methods=["PATCH"]),
    Route(f"{API}/realm/filters/{{filter_id:int}}", remove_linkifier, methods=["DELETE"]),
    Route(f"{API}/realm/linkifiers", list_linkifiers, methods=["GET"]),
    Route(f"{API}/realm/linkifiers", reorder_linkifiers, methods=["PATCH"]),
    Route(f"{API}/realm/emoji", list_realm_emoji, methods=["GET"]),
    Route(f"{API}/realm/emoji/{{emoji_name}}", upload_emoji, methods=["POST"]),
    Route(f"{API}/realm/emoji/{{emoji_name}}", deactivate_emoji, methods=["DELETE"]),
    Route("/user_avatars/{realm_id:int}/emoji/images/{file_name}", serve_emoji, methods=["GET"]),
    Route(f"{API}/realm/profile_fields", list_profile_fields, methods=["GET"]),
    Route(f"{API}/realm/profile_fields", create_profile_field, methods=["POST"]),
    Route(f"{API}/realm/profile_fields", reorder_profile_fields, methods=["PATCH"]),
    Route(f"{API}/realm/profile_fields/{{field_id:int}}", update_profile_field, methods=["PATCH"]),
    Route(f"{API}/realm/profile_fields/{{field_id:int}}", delete_profile_field, methods=["DELETE"]),
    Route(f"{API}/realm", update_realm, methods=["PATCH"]),
    Route(f"{API}/export/realm", create_export, methods=["POST"]),
    Route(f"{API}/export/realm", list_exports, methods=["GET"]),
    Route(f"{API}/export/realm/consents", export_consents, methods=["GET"]),
    Route(
        "/user_avatars/exports/{realm_id:int}/{token}/{file_name}", serve_export, methods=["GET"]
    ),
    Route(f"{API}/realm/playgrounds", add_playground, methods=["POST"]),
    Route(f"{API}/realm/playgrounds/{{playground_id:int}}", remove_playground, methods=["DELETE"]),
    Route(f"{API}/realm/user_settings_defaults", update_user_settings_defaults, methods=["PATCH"]),
    Route(f"{API}/calls/bigbluebutton/create", create_bigbluebutton_call, methods=["GET"]),
    Route(video_calls.JOIN_PATH, join_bigbluebutton_call, methods=["GET"]),
]

BACKGROUND: list[Background] = [produce_exports]
