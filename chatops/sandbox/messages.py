"""Sending, reading and deleting messages; the message record of spec section 2.

Access rules: a channel message is readable by subscribers and, for public channels, by any
non-guest; in channels with protected history a subscriber reads only what was sent after
they subscribed. A direct message is readable by its participants.
"""

from __future__ import annotations

import json
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from . import bounds, channels, clock, linkifiers, users
from . import realm as realm_mod
from .bus import Event, EventQueue, event_bus
from .emoji_data import EXTRA
from .errors import ApiError
from .rendering import Mentions, MentionTargets, find_mentions, render, upload_path_ids
from .store import Row, Store

__all__ = ["EXTRA", "Formatter", "send_message"]

#: called inside the sending transaction with each new message: ``(store, sender, message_id,
#: mentioned_ids, direct_recipient_ids)``.
SendHook = Callable[[Store, Row, int, set[int], "set[int] | None"], None]

READ, STARRED, MENTIONED, STREAM_WILDCARD, TOPIC_WILDCARD, HISTORICAL = 1, 2, 8, 16, 32, 64
COLLAPSED = 4
FLAG_NAMES = [
    (READ, "read"),
    (STARRED, "starred"),
    (COLLAPSED, "collapsed"),
    (MENTIONED, "mentioned"),
    (STREAM_WILDCARD, "stream_wildcard_mentioned"),
    (TOPIC_WILDCARD, "topic_wildcard_mentioned"),
    (HISTORICAL, "historical"),
]
MAX_FETCH = 5000
NO_TOPIC = "(no topic)"
TRUNCATED = "\n[message truncated]"


def now() -> int:
    return int(clock.now())


# -- hooks ---------------------------------------------------------------------------------
# Each organization's hooks are kept beside its store, as its event bus is, and go with it: two
# sandboxes in one process share none, and importing a module registers nothing.
_send_hooks: weakref.WeakKeyDictionary[Store, tuple[SendHook, ...]] = weakref.WeakKeyDictionary()
_send_hooks_lock = threading.Lock()


def on_send(store: Store, hook: SendHook) -> None:
    """Call ``hook`` with each message sent in ``store``'s organization (added once).

    The app adds the bots area's trigger when it serves bots, so that this module need not
    import the one that posts the bots' replies through it.
    """
    with _send_hooks_lock:
        hooks = _send_hooks.get(store, ())
        if hook not in hooks:
            _send_hooks[store] = (*hooks, hook)


def send_hooks(store: Store) -> tuple[SendHook, ...]:
    """What :func:`send_message` calls with each message sent in ``store``'s organization."""
    return _send_hooks.get(store, ())


# -- topics ------------------------------------------------------------------------------
def normalise_topic(topic: str) -> str:
    """The stored topic for a requested one: ``(no topic)`` and the display name are empty."""
    stripped = topic.strip()
    if stripped in (NO_TOPIC, realm_mod.EMPTY_TOPIC_DISPLAY_NAME):
        return ""
    return stripped


def truncate_topic(topic: str) -> str:
    """The real server's ``truncate_topic``: a topic past ``max_topic_length`` is cut, its
    last three characters ``...`` (sending and editing both make a long topic fit)."""
    limit = realm_mod.LIMITS["max_topic_length"]
    return topic if len(topic) <= limit else topic[: limit - 3] + "..."


def check_topic_characters(topic: str) -> None:
    """The real server's ``check_stream_topic``: no control character or non-character."""
    at = bounds.unprintable_position(topic)
    if at is not None:
        raise ApiError(f"Invalid character in topic, at position {at}!")


def check_content_characters(content: str) -> None:
    """The real server's ``normalize_body``: no NUL in a message."""
    if "\x00" in content:
        raise ApiError("Message must not contain null bytes")


def display_topic(topic: str, allow_empty_topic_name: bool) -> str:
    if topic == "" and not allow_empty_topic_name:
        return realm_mod.EMPTY_TOPIC_DISPLAY_NAME
    return topic


def check_topic_allowed(store: Store, stream: Row, topic: str) -> None:
    policy = channels.effective_topics_policy(store, stream)
    if topic == "" and policy == "disable_empty_topic":
        raise ApiError("Sending messages to the general chat is not allowed in this channel.")
    if topic != "" and policy == "empty_topic_only":
        raise ApiError("Only the general chat topic is allowed in this channel.")


