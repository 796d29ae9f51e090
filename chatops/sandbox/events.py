"""Event queues' rules (spec section 6): what ``POST /register`` answers.

The initial state gathers every area's blocks for the user; the queue comes from the event bus
(:mod:`.bus`), which the areas publish to when something changes.
"""

from __future__ import annotations

from typing import Any

from . import (
    channel_folders,
    channels,
    group_settings,
    personal,
    scheduled,
    subscriptions,
    user_topics,
    users,
)
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store


def register(
    store: Store,
    user: Row,
    *,
    event_types: Any,
    client_capabilities: Any,
    apply_markdown: bool,
    client_gravatar: bool,
    all_public_streams: bool,
    realm_url: str,
    feature_level: int,
) -> dict[str, Any]:
    """``POST /register``: the initial state plus a live event queue."""
    types = _event_types(event_types)
    if not isinstance(client_capabilities, dict):
        raise ApiError("client_capabilities is not a dict", var_name="client_capabilities")
    body = initial_state(
        store,
        user,
        realm_url=realm_url,
        feature_level=feature_level,
        client_gravatar=client_gravatar,
    )
    bus = event_bus(store)
    queue = bus.register(
        user["id"],
        types,
        apply_markdown=apply_markdown,
        client_gravatar=client_gravatar,
        all_public_streams=all_public_streams,
        client_capabilities=client_capabilities,
    )
    body["queue_id"] = queue.queue_id
    body["last_event_id"] = queue.last_event_id
    body["event_queue_longpoll_timeout_seconds"] = int(bus.heartbeat_seconds) + 40
    body["max_message_id"] = int(
        store.scalar(
            "SELECT coalesce(max(message_id), -1) FROM message_flags WHERE user_id = ?",
            [user["id"]],
        )
    )
    return body


def initial_state(
    store: Store, user: Row, *, realm_url: str, feature_level: int, client_gravatar: bool
) -> dict[str, Any]:
    """The initial state of the ``POST /register`` response, without the event queue."""
    settings = realm_mod.settings(store)
    realm = realm_mod.realm_row(store)
    base = realm_url
    body: dict[str, Any] = {
        "zulip_version": realm_mod.ZULIP_VERSION,
        "zulip_merge_base": realm_mod.ZULIP_VERSION,
        "zulip_feature_level": feature_level,
        "realm_empty_topic_display_name": realm_mod.EMPTY_TOPIC_DISPLAY_NAME,
        "realm_name": realm["name"],
        "realm_url": base,
        "realm_uri": base,
        "user_id": user["id"],
        "email": users.api_email(store, user),
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
        "realm_users": users.list_users(store, user, client_gravatar=client_gravatar),
        "streams": [
            channels.channel_record(store, s)
            for s in store.query("SELECT * FROM streams ORDER BY id")
            if channels.can_read(store, user, s)
        ],
        "custom_profile_fields": users.custom_profile_fields(store),
    }
    body.update(realm_mod.LIMITS)
    for name, value in settings.items():
        body[f"realm_{name}"] = value
    body.update(_personal_state(store, user))
    return body


def _personal_state(store: Store, user: Row) -> dict[str, Any]:
    """The personal and channel blocks of the initial state."""
    return {
        "user_topics": user_topics.policies(store, user),
        "subscriptions": subscriptions.list_subscriptions(store, user),
        "channel_folders": channel_folders.list_folders(store, include_archived=True),
        "navigation_views": personal.list_views(store, user),
        "saved_snippets": personal.list_snippets(store, user),
        "scheduled_messages": scheduled.list_scheduled(store, user),
        "reminders": scheduled.list_reminders(store, user),
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
