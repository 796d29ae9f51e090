"""Editing and moving messages: spec 4.1 and the topic resolve transitions of section 3."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from . import channels, users
from . import realm as realm_mod
from .bus import Event, EventQueue, event_bus
from .errors import ApiError
from .messages import (
    FLAG_NAMES,
    MENTIONED,
    STREAM_WILDCARD,
    TOPIC_WILDCARD,
    access_message,
    check_content_characters,
    check_topic_allowed,
    check_topic_characters,
    check_wildcards,
    link_uploads,
    mentioned_user_ids,
    mentions_in,
    message_audience,
    normalise_topic,
    now,
    render_content,
    send_message,
    truncate_topic,
)
from .rendering import render, upload_path_ids
from .sentinel import MISSING
from .store import Row, Store

PREFIX = realm_mod.RESOLVED_TOPIC_PREFIX
EDIT_BUFFER_SECONDS = 20
PROPAGATE_MODES = ("change_one", "change_later", "change_all")


def strip_resolved(topic: str) -> str:
    while topic.startswith((PREFIX, "✔")):
        topic = topic[len(PREFIX) :] if topic.startswith(PREFIX) else topic[1:]
        topic = topic.lstrip()
    return topic


def attachment_record(row: Row, message_ids: list[tuple[int, int]]) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "path_id": row["path_id"],
        "size": row["size"],
        "create_time": row["create_time"],
        "messages": [{"id": mid, "date_sent": ts * 1000} for mid, ts in message_ids],
    }


def edit_message(
    store: Store,
    user: Row,
    message_id: int,
    *,
    topic: Any = MISSING,
    content: Any = MISSING,
    stream_id: Any = MISSING,
    propagate_mode: str = "change_one",
    send_notification_to_old_thread: bool = False,
    send_notification_to_new_thread: bool = True,
    prev_content_sha256: Any = MISSING,
) -> dict[str, Any]:
    """Apply one edit request; raises before changing anything when a rule refuses it.

    The checks run in one order (the request's shape, the content, the topic, the channel, the
    permission to move, the time limits of the messages moved), so that a request breaking two
    rules always gets the same error.
    """
    message = access_message(store, user, message_id)
    _check_request(message, topic, content, stream_id, propagate_mode, prev_content_sha256)
    settings = realm_mod.settings(store)
    is_stream = message["stream_id"] is not None
    source = channels.get_stream(store, message["stream_id"]) if is_stream else None
    new_content = None
    if content is not MISSING:
        new_content = _checked_content(store, user, message, str(content), settings, source)
    old_topic = str(message["topic"])
    new_topic, resolving = (None, None) if topic is MISSING else _new_topic(str(topic), old_topic)
    target = None if stream_id is MISSING else _target(store, user, int(stream_id), source)
    moving = new_topic is not None or target is not None
    if resolving is not None and target is not None:
        resolving = None
    moved: list[Row] = []
    if moving:
        assert source is not None
        _check_move_permission(store, user, source, target, new_topic, resolving)
        dest = target or source
        check_topic_allowed(store, dest, new_topic if new_topic is not None else old_topic)
        if new_content is not None:
            check_wildcards(
                store, user, dest, new_topic or old_topic, mentions_in(store, new_content)
            )
        topic_rows = _topic_rows(store, user, source, old_topic)
        moved = _moved(message, topic_rows, propagate_mode)
        if resolving is None and not realm_mod.is_moderator_or_above(user):
            _check_move_time_limit(settings, moved, topic_rows, propagate_mode, new_topic, target)

    ts = now()
    detached: list[dict[str, Any]] = []
    with store.atomic():
        if new_content is not None:
            detached = _apply_content(store, user, message, new_content, ts, new_topic)
        if moving:
            assert source is not None
            _apply_move(
                store,
                user,
                moved,
                message,
                source,
                target,
                old_topic,
                new_topic,
                ts,
                resolving,
                skip_history_for=message["id"] if new_content is not None else None,
            )
        moved_ids = [r["id"] for r in moved]
        publish_update_message(
            store, user, message, moved_ids, propagate_mode=propagate_mode, timestamp=ts
        )
        if moving:
            assert source is not None
            _notify(
                store,
                user,
                source,
                target,
                old_topic,
                new_topic,
                resolving,
                len(moved),
                propagate_mode,
                send_notification_to_old_thread,
                send_notification_to_new_thread,
            )
    return {"detached_uploads": detached}


def _check_request(
    message: Row,
    topic: Any,
    content: Any,
    stream_id: Any,
    propagate_mode: str,
    prev_content_sha256: Any,
) -> None:
    """What the request may ask of this message at all, and that it edits what was read."""
    if topic is MISSING and content is MISSING and stream_id is MISSING:
        raise ApiError("Nothing to change")
    if propagate_mode not in PROPAGATE_MODES:
        raise ApiError("Invalid propagate_mode")
    if content is not MISSING and stream_id is not MISSING:
        raise ApiError("Cannot change message content while changing channel")
    is_stream = message["stream_id"] is not None
    if not is_stream and stream_id is not MISSING:
        raise ApiError("Direct messages cannot be moved to channels.")
    if not is_stream and topic is not MISSING:
        raise ApiError("Direct messages cannot have topics.")
    if topic is MISSING and stream_id is MISSING and propagate_mode != "change_one":
        raise ApiError("Invalid propagate_mode without topic edit")
    if prev_content_sha256 is not MISSING:
        current = hashlib.sha256(message["content"].encode("utf-8")).hexdigest()
        if str(prev_content_sha256).lower() != current:
            raise ApiError(
                "'prev_content_sha256' value does not match the expected value.",
                code="EXPECTATION_MISMATCH",
            )


def _checked_content(
    store: Store,
    user: Row,
    message: Row,
    new_content: str,
    settings: dict[str, Any],
    source: Row | None,
) -> str:
    """The new content, once the sender may still edit it and it is a valid message."""
    if not settings["allow_message_editing"]:
        raise ApiError("Your organization has turned off message editing")
    if message["sender_id"] != user["id"]:
        raise ApiError("You don't have permission to edit this message")
    limit = settings["message_content_edit_limit_seconds"]
    if limit is not None and now() - int(message["timestamp"]) > int(limit) + EDIT_BUFFER_SECONDS:
        raise ApiError("The time limit for editing this message has passed")
    if not new_content.strip():
        raise ApiError("Message must not be empty")
    check_content_characters(new_content)
    if len(new_content) > realm_mod.LIMITS["max_message_length"]:
        raise ApiError(
            f"Message too long (maximum {realm_mod.LIMITS['max_message_length']} characters)"
        )
    check_wildcards(store, user, source, message["topic"], mentions_in(store, new_content))
    return new_content


def _new_topic(raw: str, old_topic: str) -> tuple[str | None, str | None]:
    """The topic the request asks for (None: unchanged) and ``"resolved"``/``"unresolved"``
    when the change is only a resolve transition (section 3)."""
    if raw.startswith(PREFIX) and strip_resolved(raw) == "" and old_topic == "":
        raise ApiError("General chat cannot be marked as resolved")
    candidate = normalise_topic(raw)
    check_topic_characters(candidate)
    if candidate.startswith((PREFIX, "✔")):
        candidate = PREFIX + strip_resolved(candidate)
        if strip_resolved(candidate) == "":
            raise ApiError("General chat cannot be marked as resolved")
    # as the real server: a long topic is cut to fit, and adding the resolved prefix to
    # a topic counts as resolving it when the name before the cut is prefix + old topic
    whole, candidate = candidate, truncate_topic(candidate)
    if candidate == old_topic:
        return None, None
    if not old_topic.startswith(PREFIX) and whole == PREFIX + old_topic:
        return candidate, "resolved"
    if old_topic.startswith(PREFIX) and candidate == strip_resolved(old_topic):
        return candidate, "unresolved"
    return candidate, None


def _target(store: Store, user: Row, stream_id: int, source: Row | None) -> Row | None:
    """The channel the messages move to (None: they stay where they are)."""
    target = channels.get_stream(store, stream_id)
    if target is None or not channels.can_read(store, user, target) or target["is_archived"]:
        raise ApiError("Invalid channel ID")
    if source is not None and target["id"] == source["id"]:
        return None
    return target


def _topic_rows(store: Store, user: Row, source: Row, topic: str) -> list[Row]:
    """The topic's messages the user can see, oldest first."""
    first_visible = channels.first_visible_message_id(store, user, source)
    return store.query(
        "SELECT * FROM messages WHERE stream_id = ? AND topic = ? COLLATE NOCASE AND id >= ? "
        "ORDER BY id",
        [source["id"], topic, first_visible],
    )


