"""Channels and subscriptions: who can see a channel, its history and its topics."""

from __future__ import annotations

import json
import re
import secrets
import unicodedata
from typing import Any

from . import clock
from . import realm as realm_mod
from .errors import ApiError
from .rendering import render
from .store import Row, Store

CHANNEL_GROUP_SETTINGS: dict[str, str] = {
    "can_add_subscribers_group": "role:nobody",
    "can_remove_subscribers_group": "role:administrators",
    "can_administer_channel_group": "role:nobody",
    "can_send_message_group": "role:everyone",
    "can_subscribe_group": "role:nobody",
    "can_delete_any_message_group": "role:nobody",
    "can_delete_own_message_group": "role:everyone",
    "can_move_messages_out_of_channel_group": "role:nobody",
    "can_move_messages_within_channel_group": "role:nobody",
    "can_resolve_topics_group": "role:nobody",
}


def get_stream(store: Store, stream_id: int) -> Row | None:
    return store.one("SELECT * FROM streams WHERE id = ?", [stream_id])


def stream_by_name(store: Store, name: str) -> Row | None:
    return store.one("SELECT * FROM streams WHERE lower(name) = lower(?)", [name.strip()])


def channel_settings(store: Store, stream: Row) -> dict[str, Any]:
    ids = realm_mod.system_group_ids(store)
    values: dict[str, Any] = {k: ids[v] for k, v in CHANNEL_GROUP_SETTINGS.items()}
    values.update(json.loads(stream["settings"]))
    return values


def recipient_for_stream(store: Store, stream_id: int) -> int:
    row = store.one("SELECT id FROM recipients WHERE stream_id = ?", [stream_id])
    if row is not None:
        return int(row["id"])
    return store.insert("recipients", {"stream_id": stream_id})


def create_stream(
    store: Store,
    *,
    name: str,
    description: str = "",
    invite_only: bool = False,
    history_public_to_subscribers: bool | None = None,
    creator_id: int | None = None,
    date_created: int = 0,
    is_default: bool = False,
    is_web_public: bool = False,
    settings: dict[str, Any] | None = None,
) -> int:
    if stream_by_name(store, name) is not None:
        raise ApiError(f"Channel '{name}' already exists")
    history = (
        (not invite_only)
        if history_public_to_subscribers is None
        else history_public_to_subscribers
    )
    stream_id = store.insert(
        "streams",
        {
            "name": name.strip(),
            "description": description,
            "rendered_description": render(description) if description else "",
            "invite_only": int(invite_only),
            "is_web_public": int(is_web_public),
            "history_public_to_subscribers": int(history or not invite_only),
            "creator_id": creator_id,
            "date_created": date_created,
            "is_default": int(is_default),
            "settings": json.dumps(settings or {}),
        },
    )
    recipient_for_stream(store, stream_id)
    return stream_id


def subscription(store: Store, user_id: int, stream_id: int) -> Row | None:
    return store.one(
        "SELECT * FROM subscriptions WHERE user_id = ? AND stream_id = ? AND active = 1",
        [user_id, stream_id],
    )


def subscribe(store: Store, user_id: int, stream_id: int) -> bool:
    """Subscribe; returns False when already subscribed. History starts at the next message."""
    if subscription(store, user_id, stream_id) is not None:
        return False
    next_id = int(store.scalar("SELECT coalesce(max(id), 0) + 1 FROM messages"))
    store.execute(
        "INSERT INTO subscriptions (user_id, stream_id, active, first_message_id) VALUES (?, ?, 1, ?) "
        "ON CONFLICT (user_id, stream_id) DO UPDATE SET active = 1",
        [user_id, stream_id, next_id],
    )
    return True


def subscriber_ids(store: Store, stream_id: int) -> list[int]:
    rows = store.query(
        "SELECT s.user_id FROM subscriptions s JOIN users u ON u.id = s.user_id "
        "WHERE s.stream_id = ? AND s.active = 1 AND u.is_active = 1",
        [stream_id],
    )
    return [r["user_id"] for r in rows]


def subscriber_count(store: Store, stream_id: int) -> int:
    """How many active people and bots are subscribed (counted by SQLite, not listed)."""
    return int(
        store.scalar(
            "SELECT count(*) FROM subscriptions s JOIN users u ON u.id = s.user_id "
            "WHERE s.stream_id = ? AND s.active = 1 AND u.is_active = 1",
            [stream_id],
        )
    )


def can_read(store: Store, user: Row, stream: Row) -> bool:
    """Whether the user can read the channel's messages at all (rule of spec 4.10)."""
    if subscription(store, user["id"], stream["id"]) is not None:
        return True
    if stream["invite_only"] or int(user["role"]) == realm_mod.ROLE_GUEST:
        return False
    return True


def first_visible_message_id(store: Store, user: Row, stream: Row) -> int:
    """Lowest message id the user may read: 0 unless history is protected from them."""
    if stream["history_public_to_subscribers"]:
        return 0
    sub = subscription(store, user["id"], stream["id"])
    if sub is None:
        return 1 << 62
    return int(sub["first_message_id"])


def access_stream(store: Store, user: Row, stream_id: int) -> Row:
    stream = get_stream(store, stream_id)
    if stream is None or not can_read(store, user, stream):
        raise ApiError("Invalid channel ID")
    return stream


def readable_streams(store: Store, user: Row) -> dict[int, int]:
    """``{stream_id: first visible message id}`` for every channel the user can read."""
    out: dict[int, int] = {}
    subs = {
        r["stream_id"]: r["first_message_id"]
        for r in store.query(
            "SELECT stream_id, first_message_id FROM subscriptions WHERE user_id = ? AND active = 1",
            [user["id"]],
        )
    }
    guest = int(user["role"]) == realm_mod.ROLE_GUEST
    for s in store.query("SELECT id, invite_only, history_public_to_subscribers FROM streams"):
        sid = s["id"]
        if sid in subs:
            out[sid] = 0 if s["history_public_to_subscribers"] else int(subs[sid])
        elif not s["invite_only"] and not guest:
            out[sid] = 0
    return out


