"""Subscribing and unsubscribing (spec 4.2): who may subscribe whom, and the new channels.

``subscribe`` creates the named channels that do not exist yet with the initial settings of
spec 4.2 (checked by :mod:`channel_settings`), then subscribes every principal. The channel
records and who may see a channel are in :mod:`channels`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from . import channel_settings, channels, clock, messages, users
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .sentinel import MISSING
from .store import Row, Store

NEW_CHANNELS_TOPIC = "new channels"
#: per-subscription notification settings; null follows the user's global setting
NOTIFICATION_PROPERTIES = (
    "desktop_notifications",
    "audible_notifications",
    "push_notifications",
    "email_notifications",
    "wildcard_mentions_notify",
)
BOOLEAN_PROPERTIES = ("in_home_view", "is_muted", "pin_to_top", *NOTIFICATION_PROPERTIES)
COLOR = re.compile(r"^#([a-fA-F0-9]{3,6})$")


# -- records ------------------------------------------------------------------------------------


def subscription_record(
    store: Store, sub: Row, stream: Row, *, include_subscribers: bool = False
) -> dict[str, Any]:
    record = channels.channel_record(store, stream)
    record.update(
        {
            "color": sub["color"],
            "is_muted": bool(sub["is_muted"]),
            "in_home_view": not sub["is_muted"],
            "pin_to_top": bool(sub["pin_to_top"]),
        }
    )
    for name in NOTIFICATION_PROPERTIES:
        record[name] = None if sub[name] is None else bool(sub[name])
    if include_subscribers:
        record["subscribers"] = channels.subscriber_ids(store, stream["id"])
    return record


# -- access -------------------------------------------------------------------------------------


def _may_subscribe_self(store: Store, user: Row, stream: Row) -> bool:
    if channels.subscription(store, user["id"], stream["id"]) is not None:
        return True
    if not stream["invite_only"] and int(user["role"]) != realm_mod.ROLE_GUEST:
        return True
    if stream["is_web_public"] and not stream["invite_only"]:
        return int(user["role"]) != realm_mod.ROLE_GUEST
    settings = channels.channel_settings(store, stream)
    return channels.can_administer(store, user, stream) or any(
        realm_mod.user_has_setting(store, user, settings[name])
        for name in ("can_subscribe_group", "can_add_subscribers_group")
    )


def _may_add_others(store: Store, user: Row, stream: Row) -> bool:
    if channels.can_administer(store, user, stream):
        return True
    if realm_mod.user_has_setting(
        store, user, channels.channel_settings(store, stream)["can_add_subscribers_group"]
    ):
        return True
    if stream["invite_only"] and channels.subscription(store, user["id"], stream["id"]) is None:
        return False
    return realm_mod.realm_permits(store, user, "can_add_subscribers_group")


def _may_remove_others(store: Store, user: Row, stream: Row) -> bool:
    if channels.can_administer(store, user, stream):
        return True
    return realm_mod.user_has_setting(
        store, user, channels.channel_settings(store, stream)["can_remove_subscribers_group"]
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
    colors: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Spec 4.2: create the channels that do not exist, then subscribe the principals.

    ``colors`` (lowercased channel name -> colour) gives new subscriptions their colour.
    """
    if not isinstance(subscriptions, list) or not subscriptions:
        raise ApiError("subscriptions is not a non-empty list", var_name="subscriptions")
    wanted: list[tuple[str, str]] = []
    for item in subscriptions:
        if not isinstance(item, dict) or "name" not in item:
            raise ApiError("subscriptions[] is missing a name", var_name="subscriptions")
        name = channel_settings.check_name(item["name"])
        description = channel_settings.check_description(item.get("description", ""))
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
        added: dict[int, list[Row]] = {}  # stream id -> the people it gained
        joined: list[tuple[Row, list[Row]]] = []  # each person and the channels they joined
        for target in targets:
            key = str(target["id"]) if feature_level >= 289 else users.api_email(store, target)
            made: list[Row] = []
            for stream in chosen:
                if channels.subscribe(store, target["id"], stream["id"]):
                    _color(store, target, stream, colors)
                    subscribed.setdefault(key, []).append(stream["name"])
                    made.append(stream)
                    added.setdefault(stream["id"], []).append(target)
                else:
                    already.setdefault(key, []).append(stream["name"])
            joined.append((target, made))
        # once everyone is in: each newcomer's records list every subscriber (the others who
        # joined in this request too), and the channels' other subscribers get one peer_add
        members = {sid: channels.subscriber_ids(store, sid) for sid in added}
        for target, made in joined:
            _announce_subscriptions(store, target, made, members)
        for stream in chosen:
            _announce_peers(store, stream, added.get(stream["id"], []), members)
        for stream in created:
            fresh = channels.get_stream(store, stream["id"])
            assert fresh is not None
            record = channels.channel_record(store, fresh)
            viewers = [
                u["id"]
                for u in store.query("SELECT * FROM users WHERE is_active = 1")
                if channels.can_see_metadata(store, u, fresh)
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


def _color(store: Store, target: Row, stream: Row, colors: dict[str, str] | None) -> None:
    color = (colors or {}).get(str(stream["name"]).lower())
    if color is not None:
        store.execute(
            "UPDATE subscriptions SET color = ? WHERE user_id = ? AND stream_id = ?",
            [color, target["id"], stream["id"]],
        )


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
        channel_settings.check_web_public(store, user)
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
        channel_settings.check_retention_permission(user)
        retention = channel_settings.parse_retention(message_retention_days)
    if topics_policy is not None:
        channel_settings.check_topics_policy(store, topics_policy, None)
    channel_settings.check_folder(store, folder_id)
    settings: dict[str, Any] = {
        "can_administer_channel_group": {"direct_members": [user["id"]], "direct_subgroups": []}
    }
    for setting, value in group_values.items():
        settings[setting] = channel_settings.group_value(store, setting, value)
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
        date_created=int(clock.now()),
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


def _announce_subscriptions(
    store: Store, target: Row, streams: list[Row], members: dict[int, list[int]]
) -> None:
    """One ``subscription/add`` event to ``target`` listing every channel it joined, each with
    its subscribers (``members``, read once for the request)."""
    records = []
    for stream in streams:
        sub = channels.subscription(store, target["id"], stream["id"])
        if sub is not None:
            record = subscription_record(store, sub, stream)
            record["subscribers"] = list(members.get(stream["id"], []))
            records.append(record)
    if records:
        event_bus(store).publish(
            {"type": "subscription", "op": "add", "subscriptions": records}, [target["id"]]
        )


def _announce_peers(
    store: Store, stream: Row, joined: list[Row], members: dict[int, list[int]]
) -> None:
    """One ``peer_add`` event per channel, naming everyone who joined it, to its other
    subscribers (those who joined learn of each other from their own ``add`` event)."""
    if not joined:
        return
    new = {int(t["id"]) for t in joined}
    peers = [u for u in members.get(stream["id"], []) if u not in new]
    event_bus(store).publish(
        {
            "type": "subscription",
            "op": "peer_add",
            "stream_ids": [stream["id"]],
            "user_ids": sorted(new),
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
            if stream is None or not channels.can_see_metadata(store, user, stream):
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


def update_subscriptions(
    store: Store,
    user: Row,
    *,
    add: Any,
    delete: Any,
    feature_level: int = realm_mod.FEATURE_LEVEL,
) -> dict[str, Any]:
    """``PATCH /users/me/subscriptions``: subscribe to ``add`` and unsubscribe from ``delete``.

    One transaction, as the real server's ``compose_views``: when either half is refused
    nothing changes and no event is sent. The answer is both halves' answers together.

    Args:
        store: the organization.
        user: who asks.
        add: ``[{"name", "color"?, "description"?}, ...]``: channels to join (created if new).
        delete: channel names to leave.
        feature_level: the level the sandbox answers at.
    """
    if not isinstance(delete, list) or not all(isinstance(n, str) for n in delete):
        raise ApiError("delete is not a list", var_name="delete")
    if not isinstance(add, list):
        raise ApiError("add is not a list", var_name="add")
    colors: dict[str, str] = {}
    for i, item in enumerate(add):
        if not isinstance(item, dict):
            raise ApiError(f"add[{i}] is not a dict", var_name="add")
        if not isinstance(item.get("name"), str):
            raise ApiError(f"add[{i}]['name'] is not a string", var_name="add")
        if "color" in item:
            if not isinstance(item["color"], str) or not COLOR.match(item["color"]):
                raise ApiError("add.color is not a valid hex color code")
            colors[item["name"].strip().lower()] = item["color"]
    if not add and not delete:
        raise ApiError('Nothing to do. Specify at least one of "add" or "delete".')
    out: dict[str, Any] = {}
    with store.atomic():
        if add:
            out |= subscribe(
                store, user, subscriptions=add, feature_level=feature_level, colors=colors
            )
        else:
            out |= {"subscribed": {}, "already_subscribed": {}}
        if delete:
            out |= unsubscribe(store, user, subscriptions=delete, feature_level=feature_level)
        else:
            out |= {"removed": [], "not_removed": []}
    return out


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
    stream = channels.access_for_metadata(store, user, stream_id)
    return channels.subscriber_ids(store, stream["id"])


# -- subscription properties --------------------------------------------------------------------
def _check_change(change: Any) -> tuple[int, str, Any]:
    """One ``{"stream_id", "property", "value"}`` item, checked as the real server checks it."""
    if not isinstance(change, dict):
        raise ApiError("subscription_data[] is not a dict", var_name="subscription_data")
    for key in ("stream_id", "property", "value"):
        if key not in change:
            raise ApiError(f"{key} key is missing from subscription_data[]")
    stream_id, prop, value = change["stream_id"], change["property"], change["value"]
    if not isinstance(stream_id, int) or isinstance(stream_id, bool):
        raise ApiError("subscription_data[].stream_id is not an integer")
    if not isinstance(prop, str):
        raise ApiError("subscription_data[].property is not a string")
    if not isinstance(value, bool | str):
        raise ApiError("subscription_data[].value is not a string or a boolean")
    if prop == "color":
        if not isinstance(value, str) or not COLOR.match(value):
            raise ApiError("color is not a valid hex color code")
    elif prop in BOOLEAN_PROPERTIES:
        if not isinstance(value, bool):
            raise ApiError(f"{prop} is not a boolean")
    else:
        raise ApiError(f"Unknown subscription property: {prop}")
    return stream_id, prop, value


def update_properties(store: Store, user: Row, subscription_data: Any) -> None:
    """``POST /users/me/subscriptions/properties``: all the changes, or none of them.

    ``in_home_view`` is the old, inverted name of ``is_muted``; changing either announces
    both, as the real server does for clients that know only the old name.
    """
    if not isinstance(subscription_data, list):
        raise ApiError("subscription_data is not a list", var_name="subscription_data")
    changes = [_check_change(c) for c in subscription_data]
    with store.atomic():
        for stream_id, prop, value in changes:
            stream = channels.access_active(store, user, stream_id)
            if channels.subscription(store, user["id"], stream_id) is None:
                raise ApiError(f"Not subscribed to channel ID {stream_id}")
            column, stored = prop, value
            if prop == "in_home_view":
                column, stored = "is_muted", not value
            store.execute(
                f"UPDATE subscriptions SET {column} = ? WHERE user_id = ? AND stream_id = ?",
                [stored, user["id"], stream["id"]],
            )
            if column == "is_muted":
                event_bus(store).publish(
                    {
                        "type": "subscription",
                        "op": "update",
                        "property": "in_home_view",
                        "value": not stored,
                        "stream_id": stream["id"],
                    },
                    [user["id"]],
                )
            event_bus(store).publish(
                {
                    "type": "subscription",
                    "op": "update",
                    "property": column,
                    "value": stored,
                    "stream_id": stream["id"],
                },
                [user["id"]],
            )
