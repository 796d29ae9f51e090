"""The initial state of ``POST /register``: one builder per ``fetch_event_types`` value.

The real server (``fetch_initial_state_data``) gives, for each event type a client asks for,
the state that those events keep up to date; asking for none gives every block. A builder
reads :class:`Context` (who asks, with which options) and adds its keys to the state.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import (
    bots,
    channel_folders,
    channel_settings,
    channels,
    clock,
    drafts,
    group_settings,
    linkifiers,
    messages,
    personal,
    presence,
    realm_emoji,
    realm_playgrounds,
    scheduled,
    subscriptions,
    user_groups,
    user_settings,
    user_status,
    user_topics,
    users,
)
from . import custom_profile_fields as custom_profile_fields_mod
from . import realm as realm_mod
from .store import Row, Store

#: unread messages counted at most (the real server's MAX_UNREAD_MESSAGES)
MAX_UNREAD_MESSAGES = 50000
MAX_RECENT_PRIVATE_CONVERSATIONS = 1000
#: channels with more subscribers than this get ``partial_subscribers`` when asked "partial"
PARTIAL_SUBSCRIBERS_THRESHOLD = 250
#: ``custom_profile_field_types``: the field types the organization offers
CUSTOM_PROFILE_FIELD_TYPES: dict[str, dict[str, Any]] = {
    "SHORT_TEXT": {"id": 1, "name": "Text (short)"},
    "LONG_TEXT": {"id": 2, "name": "Text (long)"},
    "SELECT": {"id": 3, "name": "List of options"},
    "DATE": {"id": 4, "name": "Date picker"},
    "URL": {"id": 5, "name": "Link"},
    "USER": {"id": 6, "name": "Person picker"},
    "EXTERNAL_ACCOUNT": {"id": 7, "name": "External account"},
    "PRONOUNS": {"id": 8, "name": "Pronouns"},
}


@dataclass(frozen=True)
class Context:
    """Who registers and with which options."""

    store: Store
    user: Row
    realm_url: str
    feature_level: int
    client_gravatar: bool
    slim_presence: bool
    include_subscribers: bool | str
    capabilities: dict[str, Any]
    longpoll_timeout_seconds: int

    def capable(self, name: str) -> bool:
        return bool(self.capabilities.get(name))


State = dict[str, Any]
Builder = Callable[[Context, State], None]


def custom_profile_fields(store: Store) -> list[dict[str, Any]]:
    """The organization's custom profile fields, as ``custom_profile_fields`` gives them."""
    return custom_profile_fields_mod.list_fields(store)


# -- realm ---------------------------------------------------------------------------------------


def _realm(ctx: Context, state: State) -> None:
    store = ctx.store
    realm = realm_mod.realm_row(store)
    state.update(
        {
            "realm_name": realm["name"],
            "realm_description": realm["description"],
            "realm_url": ctx.realm_url,
            "realm_uri": ctx.realm_url,
            "realm_date_created": realm["date_created"],
            "realm_empty_topic_display_name": realm_mod.EMPTY_TOPIC_DISPLAY_NAME,
            "realm_presence_disabled": False,
            "realm_icon_url": "",
            "realm_icon_source": "G",
            "server_presence_ping_interval_seconds": presence.PING_INTERVAL_SECONDS,
            "server_presence_offline_threshold_seconds": presence.OFFLINE_THRESHOLD_SECONDS,
            "server_typing_started_expiry_period_milliseconds": 45000,
            "server_typing_stopped_wait_period_milliseconds": 12000,
            "server_typing_started_wait_period_milliseconds": 30000,
            "event_queue_longpoll_timeout_seconds": ctx.longpoll_timeout_seconds,
            "server_supported_permission_settings": {
                "realm": {k: v.to_api() for k, v in group_settings.REALM_GROUP_SETTINGS.items()},
                "stream": {k: v.to_api() for k, v in group_settings.CHANNEL_GROUP_SETTINGS.items()},
                "group": {k: v.to_api() for k, v in group_settings.USER_GROUP_SETTINGS.items()},
            },
        }
    )
    state.update(realm_mod.LIMITS)
    for name, value in realm_mod.settings(store).items():
        state[f"realm_{name}"] = value