# -- recipients --------------------------------------------------------------------------
def user_set_key(user_ids: Iterable[int]) -> str:
    return "," + ",".join(str(u) for u in sorted(set(user_ids))) + ","


def recipient_for_users(store: Store, user_ids: Iterable[int]) -> int:
    key = user_set_key(user_ids)
    row = store.one("SELECT id FROM recipients WHERE user_set = ?", [key])
    if row is not None:
        return int(row["id"])
    return store.insert("recipients", {"user_set": key})


def dm_recipient_ids(store: Store, user_id: int) -> list[int]:
    rows = store.query("SELECT id FROM recipients WHERE user_set LIKE ?", [f"%,{user_id},%"])
    return [r["id"] for r in rows]


def _resolve_user(store: Store, ref: Any) -> Row:
    if isinstance(ref, int) and not isinstance(ref, bool):
        row = users.get_user(store, ref)
        if row is None:
            raise ApiError(f"Invalid user ID {ref}")
    elif isinstance(ref, str):
        row = users.user_by_email(store, ref.strip())
        if row is None:
            raise ApiError(f"Invalid email '{ref}'")
    else:
        raise ApiError("Invalid user ID")
    if not row["is_active"]:
        raise ApiError(f"'{row['delivery_email']}' is no longer using Zulip.")
    return row


