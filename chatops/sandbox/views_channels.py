"""HTTP views: Channels, subscriptions, topic preferences and personal tools (spec 4.2-4.4, 4.6, 4.11-4.14, 4.16)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from . import (
    channel_folders,
    channels,
    group_settings,
    navigation_views,
    saved_snippets,
    scheduled_messages,
    subscriptions,
    typing,
    user_topics,
)
from .errors import ApiError
from .http import API, SandboxState, endpoint, host_of
from .params import (
    MISSING,
    P,
    Params,
    boolean,
    choice,
    int_list,
    integer,
    json_list,
    json_value,
    optional_integer,
)
from .store import Row

log = logging.getLogger("chatops.sandbox.scheduler")

SCHEDULER_INTERVAL_SECONDS = 0.5


def _path_int(request: Request, name: str) -> int:
    return int(request.path_params[name])


def _since(state: SandboxState, feature_level: int) -> None:
    """Endpoints newer than the feature level the sandbox reports do not exist yet."""
    if state.feature_level < feature_level:
        raise ApiError("Not found", status=404)


def _me(user: Row | None) -> Row:
    assert user is not None
    return user


def _retention(name: str, raw: str) -> Any:
    if raw in ("realm_default", "unlimited"):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _group_value(name: str, raw: str) -> Any:
    return group_settings.parse_value(name, raw)


def _group_update(name: str, raw: str) -> Any:
    return group_settings.parse_update(name, raw)


def _principals(name: str, raw: str) -> list[Any]:
    return json_list(name, raw)


# -- subscriptions and channels (4.2) -----------------------------------------------------------
SUBSCRIBE_SPEC = {
    "subscriptions": P(json_value, required=True),
    "principals": P(_principals, default=None),
    "authorization_errors_fatal": P(boolean, default=True),
    "announce": P(boolean, default=False),
    "invite_only": P(boolean, default=False),
    "is_web_public": P(boolean, default=False),
    "is_default_stream": P(boolean, default=False),
    "history_public_to_subscribers": P(boolean, default=None),
    "message_retention_days": P(_retention),
    "topics_policy": P(choice(*subscriptions.TOPICS_POLICIES), default=None),
    "folder_id": P(optional_integer, default=None),
    **{name: P(_group_value) for name in group_settings.CHANNEL_GROUP_SETTINGS},
}


@endpoint(SUBSCRIBE_SPEC)
def subscribe(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    groups = {
        name: p[name] for name in group_settings.CHANNEL_GROUP_SETTINGS if p[name] is not MISSING
    }
    return subscriptions.subscribe(
        state.store,
        _me(user),
        subscriptions=p["subscriptions"],
        principals=p["principals"],
        authorization_errors_fatal=p["authorization_errors_fatal"],
        announce=p["announce"],
        invite_only=p["invite_only"],
        is_web_public=p["is_web_public"],
        is_default_stream=p["is_default_stream"],
        history_public_to_subscribers=p["history_public_to_subscribers"],
        message_retention_days=p["message_retention_days"],
        topics_policy=p["topics_policy"],
        folder_id=p["folder_id"],
        group_values=groups,
        host=host_of(state),
        feature_level=state.feature_level,
    )


@endpoint(
    {"subscriptions": P(json_list, required=True), "principals": P(_principals, default=None)}
)
def unsubscribe(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return subscriptions.unsubscribe(
        state.store,
        _me(user),
        subscriptions=p["subscriptions"],
        principals=p["principals"],
        host=host_of(state),
        feature_level=state.feature_level,
    )


@endpoint({"include_subscribers": P(json_value, default=False)})
def list_subscriptions(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {
        "subscriptions": subscriptions.list_subscriptions(
            state.store, _me(user), include_subscribers=bool(p["include_subscribers"])
        )
    }


STREAMS_SPEC = {
    name: P(boolean, default=default)
    for name, default in (
        ("include_public", True),
        ("include_web_public", False),
        ("include_subscribed", True),
        ("include_all", False),
        ("include_all_active", False),
        ("include_default", False),
        ("include_owner_subscribed", False),
        ("include_archived", False),
        ("exclude_archived", True),
        ("include_can_access_content", False),
    )
}


@endpoint(STREAMS_SPEC)
def list_streams(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    store, me = state.store, _me(user)
    show_archived = p["include_archived"] or not p["exclude_archived"]
    out = []
    for s in store.query("SELECT * FROM streams ORDER BY id"):
        if s["is_archived"] and not show_archived:
            continue
        subscribed = channels.subscription(store, me["id"], s["id"]) is not None
        wanted = (
            (p["include_subscribed"] and subscribed)
            or (p["include_public"] and not s["invite_only"])
            or (p["include_web_public"] and s["is_web_public"])
            or (p["include_default"] and s["is_default"])
            or p["include_all"]
            or p["include_all_active"]
        )
        if wanted and subscriptions.can_see_metadata(store, me, s):
            out.append(subscriptions.channel_record(store, s))
    return {"streams": out}


@endpoint()
def get_stream(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    stream = subscriptions.access_for_metadata(
        state.store, _me(user), _path_int(request, "stream_id")
    )
    return {"stream": subscriptions.channel_record(state.store, stream)}


@endpoint()
def stream_members(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {
        "subscribers": subscriptions.members(
            state.store, _me(user), _path_int(request, "stream_id")
        )
    }


@endpoint()
def subscription_status(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    store = state.store
    stream = subscriptions.access_for_metadata(store, _me(user), _path_int(request, "stream_id"))
    target = _path_int(request, "user_id")
    if store.one("SELECT 1 FROM users WHERE id = ?", [target]) is None:
        raise ApiError("No such user")
    return {"is_subscribed": channels.subscription(store, target, stream["id"]) is not None}


UPDATE_STREAM_SPEC = {
    "description": P(),
    "new_name": P(),
    "is_private": P(boolean),
    "is_web_public": P(boolean),
    "history_public_to_subscribers": P(boolean),
    "is_default_stream": P(boolean),
    "message_retention_days": P(_retention),
    "topics_policy": P(choice(*subscriptions.TOPICS_POLICIES)),
    "folder_id": P(optional_integer),
    "is_archived": P(boolean),
    **{name: P(_group_update) for name in group_settings.CHANNEL_GROUP_SETTINGS},
}


@endpoint(UPDATE_STREAM_SPEC)
def update_stream(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    groups = group_settings.CHANNEL_GROUP_SETTINGS
    changes = {k: v for k, v in p.items() if v is not MISSING and k not in groups}
    updates = {k: v for k, v in p.items() if v is not MISSING and k in groups}
    subscriptions.update_channel(
        state.store,
        _me(user),
        _path_int(request, "stream_id"),
        changes=changes,
        group_updates=updates,
    )
    return {}


@endpoint()
def delete_stream(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    subscriptions.archive(state.store, _me(user), _path_int(request, "stream_id"))
    return {}


@endpoint({"stream": P(required=True)})
def get_stream_id(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    stream = channels.stream_by_name(state.store, p["stream"])
    if stream is None or not subscriptions.can_see_metadata(state.store, _me(user), stream):
        raise ApiError(
            f"Channel '{p['stream']}' does not exist",
            code="STREAM_DOES_NOT_EXIST",
            stream=p["stream"],
        )
    return {"stream_id": stream["id"]}


# -- topic preferences (4.4) --------------------------------------------------------------------
@endpoint(
    {
        "stream_id": P(integer, required=True),
        "topic": P(required=True),
        "visibility_policy": P(integer, required=True),
    }
)
def update_user_topic(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    _since(state, 170)
    if p["visibility_policy"] == 3 and state.feature_level < 219:
        raise ApiError("Invalid visibility_policy", var_name="visibility_policy")
    user_topics.set_policy(
        state.store,
        _me(user),
        stream_id=p["stream_id"],
        topic=p["topic"],
        visibility_policy=p["visibility_policy"],
    )
    return {}


@endpoint(
    {
        "stream_id": P(integer),
        "stream": P(),
        "topic": P(required=True),
        "op": P(choice("add", "remove"), required=True),
    }
)
def muted_topics_legacy(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    """``PATCH /users/me/subscriptions/muted_topics``, the mute/unmute path before level 170."""
    stream_id = p.optional("stream_id")
    if stream_id is None and p["stream"] is not MISSING:
        stream = channels.stream_by_name(state.store, p["stream"])
        stream_id = stream["id"] if stream is not None else -1
    if stream_id is None:
        raise ApiError("Please supply 'stream'.")
    user_topics.set_policy(
        state.store,
        _me(user),
        stream_id=stream_id,
        topic=p["topic"],
        visibility_policy=user_topics.MUTED if p["op"] == "add" else user_topics.INHERIT,
    )
    return {}


# -- channel folders (4.6) ----------------------------------------------------------------------
@endpoint({"name": P(required=True), "description": P(required=True)})
def create_folder(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    folder_id = channel_folders.create(
        state.store, _me(user), name=p["name"], description=p["description"]
    )
    return {"channel_folder_id": folder_id}


@endpoint({"include_archived": P(boolean, default=False)})
def list_folders(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {
        "channel_folders": channel_folders.list_folders(
            state.store, include_archived=p["include_archived"]
        )
    }


@endpoint({"name": P(), "description": P(), "is_archived": P(boolean)})
def update_folder(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    channel_folders.update(
        state.store,
        _me(user),
        _path_int(request, "folder_id"),
        name=p.optional("name"),
        description=p.optional("description"),
        is_archived=p.optional("is_archived"),
    )
    return {}


@endpoint({"order": P(int_list, required=True)})
def reorder_folders(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    channel_folders.reorder(state.store, _me(user), p["order"])
    return {}


# -- navigation views (4.12) --------------------------------------------------------------------
@endpoint({"fragment": P(required=True), "is_pinned": P(boolean, required=True), "name": P()})
def create_navigation_view(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    navigation_views.create(
        state.store,
        _me(user),
        fragment=p["fragment"],
        is_pinned=p["is_pinned"],
        name=p.optional("name"),
    )
    return {}


@endpoint()
def list_navigation_views(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    return {"navigation_views": navigation_views.list_views(state.store, _me(user))}


@endpoint({"is_pinned": P(boolean), "name": P()})
def update_navigation_view(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    navigation_views.update(
        state.store,
        _me(user),
        request.path_params["fragment"],
        is_pinned=p.optional("is_pinned"),
        name=p.optional("name"),
    )
    return {}


@endpoint()
def delete_navigation_view(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    navigation_views.delete(state.store, _me(user), request.path_params["fragment"])
    return {}


# -- saved snippets (4.13, 4.14) ----------------------------------------------------------------
@endpoint({"title": P(required=True), "content": P(required=True)})
def create_snippet(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    snippet_id = saved_snippets.create(
        state.store, _me(user), title=p["title"], content=p["content"]
    )
    return {"saved_snippet_id": snippet_id}


@endpoint()
def list_snippets(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"saved_snippets": saved_snippets.list_snippets(state.store, _me(user))}


@endpoint({"title": P(), "content": P()})
def update_snippet(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    saved_snippets.update(
        state.store,
        _me(user),
        _path_int(request, "snippet_id"),
        title=p.optional("title"),
        content=p.optional("content"),
    )
    return {}


@endpoint()
def delete_snippet(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    saved_snippets.delete(state.store, _me(user), _path_int(request, "snippet_id"))
    return {}


# -- scheduled messages (4.3) and reminders (4.16) ----------------------------------------------
MESSAGE_TYPES = ("direct", "private", "stream", "channel")


@endpoint(
    {
        "type": P(choice(*MESSAGE_TYPES), required=True),
        "to": P(json_value, required=True),
        "content": P(required=True),
        "topic": P(),
        "scheduled_delivery_timestamp": P(integer, required=True),
        "read_by_sender": P(boolean),
    },
    aliases={"subject": "topic"},
)
def create_scheduled(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    new_id = scheduled_messages.create(
        state.store,
        _me(user),
        message_type=p["type"],
        to=p["to"],
        content=p["content"],
        topic=p.optional("topic"),
        scheduled_delivery_timestamp=p["scheduled_delivery_timestamp"],
    )
    return {"scheduled_message_id": new_id}


@endpoint()
def list_scheduled(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"scheduled_messages": scheduled_messages.list_scheduled(state.store, _me(user))}


@endpoint(
    {
        "type": P(choice(*MESSAGE_TYPES)),
        "to": P(json_value),
        "content": P(),
        "topic": P(),
        "scheduled_delivery_timestamp": P(integer),
    },
    aliases={"subject": "topic"},
)
def update_scheduled(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    scheduled_messages.update(
        state.store,
        _me(user),
        _path_int(request, "scheduled_id"),
        message_type=p.optional("type"),
        to=p.optional("to"),
        content=p.optional("content"),
        topic=p.optional("topic"),
        scheduled_delivery_timestamp=p.optional("scheduled_delivery_timestamp"),
    )
    return {}


@endpoint()
def delete_scheduled(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    scheduled_messages.delete(state.store, _me(user), _path_int(request, "scheduled_id"))
    return {}


@endpoint(
    {
        "message_id": P(integer, required=True),
        "scheduled_delivery_timestamp": P(integer, required=True),
        "note": P(),
    }
)
def create_reminder(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    new_id = scheduled_messages.create_reminder(
        state.store,
        _me(user),
        message_id=p["message_id"],
        scheduled_delivery_timestamp=p["scheduled_delivery_timestamp"],
        note=p.optional("note"),
        base_url=state.base_url or str(request.base_url),
    )
    return {"reminder_id": new_id}


@endpoint()
def list_reminders(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"reminders": scheduled_messages.list_reminders(state.store, _me(user))}


@endpoint()
def delete_reminder(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    scheduled_messages.delete(
        state.store, _me(user), _path_int(request, "reminder_id"), scheduled_messages.REMIND
    )
    return {}


# -- typing (4.11 and the general endpoint) -----------------------------------------------------
@endpoint(
    {
        "type": P(choice("direct", "private", "stream", "channel"), default="direct"),
        "op": P(required=True),
        "to": P(json_value, default=None),
        "stream_id": P(integer, default=None),
        "topic": P(default=None),
    }
)
def set_typing(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    to = p["to"]
    stream_id = p["stream_id"]
    if p["type"] in ("stream", "channel") and stream_id is None and to is not None:
        # before feature level 248 the channel went in ``to``
        to_list = to if isinstance(to, list) else [to]
        if len(to_list) == 1 and isinstance(to_list[0], int):
            stream_id = to_list[0]
    typing.send_typing(
        state.store,
        _me(user),
        op=p["op"],
        message_type=p["type"],
        to=to,
        stream_id=stream_id,
        topic=p["topic"],
        host=host_of(state),
    )
    return {}


@endpoint({"op": P(required=True)})
def set_edit_typing(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    _since(state, 361)
    typing.send_edit_typing(state.store, _me(user), _path_int(request, "message_id"), op=p["op"])
    return {}


@endpoint({"op": P(required=True), "message_id": P(integer, required=True)})
def set_edit_typing_legacy(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    """The path before feature level 361, ``message_id`` in the body."""
    typing.send_edit_typing(state.store, _me(user), p["message_id"], op=p["op"])
    return {}


# -- the scheduler ------------------------------------------------------------------------------
async def deliver_scheduled(state: SandboxState) -> None:
    """Deliver scheduled messages and reminders at their time, every half second."""
    while True:
        try:
            await asyncio.to_thread(
                scheduled_messages.deliver_due, state.store, host=host_of(state)
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("scheduled delivery failed")
        await asyncio.sleep(SCHEDULER_INTERVAL_SECONDS)


BACKGROUND: list[Callable[[SandboxState], Awaitable[None]]] = [deliver_scheduled]

S = f"{API}/streams/{{stream_id:int}}"
ROUTES: list[Route] = [
    Route(f"{API}/users/me/subscriptions", subscribe, methods=["POST"]),
    Route(f"{API}/users/me/subscriptions", list_subscriptions, methods=["GET"]),
    Route(f"{API}/users/me/subscriptions", unsubscribe, methods=["DELETE"]),
    Route(f"{API}/streams", list_streams, methods=["GET"]),
    Route(f"{API}/get_stream_id", get_stream_id, methods=["GET"]),
    Route(S, get_stream, methods=["GET"]),
    Route(S, update_stream, methods=["PATCH"]),
    Route(S, delete_stream, methods=["DELETE"]),
    Route(f"{S}/members", stream_members, methods=["GET"]),
    Route(
        f"{API}/users/{{user_id:int}}/subscriptions/{{stream_id:int}}",
        subscription_status,
        methods=["GET"],
    ),
    Route(f"{API}/user_topics", update_user_topic, methods=["POST"]),
    Route(f"{API}/users/me/subscriptions/muted_topics", muted_topics_legacy, methods=["PATCH"]),
    Route(f"{API}/channel_folders/create", create_folder, methods=["POST"]),
    Route(f"{API}/channel_folders", list_folders, methods=["GET"]),
    Route(f"{API}/channel_folders", reorder_folders, methods=["PATCH"]),
    Route(f"{API}/channel_folders/{{folder_id:int}}", update_folder, methods=["PATCH"]),
    Route(f"{API}/navigation_views", create_navigation_view, methods=["POST"]),
    Route(f"{API}/navigation_views", list_navigation_views, methods=["GET"]),
    Route(f"{API}/navigation_views/{{fragment:path}}", update_navigation_view, methods=["PATCH"]),
    Route(f"{API}/navigation_views/{{fragment:path}}", delete_navigation_view, methods=["DELETE"]),
    Route(f"{API}/saved_snippets", create_snippet, methods=["POST"]),
    Route(f"{API}/saved_snippets", list_snippets, methods=["GET"]),
    Route(f"{API}/saved_snippets/{{snippet_id:int}}", update_snippet, methods=["PATCH"]),
    Route(f"{API}/saved_snippets/{{snippet_id:int}}", delete_snippet, methods=["DELETE"]),
    Route(f"{API}/scheduled_messages", create_scheduled, methods=["POST"]),
    Route(f"{API}/scheduled_messages", list_scheduled, methods=["GET"]),
    Route(f"{API}/scheduled_messages/{{scheduled_id:int}}", update_scheduled, methods=["PATCH"]),
    Route(f"{API}/scheduled_messages/{{scheduled_id:int}}", delete_scheduled, methods=["DELETE"]),
    Route(f"{API}/reminders", create_reminder, methods=["POST"]),
    Route(f"{API}/reminders", list_reminders, methods=["GET"]),
    Route(f"{API}/reminders/{{reminder_id:int}}", delete_reminder, methods=["DELETE"]),
    Route(f"{API}/typing", set_typing, methods=["POST"]),
    Route(f"{API}/messages/{{message_id:int}}/typing", set_edit_typing, methods=["POST"]),
    Route(f"{API}/message_edit_typing", set_edit_typing_legacy, methods=["POST"]),
]


def register_state(state: SandboxState, user: Row) -> dict[str, Any]:
    """This area's blocks of the ``POST /register`` response."""
    store = state.store
    return {
        "user_topics": user_topics.policies(store, user),
        "subscriptions": subscriptions.list_subscriptions(store, user),
        "channel_folders": channel_folders.list_folders(store, include_archived=True),
        "navigation_views": navigation_views.list_views(store, user),
        "saved_snippets": saved_snippets.list_snippets(store, user),
        "scheduled_messages": scheduled_messages.list_scheduled(store, user),
        "reminders": scheduled_messages.list_reminders(store, user),
        "server_supported_permission_settings": {
            "realm": {k: v.to_api() for k, v in group_settings.REALM_GROUP_SETTINGS.items()},
            "stream": {k: v.to_api() for k, v in group_settings.CHANNEL_GROUP_SETTINGS.items()},
            "group": {k: v.to_api() for k, v in group_settings.USER_GROUP_SETTINGS.items()},
        },
    }