def _realm_user(ctx: Context, state: State) -> None:
    store, user = ctx.store, ctx.user
    people = users.list_users(
        store, user, client_gravatar=ctx.client_gravatar, include_custom_profile_fields=True
    )
    state["realm_users"] = [p for p in people if p["is_active"]]
    state["realm_non_active_users"] = [p for p in people if not p["is_active"]]
    state["cross_realm_bots"] = [
        users.user_record(store, user, bot, client_gravatar=ctx.client_gravatar)
        for bot in store.query("SELECT * FROM users WHERE is_system_bot = 1 ORDER BY id")
    ]
    role = int(user["role"])
    own = users.user_record(store, user, user, client_gravatar=False)
    state.update(
        {
            "user_id": user["id"],
            "email": users.api_email(store, user),
            "delivery_email": user["delivery_email"],
            "full_name": user["full_name"],
            "avatar_url": own["avatar_url"],
            "avatar_url_medium": own["avatar_url"],
            "avatar_source": user["avatar_source"],
            "is_admin": realm_mod.is_admin(user),
            "is_owner": role == realm_mod.ROLE_OWNER,
            "is_moderator": role == realm_mod.ROLE_MODERATOR,
            "is_guest": role == realm_mod.ROLE_GUEST,
            "can_create_public_streams": realm_mod.realm_permits(
                store, user, "can_create_public_channel_group"
            ),
            "can_create_private_streams": realm_mod.realm_permits(
                store, user, "can_create_private_channel_group"
            ),
            "can_create_web_public_streams": realm_mod.realm_permits(
                store, user, "can_create_web_public_channel_group"
            ),
            "can_subscribe_other_users": realm_mod.realm_permits(
                store, user, "can_add_subscribers_group"
            ),
            "can_invite_others_to_realm": realm_mod.realm_permits(
                store, user, "can_invite_users_group"
            ),
        }
    )
    state["can_create_streams"] = (
        state["can_create_public_streams"]
        or state["can_create_private_streams"]
        or state["can_create_web_public_streams"]
    )


def _custom_profile_fields(ctx: Context, state: State) -> None:
    state["custom_profile_fields"] = custom_profile_fields(ctx.store)
    state["custom_profile_field_types"] = CUSTOM_PROFILE_FIELD_TYPES


def _realm_emoji(ctx: Context, state: State) -> None:
    state["realm_emoji"] = realm_emoji.all_emoji(ctx.store)


def _realm_user_groups(ctx: Context, state: State) -> None:
    state["realm_user_groups"] = user_groups.list_groups(
        ctx.store, include_deactivated_groups=ctx.capable("include_deactivated_groups")
    )


def _realm_linkifiers(ctx: Context, state: State) -> None:
    # Clients that do not read URL templates get none: the old format strings cannot say them.
    templates = ctx.capable("linkifier_url_template")
    state["realm_linkifiers"] = linkifiers.list_linkifiers(ctx.store) if templates else []


def _realm_filters(ctx: Context, state: State) -> None:
    state["realm_filters"] = []


def _default_streams(ctx: Context, state: State) -> None:
    if int(ctx.user["role"]) == realm_mod.ROLE_GUEST:
        state["realm_default_streams"] = []
        return
    state["realm_default_streams"] = channel_settings.default_streams(ctx.store, ctx.feature_level)


# -- channels ------------------------------------------------------------------------------------


def _stream(ctx: Context, state: State) -> None:
    store, user = ctx.store, ctx.user
    state["streams"] = [
        channels.channel_record(store, s)
        for s in store.query("SELECT * FROM streams ORDER BY id")
        if channels.can_read(store, user, s)
    ]


def _with_subscribers(ctx: Context, record: dict[str, Any], stream: Row) -> dict[str, Any]:
    if not ctx.include_subscribers:
        return record
    ids = channels.subscriber_ids(ctx.store, stream["id"])
    if ctx.include_subscribers == "partial" and len(ids) > PARTIAL_SUBSCRIBERS_THRESHOLD:
        bots = {
            int(r["id"])
            for r in ctx.store.query("SELECT id FROM users WHERE is_bot = 1 OR is_system_bot = 1")
        }
        record["partial_subscribers"] = [i for i in ids if i in bots]
    else:
        record["subscribers"] = ids
    return record


