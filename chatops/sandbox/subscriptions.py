"""Subscribing, unsubscribing and the channel records and settings around them (spec 4.2).

``subscribe`` creates the named channels that do not exist yet with the initial settings of
spec 4.2, then subscribes every principal; ``update_channel`` changes settings, archives and
unarchives. Group-valued settings go through :mod:`group_settings`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from . import channels, group_settings, messages, users
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .rendering import render
from .store import Row, Store

MISSING: Any = group_settings.MISSING
TOPICS_POLICIES = ("inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only")
#: the server setting WEB_PUBLIC_STREAMS_ENABLED
WEB_PUBLIC_STREAMS_ENABLED = True
NEW_CHANNELS_TOPIC = "new channels"
SUBSCRIPTION_DEFAULTS: dict[str, Any] = {
    "pin_to_top": False,
    "desktop_notifications": None,
    "audible_notifications": None,
    "push_notifications": None,
    "email_notifications": None,
    "wildcard_mentions_notify": None,
}


# -- records ------------------------------------------------------------------------------------
def channel_record(store: Store, stream: Row) -> dict[str, Any]:
    """The channel record of ``GET /streams`` and ``GET /streams/{id}`` (facts 3.7)."""
    retention = stream["message_retention_days"]
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
        "message_retention_days": retention,
        "topics_policy": stream["topics_policy"],
        "folder_id": stream["folder_id"],
        "first_message_id": store.scalar(
            "SELECT min(id) FROM messages WHERE stream_id = ?", [stream["id"]]
        ),
        "is_recently_active": bool(
            store.scalar(
                "SELECT 1 FROM messages WHERE stream_id = ? AND timestamp > ? LIMIT 1",
                [stream["id"], int(time.time()) - 7 * 86400],
            )
        ),
        "stream_weekly_traffic": None,
        "stream_post_policy": 1,
        "is_announcement_only": False,
        "subscriber_count": len(channels.subscriber_ids(store, stream["id"])),
    }
    record.update(channels.channel_settings(store, stream))
    return record


def subscription_record(
    store: Store, sub: Row, stream: Row, *, include_subscribers: bool = False
) -> dict[str, Any]:
    record = channel_record(store, stream)
    record.update(SUBSCRIPTION_DEFAULTS)
    record.update(
        {
            "color": sub["color"],
            "is_muted": bool(sub["is_muted"]),
            "in_home_view": not sub["is_muted"],
        }
    )
    if include_subscribers:
        record["subscribers"] = channels.subscriber_ids(store, stream["id"])
    return record


# -- access -------------------------------------------------------------------------------------
def _settings(store: Store, stream: Row) -> dict[str, Any]:
    return channels.channel_settings(store, stream)


def can_administer(store: Store, user: Row, stream: Row) -> bool:
    if realm_mod.is_admin(user):
        return True
    return realm_mod.user_has_setting(
        store, user, _settings(store, stream)["can_administer_channel_group"]
    )


def can_see_metadata(store: Store, user: Row, stream: Row) -> bool:
    """Whether the user may see the channel exists (its record, its subscribers)."""
    return channels.can_read(store, user, stream) or can_administer(store, user, stream)


def list_channels(
    store: Store,
    user: Row,
    *,
    include_public: bool,
    include_web_public: bool,
    include_subscribed: bool,
    include_all: bool,
    include_default: bool,
    include_archived: bool,
) -> list[dict[str, Any]]:
    """``GET /streams``: the records of the channels asked for that the user may see."""
    out = []
    for s in store.query("SELECT * FROM streams ORDER BY id"):
        if s["is_archived"] and not include_archived:
            continue
        subscribed = channels.subscription(store, user["id"], s["id"]) is not None
        wanted = (
            (include_subscribed and subscribed)
            or (include_public and not s["invite_only"])
            or (include_web_public and s["is_web_public"])
            or (include_default and s["is_default"])
            or include_all
        )
        if wanted and can_see_metadata(store, user, s):
            out.append(channel_record(store, s))
    return out


def is_subscribed(store: Store, user: Row, stream_id: int, target_id: int) -> bool:
    """Whether user ``target_id`` is subscribed to a channel ``user`` may see."""
    stream = access_for_metadata(store, user, stream_id)
    if store.one("SELECT 1 FROM users WHERE id = ?", [target_id]) is None:
        raise ApiError("No such user")
    return channels.subscription(store, target_id, stream["id"]) is not None


def access_for_metadata(store: Store, user: Row, stream_id: int) -> Row:
    stream = channels.get_stream(store, stream_id)
    if stream is None or not can_see_metadata(store, user, stream):
        raise ApiError("Invalid channel ID")
    return stream


def access_for_administration(store: Store, user: Row, stream_id: int) -> Row:
    stream = access_for_metadata(store, user, stream_id)
    if not can_administer(store, user, stream):
        raise ApiError(
            "You do not have permission to administer this channel.",
            code="CANNOT_ADMINISTER_CHANNEL",
        )
    return stream


def _may_subscribe_self(store: Store, user: Row, stream: Row) -> bool:
    if channels.subscription(store, user["id"], stream["id"]) is not None:
        return True
    if not stream["invite_only"] and int(user["role"]) != realm_mod.ROLE_GUEST:
        return True
    if stream["is_web_public"] and not stream["invite_only"]:
        return int(user["role"]) != realm_mod.ROLE_GUEST
    settings = _settings(store, stream)
    return can_administer(store, user, stream) or any(
        realm_mod.user_has_setting(store, user, settings[name])
        for name in ("can_subscribe_group", "can_add_subscribers_group")
    )


def _may_add_others(store: Store, user: Row, stream: Row) -> bool:
    if can_administer(store, user, stream):
        return True
    if realm_mod.user_has_setting(
        store, user, _settings(store, stream)["can_add_subscribers_group"]
    ):
        return True
    if stream["invite_only"] and channels.subscription(store, user["id"], stream["id"]) is None:
        return False
    return realm_mod.realm_permits(store, user, "can_add_subscribers_group")


def _may_remove_others(store: Store, user: Row, stream: Row) -> bool:
    if can_administer(store, user, stream):
        return True
    return realm_mod.user_has_setting(
        store, user, _settings(store, stream)["can_remove_subscribers_group"]
    )


# -- principals ---------------------------------------------------------------------------------
def resolve_principals(
    store: Store, principals: Sequence[Any] | None, user: Row, feature_level: int
) -> list[Row]:
    """The users named by ids or API emails; a missing or deactivated one is refused."""
    if principals is None:
        return [user]
    out: list[Row] = []
    for ref in principals:
        target: Row | None = None
        if isinstance(ref, int) and not isinstance(ref, bool):
            if feature_level < 9:
                raise ApiError("principals is not a list of emails", var_name="principals")
            target = users.get_user(store, ref)
        elif isinstance(ref, str):
            target = users.user_by_email(store, ref.strip())
        else:
            raise ApiError("principals is not a list of user ids or emails", var_name="principals")
        if target is None or not target["is_active"]:
            if feature_level < 208:
                raise ApiError("No such user", code="UNAUTHORIZED_PRINCIPAL", status=403)
            raise ApiError("No such user")
        if target["id"] not in {u["id"] for u in out}:
            out.append(target)
    return out


# -- channel settings ---------------------------------------------------------------------------
def _check_name(raw: Any) -> str:
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


def _check_description(raw: Any) -> str:
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
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise ApiError(f"Bad value for 'message_retention_days': {value}")


def _check_retention_permission(user: Row) -> None:
    if int(user["role"]) != realm_mod.ROLE_OWNER:
        raise ApiError("Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")


def _check_topics_policy(store: Store, policy: str, stream: Row | None) -> None:
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


def _check_folder(store: Store, folder_id: int | None) -> None:
    if folder_id is None:
        return
    row = store.one("SELECT is_archived FROM channel_folders WHERE id = ?", [folder_id])
    if row is None:
        raise ApiError("Invalid channel folder ID")


def _check_web_public(store: Store, user: Row) -> None:
    if not WEB_PUBLIC_STREAMS_ENABLED or not realm_mod.settings(store)["enable_spectator_access"]:
        raise ApiError("Web-public channels are not enabled.")
    if not realm_mod.realm_permits(store, user, "can_create_web_public_channel_group"):
        raise ApiError("Insufficient permission")


def _group_value(store: Store, name: str, value: Any) -> Any:
    return group_settings.validate(store, name, value, group_settings.CHANNEL_GROUP_SETTINGS[name])


# -- subscribe ----------------------------------------------------------------------------------
def subscribe(
    store: Store,
    user: Row,
    *,
    subscriptions: Any,
    principals: Sequence[Any] | None = None,
    authorization_errors_fatal: bool = True,
    announce: bool = False,
    invite_only: bool = False,
    is_web_public: bool = False,
    is_default_stream: bool = False,
    history_public_to_subscribers: bool | None = None,
    message_retention_days: Any = MISSING,
    topics_policy: str | None = None,
    folder_id: int | None = None,
    group_values: dict[str, Any] | None = None,
    feature_level: int = realm_mod.FEATURE_LEVEL,
) -> dict[str, Any]:
    """Spec 4.2: create the channels that do not exist, then subscribe the principals."""
    if not isinstance(subscriptions, list) or not subscriptions:
        raise ApiError("subscriptions is not a non-empty list", var_name="subscriptions")
    wanted: list[tuple[str, str]] = []
    for item in subscriptions:
        if not isinstance(item, dict) or "name" not in item:
            raise ApiError("subscriptions[] is missing a name", var_name="subscriptions")
        name = _check_name(item["name"])
        description = _check_description(item.get("description", ""))
        if name.lower() not in {n.lower() for n, _ in wanted}:
            wanted.append((name, description))
    targets = resolve_principals(store, principals, user, feature_level)
    others = [t for t in targets if t["id"] != user["id"]]
    group_values = dict(group_values or {})

    with store.atomic():
        created: list[Row] = []
        chosen: list[Row] = []
        unauthorized: list[str] = []
        for name, description in wanted:
            stream = channels.stream_by_name(store, name)
            if stream is None:
                stream = _create(
                    store,
                    user,
                    name=name,
                    description=description,
                    invite_only=invite_only,
                    is_web_public=is_web_public,
                    is_default_stream=is_default_stream,
                    history_public_to_subscribers=history_public_to_subscribers,
                    message_retention_days=message_retention_days,
                    topics_policy=topics_policy,
                    folder_id=folder_id,
                    group_values=group_values,
                )
                created.append(stream)
                chosen.append(stream)
                continue
            archived_refused = stream["is_archived"] and feature_level < 362
            if archived_refused or not _may_subscribe_self(store, user, stream):
                if authorization_errors_fatal:
                    raise ApiError(f"Unable to access channel ({stream['name']}).")
                unauthorized.append(stream["name"])
                continue
            chosen.append(stream)
        if others:
            for stream in chosen:
                if stream in created:
                    continue
                if not _may_add_others(store, user, stream):
                    raise ApiError("Insufficient permission")
            if created and not realm_mod.realm_permits(store, user, "can_add_subscribers_group"):
                if not realm_mod.is_admin(user):
                    raise ApiError("Insufficient permission")
        subscribed: dict[str, list[str]] = {}
        already: dict[str, list[str]] = {}
        for target in targets:
            key = str(target["id"]) if feature_level >= 289 else users.api_email(store, target)
            for stream in chosen:
                if channels.subscribe(store, target["id"], stream["id"]):
                    subscribed.setdefault(key, []).append(stream["name"])
                    _announce_subscription(store, target, stream)
                else:
                    already.setdefault(key, []).append(stream["name"])
        for stream in created:
            fresh = channels.get_stream(store, stream["id"])
            assert fresh is not None
            record = channel_record(store, fresh)
            viewers = [
                u["id"]
                for u in store.query("SELECT * FROM users WHERE is_active = 1")
                if can_see_metadata(store, u, fresh)
            ]
            event_bus(store).publish(
                {"type": "stream", "op": "create", "streams": [record]}, viewers
            )
            if announce:
                _announce_new_channel(store, user, fresh)
    result: dict[str, Any] = {"subscribed": subscribed, "already_subscribed": already}
    if not authorization_errors_fatal:
        result["unauthorized"] = unauthorized
    return result


def _create(
    store: Store,
    user: Row,
    *,
    name: str,
    description: str,
    invite_only: bool,
    is_web_public: bool,
    is_default_stream: bool,
    history_public_to_subscribers: bool | None,
    message_retention_days: Any,
    topics_policy: str | None,
    folder_id: int | None,
    group_values: dict[str, Any],
) -> Row:
    if is_web_public:
        _check_web_public(store, user)
    elif invite_only:
        if not realm_mod.realm_permits(store, user, "can_create_private_channel_group"):
            raise ApiError("Insufficient permission")
    elif not realm_mod.realm_permits(store, user, "can_create_public_channel_group"):
        raise ApiError("Insufficient permission")
    if is_default_stream:
        if not realm_mod.is_admin(user):
            raise ApiError("Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")
        if invite_only:
            raise ApiError("A default channel cannot be private.")
    retention: int | None = None
    if message_retention_days is not MISSING:
        _check_retention_permission(user)
        retention = parse_retention(message_retention_days)
    if topics_policy is not None:
        _check_topics_policy(store, topics_policy, None)
    _check_folder(store, folder_id)
    settings: dict[str, Any] = {
        "can_administer_channel_group": {"direct_members": [user["id"]], "direct_subgroups": []}
    }
    for setting, value in group_values.items():
        settings[setting] = _group_value(store, setting, value)
    history = history_public_to_subscribers
    if is_web_public or not invite_only:
        history = True
    stream_id = channels.create_stream(
        store,
        name=name,
        description=description,
        invite_only=invite_only and not is_web_public,
        history_public_to_subscribers=history if history is not None else not invite_only,
        creator_id=user["id"],
        date_created=int(time.time()),
        is_default=is_default_stream,
        is_web_public=is_web_public,
        settings=settings,
    )
    store.execute(
        "UPDATE streams SET message_retention_days = ?, topics_policy = ?, folder_id = ?, "
        "history_public_to_subscribers = ? WHERE id = ?",
        [
            retention,
            topics_policy or "inherit",
            folder_id,
            int(history if history is not None else not invite_only),
            stream_id,
        ],
    )
    stream = channels.get_stream(store, stream_id)
    assert stream is not None
    return stream


def _announce_subscription(store: Store, target: Row, stream: Row) -> None:
    sub = channels.subscription(store, target["id"], stream["id"])
    if sub is None:
        return
    record = subscription_record(store, sub, stream)
    event_bus(store).publish(
        {"type": "subscription", "op": "add", "subscriptions": [record]}, [target["id"]]
    )
    peers = [u for u in channels.subscriber_ids(store, stream["id"]) if u != target["id"]]
    event_bus(store).publish(
        {
            "type": "subscription",
            "op": "peer_add",
            "stream_ids": [stream["id"]],
            "user_ids": [target["id"]],
        },
        peers,
    )


def _announce_new_channel(store: Store, creator: Row, stream: Row) -> None:
    """The notification bot's message in the new-channel announcements channel."""
    settings = realm_mod.settings(store)
    target_id = settings.get("new_stream_announcements_stream_id")
    target = channels.get_stream(store, target_id) if isinstance(target_id, int) else None
    if target is None:
        target = store.one(
            "SELECT * FROM streams WHERE is_archived = 0 AND invite_only = 0 "
            "ORDER BY is_default DESC, id LIMIT 1"
        )
    if target is None or target["id"] == stream["id"] and stream["invite_only"]:
        return
    if stream["invite_only"]:
        return
    messages.send_message(
        store,
        users.notification_bot(store),
        message_type="stream",
        to=str(target["id"]),
        topic=NEW_CHANNELS_TOPIC,
        content=f"@_**{creator['full_name']}|{creator['id']}** created a new channel "
        f"#**{stream['name']}**.",
        client="Internal",
    )