def _moved(message: Row, topic_rows: list[Row], propagate_mode: str) -> list[Row]:
    """The messages a move takes: this one, it and the later ones, or the whole topic."""
    if propagate_mode == "change_one":
        return [message]
    if propagate_mode == "change_later":
        return [r for r in topic_rows if r["id"] >= message["id"]]
    return topic_rows


def _check_move_permission(
    store: Store,
    user: Row,
    source: Row,
    target: Row | None,
    new_topic: str | None,
    resolving: str | None,
) -> None:
    chan = channels.channel_settings(store, source)

    def allowed(realm_setting: str, channel_setting: str) -> bool:
        """The organization's setting or the channel's own lets the user do it."""
        return realm_mod.realm_permits(store, user, realm_setting) or realm_mod.user_has_setting(
            store, user, chan[channel_setting]
        )

    if resolving is not None:
        if allowed("can_resolve_topics_group", "can_resolve_topics_group"):
            return
        raise ApiError("You don't have permission to resolve topics in this channel.")
    if target is not None and not allowed(
        "can_move_messages_between_channels_group", "can_move_messages_out_of_channel_group"
    ):
        raise ApiError("You don't have permission to move this message")
    if new_topic is not None and not allowed(
        "can_move_messages_between_topics_group", "can_move_messages_within_channel_group"
    ):
        raise ApiError("You don't have permission to edit this message")


