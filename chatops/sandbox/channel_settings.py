"""Channel settings (spec 4.2): checking them, changing them, archiving and unarchiving.

The checks serve both a new channel (``subscriptions.subscribe`` creates it) and a change
(``update_channel``). Group-valued settings go through :mod:`group_settings`.
"""

from __future__ import annotations

import json
from typing import Any

from . import bounds, channels, group_settings
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .rendering import render
from .store import Row, Store

TOPICS_POLICIES = ("inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only")


#: the server setting WEB_PUBLIC_STREAMS_ENABLED
WEB_PUBLIC_STREAMS_ENABLED = True


def check_name(raw: Any) -> str:
    if not isinstance(raw, str):
        raise ApiError("Channel name must be a string", var_name="subscriptions")
    name: str = raw.strip()
    if not name:
        raise ApiError("Channel name can't be empty.")
    limit = realm_mod.LIMITS["max_stream_name_length"]
    if len(name) > limit:
        raise ApiError(f"Channel name too long (limit: {limit} characters).")
    for i, ch in enumerate(name):
        if not ch.isprintable():
            raise ApiError(f"Invalid character in channel name, at position {i + 1}.")
    return name


def check_description(raw: Any) -> str:
    if not isinstance(raw, str):
        raise ApiError("Channel description must be a string")
    description: str = raw.replace("\r\n", " ").replace("\n", " ")
    limit = realm_mod.LIMITS["max_stream_description_length"]
    if len(description) > limit:
        raise ApiError(f"Channel description too long (limit: {limit} characters).")
    return description


def parse_retention(value: Any) -> int | None:
    """``realm_default`` is None, ``unlimited`` is -1, else a positive number of days."""
    if value == "realm_default":
        return None
    if value == "unlimited":
        return -1
    if isinstance(value, str):
        value = bounds.digits("message_retention_days", value)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return bounds.in_range("message_retention_days", value)
    raise ApiError(f"Bad value for 'message_retention_days': {value}")


def check_retention_permission(user: Row) -> None:
    if int(user["role"]) != realm_mod.ROLE_OWNER:
        raise ApiError("Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")


def check_topics_policy(store: Store, policy: str, stream: Row | None) -> None:
    if policy not in TOPICS_POLICIES:
        raise ApiError(f"Invalid topics_policy: {policy}", var_name="topics_policy")
    if policy == "empty_topic_only" and stream is not None:
        other = store.one(
            "SELECT 1 FROM messages WHERE stream_id = ? AND topic != '' LIMIT 1", [stream["id"]]
        )
        if other is not None:
            raise ApiError(
                "To enable this configuration, all messages in this channel must be in the "
                "general chat topic. Consider renaming or deleting other topics."
            )


def check_folder(store: Store, folder_id: int | None) -> None:
    if folder_id is None:
        return
    row = store.one("SELECT is_archived FROM channel_folders WHERE id = ?", [folder_id])
    if row is None:
        raise ApiError("Invalid channel folder ID")


def check_web_public(store: Store, user: Row) -> None:
    if not WEB_PUBLIC_STREAMS_ENABLED or not realm_mod.settings(store)["enable_spectator_access"]:
        raise ApiError("Web-public channels are not enabled.")
    if not realm_mod.realm_permits(store, user, "can_create_web_public_channel_group"):
        raise ApiError("Insufficient permission")


def group_value(store: Store, name: str, value: Any) -> Any:
    return group_settings.validate(store, name, value, group_settings.CHANNEL_GROUP_SETTINGS[name])


def update_channel(
    store: Store,
    user: Row,
    stream_id: int,
    *,
    changes: dict[str, Any],
    group_updates: dict[str, tuple[Any, Any]],
) -> None:
    """``PATCH /streams/{stream_id}``: plain settings, group settings, archive and unarchive."""
    with store.atomic():
        stream = channels.access_for_administration(store, user, stream_id)
        if not changes and not group_updates:
            raise ApiError("Nothing to change")
        update: dict[str, Any] = {}
        if "is_archived" in changes:
            if changes.pop("is_archived"):
                if not stream["is_archived"]:
                    archive(store, user, stream_id)
            elif stream["is_archived"]:
                update["is_archived"] = 0
            stream = channels.get_stream(store, stream_id) or stream
        elif stream["is_archived"]:
            raise ApiError("Invalid channel ID")
        if "new_name" in changes:
            name = check_name(changes["new_name"])
            other = channels.stream_by_name(store, name)
            if other is not None and other["id"] != stream["id"]:
                raise ApiError(f"Channel '{name}' already exists")
            update["name"] = name
        if "description" in changes:
            description = check_description(changes["description"])
            update["description"] = description
            update["rendered_description"] = render(description) if description else ""
        invite_only = bool(stream["invite_only"])
        is_web_public = bool(stream["is_web_public"])
        if "is_private" in changes:
            invite_only = bool(changes["is_private"])
            if invite_only:
                is_web_public = False
        if "is_web_public" in changes:
            is_web_public = bool(changes["is_web_public"])
            if is_web_public:
                check_web_public(store, user)
                invite_only = False
        if invite_only and (stream["is_default"] or changes.get("is_default_stream")):
            raise ApiError("A default channel cannot be private.")
        update["invite_only"] = int(invite_only)
        update["is_web_public"] = int(is_web_public)
        history = changes.get(
            "history_public_to_subscribers", stream["history_public_to_subscribers"]
        )
        if not invite_only:
            history = True
        update["history_public_to_subscribers"] = int(bool(history))
        if "is_default_stream" in changes:
            if not realm_mod.is_admin(user):
                raise ApiError(
                    "Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL"
                )
            update["is_default"] = int(bool(changes["is_default_stream"]))
        if "message_retention_days" in changes:
            check_retention_permission(user)
            update["message_retention_days"] = parse_retention(changes["message_retention_days"])
        if "topics_policy" in changes:
            check_topics_policy(store, changes["topics_policy"], stream)
            update["topics_policy"] = changes["topics_policy"]
        if "folder_id" in changes:
            check_folder(store, changes["folder_id"])
            update["folder_id"] = changes["folder_id"]
        settings = json.loads(stream["settings"])
        current = channels.channel_settings(store, stream)
        for name, (new, old) in group_updates.items():
            settings[name] = group_settings.apply_update(
                store, name, current[name], new, old, group_settings.CHANNEL_GROUP_SETTINGS[name]
            )
        update["settings"] = json.dumps(settings)
        assignments = ", ".join(f"{k} = ?" for k in update)
        store.execute(
            f"UPDATE streams SET {assignments} WHERE id = ?", [*update.values(), stream["id"]]
        )
        fresh = channels.get_stream(store, stream["id"])
        assert fresh is not None
        for prop, value in update.items():
            if prop == "settings":
                continue
            if value == stream[prop]:
                continue
            _publish_update(store, fresh, prop, value)
        for name in group_updates:
            _publish_update(store, fresh, name, settings[name])
        if update.get("is_default", stream["is_default"]) != stream["is_default"]:
            _publish_default_streams(store, realm_mod.FEATURE_LEVEL)


