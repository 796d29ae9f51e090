"""HTTP views of the events area. Event queues: ``POST /register`` (initial state and a queue), ``GET``/``DELETE /events`` (section 6)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    channel_folders,
    channels,
    group_settings,
    navigation_views,
    saved_snippets,
    scheduled_messages,
    subscriptions,
    user_topics,
    users,
)
from .. import realm as realm_mod
from ..errors import ApiError
from ..params import (
    P,
    Params,
    boolean,
    integer,
    json_value,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, Background, endpoint, host_of

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
    """The initial state of the ``POST /register`` response, without the event queue."""
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
            subscriptions.channel_record(store, s)
            for s in store.query("SELECT * FROM streams ORDER BY id")
            if channels.can_read(store, user, s)
        ],
        "custom_profile_fields": users.custom_profile_fields(store),
    }
    body.update(realm_mod.LIMITS)
    for name, value in settings.items():
        body[f"realm_{name}"] = value
    body.update(register_state(state, user))
    return body


def register_state(state: SandboxState, user: Row) -> dict[str, Any]:
    """The personal and channel blocks of the initial state."""
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


def _event_types(raw: Any) -> list[str] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ApiError("event_types is not a list", var_name="event_types")
    for i, item in enumerate(raw):
        if not isinstance(item, str):
            raise ApiError(f"event_types[{i}] is not a string", var_name="event_types")
    return raw


@endpoint(REGISTER_SPEC)
def register(request: Request, state: SandboxState, user: Row | None, p: Params) -> dict[str, Any]:
    """``POST /register``: the initial state plus a live event queue."""
    assert user is not None
    event_types = _event_types(p["event_types"])
    capabilities = p["client_capabilities"]
    if not isinstance(capabilities, dict):
        raise ApiError("client_capabilities is not a dict", var_name="client_capabilities")
    body = register_body(request, state, user, p)
    bus = state.store.events
    queue = bus.register(
        user["id"],
        event_types,
        apply_markdown=p["apply_markdown"],
        client_gravatar=p["client_gravatar"],
        all_public_streams=p["all_public_streams"],
        client_capabilities=capabilities,
    )
    body["queue_id"] = queue.queue_id
    body["last_event_id"] = queue.last_event_id
    body["event_queue_longpoll_timeout_seconds"] = int(bus.heartbeat_seconds) + 40
    body["max_message_id"] = int(
        state.store.scalar(
            "SELECT coalesce(max(message_id), -1) FROM message_flags WHERE user_id = ?",
            [user["id"]],
        )
    )
    return body


@endpoint(
    {
        "queue_id": P(required=True),
        "last_event_id": P(integer, default=None),
        "dont_block": P(boolean, default=False),
    }
)
async def get_events(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``GET /events``: the queue's events after ``last_event_id``, waiting for one if none."""
    assert user is not None
    bus = state.store.events
    queue = bus.get(p["queue_id"], user["id"])
    events = await bus.wait(queue, p["last_event_id"], dont_block=p["dont_block"])
    return {"events": events, "queue_id": queue.queue_id}


@endpoint({"queue_id": P(required=True)})
def delete_queue(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``DELETE /events``: drop a queue (a poll waiting on it gets ``BAD_EVENT_QUEUE_ID``)."""
    assert user is not None
    state.store.events.delete(p["queue_id"], user["id"])
    return {}


async def expire_queues(state: SandboxState) -> None:
    """Background job: garbage-collect queues nobody polled for ``queue_timeout`` seconds."""
    while True:
        bus = state.store.events
        await asyncio.sleep(max(0.05, min(1.0, bus.queue_timeout / 4)))
        bus.expire()


ROUTES: list[Route] = [
    Route(f"{API}/register", register, methods=["POST"]),
    Route(f"{API}/events", get_events, methods=["GET"]),
    Route(f"{API}/events", delete_queue, methods=["DELETE"]),
]


BACKGROUND: list[Background] = [expire_queues]