def _check_move_time_limit(
    settings: dict[str, Any],
    moved: list[Row],
    topic_rows: list[Row],
    propagate_mode: str,
    new_topic: str | None,
    target: Row | None,
) -> None:
    limits = []
    if new_topic is not None and settings["move_messages_within_stream_limit_seconds"] is not None:
        limits.append(int(settings["move_messages_within_stream_limit_seconds"]))
    if target is not None and settings["move_messages_between_streams_limit_seconds"] is not None:
        limits.append(int(settings["move_messages_between_streams_limit_seconds"]))
    if not limits:
        return
    cutoff = now() - min(limits)
    if propagate_mode == "change_all":
        allowed = [r for r in topic_rows if int(r["timestamp"]) >= cutoff]
        if len(allowed) < len(topic_rows):
            raise ApiError(
                "You only have permission to move the "
                f"{len(allowed)}/{len(topic_rows)} most recent messages in this topic.",
                code="MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
                first_message_id_allowed_to_move=allowed[0]["id"] if allowed else None,
                total_messages_allowed_to_move=len(allowed),
                total_messages_in_topic=len(topic_rows),
            )
    elif moved and int(moved[0]["timestamp"]) < cutoff:
        what = "topic" if target is None else "channel"
        raise ApiError(f"The time limit for editing this message's {what} has passed")


def _apply_content(
    store: Store, user: Row, message: Row, new_content: str, ts: int, new_topic: str | None
) -> list[dict[str, Any]]:
    entry: dict[str, Any] = {
        "user_id": user["id"],
        "timestamp": ts,
        "prev_content": message["content"],
        "prev_rendered_content": message["rendered_content"] or render(message["content"]),
    }
    if new_topic is not None:
        entry["prev_topic"] = message["topic"]
        entry["topic"] = new_topic
    history = [entry, *json.loads(message["edit_history"] or "[]")]
    store.execute(
        "UPDATE messages SET content = ?, rendered_content = ?, last_edit_timestamp = ?, "
        "edit_history = ? WHERE id = ?",
        [
            new_content,
            render_content(store, new_content),
            ts,
            json.dumps(history),
            message["id"],
        ],
    )
    _update_mention_flags(store, message["id"], new_content)
    removed = upload_path_ids(message["content"]) - upload_path_ids(new_content)
    detached: list[dict[str, Any]] = []
    for path_id in sorted(removed):
        att = store.one("SELECT * FROM attachments WHERE path_id = ?", [path_id])
        if att is None:
            continue
        store.execute(
            "DELETE FROM attachment_messages WHERE attachment_id = ? AND message_id = ?",
            [att["id"], message["id"]],
        )
        still = store.one("SELECT 1 FROM attachment_messages WHERE attachment_id = ?", [att["id"]])
        if still is None and att["owner_id"] == message["sender_id"]:
            detached.append(attachment_record(att, []))

    sender = users.get_user(store, message["sender_id"])
    assert sender is not None
    link_uploads(store, sender, message["id"], new_content)
    return detached


def _update_mention_flags(store: Store, message_id: int, content: str) -> None:
    """An edit that adds or removes a mention changes the readers' mention flags."""
    found = mentions_in(store, content)
    mentioned = mentioned_user_ids(store, found)
    kept = ~(MENTIONED | STREAM_WILDCARD | TOPIC_WILDCARD)
    for r in store.query(
        "SELECT user_id, flags FROM message_flags WHERE message_id = ?", [message_id]
    ):
        bits = r["flags"] & kept
        if r["user_id"] in mentioned:
            bits |= MENTIONED
        if found.stream_wildcard:
            bits |= STREAM_WILDCARD
        if found.topic_wildcard:
            bits |= TOPIC_WILDCARD
        if bits != r["flags"]:
            store.execute(
                "UPDATE message_flags SET flags = ? WHERE user_id = ? AND message_id = ?",
                [bits, r["user_id"], message_id],
            )