# -- unsubscribe --------------------------------------------------------------------------------
def unsubscribe(
    store: Store,
    user: Row,
    *,
    subscriptions: Any,
    principals: Sequence[Any] | None = None,
    feature_level: int = realm_mod.FEATURE_LEVEL,
) -> dict[str, Any]:
    """``DELETE /users/me/subscriptions``: removed and not-removed channel names."""
    if not isinstance(subscriptions, list) or not all(isinstance(s, str) for s in subscriptions):
        raise ApiError("subscriptions is not a list of channel names", var_name="subscriptions")
    targets = resolve_principals(store, principals, user, feature_level)
    with store.atomic():
        streams: list[Row] = []
        for name in subscriptions:
            stream = channels.stream_by_name(store, name)
            if stream is None or not can_see_metadata(store, user, stream):
                raise ApiError(
                    f"Channel(s) ({name.strip()}) do not exist",
                    code="STREAM_DOES_NOT_EXIST",
                    stream=name.strip(),
                )
            if stream["is_archived"] and feature_level < 362:
                raise ApiError(f"Unable to access channel ({stream['name']}).")
            if any(t["id"] != user["id"] for t in targets) and not _may_remove_others(
                store, user, stream
            ):
                raise ApiError("Insufficient permission")
            streams.append(stream)
        removed: list[str] = []
        not_removed: list[str] = []
        for stream in streams:
            for target in targets:
                if channels.subscription(store, target["id"], stream["id"]) is None:
                    not_removed.append(stream["name"])
                    continue
                store.execute(
                    "UPDATE subscriptions SET active = 0 WHERE user_id = ? AND stream_id = ?",
                    [target["id"], stream["id"]],
                )
                removed.append(stream["name"])
                event_bus(store).publish(
                    {
                        "type": "subscription",
                        "op": "remove",
                        "subscriptions": [{"name": stream["name"], "stream_id": stream["id"]}],
                    },
                    [target["id"]],
                )
                event_bus(store).publish(
                    {
                        "type": "subscription",
                        "op": "peer_remove",
                        "stream_ids": [stream["id"]],
                        "user_ids": [target["id"]],
                    },
                    channels.subscriber_ids(store, stream["id"]),
                )
    return {"removed": removed, "not_removed": not_removed}