def _publish_update(store: Store, stream: Row, prop: str, value: Any) -> None:
    names = {"invite_only": "invite_only", "is_default": "is_default"}
    viewers = [
        u["id"]
        for u in store.query("SELECT * FROM users WHERE is_active = 1")
        if channels.can_see_metadata(store, u, stream)
    ]
    event_bus(store).publish(
        {
            "type": "stream",
            "op": "update",
            "stream_id": stream["id"],
            "name": stream["name"],
            "property": names.get(prop, prop),
            "value": bool(value)
            if prop in ("invite_only", "is_web_public", "is_archived")
            else value,
        },
        viewers,
    )


def archive(store: Store, user: Row, stream_id: int) -> None:
    """``DELETE /streams/{stream_id}``: archive the channel (its history stays)."""
    with store.atomic():
        stream = channels.access_for_administration(store, user, stream_id)
        if stream["is_archived"]:
            raise ApiError("Channel is already deactivated")
        store.execute(
            "UPDATE streams SET is_archived = 1, is_default = 0 WHERE id = ?", [stream["id"]]
        )
        fresh = channels.get_stream(store, stream["id"])
        assert fresh is not None
        _publish_update(store, fresh, "is_archived", True)
        if stream["is_default"]:  # an archived channel is no longer a default one
            _publish_default_streams(store, realm_mod.FEATURE_LEVEL)


# -- default channels ---------------------------------------------------------------------------
def default_stream_ids(store: Store) -> list[int]:
    """The channels new users join (register's ``realm_default_streams`` since level 330)."""
    rows = store.query(
        "SELECT id FROM streams WHERE is_default = 1 AND is_archived = 0 ORDER BY id"
    )
    return [int(r["id"]) for r in rows]


def default_streams(store: Store, feature_level: int = realm_mod.FEATURE_LEVEL) -> list[Any]:
    """Default channels as ids, or before feature level 330 as channel records."""
    ids = default_stream_ids(store)
    if feature_level >= 330:
        return list(ids)
    return [channels.channel_record(store, _stream(store, i)) for i in ids]


def _stream(store: Store, stream_id: int) -> Row:
    stream = channels.get_stream(store, stream_id)
    assert stream is not None
    return stream


def _publish_default_streams(store: Store, feature_level: int) -> None:
    """The ``default_streams`` event goes to every active non-guest user."""
    viewers = [
        int(r["id"])
        for r in store.query(
            "SELECT id FROM users WHERE is_active = 1 AND role != ?", [realm_mod.ROLE_GUEST]
        )
    ]
    event_bus(store).publish(
        {"type": "default_streams", "default_streams": default_streams(store, feature_level)},
        viewers,
    )


def add_default_stream(
    store: Store, user: Row, stream_id: int, *, feature_level: int = realm_mod.FEATURE_LEVEL
) -> None:
    """``POST /default_streams`` (administrators): new users will join the channel."""
    with store.atomic():
        stream = channels.access_active(store, user, stream_id)
        if stream["invite_only"]:
            raise ApiError("Private channels cannot be made default.")
        if stream["is_default"]:
            return
        store.execute("UPDATE streams SET is_default = 1 WHERE id = ?", [stream["id"]])
        _publish_default_streams(store, feature_level)


def remove_default_stream(
    store: Store, user: Row, stream_id: int, *, feature_level: int = realm_mod.FEATURE_LEVEL
) -> None:
    """``DELETE /default_streams`` (administrators); metadata access is enough."""
    with store.atomic():
        stream = channels.access_active(store, user, stream_id, content=False)
        store.execute("UPDATE streams SET is_default = 0 WHERE id = ?", [stream["id"]])
        _publish_default_streams(store, feature_level)


def subscribe_to_defaults(store: Store, user_id: int) -> list[int]:
    """Subscribe a new user to the default channels; returns their ids."""
    ids = default_stream_ids(store)
    for stream_id in ids:
        channels.subscribe(store, user_id, stream_id)
    return ids