def _subscription(ctx: Context, state: State) -> None:
    store, user = ctx.store, ctx.user
    subscribed: list[dict[str, Any]] = []
    unsubscribed: list[dict[str, Any]] = []
    seen: set[int] = set()
    for sub in store.query(
        "SELECT * FROM subscriptions WHERE user_id = ? ORDER BY stream_id", [user["id"]]
    ):
        stream = channels.get_stream(store, sub["stream_id"])
        if stream is None:
            continue
        seen.add(int(stream["id"]))
        record = subscriptions.subscription_record(store, sub, stream)
        if sub["active"]:
            subscribed.append(_with_subscribers(ctx, record, stream))
        elif channels.can_see_metadata(store, user, stream):
            unsubscribed.append(_with_subscribers(ctx, record, stream))
    never: list[dict[str, Any]] = []
    for stream in store.query("SELECT * FROM streams ORDER BY id"):
        if int(stream["id"]) in seen or not channels.can_see_metadata(store, user, stream):
            continue
        never.append(_with_subscribers(ctx, channels.channel_record(store, stream), stream))
    state["subscriptions"] = subscribed
    state["unsubscribed"] = unsubscribed
    state["never_subscribed"] = never


def _user_topic(ctx: Context, state: State) -> None:
    state["user_topics"] = user_topics.policies(ctx.store, ctx.user)


def _muted_topics(ctx: Context, state: State) -> None:
    rows = ctx.store.query(
        "SELECT s.name, t.topic, t.last_updated FROM user_topics t JOIN streams s "
        "ON s.id = t.stream_id WHERE t.user_id = ? AND t.visibility_policy = ? "
        "ORDER BY t.last_updated, t.stream_id",
        [ctx.user["id"], user_topics.MUTED],
    )
    state["muted_topics"] = [[r["name"], r["topic"], r["last_updated"]] for r in rows]


def _channel_folders(ctx: Context, state: State) -> None:
    state["channel_folders"] = channel_folders.list_folders(ctx.store, include_archived=True)


# -- messages ------------------------------------------------------------------------------------


def _message(ctx: Context, state: State) -> None:
    state["max_message_id"] = int(
        ctx.store.scalar(
            "SELECT coalesce(max(message_id), -1) FROM message_flags WHERE user_id = ?",
            [ctx.user["id"]],
        )
    )


def _dm_members(user_set: str) -> list[int]:
    return sorted(int(x) for x in user_set.split(",") if x)