def effective_topics_policy(store: Store, stream: Row) -> str:
    policy = str(stream["topics_policy"])
    if policy == "inherit":
        return str(realm_mod.settings(store)["topics_policy"])
    return policy


# -- records and access -----------------------------------------------------------------------------
def _recently_active(store: Store, stream_id: int) -> bool:
    """Whether the channel's newest message is less than a week old.

    Message ids grow with time, so the newest message is the one with the highest id, which the
    ``(stream_id, id)`` index finds at once (a scan for any message of the week reads the whole
    channel when it has none).
    """
    newest = store.scalar(
        "SELECT timestamp FROM messages WHERE stream_id = ? ORDER BY id DESC LIMIT 1", [stream_id]
    )
    return newest is not None and int(newest) > int(clock.now()) - 7 * 86400


def channel_record(store: Store, stream: Row, *, with_default: bool = False) -> dict[str, Any]:
    """The channel record of ``GET /streams`` and ``GET /streams/{id}`` (facts 3.7).

    ``is_default`` only with ``with_default``: the real server adds it to ``GET /streams``
    records when asked with ``include_default``, and nowhere else.
    """
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
        "message_retention_days": retention,
        "topics_policy": stream["topics_policy"],
        "folder_id": stream["folder_id"],
        "first_message_id": store.scalar(
            "SELECT min(id) FROM messages WHERE stream_id = ?", [stream["id"]]
        ),
        "is_recently_active": _recently_active(store, stream["id"]),
        "stream_weekly_traffic": None,
        "stream_post_policy": 1,
        "is_announcement_only": False,
        "subscriber_count": subscriber_count(store, stream["id"]),
    }
    record.update(channel_settings(store, stream))
    if with_default:
        record["is_default"] = bool(stream["is_default"])
    return record


def can_administer(store: Store, user: Row, stream: Row) -> bool:
    if realm_mod.is_admin(user):
        return True
    return realm_mod.user_has_setting(
        store, user, channel_settings(store, stream)["can_administer_channel_group"]
    )


def can_see_metadata(store: Store, user: Row, stream: Row) -> bool:
    """Whether the user may see the channel exists (its record, its subscribers)."""
    return can_read(store, user, stream) or can_administer(store, user, stream)


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
        subscribed = subscription(store, user["id"], s["id"]) is not None
        wanted = (
            (include_subscribed and subscribed)
            or (include_public and not s["invite_only"])
            or (include_web_public and s["is_web_public"])
            or (include_default and s["is_default"])
            or include_all
        )
        if wanted and can_see_metadata(store, user, s):
            out.append(channel_record(store, s, with_default=include_default))
    return out


def is_subscribed(store: Store, user: Row, stream_id: int, target_id: int) -> bool:
    """Whether user ``target_id`` is subscribed to a channel ``user`` may see."""
    stream = access_for_metadata(store, user, stream_id)
    if store.one("SELECT 1 FROM users WHERE id = ?", [target_id]) is None:
        raise ApiError("No such user")
    return subscription(store, target_id, stream["id"]) is not None


def access_for_metadata(store: Store, user: Row, stream_id: int) -> Row:
    stream = get_stream(store, stream_id)
    if stream is None or not can_see_metadata(store, user, stream):
        raise ApiError("Invalid channel ID")
    return stream


def access_active(store: Store, user: Row, stream_id: int, *, content: bool = True) -> Row:
    """A channel that is not archived, which the user may read (or, without ``content``, see)."""
    if content:
        stream = access_stream(store, user, stream_id)
    else:
        stream = access_for_metadata(store, user, stream_id)
    if stream["is_archived"]:
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


# -- the channel's email address ----------------------------------------------------------------
def _slug(name: str) -> str:
    """The name part of the address: dashes for non-word runs, kept only if all of it is ASCII."""
    name = re.sub(r"\W+", "-", name)
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", ascii_name.lower())).strip("-_")
    return slug if len(slug) == len(name) else ""


def email_address(
    store: Store, user: Row, stream_id: int, *, sender_id: int | None, host: str
) -> str:
    """``GET /streams/{stream_id}/email_address``: where an email becomes a channel message.

    Each (channel, creator, sender) has a token of its own; without ``sender_id`` the
    messages come from the email gateway. ``sender_id`` may name the user or a bot the
    user owns (administrators: any bot).
    """
    with store.atomic():
        stream = access_active(store, user, stream_id)
        if sender_id is not None and sender_id != user["id"]:
            bot = store.one("SELECT * FROM users WHERE id = ?", [sender_id])
            if bot is None or not bot["is_bot"] or not bot["is_active"]:
                raise ApiError("No such bot")
            if bot["bot_owner_id"] != user["id"] and not realm_mod.is_admin(user):
                raise ApiError("Insufficient permission")
        row = store.one(
            "SELECT email_token FROM channel_email_addresses WHERE stream_id = ? "
            "AND creator_id = ? AND coalesce(sender_id, 0) = ?",
            [stream["id"], user["id"], sender_id or 0],
        )
        if row is not None:
            token = str(row["email_token"])
        else:
            token = secrets.token_hex(16)
            store.insert(
                "channel_email_addresses",
                {
                    "stream_id": stream["id"],
                    "creator_id": user["id"],
                    "sender_id": sender_id,
                    "email_token": token,
                },
            )
    slug = _slug(stream["name"])
    local = f"{slug}.{token}" if slug else token
    return f"{local}.show-sender@{host}"