def list_subscriptions(
    store: Store, user: Row, *, include_subscribers: bool = False
) -> list[dict[str, Any]]:
    rows = store.query(
        "SELECT * FROM subscriptions WHERE user_id = ? AND active = 1 ORDER BY stream_id",
        [user["id"]],
    )
    out = []
    for sub in rows:
        stream = channels.get_stream(store, sub["stream_id"])
        if stream is None:
            continue
        out.append(subscription_record(store, sub, stream, include_subscribers=include_subscribers))
    return out


def members(store: Store, user: Row, stream_id: int) -> list[int]:
    stream = access_for_metadata(store, user, stream_id)
    return channels.subscriber_ids(store, stream["id"])


# -- channel settings, archive, unarchive --------------------------------------------------------
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
        stream = access_for_administration(store, user, stream_id)
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
            name = _check_name(changes["new_name"])
            other = channels.stream_by_name(store, name)
            if other is not None and other["id"] != stream["id"]:
                raise ApiError(f"Channel '{name}' already exists")
            update["name"] = name
        if "description" in changes:
            description = _check_description(changes["description"])
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
                _check_web_public(store, user)
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
            _check_retention_permission(user)
            update["message_retention_days"] = parse_retention(changes["message_retention_days"])
        if "topics_policy" in changes:
            _check_topics_policy(store, changes["topics_policy"], stream)
            update["topics_policy"] = changes["topics_policy"]
        if "folder_id" in changes:
            _check_folder(store, changes["folder_id"])
            update["folder_id"] = changes["folder_id"]
        settings = json.loads(stream["settings"])
        current = _settings(store, stream)
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


def _publish_update(store: Store, stream: Row, prop: str, value: Any) -> None:
    names = {"invite_only": "invite_only", "is_default": "is_default"}
    viewers = [
        u["id"]
        for u in store.query("SELECT * FROM users WHERE is_active = 1")
        if can_see_metadata(store, u, stream)
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
        stream = access_for_administration(store, user, stream_id)
        if stream["is_archived"]:
            raise ApiError("Channel is already deactivated")
        store.execute(
            "UPDATE streams SET is_archived = 1, is_default = 0 WHERE id = ?", [stream["id"]]
        )
        fresh = channels.get_stream(store, stream["id"])
        assert fresh is not None
        _publish_update(store, fresh, "is_archived", True)