def unread_msgs(store: Store, user: Row) -> dict[str, Any]:
    """``unread_msgs``: the person's unread messages by conversation, as the real server counts.

    ``count`` leaves out messages in muted channels and topics; ``mentions`` holds personal
    mentions everywhere and wildcard mentions outside muted conversations.
    """
    me = int(user["id"])
    rows = store.query(
        "SELECT f.message_id, f.flags, m.stream_id, m.topic, m.sender_id, r.user_set "
        "FROM message_flags f JOIN messages m ON m.id = f.message_id "
        "JOIN recipients r ON r.id = m.recipient_id "
        "WHERE f.user_id = ? AND f.flags & ? = 0 ORDER BY f.message_id DESC LIMIT ?",
        [me, messages.READ, MAX_UNREAD_MESSAGES + 1],
    )
    missing = len(rows) > MAX_UNREAD_MESSAGES
    rows = sorted(rows[:MAX_UNREAD_MESSAGES], key=lambda r: int(r["message_id"]))
    muted_cache: dict[tuple[int, str], bool] = {}
    pms: dict[int, list[int]] = {}
    streams: dict[tuple[int, str], list[int]] = {}
    topic_names: dict[tuple[int, str], str] = {}
    huddles: dict[str, list[int]] = {}
    mentions: list[int] = []
    count = 0
    wildcard = messages.STREAM_WILDCARD | messages.TOPIC_WILDCARD
    for r in rows:
        mid, flags = int(r["message_id"]), int(r["flags"])
        muted = False
        if r["stream_id"] is not None:
            key = (int(r["stream_id"]), str(r["topic"]).lower())
            topic_names.setdefault(key, r["topic"])
            streams.setdefault(key, []).append(mid)
            if key not in muted_cache:
                muted_cache[key] = user_topics.is_muted(store, me, key[0], r["topic"])
            muted = muted_cache[key]
            if not muted:
                count += 1
        else:
            members = _dm_members(r["user_set"] or "")
            if len(members) <= 2:
                others = [m for m in members if m != me]
                pms.setdefault(others[0] if others else me, []).append(mid)
            else:
                huddles.setdefault(",".join(str(m) for m in members), []).append(mid)
            count += 1
        if flags & messages.MENTIONED or (flags & wildcard and not muted):
            mentions.append(mid)
    return {
        "count": count,
        "pms": [
            {"other_user_id": uid, "sender_id": uid, "unread_message_ids": ids}
            for uid, ids in sorted(pms.items())
        ],
        "streams": [
            {"stream_id": key[0], "topic": topic_names[key], "unread_message_ids": ids}
            for key, ids in sorted(streams.items(), key=lambda kv: kv[1][0])
        ],
        "huddles": [
            {"user_ids_string": key, "unread_message_ids": ids}
            for key, ids in sorted(huddles.items(), key=lambda kv: kv[1][0])
        ],
        "mentions": mentions,
        "old_unreads_missing": missing,
    }


def _unread(ctx: Context, state: State) -> None:
    state["unread_msgs"] = unread_msgs(ctx.store, ctx.user)


def _starred_messages(ctx: Context, state: State) -> None:
    rows = ctx.store.query(
        "SELECT message_id FROM message_flags WHERE user_id = ? AND flags & ? != 0 "
        "ORDER BY message_id",
        [ctx.user["id"], messages.STARRED],
    )
    state["starred_messages"] = [int(r["message_id"]) for r in rows]


def _recent_private_conversations(ctx: Context, state: State) -> None:
    me = int(ctx.user["id"])
    rows = ctx.store.query(
        "SELECT r.user_set, max(m.id) AS max_id FROM message_flags f "
        "JOIN messages m ON m.id = f.message_id JOIN recipients r ON r.id = m.recipient_id "
        "WHERE f.user_id = ? AND m.stream_id IS NULL GROUP BY r.id "
        "ORDER BY max_id DESC LIMIT ?",
        [me, MAX_RECENT_PRIVATE_CONVERSATIONS],
    )
    state["recent_private_conversations"] = [
        {
            "max_message_id": int(r["max_id"]),
            "user_ids": [m for m in _dm_members(r["user_set"] or "") if m != me],
        }
        for r in rows
    ]


# -- people --------------------------------------------------------------------------------------


def _presence(ctx: Context, state: State) -> None:
    presences, _newest = presence.realm_presences(ctx.store, ctx.user, slim=ctx.slim_presence)
    state["presences"] = presences
    state["server_timestamp"] = clock.now()


def _user_status(ctx: Context, state: State) -> None:
    out: dict[str, Any] = {}
    for r in ctx.store.query("SELECT user_id FROM user_status ORDER BY user_id"):
        status = user_status.get_status(ctx.store, int(r["user_id"]))
        if status:
            out[str(r["user_id"])] = status
    state["user_status"] = out


# -- own account ---------------------------------------------------------------------------------


def _user_settings(ctx: Context, state: State) -> None:
    state["user_settings"] = user_settings.user_settings_object(ctx.store, ctx.user)


def _display_settings(ctx: Context, state: State) -> None:
    if not ctx.capable("user_settings_object"):
        state.update(user_settings.legacy_display(ctx.store, ctx.user))


def _global_notifications(ctx: Context, state: State) -> None:
    if not ctx.capable("user_settings_object"):
        state.update(user_settings.legacy_notifications(ctx.store, ctx.user))


def _alert_words(ctx: Context, state: State) -> None:
    state["alert_words"] = personal.list_alert_words(ctx.store, ctx.user)


