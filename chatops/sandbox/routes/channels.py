"""HTTP handlers of the channels area. Channels: subscriptions, channel records and settings, topic preferences, channel folders (spec 4.2, 4.4, 4.6)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    channel_folders,
    channel_settings,
    channels,
    group_settings,
    message_delete,
    subscriptions,
    user_topics,
)
from .. import group_settings as gs
from ..errors import ApiError
from ..params import (
    MISSING,
    P,
    Params,
    boolean,
    choice,
    int_list,
    integer,
    json_list,
    json_value,
    loads,
    optional_integer,
    text,
)
from ..roles import NON_GUEST, REALM_ADMIN
from ..state import SandboxState
from ..store import Row
from ._http import API, base_url, endpoint
from ._http import me as _me
from ._http import path_int as _path_int
from ._http import since as _since


def _retention(name: str, raw: str) -> Any:
    if raw in ("realm_default", "unlimited"):
        return raw
    try:
        return loads(name, raw)
    except ApiError:
        raise
    except ValueError:
        return raw


def _principals(name: str, raw: str) -> list[Any]:
    return json_list(name, raw)


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
    "topics_policy": P(choice(*channel_settings.TOPICS_POLICIES), default=None),
    "folder_id": P(optional_integer, default=None),
    **{name: P(gs.parse_value) for name in group_settings.CHANNEL_GROUP_SETTINGS},
}


@endpoint(SUBSCRIBE_SPEC, role=NON_GUEST)
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
        feature_level=state.feature_level,
    )


@endpoint({"add": P(json_list, default=[]), "delete": P(json_list, default=[])})
def update_subscriptions(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    """``PATCH /users/me/subscriptions``: join and leave channels in one request."""
    return subscriptions.update_subscriptions(
        state.store, _me(user), add=p["add"], delete=p["delete"], feature_level=state.feature_level
    )


@endpoint({"topic_name": P(text, required=True)}, role=REALM_ADMIN)
def delete_topic(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    """``POST /streams/{stream_id}/delete_topic``."""
    complete = message_delete.delete_topic(
        state.store, _me(user), _path_int(request, "stream_id"), p["topic_name"]
    )
    return {"complete": complete}


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
    streams = channels.list_channels(
        state.store,
        _me(user),
        include_public=p["include_public"],
        include_web_public=p["include_web_public"],
        include_subscribed=p["include_subscribed"],
        include_all=p["include_all"] or p["include_all_active"],
        include_default=p["include_default"],
        include_archived=p["include_archived"] or not p["exclude_archived"],
    )
    return {"streams": streams}


@endpoint()
def get_stream(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    stream = channels.access_for_metadata(state.store, _me(user), _path_int(request, "stream_id"))
    return {"stream": channels.channel_record(state.store, stream)}


@endpoint()
def stream_members(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {
        "subscribers": subscriptions.members(
            state.store, _me(user), _path_int(request, "stream_id")
        )
    }


@endpoint()
def subscription_status(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    subscribed = channels.is_subscribed(
        state.store, _me(user), _path_int(request, "stream_id"), _path_int(request, "user_id")
    )
    return {"is_subscribed": subscribed}


UPDATE_STREAM_SPEC = {
    "description": P(),
    "new_name": P(),
    "is_private": P(boolean),
    "is_web_public": P(boolean),
    "history_public_to_subscribers": P(boolean),
    "is_default_stream": P(boolean),
    "message_retention_days": P(_retention),
    "topics_policy": P(choice(*channel_settings.TOPICS_POLICIES)),
    "folder_id": P(optional_integer),
    "is_archived": P(boolean),
    **{name: P(gs.parse_update) for name in group_settings.CHANNEL_GROUP_SETTINGS},
}


@endpoint(UPDATE_STREAM_SPEC)
def update_stream(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    groups = group_settings.CHANNEL_GROUP_SETTINGS
    changes = {k: v for k, v in p.items() if v is not MISSING and k not in groups}
    updates = {k: v for k, v in p.items() if v is not MISSING and k in groups}
    channel_settings.update_channel(
        state.store,
        _me(user),
        _path_int(request, "stream_id"),
        changes=changes,
        group_updates=updates,
    )
    return {}


@endpoint()
def delete_stream(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    channel_settings.archive(state.store, _me(user), _path_int(request, "stream_id"))
    return {}


@endpoint({"stream": P(required=True)})
def get_stream_id(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    stream = channels.stream_by_name(state.store, p["stream"])
    if stream is None or not channels.can_see_metadata(state.store, _me(user), stream):
        raise ApiError(
            f"Channel '{p['stream']}' does not exist",
            code="STREAM_DOES_NOT_EXIST",
            stream=p["stream"],
        )
    return {"stream_id": stream["id"]}


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


@endpoint({"name": P(required=True), "description": P(required=True)}, role=REALM_ADMIN)
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


@endpoint({"name": P(), "description": P(), "is_archived": P(boolean)}, role=REALM_ADMIN)
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


@endpoint({"order": P(int_list, required=True)}, role=REALM_ADMIN)
def reorder_folders(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    channel_folders.reorder(state.store, _me(user), p["order"])
    return {}


@endpoint({"subscription_data": P(json_value, required=True)})
def update_subscription_properties(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    subscriptions.update_properties(state.store, _me(user), p["subscription_data"])
    return {}


def _bool_or_text(name: str, raw: str) -> bool | str:
    """A JSON boolean, else the text as sent (a color)."""
    return {"true": True, "false": False}.get(raw.strip(), raw)


@endpoint({"property": P(required=True), "value": P(_bool_or_text, required=True)})
def update_subscription_property(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    """``PATCH /users/me/subscriptions/{stream_id}``: one property, the older single form."""
    change = {
        "stream_id": _path_int(request, "stream_id"),
        "property": p["property"],
        "value": p["value"],
    }
    subscriptions.update_properties(state.store, _me(user), [change])
    return {}


@endpoint({"stream_id": P(integer, required=True)}, role=REALM_ADMIN)
def add_default_stream(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    channel_settings.add_default_stream(
        state.store, _me(user), p["stream_id"], feature_level=state.feature_level
    )
    return {}


@endpoint({"stream_id": P(integer, required=True)}, role=REALM_ADMIN)
def remove_default_stream(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> Any:
    channel_settings.remove_default_stream(
        state.store, _me(user), p["stream_id"], feature_level=state.feature_level
    )
    return {}


@endpoint({"sender_id": P(optional_integer, default=None)})
def stream_email_address(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    host = urlsplit(base_url(request, state)).hostname or "localhost"
    address = channels.email_address(
        state.store,
        _me(user),
        _path_int(request, "stream_id"),
        sender_id=p["sender_id"],
        host=host,
    )
    return {"email": address}


ROUTES: list[Route] = [
    Route(f"{API}/streams", list_streams, methods=["GET"]),
    Route(f"{API}/users/me/subscriptions", subscribe, methods=["POST"]),
    Route(f"{API}/users/me/subscriptions", list_subscriptions, methods=["GET"]),
    Route(f"{API}/users/me/subscriptions", unsubscribe, methods=["DELETE"]),
    Route(f"{API}/users/me/subscriptions", update_subscriptions, methods=["PATCH"]),
    Route(f"{API}/streams/{{stream_id:int}}/delete_topic", delete_topic, methods=["POST"]),
    Route(f"{API}/get_stream_id", get_stream_id, methods=["GET"]),
    Route(f"{API}/streams/{{stream_id:int}}", get_stream, methods=["GET"]),
    Route(f"{API}/streams/{{stream_id:int}}", update_stream, methods=["PATCH"]),
    Route(f"{API}/streams/{{stream_id:int}}", delete_stream, methods=["DELETE"]),
    Route(f"{API}/streams/{{stream_id:int}}/members", stream_members, methods=["GET"]),
    Route(
        f"{API}/users/{{user_id:int}}/subscriptions/{{stream_id:int}}",
        subscription_status,
        methods=["GET"],
    ),
    Route(f"{API}/user_topics", update_user_topic, methods=["POST"]),
    Route(f"{API}/users/me/subscriptions/muted_topics", muted_topics_legacy, methods=["PATCH"]),
    Route(
        f"{API}/users/me/subscriptions/properties",
        update_subscription_properties,
        methods=["POST"],
    ),
    Route(
        f"{API}/users/me/subscriptions/{{stream_id:int}}",
        update_subscription_property,
        methods=["PATCH"],
    ),
    Route(f"{API}/default_streams", add_default_stream, methods=["POST"]),
    Route(f"{API}/default_streams", remove_default_stream, methods=["DELETE"]),
    Route(f"{API}/streams/{{stream_id:int}}/email_address", stream_email_address, methods=["GET"]),
    Route(f"{API}/channel_folders/create", create_folder, methods=["POST"]),
    Route(f"{API}/channel_folders", list_folders, methods=["GET"]),
    Route(f"{API}/channel_folders", reorder_folders, methods=["PATCH"]),
    Route(f"{API}/channel_folders/{{folder_id:int}}", update_folder, methods=["PATCH"]),
]