def parse_direct_recipients(store: Store, to: str) -> list[Row]:
    try:
        value = bounds.loads("to", to)
    except ValueError:
        value = [e for e in to.split(",") if e.strip()]
    if isinstance(value, int | str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ApiError("Message must have recipients")
    return [_resolve_user(store, ref) for ref in value]


def resolve_channel(store: Store, to: str) -> Row:
    """A channel named by id (JSON int, or a one-element list) or by name."""
    ref: Any = to
    try:
        ref = bounds.loads("to", to)
    except ValueError:
        pass
    if isinstance(ref, list) and len(ref) == 1:
        ref = ref[0]
    if isinstance(ref, int) and not isinstance(ref, bool):
        stream = channels.get_stream(store, ref)
        if stream is None:
            raise ApiError(
                f"Channel with ID '{ref}' does not exist",
                code="STREAM_DOES_NOT_EXIST",
                stream_id=ref,
            )
        return stream
    name = str(ref)
    stream = channels.stream_by_name(store, name)
    if stream is None:
        raise ApiError(
            f"Channel '{name}' does not exist", code="STREAM_DOES_NOT_EXIST", stream=name
        )
    return stream


# -- mentions ----------------------------------------------------------------------------
def mention_targets(store: Store) -> MentionTargets:
    """Who a mention can name now: active users by full name, active named groups."""
    people = store.query("SELECT id, full_name FROM users WHERE is_active = 1")
    groups = {
        r["name"]: r["id"]
        for r in store.query(
            "SELECT id, name FROM user_groups WHERE name IS NOT NULL AND deactivated = 0"
        )
    }
    return MentionTargets(
        names={r["full_name"]: r["id"] for r in people},
        groups=groups,
        full_names={r["id"]: r["full_name"] for r in people},
    )


def mentions_in(store: Store, content: str, who: MentionTargets | None = None) -> Mentions:
    who = who or mention_targets(store)
    return find_mentions(content, dict(who.names), dict(who.groups))


def render_content(store: Store, content: str, who: MentionTargets | None = None) -> str:
    """Message HTML as the organization renders it now: its linkifiers, its people and groups."""
    return render(content, linkifiers.compiled(store), who or mention_targets(store))


def check_wildcards(
    store: Store, sender: Row, stream: Row | None, topic: str, found: Mentions
) -> None:
    """Spec 4.1 rule 5: wildcard mentions in large channels or busy topics need permission."""
    if stream is None or not (found.stream_wildcard or found.topic_wildcard):
        return
    if realm_mod.realm_permits(store, sender, "can_mention_many_users_group"):
        return
    if found.stream_wildcard:
        if len(channels.subscriber_ids(store, stream["id"])) > realm_mod.WILDCARD_MENTION_THRESHOLD:
            raise ApiError(
                "You do not have permission to use channel wildcard mentions in this channel.",
                code="STREAM_WILDCARD_MENTION_NOT_ALLOWED",
            )
    if found.topic_wildcard:
        participants = store.scalar(
            "SELECT count(DISTINCT sender_id) FROM messages WHERE stream_id = ? AND topic = ? "
            "COLLATE NOCASE",
            [stream["id"], topic],
        )
        if int(participants) > realm_mod.WILDCARD_MENTION_THRESHOLD:
            raise ApiError(
                "You do not have permission to use topic wildcard mentions in this topic.",
                code="TOPIC_WILDCARD_MENTION_NOT_ALLOWED",
            )


def mentioned_user_ids(store: Store, found: Mentions) -> set[int]:
    ids = set(found.user_ids)
    for gid in found.group_ids:
        for u in store.query("SELECT * FROM users WHERE is_active = 1"):
            if realm_mod.user_in_group(store, u, gid):
                ids.add(u["id"])
    return ids


# -- sending -----------------------------------------------------------------------------
def send_message(
    store: Store,
    sender: Row,
    *,
    message_type: str,
    to: str,
    content: str,
    topic: str | None = None,
    client: str = "API",
    timestamp: int | None = None,
    read_by_sender: bool = True,
) -> int:
    """Post a channel or direct message; returns its id."""
    if not content.strip():
        raise ApiError("Message must not be empty")
    check_content_characters(content)
    limit = realm_mod.LIMITS["max_message_length"]
    if len(content) > limit:
        content = content[: limit - len(TRUNCATED)] + TRUNCATED
    who = mention_targets(store)
    found = mentions_in(store, content, who)
    stream: Row | None = None
    if message_type in ("stream", "channel"):
        stream = resolve_channel(store, to)
        if stream["is_archived"]:
            raise ApiError(f"Not authorized to send to channel '{stream['name']}'")
        if int(sender["role"]) == realm_mod.ROLE_GUEST or stream["invite_only"]:
            if (
                channels.subscription(store, sender["id"], stream["id"]) is None
                and not sender["is_system_bot"]
            ):
                raise ApiError(f"Not authorized to send to channel '{stream['name']}'")
        send_group = channels.channel_settings(store, stream)["can_send_message_group"]
        if not sender["is_system_bot"] and not realm_mod.user_has_setting(
            store, sender, send_group
        ):
            raise ApiError("You do not have permission to post in this channel.")
        if topic is None:
            raise ApiError("Missing topic")
        topic = normalise_topic(topic)
        check_topic_characters(topic)
        topic = truncate_topic(topic)
        check_topic_allowed(store, stream, topic)
        check_wildcards(store, sender, stream, topic, found)
        recipient_id = channels.recipient_for_stream(store, stream["id"])
        receivers = set(channels.subscriber_ids(store, stream["id"]))
    elif message_type in ("direct", "private"):
        people = parse_direct_recipients(store, to)
        ids = {p["id"] for p in people} | {sender["id"]}
        recipient_id = recipient_for_users(store, ids)
        receivers = ids
        topic = ""
    else:
        raise ApiError("Invalid message type")
    # rendered before the write transaction, so a long render never holds up other requests
    rendered = render_content(store, content, who)
    with store.atomic():
        message_id = store.insert(
            "messages",
            {
                "sender_id": sender["id"],
                "recipient_id": recipient_id,
                "stream_id": stream["id"] if stream else None,
                "topic": topic,
                "content": content,
                "rendered_content": rendered,
                "client": client,
                "timestamp": timestamp if timestamp is not None else now(),
                "is_me_message": int(content.startswith("/me ")),
            },
        )
        mentioned = mentioned_user_ids(store, found)
        rows = []
        for uid in receivers:
            flags = READ if (uid == sender["id"] and read_by_sender) else 0
            if uid in mentioned:
                flags |= MENTIONED
            if found.stream_wildcard:
                flags |= STREAM_WILDCARD
            if found.topic_wildcard:
                flags |= TOPIC_WILDCARD
            rows.append((uid, message_id, flags))
        store.executemany(
            "INSERT OR IGNORE INTO message_flags (user_id, message_id, flags) VALUES (?, ?, ?)",
            rows,
        )
        link_uploads(store, sender, message_id, content)
        publish_message(store, message_id)
        dm_ids = receivers if stream is None else None
        for hook in send_hooks(store):
            hook(store, sender, message_id, found.user_ids, dm_ids)
    return message_id


def link_uploads(store: Store, sender: Row, message_id: int, content: str) -> None:
    """Claim the files a message links: owned by the sender, or already shared."""
    for path_id in upload_path_ids(content):
        row = store.one("SELECT id, owner_id FROM attachments WHERE path_id = ?", [path_id])
        if row is None:
            continue
        shared = store.one(
            "SELECT 1 FROM attachment_messages WHERE attachment_id = ? LIMIT 1", [row["id"]]
        )
        if row["owner_id"] == sender["id"] or shared is not None:
            store.execute(
                "INSERT OR IGNORE INTO attachment_messages (attachment_id, message_id) VALUES (?, ?)",
                [row["id"], message_id],
            )


# -- access ------------------------------------------------------------------------------
def can_access(store: Store, user: Row, message: Row) -> bool:
    if message["stream_id"] is None:
        key = store.scalar(
            "SELECT user_set FROM recipients WHERE id = ?", [message["recipient_id"]]
        )
        return f",{user['id']}," in (key or "")
    stream = channels.get_stream(store, message["stream_id"])
    if stream is None or not channels.can_read(store, user, stream):
        return False
    return int(message["id"]) >= channels.first_visible_message_id(store, user, stream)


def access_message(store: Store, user: Row, message_id: int) -> Row:
    message = store.one("SELECT * FROM messages WHERE id = ?", [message_id])
    if message is None or not can_access(store, user, message):
        raise ApiError("Invalid message(s)")
    return message


# -- the message record -------------------------------------------------------------------
class Formatter:
    """Builds message records for one reader, caching people and channels across a page."""

    def __init__(
        self,
        store: Store,
        viewer: Row,
        *,
        apply_markdown: bool = True,
        client_gravatar: bool = True,
        allow_empty_topic_name: bool = False,
    ) -> None:
        self.store = store
        self.viewer = viewer
        self.apply_markdown = apply_markdown
        self.client_gravatar = client_gravatar
        self.allow_empty_topic_name = allow_empty_topic_name
        self.allow_edit_history = bool(realm_mod.settings(store)["allow_edit_history"])
        self._people: dict[int, dict[str, Any]] = {}
        self._streams: dict[int, str] = {}
        self._dm: dict[int, list[dict[str, Any]]] = {}
        self._linkifiers = linkifiers.compiled(store)
        self._topic_links: dict[str, list[dict[str, str]]] = {}

    def topic_links(self, topic: str) -> list[dict[str, str]]:
        """A topic's links, matched once per page: a page holds many messages of few topics."""
        if not self._linkifiers:
            return []
        links = self._topic_links.get(topic)
        if links is None:
            links = self._topic_links[topic] = linkifiers.topic_links(topic, self._linkifiers)
        return [dict(link) for link in links] if links else []

    def person(self, user_id: int) -> dict[str, Any]:
        p = self._people.get(user_id)
        if p is None:
            row = users.get_user(self.store, user_id)
            assert row is not None
            visible = users.can_see_email(self.store, self.viewer, row)
            p = {
                "id": user_id,
                "email": users.api_email(self.store, row),
                "full_name": row["full_name"],
                "avatar_url": users.avatar_url(
                    row, client_gravatar=self.client_gravatar, email_visible=visible
                ),
                "is_mirror_dummy": False,
            }
            self._people[user_id] = p
        return p

    def stream_name(self, stream_id: int) -> str:
        name = self._streams.get(stream_id)
        if name is None:
            name = str(self.store.scalar("SELECT name FROM streams WHERE id = ?", [stream_id]))
            self._streams[stream_id] = name
        return name

    def dm_recipients(self, recipient_id: int) -> list[dict[str, Any]]:
        out = self._dm.get(recipient_id)
        if out is None:
            key = str(
                self.store.scalar("SELECT user_set FROM recipients WHERE id = ?", [recipient_id])
            )
            ids = [int(x) for x in key.strip(",").split(",") if x]
            out = [
                {k: self.person(i)[k] for k in ("id", "email", "full_name", "is_mirror_dummy")}
                for i in ids
            ]
            self._dm[recipient_id] = out
        return out

    def format(self, rows: list[Row], flags: dict[int, int] | None = None) -> list[dict[str, Any]]:
        ids = [r["id"] for r in rows]
        reactions: dict[int, list[dict[str, Any]]] = {}
        for chunk_start in range(0, len(ids), 900):
            chunk = ids[chunk_start : chunk_start + 900]
            marks = ",".join("?" * len(chunk))
            for r in self.store.query(
                f"SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions "
                f"WHERE message_id IN ({marks}) ORDER BY id",
                chunk,
            ):
                reactions.setdefault(r["message_id"], []).append(
                    {
                        "emoji_name": r["emoji_name"],
                        "emoji_code": r["emoji_code"],
                        "reaction_type": r["reaction_type"],
                        "user_id": r["user_id"],
                    }
                )
        return [self.one(r, reactions.get(r["id"], []), flags) for r in rows]

    def one(
        self, row: Row, reactions: list[dict[str, Any]], flags: dict[int, int] | None
    ) -> dict[str, Any]:
        sender = self.person(row["sender_id"])
        is_stream = row["stream_id"] is not None
        rendered = row["rendered_content"]
        if rendered is None:
            rendered = render(row["content"])
        record: dict[str, Any] = {
            "id": row["id"],
            "type": "stream" if is_stream else "private",
            "sender_id": row["sender_id"],
            "sender_email": sender["email"],
            "sender_full_name": sender["full_name"],
            "sender_realm_str": "sandbox",
            "recipient_id": row["recipient_id"],
            "subject": display_topic(row["topic"], self.allow_empty_topic_name)
            if is_stream
            else "",
            "display_recipient": (
                self.stream_name(row["stream_id"])
                if is_stream
                else self.dm_recipients(row["recipient_id"])
            ),
            "content": rendered if self.apply_markdown else row["content"],
            "content_type": "text/html" if self.apply_markdown else "text/x-markdown",
            "client": row["client"],
            "timestamp": row["timestamp"],
            "is_me_message": bool(row["is_me_message"]),
            "avatar_url": sender["avatar_url"],
            "reactions": reactions,
            "submessages": [],
            "topic_links": self.topic_links(row["topic"]) if is_stream else [],
        }
        if is_stream:
            record["stream_id"] = row["stream_id"]
        if row["last_edit_timestamp"] is not None:
            record["last_edit_timestamp"] = row["last_edit_timestamp"]
        if row["last_moved_timestamp"] is not None:
            record["last_moved_timestamp"] = row["last_moved_timestamp"]
        if row["edit_history"] and self.allow_edit_history:
            record["edit_history"] = json.loads(row["edit_history"])
        if flags is not None:
            bits = flags.get(row["id"])
            if bits is None:
                bits = READ | HISTORICAL
            record["flags"] = [name for bit, name in FLAG_NAMES if bits & bit]
        return record


# -- events ---------------------------------------------------------------------------------------
def publish_message(store: Store, message_id: int) -> None:
    """A ``message`` event for everyone who received message ``message_id``, with their flags."""
    bus = event_bus(store)
    receivers = {
        r["user_id"]: r["flags"]
        for r in store.query(
            "SELECT user_id, flags FROM message_flags WHERE message_id = ?", [message_id]
        )
    }
    with bus.changed:
        wanted = any(q.user_id in receivers and q.wants("message") for q in bus.queues.values())
    if not wanted:
        return
    row = store.one("SELECT * FROM messages WHERE id = ?", [message_id])
    if row is None:
        return

    def make(queue: EventQueue) -> Event | None:
        viewer = users.get_user(store, queue.user_id)
        if viewer is None:
            return None
        fmt = Formatter(
            store,
            viewer,
            apply_markdown=queue.apply_markdown,
            client_gravatar=queue.client_gravatar,
            allow_empty_topic_name=bool(queue.client_capabilities.get("empty_topic_name")),
        )
        bits = receivers.get(queue.user_id, 0)
        record = fmt.format([row])[0]
        flags = [name for bit, name in FLAG_NAMES if bits & bit]
        return {"type": "message", "message": record, "flags": flags}

    bus.publish_each(receivers, "message", make)


def message_audience(store: Store, message_ids: Iterable[int]) -> dict[int, int]:
    """Who has each of the messages: ``{user_id: flags of the first one they have}``."""
    out: dict[int, int] = {}
    for mid in message_ids:
        for r in store.query(
            "SELECT user_id, flags FROM message_flags WHERE message_id = ?", [mid]
        ):
            out.setdefault(r["user_id"], r["flags"])
    return out


def render_message(store: Store, user: Row, content: str) -> dict[str, Any]:
    """``POST /messages/render``: the HTML ``content`` would get if ``user`` sent it now."""
    return {"rendered": render_content(store, content) if content else ""}