def _apply_move(
    store: Store,
    user: Row,
    moved: list[Row],
    message: Row,
    source: Row,
    target: Row | None,
    old_topic: str,
    new_topic: str | None,
    ts: int,
    resolving: str | None,
    skip_history_for: int | None,
) -> None:
    recipient_id = channels.recipient_for_stream(store, target["id"]) if target else None
    for row in moved:
        current = store.one("SELECT * FROM messages WHERE id = ?", [row["id"]])
        assert current is not None
        history = json.loads(current["edit_history"] or "[]")
        if row["id"] == skip_history_for and history and history[0]["timestamp"] == ts:
            entry = history[0]
        else:
            entry = {"user_id": user["id"], "timestamp": ts}
            history.insert(0, entry)
        if new_topic is not None:
            entry["prev_topic"] = old_topic
            entry["topic"] = new_topic
        if target is not None:
            entry["prev_stream"] = source["id"]
            entry["stream"] = target["id"]
        sets = ["edit_history = ?"]
        values: list[Any] = [json.dumps(history)]
        if new_topic is not None:
            sets.append("topic = ?")
            values.append(new_topic)
        if target is not None:
            sets += ["stream_id = ?", "recipient_id = ?"]
            values += [target["id"], recipient_id]
        if resolving is None:
            sets.append("last_moved_timestamp = ?")
            values.append(ts)
        store.execute(f"UPDATE messages SET {', '.join(sets)} WHERE id = ?", [*values, row["id"]])


def _notify(
    store: Store,
    user: Row,
    source: Row,
    target: Row | None,
    old_topic: str,
    new_topic: str | None,
    resolving: str | None,
    count: int,
    propagate_mode: str,
    to_old: bool,
    to_new: bool,
) -> None:
    bot = users.notification_bot(store)
    who = f"@_**{user['full_name']}|{user['id']}**"
    dest = target or source
    final_topic = new_topic if new_topic is not None else old_topic

    def post(channel: Row, topic: str, content: str) -> None:
        """The notification bot's message in ``topic`` of ``channel``."""
        send_message(
            store,
            bot,
            message_type="stream",
            to=str(channel["id"]),
            topic=topic,
            content=content,
            client="Internal",
        )

    if resolving is not None:
        post(dest, final_topic, f"{who} has marked this topic as {resolving}.")
        return
    what = (
        "This topic was"
        if propagate_mode == "change_all"
        else ("A message was" if count == 1 else f"{count} messages were")
    )
    old_link = f"#**{source['name']}>{old_topic}**"
    new_link = f"#**{dest['name']}>{final_topic}**"
    if to_new:
        post(dest, final_topic, f"{what} moved here from {old_link} by {who}.")
    if to_old:
        post(source, old_topic, f"{what} moved to {new_link} by {who}.")


# -- events ---------------------------------------------------------------------------------------
def publish_update_message(
    store: Store,
    editor: Row,
    before: Row,
    message_ids: list[int],
    *,
    propagate_mode: str | None,
    timestamp: int,
) -> None:
    """An ``update_message`` event for an edit of ``before`` and/or a move of ``message_ids``."""
    after = store.one("SELECT * FROM messages WHERE id = ?", [before["id"]])
    if after is None:
        return
    ids = sorted(set(message_ids) | {before["id"]})
    audience = message_audience(store, ids)
    event: Event = {
        "type": "update_message",
        "user_id": editor["id"],
        "edit_timestamp": timestamp,
        "message_id": before["id"],
        "message_ids": ids,
        "rendering_only": False,
        "is_me_message": bool(after["is_me_message"]),
    }
    if before["content"] != after["content"]:
        event.update(
            orig_content=before["content"],
            orig_rendered_content=before["rendered_content"],
            content=after["content"],
            rendered_content=after["rendered_content"],
        )
    if before["stream_id"] is not None:
        name = store.scalar("SELECT name FROM streams WHERE id = ?", [before["stream_id"]])
        event.update(stream_id=before["stream_id"], stream_name=name)
        moved = before["topic"] != after["topic"] or before["stream_id"] != after["stream_id"]
        if moved:
            event["propagate_mode"] = propagate_mode or "change_one"
            event["orig_subject"] = before["topic"]
            event["topic_links"] = []
            if before["topic"] != after["topic"]:
                event["subject"] = after["topic"]
            if before["stream_id"] != after["stream_id"]:
                event["new_stream_id"] = after["stream_id"]

    def make(queue: EventQueue) -> Event:
        bits = audience.get(queue.user_id, 0)
        return {**event, "flags": [n for b, n in FLAG_NAMES if bits & b]}

    event_bus(store).publish_each(audience, "update_message", make)