def _drafts(ctx: Context, state: State) -> None:
    state["drafts"] = drafts.list_drafts(ctx.store, ctx.user, limit=drafts.MAX_DRAFTS_IN_REGISTER)


def _muted_users(ctx: Context, state: State) -> None:
    state["muted_users"] = personal.list_muted_users(ctx.store, ctx.user)


def _navigation_views(ctx: Context, state: State) -> None:
    state["navigation_views"] = personal.list_views(ctx.store, ctx.user)


def _saved_snippets(ctx: Context, state: State) -> None:
    state["saved_snippets"] = personal.list_snippets(ctx.store, ctx.user)


def _realm_bots(ctx: Context, state: State) -> None:
    """The bots the user hears of: their own, and for administrators every non-private one."""
    rows = ctx.store.query("SELECT * FROM users WHERE is_bot = 1 AND is_system_bot = 0 ORDER BY id")
    state["realm_bots"] = [
        bots.bot_record(ctx.store, bot)
        for bot in rows
        if bot["bot_owner_id"] == ctx.user["id"]
        or int(ctx.user["id"]) in bots.administrator_ids(ctx.store, bot)
    ]


def _scheduled_messages(ctx: Context, state: State) -> None:
    state["scheduled_messages"] = scheduled.list_scheduled(ctx.store, ctx.user)


def _reminders(ctx: Context, state: State) -> None:
    state["reminders"] = scheduled.list_reminders(ctx.store, ctx.user)


#: ``fetch_event_types`` value -> its builder, in the real server's order
BUILDERS: dict[str, Builder] = {
    "alert_words": _alert_words,
    "custom_profile_fields": _custom_profile_fields,
    "message": _message,
    "drafts": _drafts,
    "scheduled_messages": _scheduled_messages,
    "reminders": _reminders,
    "muted_users": _muted_users,
    "presence": _presence,
    "realm": _realm,
    "realm_domains": lambda ctx, state: state.update(realm_domains=[]),
    "realm_bot": _realm_bots,
    "realm_emoji": _realm_emoji,
    "realm_linkifiers": _realm_linkifiers,
    "realm_filters": _realm_filters,
    "realm_playgrounds": lambda ctx, state: state.update(
        realm_playgrounds=realm_playgrounds.list_playgrounds(ctx.store)
    ),
    "realm_user_settings_defaults": lambda ctx, state: state.update(
        realm_user_settings_defaults=user_settings.realm_defaults(ctx.store)
    ),
    "realm_user_groups": _realm_user_groups,
    "realm_user": _realm_user,
    "recent_private_conversations": _recent_private_conversations,
    "subscription": _subscription,
    "starred_messages": _starred_messages,
    "stream": _stream,
    "default_streams": _default_streams,
    "update_display_settings": _display_settings,
    "update_global_notifications": _global_notifications,
    "user_settings": _user_settings,
    "user_status": _user_status,
    "user_topic": _user_topic,
    "channel_folders": _channel_folders,
    "navigation_views": _navigation_views,
    "saved_snippets": _saved_snippets,
}


#: event-type spellings that ask for a block named in the plural
ALIASES = {"navigation_view": "navigation_views", "channel_folder": "channel_folders"}


def build(ctx: Context, wanted: set[str] | None) -> State:
    """The state for the ``fetch_event_types`` in ``wanted`` (``None``: every one)."""
    if wanted is not None:
        wanted = {ALIASES.get(name, name) for name in wanted}

    def want(name: str) -> bool:
        return wanted is None or name in wanted

    state: State = {
        "zulip_version": realm_mod.ZULIP_VERSION,
        "zulip_merge_base": realm_mod.ZULIP_VERSION,
        "zulip_feature_level": ctx.feature_level,
    }
    for name, builder in BUILDERS.items():
        if want(name):
            builder(ctx, state)
    # The real server leaves muted_topics out for clients that also asked for user_topic.
    if want("muted_topics") and (wanted is None or "user_topic" not in wanted):
        _muted_topics(ctx, state)
    # Unread counts need both the messages and their flag changes to stay right.
    if want("update_message_flags") and want("message"):
        _unread(ctx, state)
    return state
