"""HTTP views: Organization administration: invitations, linkifiers, user groups, status, push, users (spec 4.7, 4.8, 4.15, 4.20, 4.21)."""

from __future__ import annotations

import html
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from . import (
    group_settings as gs,
)
from . import (
    invitations,
    linkifiers,
    push,
    realm_settings,
    user_admin,
    user_groups,
    user_status,
)
from . import realm as realm_mod
from .errors import ApiError
from .http import API, SandboxState, endpoint, host_of
from .params import (
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
from .store import Row


def _base_url(request: Request, state: SandboxState) -> str:
    return state.base_url or str(request.base_url).rstrip("/")


def _me(user: Row | None) -> Row:
    assert user is not None
    return user


# -- user status (4.7) -------------------------------------------------------------------------
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


# -- invitations (4.8) -------------------------------------------------------------------------
INVITE_SPEC: dict[str, Param] = {
    "invite_expires_in_minutes": P(optional_integer),
    "invite_expires_in_days": P(optional_integer),
    "invite_as": P(integer, default=realm_mod.ROLE_MEMBER),
    "stream_ids": P(int_list, default=[]),
    "group_ids": P(int_list, default=[]),
    "include_realm_default_subscriptions": P(boolean, default=False),
    "welcome_message_custom_text": P(),
}


def _expiry_minutes(p: Params) -> int | None:
    if p.given("invite_expires_in_minutes"):
        value: int | None = p["invite_expires_in_minutes"]
        return value
    if p.given("invite_expires_in_days"):  # before feature level 126
        days = p["invite_expires_in_days"]
        return None if days is None else int(days) * 1440
    return invitations.DEFAULT_EXPIRY_MINUTES


@endpoint(INVITE_SPEC)
def create_multiuse_invite(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    link = invitations.create_multiuse(
        state.store,
        _me(user),
        base_url=_base_url(request, state),
        invite_expires_in_minutes=_expiry_minutes(p),
        invite_as=p["invite_as"],
        stream_ids=p["stream_ids"],
        group_ids=p["group_ids"],
        include_realm_default_subscriptions=p["include_realm_default_subscriptions"],
        welcome_message_custom_text=p.optional("welcome_message_custom_text"),
    )
    return {"invite_link": link}


@endpoint(
    {
        **INVITE_SPEC,
        "invitee_emails": P(required=True),
        "stream_ids": P(int_list, required=True),
        "notify_referrer_on_join": P(boolean, default=True),
    }
)
def send_invites(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    invitations.invite_by_email(
        state.store,
        _me(user),
        base_url=_base_url(request, state),
        invitee_emails=p["invitee_emails"],
        stream_ids=p["stream_ids"],
        invite_expires_in_minutes=_expiry_minutes(p),
        invite_as=p["invite_as"],
        group_ids=p["group_ids"],
        include_realm_default_subscriptions=p["include_realm_default_subscriptions"],
        notify_referrer_on_join=p["notify_referrer_on_join"],
        welcome_message_custom_text=p.optional("welcome_message_custom_text"),
    )
    return {}


@endpoint()
def list_invites(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return {
        "invites": invitations.list_invites(
            state.store, _me(user), base_url=_base_url(request, state)
        )
    }


@endpoint()
def revoke_invite(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    invitations.revoke(state.store, _me(user), request.path_params["invite_id"], multiuse=False)
    return {}


@endpoint()
def revoke_multiuse_invite(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    invitations.revoke(state.store, _me(user), request.path_params["invite_id"], multiuse=True)
    return {}


@endpoint()
def resend_invite(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    invitations.resend(
        state.store,
        _me(user),
        request.path_params["invite_id"],
        base_url=_base_url(request, state),
    )
    return {}


# -- the join page -------------------------------------------------------------------------------
def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title></head><body><h1>{html.escape(title)}</h1>"
        f"{body}</body></html>",
        status_code=status,
    )


def _join_form(
    state: SandboxState, invite: Row, error: str = "", status: int = 200
) -> HTMLResponse:
    realm_name = realm_mod.realm_row(state.store)["name"]
    email_field = (
        "<p><label>Email <input name='email' type='email' required></label></p>"
        if invite["is_multiuse"]
        else f"<p>Email: {html.escape(invite['email'])}</p>"
    )
    err = f"<p class='error' role='alert'>{html.escape(error)}</p>" if error else ""
    return _page(
        f"Join {realm_name}",
        f"{err}<form method='post'>{email_field}"
        "<p><label>Full name <input name='full_name' required></label></p>"
        "<p><label>Password <input name='password' type='password' required></label></p>"
        "<p><button type='submit'>Create account</button></p></form>",
        status,
    )


async def join_page(request: Request) -> HTMLResponse:
    """``GET/POST /join/<key>/``: the page an invitation link opens; posting it creates the account."""
    state: SandboxState = request.app.state.sandbox
    key = request.path_params["key"]
    try:
        invite = invitations.invitation_for_key(state.store, key)
    except ApiError as exc:
        return _page("Invitation link not valid", f"<p>{html.escape(exc.msg)}</p>", exc.status)
    if request.method == "GET":
        return _join_form(state, invite)
    form = await request.form()
    values = {k: v for k, v in form.items() if isinstance(v, str)}
    try:
        user_id = invitations.join(
            state.store,
            key,
            email=values.get("email"),
            full_name=values.get("full_name", ""),
            password=values.get("password", ""),
        )
    except ApiError as exc:
        if exc.status == 404:
            return _page("Invitation link not valid", f"<p>{html.escape(exc.msg)}</p>", 404)
        return _join_form(state, invite, exc.msg, 400)
    row = state.store.one("SELECT delivery_email, full_name FROM users WHERE id = ?", [user_id])
    assert row is not None
    return _page(
        "Account created",
        f"<p>Welcome, {html.escape(row['full_name'])}! Your account "
        f"<span class='email'>{html.escape(row['delivery_email'])}</span> is ready "
        f"(user ID <span class='user-id'>{user_id}</span>). Log in with your email and "
        "password, or fetch an API key with them.</p>",
    )


# -- linkifiers (4.15) ---------------------------------------------------------------------------
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


# -- custom emoji (read) -------------------------------------------------------------------------
@endpoint()
def list_realm_emoji(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    _me(user)
    rows = state.store.query("SELECT * FROM realm_emoji ORDER BY id")
    return {
        "emoji": {
            str(r["id"]): {
                "id": str(r["id"]),
                "name": r["name"],
                "source_url": f"/user_avatars/1/emoji/images/{r['file_name'] or r['id']}",
                "deactivated": bool(r["deactivated"]),
                "author_id": r["author_id"],
            }
            for r in rows
        }
    }


# -- user groups (4.21) --------------------------------------------------------------------------
def _group_value(name: str, raw: str) -> Any:
    return gs.parse_value(name, raw)


def _group_update(name: str, raw: str) -> tuple[Any, Any]:
    return gs.parse_update(name, raw)


@endpoint({"include_deactivated_groups": P(boolean, default=False)})
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
        **{name: P(_group_value) for name in gs.USER_GROUP_SETTINGS},
    }
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
        **{name: P(_group_update) for name in gs.USER_GROUP_SETTINGS},
    }
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
    }
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


@endpoint({"add": P(int_list, default=[]), "delete": P(int_list, default=[])})
def update_user_group_subgroups(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_groups.update_subgroups(
        state.store, _me(user), request.path_params["group_id"], add=p["add"], delete=p["delete"]
    )
    return {}


@endpoint()
def deactivate_user_group(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_groups.deactivate_group(state.store, _me(user), request.path_params["group_id"])
    return {}


# -- organization settings -----------------------------------------------------------------------
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
        **{name: P(_group_update) for name in gs.REALM_GROUP_SETTINGS},
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


# -- push (4.20) ---------------------------------------------------------------------------------
@endpoint({"token": P()})
def test_push_notification(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    push.send_test_notification(
        state.store,
        _me(user),
        token=p.optional("token"),
        base_url=_base_url(request, state),
        feature_level=state.feature_level,
    )
    return {}


def _device_views(kind: str) -> tuple[Any, Any]:
    @endpoint({"token": P(required=True), "appid": P()})
    def add_device(
        request: Request, state: SandboxState, user: Row | None, p: Params
    ) -> dict[str, Any]:
        push.register_device(
            state.store, _me(user), kind, p["token"], ios_app_id=p.optional("appid")
        )
        return {}

    @endpoint({"token": P(required=True)})
    def remove_device(
        request: Request, state: SandboxState, user: Row | None, p: Params
    ) -> dict[str, Any]:
        push.remove_device(state.store, _me(user), kind, p["token"])
        return {}

    return add_device, remove_device


add_apns, remove_apns = _device_views(push.APNS)
add_fcm, remove_fcm = _device_views(push.FCM)


# -- users ---------------------------------------------------------------------------------------
@endpoint({"email": P(required=True), "password": P(required=True), "full_name": P(required=True)})
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
def reactivate_user(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_admin.reactivate_user(state.store, _me(user), request.path_params["user_id"])
    return {}


@endpoint({"role": P(integer), "full_name": P(text)})
def update_user(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    user_admin.update_user(
        state.store,
        _me(user),
        request.path_params["user_id"],
        role=p.optional("role"),
        full_name=p.optional("full_name"),
    )
    return {}


@endpoint(
    {
        "full_name": P(required=True),
        "short_name": P(required=True),
        "bot_type": P(integer, default=1),
        "payload_url": P(),
        "interface_type": P(integer),
    }
)
def create_bot(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return user_admin.create_bot(
        state.store,
        _me(user),
        full_name=p["full_name"],
        short_name=p["short_name"],
        bot_type=p["bot_type"],
        host=host_of(state),
        payload_url=p.optional("payload_url"),
        interface_type=p.optional("interface_type", 1),
    )


ROUTES: list[Route] = [
    # user status
    Route(f"{API}/users/me/status", update_own_status, methods=["POST"]),
    Route(f"{API}/users/{{user_id:int}}/status", update_user_status, methods=["POST"]),
    Route(f"{API}/users/{{user_id:int}}/status", get_user_status, methods=["GET"]),
    # invitations and joining
    Route(f"{API}/invites/multiuse", create_multiuse_invite, methods=["POST"]),
    Route(f"{API}/invites/multiuse/{{invite_id:int}}", revoke_multiuse_invite, methods=["DELETE"]),
    Route(f"{API}/invites", send_invites, methods=["POST"]),
    Route(f"{API}/invites", list_invites, methods=["GET"]),
    Route(f"{API}/invites/{{invite_id:int}}", revoke_invite, methods=["DELETE"]),
    Route(f"{API}/invites/{{invite_id:int}}/resend", resend_invite, methods=["POST"]),
    Route("/join/{key}/", join_page, methods=["GET", "POST"]),
    # linkifiers and custom emoji
    Route(f"{API}/realm/filters", add_linkifier, methods=["POST"]),
    Route(f"{API}/realm/filters/{{filter_id:int}}", update_linkifier, methods=["PATCH"]),
    Route(f"{API}/realm/filters/{{filter_id:int}}", remove_linkifier, methods=["DELETE"]),
    Route(f"{API}/realm/linkifiers", list_linkifiers, methods=["GET"]),
    Route(f"{API}/realm/linkifiers", reorder_linkifiers, methods=["PATCH"]),
    Route(f"{API}/realm/emoji", list_realm_emoji, methods=["GET"]),
    # user groups
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
    # organization settings
    Route(f"{API}/realm", update_realm, methods=["PATCH"]),
    # push
    Route(f"{API}/mobile_push/test_notification", test_push_notification, methods=["POST"]),
    Route(f"{API}/users/me/apns_device_token", add_apns, methods=["POST"]),
    Route(f"{API}/users/me/apns_device_token", remove_apns, methods=["DELETE"]),
    Route(f"{API}/users/me/android_gcm_reg_id", add_fcm, methods=["POST"]),
    Route(f"{API}/users/me/android_gcm_reg_id", remove_fcm, methods=["DELETE"]),
    # users and bots
    Route(f"{API}/users", create_user, methods=["POST"]),
    Route(f"{API}/users/{{user_id:int}}", deactivate_user, methods=["DELETE"]),
    Route(f"{API}/users/{{user_id:int}}", update_user, methods=["PATCH"]),
    Route(f"{API}/users/{{user_id:int}}/reactivate", reactivate_user, methods=["POST"]),
    Route(f"{API}/bots", create_bot, methods=["POST"]),
    Route(f"{API}/bots/{{user_id:int}}", deactivate_user, methods=["DELETE"]),
]
