"""HTTP handlers of the invitations area. Invitations: email invitations, reusable links and the join page (spec 4.8)."""

from __future__ import annotations

import html
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from .. import (
    invitations,
    users,
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
    optional_integer,
)
from ..roles import MEMBER_OR_ADMIN
from ..state import SandboxState
from ..store import Row
from ._http import API, endpoint
from ._http import base_url as _base_url
from ._http import me as _me

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


@endpoint(INVITE_SPEC, role=MEMBER_OR_ADMIN)
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
    },
    role=MEMBER_OR_ADMIN,
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


@endpoint(role=MEMBER_OR_ADMIN)
def list_invites(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return {
        "invites": invitations.list_invites(
            state.store, _me(user), base_url=_base_url(request, state)
        )
    }


@endpoint(role=MEMBER_OR_ADMIN)
def revoke_invite(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    invitations.revoke(state.store, _me(user), request.path_params["invite_id"], multiuse=False)
    return {}


@endpoint(role=MEMBER_OR_ADMIN)
def revoke_multiuse_invite(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    invitations.revoke(state.store, _me(user), request.path_params["invite_id"], multiuse=True)
    return {}


@endpoint(role=MEMBER_OR_ADMIN)
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
    values: dict[str, str] | None = None
    if request.method == "POST":
        form = await request.form()
        values = {k: v for k, v in form.items() if isinstance(v, str)}
    return await run_in_threadpool(_join, state, request.path_params["key"], values)


def _join(state: SandboxState, key: str, values: dict[str, str] | None) -> HTMLResponse:
    """The join page for ``key``: its form, or (``values`` posted) the account it creates."""
    try:
        invite = invitations.invitation_for_key(state.store, key)
    except ApiError as exc:
        return _page("Invitation link not valid", f"<p>{html.escape(exc.msg)}</p>", exc.status)
    if values is None:
        return _join_form(state, invite)
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
    row = users.get_user(state.store, user_id)
    assert row is not None
    return _page(
        "Account created",
        f"<p>Welcome, {html.escape(row['full_name'])}! Your account "
        f"<span class='email'>{html.escape(row['delivery_email'])}</span> is ready "
        f"(user ID <span class='user-id'>{user_id}</span>). Log in with your email and "
        "password, or fetch an API key with them.</p>",
    )


ROUTES: list[Route] = [
    Route(f"{API}/invites/multiuse", create_multiuse_invite, methods=["POST"]),
    Route(f"{API}/invites/multiuse/{{invite_id:int}}", revoke_multiuse_invite, methods=["DELETE"]),
    Route(f"{API}/invites", send_invites, methods=["POST"]),
    Route(f"{API}/invites", list_invites, methods=["GET"]),
    Route(f"{API}/invites/{{invite_id:int}}", revoke_invite, methods=["DELETE"]),
    Route(f"{API}/invites/{{invite_id:int}}/resend", resend_invite, methods=["POST"]),
    Route("/join/{key}/", join_page, methods=["GET", "POST"]),
]
