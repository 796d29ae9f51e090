"""The sandbox's HTTP application: a Starlette app built by :func:`create_app`.

Handlers parse parameters, call one domain function and return its result; the rules live in
the domain modules. Every error leaves as the API's JSON envelope.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import mimetypes
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route, Router

from . import (
    channels,
    message_edit,
    messages,
    reactions,
    topics,
    uploads,
    users,
)
from . import (
    realm as realm_mod,
)
from .errors import ApiError
from .http import (
    API,
    RateLimit,
    SandboxState,
    endpoint,
    host_of,
    json_response,
)
from .params import (
    MISSING,
    P,
    Params,
    boolean,
    choice,
    int_list,
    integer,
    json_value,
)
from .store import Row, Store

__all__ = ["RateLimit", "SandboxState", "create_app", "routes"]

# View modules of other API areas; each exposes ROUTES (a list of starlette Routes).
VIEW_MODULES: tuple[str, ...] = ("views_channels", "views_admin", "views_events")

log = logging.getLogger("chatops.sandbox")


# -- server and registration -----------------------------------------------------------------
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


REGISTER_SPEC = {
    "apply_markdown": P(boolean, default=False),
    "client_gravatar": P(boolean, default=False),
    "include_subscribers": P(json_value, default=False),
    "slim_presence": P(boolean, default=False),
    "all_public_streams": P(boolean, default=False),
    "client_capabilities": P(json_value, default={}),
    "event_types": P(json_value, default=None),
    "fetch_event_types": P(json_value, default=None),
    "narrow": P(json_value, default=[]),
    "queue_lifespan_secs": P(integer, default=0),
    "user_client": P(),
}


def register_body(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """The ``POST /register`` response; views_events adds the real event queue."""
    assert user is not None
    store = state.store
    settings = realm_mod.settings(store)
    realm = realm_mod.realm_row(store)
    base = str(request.base_url).rstrip("/")
    host = host_of(state)
    body: dict[str, Any] = {
        "queue_id": uuid.uuid4().hex,
        "last_event_id": -1,
        "zulip_version": realm_mod.ZULIP_VERSION,
        "zulip_merge_base": realm_mod.ZULIP_VERSION,
        "zulip_feature_level": state.feature_level,
        "realm_empty_topic_display_name": realm_mod.EMPTY_TOPIC_DISPLAY_NAME,
        "realm_name": realm["name"],
        "realm_url": base,
        "realm_uri": base,
        "user_id": user["id"],
        "email": users.api_email(store, user, host),
        "delivery_email": user["delivery_email"],
        "full_name": user["full_name"],
        "is_admin": realm_mod.is_admin(user),
        "is_owner": int(user["role"]) == realm_mod.ROLE_OWNER,
        "is_moderator": int(user["role"]) == realm_mod.ROLE_MODERATOR,
        "is_guest": int(user["role"]) == realm_mod.ROLE_GUEST,
        "role": user["role"],
        "server_typing_started_expiry_period_milliseconds": 45000,
        "server_typing_stopped_wait_period_milliseconds": 12000,
        "server_typing_started_wait_period_milliseconds": 30000,
        "realm_users": users.list_users(
            store, user, host=host, client_gravatar=p["client_gravatar"]
        ),
        "streams": [
            channel_record(store, s)
            for s in store.query("SELECT * FROM streams ORDER BY id")
            if channels.can_read(store, user, s)
        ],
        "custom_profile_fields": users.custom_profile_fields(store),
    }
    body.update(realm_mod.LIMITS)
    for name, value in settings.items():
        body[f"realm_{name}"] = value
    for module in _view_modules():  # each area's own initial-state blocks
        if hasattr(module, "register_state"):
            body.update(module.register_state(state, user))
    return body


register = endpoint(REGISTER_SPEC)(register_body)


def channel_record(store: Store, stream: Row) -> dict[str, Any]:
    record: dict[str, Any] = {
        "stream_id": stream["id"],
        "name": stream["name"],
        "description": stream["description"],
        "rendered_description": stream["rendered_description"],
        "date_created": stream["date_created"],
        "creator_id": stream["creator_id"],
        "invite_only": bool(stream["invite_only"]),
        "is_web_public": bool(stream["is_web_public"]),
        "history_public_to_subscribers": bool(stream["history_public_to_subscribers"]),
        "is_archived": bool(stream["is_archived"]),
        "is_default": bool(stream["is_default"]),
        "message_retention_days": stream["message_retention_days"],
        "topics_policy": stream["topics_policy"],
        "folder_id": stream["folder_id"],
        "first_message_id": store.scalar(
            "SELECT min(id) FROM messages WHERE stream_id = ?", [stream["id"]]
        ),
        "subscriber_count": len(channels.subscriber_ids(store, stream["id"])),
    }
    record.update(channels.channel_settings(store, stream))
    return record


@endpoint(
    {
        "include_public": P(boolean, default=True),
        "include_subscribed": P(boolean, default=True),
        "include_all": P(boolean, default=False),
        "include_archived": P(boolean, default=False),
        "exclude_archived": P(boolean, default=True),
        "include_all_active": P(boolean, default=False),
        "include_default": P(boolean, default=False),
        "include_owner_subscribed": P(boolean, default=False),
        "include_web_public": P(boolean, default=False),
    }
)
def list_streams(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    store = state.store
    out = []
    for s in store.query("SELECT * FROM streams ORDER BY id"):
        if s["is_archived"] and not p["include_archived"] and p["exclude_archived"]:
            continue
        if channels.can_read(store, user, s):
            out.append(channel_record(store, s))
    return {"streams": out}


# -- users -------------------------------------------------------------------------------------
@endpoint()
def users_me(request: Request, state: SandboxState, user: Row | None, p: Params) -> dict[str, Any]:
    assert user is not None
    return users.own_user(state.store, user, host=host_of(state))


USER_SPEC = {
    "client_gravatar": P(boolean, default=True),
    "include_custom_profile_fields": P(boolean, default=False),
}


@endpoint(USER_SPEC)
def get_user(request: Request, state: SandboxState, user: Row | None, p: Params) -> dict[str, Any]:
    assert user is not None
    record = users.get_user_record(
        state.store,
        user,
        request.path_params["user_id"],
        host=host_of(state),
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
            host=host_of(state),
            client_gravatar=p["client_gravatar"],
            include_custom_profile_fields=p["include_custom_profile_fields"],
            user_ids=p["user_ids"],
        )
    }


# -- messages ----------------------------------------------------------------------------------
SEND_SPEC = {
    "type": P(choice("direct", "private", "stream", "channel"), required=True),
    "to": P(required=True),
    "content": P(required=True),
    "topic": P(default=None),
    "queue_id": P(),
    "local_id": P(),
    "read_by_sender": P(boolean, default=True),
}


@endpoint(SEND_SPEC, aliases={"subject": "topic"})
def send_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    client = request.headers.get("user-agent", "API").split("/")[0] or "API"
    message_id = messages.send_message(
        state.store,
        user,
        message_type=p["type"],
        to=p["to"],
        content=p["content"],
        topic=p["topic"],
        client=client[:30],
        host=host_of(state),
        read_by_sender=p["read_by_sender"],
    )
    return {"id": message_id}


def _anchor(name: str, raw: str) -> str | int:
    if raw in ("newest", "oldest", "first_unread"):
        return raw
    try:
        return int(raw)
    except ValueError:
        raise ApiError(f"Invalid anchor: {raw}", var_name=name) from None


GET_MESSAGES_SPEC = {
    "anchor": P(_anchor, default=MISSING),
    "include_anchor": P(boolean, default=True),
    "num_before": P(integer, default=0),
    "num_after": P(integer, default=0),
    "narrow": P(json_value, default=None),
    "message_ids": P(int_list, default=None),
    "client_gravatar": P(boolean, default=True),
    "apply_markdown": P(boolean, default=True),
    "allow_empty_topic_name": P(boolean, default=False),
    "use_first_unread_anchor": P(boolean, default=False),
}


@endpoint(GET_MESSAGES_SPEC)
def get_messages(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    anchor = p["anchor"]
    if p["message_ids"] is not None and (
        anchor is not MISSING or p["num_before"] or p["num_after"]
    ):
        raise ApiError(
            "Unsupported parameter combination: num_before, num_after, anchor, message_ids"
        )
    if anchor is MISSING:
        anchor = "first_unread" if p["use_first_unread_anchor"] else "newest"
    result = messages.fetch_messages(
        state.store,
        user,
        host=host_of(state),
        anchor=anchor,
        num_before=p["num_before"],
        num_after=p["num_after"],
        include_anchor=p["include_anchor"],
        narrow=p["narrow"],
        message_ids=p["message_ids"],
        apply_markdown=p["apply_markdown"],
        client_gravatar=p["client_gravatar"],
        allow_empty_topic_name=p["allow_empty_topic_name"],
    )
    if state.feature_level < 118:
        for record in result.get("messages", []):
            _old_edit_history(record)
    return result


def _old_edit_history(record: dict[str, Any]) -> None:
    """Before feature level 118: ``prev_subject`` instead of ``prev_topic``; no ``stream``/``topic``."""
    for entry in record.get("edit_history") or []:
        if "prev_topic" in entry:
            entry["prev_subject"] = entry.pop("prev_topic")
        entry.pop("topic", None)
        entry.pop("stream", None)


@endpoint(
    {
        "apply_markdown": P(boolean, default=True),
        "allow_empty_topic_name": P(boolean, default=False),
    }
)
def get_single_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return messages.get_message(
        state.store,
        user,
        request.path_params["message_id"],
        host=host_of(state),
        apply_markdown=p["apply_markdown"],
        allow_empty_topic_name=p["allow_empty_topic_name"],
    )


@endpoint()
def delete_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    messages.delete_message(state.store, user, request.path_params["message_id"])
    return {}


EDIT_SPEC = {
    "topic": P(),
    "propagate_mode": P(choice(*message_edit.PROPAGATE_MODES), default="change_one"),
    "send_notification_to_old_thread": P(boolean, default=False),
    "send_notification_to_new_thread": P(boolean, default=True),
    "content": P(),
    "prev_content_sha256": P(),
    "stream_id": P(integer),
}


@endpoint(EDIT_SPEC, aliases={"subject": "topic"})
def edit_message(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return message_edit.edit_message(
        state.store,
        user,
        request.path_params["message_id"],
        host=host_of(state),
        topic=p["topic"],
        content=p["content"],
        stream_id=p["stream_id"],
        propagate_mode=p["propagate_mode"],
        send_notification_to_old_thread=p["send_notification_to_old_thread"],
        send_notification_to_new_thread=p["send_notification_to_new_thread"],
        prev_content_sha256=p["prev_content_sha256"],
    )


REACTION_SPEC = {"emoji_name": P(), "emoji_code": P(), "reaction_type": P()}


@endpoint({**REACTION_SPEC, "emoji_name": P(required=True)})
def add_reaction(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    reactions.add_reaction(
        state.store,
        user,
        request.path_params["message_id"],
        emoji_name=p["emoji_name"],
        emoji_code=p.optional("emoji_code"),
        reaction_type=p.optional("reaction_type"),
    )
    return {}


@endpoint(REACTION_SPEC)
def remove_reaction(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    reactions.remove_reaction(
        state.store,
        user,
        request.path_params["message_id"],
        emoji_name=p.optional("emoji_name"),
        emoji_code=p.optional("emoji_code"),
        reaction_type=p.optional("reaction_type"),
    )
    return {}


@endpoint({"allow_empty_topic_name": P(boolean, default=False)})
def stream_topics(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return {
        "topics": topics.channel_topics(
            state.store,
            user,
            request.path_params["stream_id"],
            allow_empty_topic_name=p["allow_empty_topic_name"],
        )
    }


@endpoint()
def mark_all_as_read(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    assert user is not None
    budget = float(getattr(request.app.state, "mark_read_budget", 50.0))
    result = topics.mark_all_as_read(state.store, user, budget_seconds=budget)
    if state.feature_level < 211 and not result["complete"]:
        return json_response(
            {"result": "partially_completed", "msg": "", "code": "REQUEST_TIMEOUT"}
        )
    return result


# -- uploads -----------------------------------------------------------------------------------
@endpoint()
async def upload_file(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise ApiError("You must specify a file to upload")
    form = await request.form(max_part_size=uploads.max_upload_bytes() + 1)
    files = [v for _, v in form.multi_items() if isinstance(v, UploadFile)]
    if not files:
        raise ApiError("You must specify a file to upload")
    if len(files) > 1:
        raise ApiError("You may only upload one file at a time")
    upload = files[0]
    data = await upload.read()
    result = uploads.save_upload(
        state.store,
        user,
        state.upload_dir,
        upload.filename or "uploaded-file",
        data,
        upload.content_type
        or mimetypes.guess_type(upload.filename or "")[0]
        or "application/octet-stream",
    )
    if state.feature_level < 285:  # filename added at 285
        result.pop("filename", None)
    if state.feature_level < 272:  # url added at 272 as the new name of uri
        result.pop("url", None)
    return result


def _file_response(state: SandboxState, att: Row) -> Response:
    path = state.upload_dir / att["path_id"]
    return FileResponse(
        path,
        media_type=att["content_type"],
        filename=att["name"],
        content_disposition_type="inline",
    )


@endpoint()
def api_file_url(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    path_id = f"{request.path_params['realm_id']}/{request.path_params['rest']}"
    uploads.access_file(state.store, user, path_id)
    return {"url": uploads.temporary_url(state.secret, path_id)}


@endpoint()
def serve_file(request: Request, state: SandboxState, user: Row | None, p: Params) -> Response:
    assert user is not None
    att = uploads.access_file(state.store, user, request.path_params["path_id"])
    return _file_response(state, att)


async def serve_temporary_file(request: Request) -> Response:
    state: SandboxState = request.app.state.sandbox
    path_id = request.path_params["path_id"]
    if not uploads.check_temporary(state.secret, request.path_params["token"], path_id):
        raise ApiError("Invalid or expired file link", status=403)
    att = state.store.one("SELECT * FROM attachments WHERE path_id = ?", [path_id])
    if att is None:
        raise ApiError("File not found", status=404)
    return _file_response(state, att)


@endpoint()
def list_attachments(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    return uploads.attachment_records(state.store, user)


@endpoint()
def delete_attachment(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    assert user is not None
    uploads.delete_attachment(
        state.store, user, request.path_params["attachment_id"], state.upload_dir
    )
    return {}


# -- the app -----------------------------------------------------------------------------------
def _view_modules() -> list[Any]:
    import importlib

    return [importlib.import_module(f"{__package__}.{name}") for name in VIEW_MODULES]


def routes() -> list[Route]:
    """Every route of the sandbox: the foundation's below, then each view module's."""
    extra: list[Route] = []
    for module in _view_modules():
        extra += module.ROUTES
    return extra + [
        Route(f"{API}/server_settings", server_settings, methods=["GET"]),
        Route(f"{API}/fetch_api_key", fetch_api_key, methods=["POST"]),
        Route(f"{API}/register", register, methods=["POST"]),
        Route(f"{API}/streams", list_streams, methods=["GET"]),
        Route(f"{API}/users/me", users_me, methods=["GET"]),
        Route(f"{API}/users", list_users, methods=["GET"]),
        Route(f"{API}/users/{{user_id:int}}", get_user, methods=["GET"]),
        Route(f"{API}/users/me/{{stream_id:int}}/topics", stream_topics, methods=["GET"]),
        Route(f"{API}/messages", send_message, methods=["POST"]),
        Route(f"{API}/messages", get_messages, methods=["GET"]),
        Route(f"{API}/messages/{{message_id:int}}", get_single_message, methods=["GET"]),
        Route(f"{API}/messages/{{message_id:int}}", edit_message, methods=["PATCH"]),
        Route(f"{API}/messages/{{message_id:int}}", delete_message, methods=["DELETE"]),
        Route(f"{API}/messages/{{message_id:int}}/reactions", add_reaction, methods=["POST"]),
        Route(f"{API}/messages/{{message_id:int}}/reactions", remove_reaction, methods=["DELETE"]),
        Route(f"{API}/mark_all_as_read", mark_all_as_read, methods=["POST"]),
        Route(f"{API}/user_uploads", upload_file, methods=["POST"]),
        Route(f"{API}/user_uploads/{{realm_id:int}}/{{rest:path}}", api_file_url, methods=["GET"]),
        Route(f"{API}/attachments", list_attachments, methods=["GET"]),
        Route(f"{API}/attachments/{{attachment_id:int}}", delete_attachment, methods=["DELETE"]),
        Route(
            "/user_uploads/temporary/{token}/{path_id:path}", serve_temporary_file, methods=["GET"]
        ),
        Route("/user_uploads/{path_id:path}", serve_file, methods=["GET"]),
    ]


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    body = exc.envelope()
    level = request.app.state.sandbox.feature_level
    since = _CODE_SINCE.get(body.get("code", ""))
    if since is not None and level < since:  # older servers sent the generic code
        body["code"] = "BAD_REQUEST"
    return json_response(body, status=exc.status, headers=exc.headers)


#: error codes introduced after the first feature level (spec 9)
_CODE_SINCE = {
    "REACTION_DOES_NOT_EXIST": 193,
    "STREAM_WILDCARD_MENTION_NOT_ALLOWED": 229,
    "TOPIC_WILDCARD_MENTION_NOT_ALLOWED": 229,
}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    msg = "Not found" if exc.status_code == 404 else str(exc.detail)
    return json_response(
        {"result": "error", "code": "BAD_REQUEST", "msg": msg}, status=exc.status_code
    )


async def _server_error(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error in %s %s", request.method, request.url.path)
    return json_response(
        {"result": "error", "code": "BAD_REQUEST", "msg": "Internal server error"}, status=500
    )


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    """Run the view modules' background work (``BACKGROUND``) while the app serves."""
    state: SandboxState = app.state.sandbox
    tasks = [
        asyncio.create_task(job(state), name=getattr(job, "__name__", "background"))
        for module in _view_modules()
        for job in getattr(module, "BACKGROUND", [])
    ]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _route_key(path: str) -> str | None:
    """The first three path segments when all are literal (``/api/v1/messages``), else None."""
    parts = path.split("/")[1:4]
    if len(parts) < 3 or any("{" in p for p in parts):
        return None
    return "/".join(parts)


class IndexedRouter(Router):
    """Dispatches on the first path segments to a small router of the routes that can match.

    Starlette tests routes one by one; with every API area served that is dozens of regular
    expressions per request, the largest cost of a small request.
    """

    def __init__(self, routes: list[Route], lifespan: Any) -> None:
        super().__init__(routes=routes, lifespan=lifespan)
        buckets: dict[str, list[Route]] = defaultdict(list)
        loose: list[Route] = []
        for route in routes:
            key = _route_key(route.path)
            (loose if key is None else buckets[key]).append(route)
        self._by_key = {key: Router(routes=[*bucket, *loose]) for key, bucket in buckets.items()}

    async def app(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            sub = self._by_key.get(_route_key(scope["path"]) or "")
            if sub is not None:
                scope.setdefault("router", self)
                await sub.app(scope, receive, send)
                return
        await super().app(scope, receive, send)


def create_app(state: SandboxState) -> Starlette:
    """Build the app around an existing store; nothing global, one app per sandbox."""
    app = Starlette(
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            Exception: _server_error,
        },
    )
    app.router = IndexedRouter(routes(), lifespan=_lifespan)
    app.state.sandbox = state
    return app
