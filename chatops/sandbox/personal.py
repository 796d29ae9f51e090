"""Personal tools: navigation views, saved snippets and typing notifications (spec 4.11-4.14).

Each user's own sidebar views and reusable snippets, and the typing notifications sent while
composing or editing; the events of each go to the user's (or the conversation's) queues.
"""

from __future__ import annotations

import json
from typing import Any

from . import bounds, channels, clock, messages, user_settings, users
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError, not_found
from .store import Row, Store

# -- navigation views (spec 4.12) ------------------------------------------------------------------
BUILT_IN_FRAGMENTS = frozenset(
    {
        "inbox",
        "recent",
        "feed",
        "drafts",
        "narrow/has/reaction/sender/me",
        "narrow/is/mentioned",
        "narrow/is/starred",
    }
)


def _check_view_name(
    store: Store, user: Row, fragment: str, name: str | None, *, creating: bool
) -> None:
    if fragment in BUILT_IN_FRAGMENTS:
        if name is not None:
            raise ApiError("Built-in views cannot have a custom name.")
        return
    if name is None or not name.strip():
        if creating or name is not None:
            raise ApiError("Custom views must have a valid name.")
        return
    clash = store.one(
        "SELECT 1 FROM navigation_views WHERE user_id = ? AND name = ? AND fragment != ?",
        [user["id"], name.strip(), fragment],
    )
    if clash is not None:
        raise ApiError("Navigation view already exists.")


def view_record(row: Row) -> dict[str, Any]:
    return {"fragment": row["fragment"], "is_pinned": bool(row["is_pinned"]), "name": row["name"]}


def create_view(
    store: Store, user: Row, *, fragment: str, is_pinned: bool, name: str | None
) -> None:
    fragment = fragment.strip()
    if not fragment:
        raise ApiError("fragment cannot be blank", var_name="fragment")
    with store.atomic():
        if store.one(
            "SELECT 1 FROM navigation_views WHERE user_id = ? AND fragment = ?",
            [user["id"], fragment],
        ):
            raise ApiError("Navigation view already exists.")
        _check_view_name(store, user, fragment, name, creating=True)
        store.insert(
            "navigation_views",
            {
                "user_id": user["id"],
                "fragment": fragment,
                "is_pinned": int(is_pinned),
                "name": name.strip() if name is not None else None,
            },
        )
        view = {"fragment": fragment, "is_pinned": is_pinned, "name": name}
        event_bus(store).publish(
            {"type": "navigation_view", "op": "add", "navigation_view": view}, [user["id"]]
        )


def _own_view(store: Store, user: Row, fragment: str) -> Row:
    row = store.one(
        "SELECT * FROM navigation_views WHERE user_id = ? AND fragment = ?", [user["id"], fragment]
    )
    if row is None:
        raise ApiError("Navigation view does not exist.")
    return row


def update_view(
    store: Store, user: Row, fragment: str, *, is_pinned: bool | None, name: Any
) -> None:
    """Change ``is_pinned`` and/or ``name`` (``name`` is MISSING-like None when not sent)."""
    with store.atomic():
        row = _own_view(store, user, fragment)
        data: dict[str, Any] = {}
        if name is not None:
            _check_view_name(store, user, fragment, name, creating=False)
            data["name"] = name.strip()
        if is_pinned is not None:
            data["is_pinned"] = int(is_pinned)
        if not data:
            raise ApiError("At least one of name or is_pinned must be given")
        sets = ", ".join(f"{k} = ?" for k in data)
        store.execute(
            f"UPDATE navigation_views SET {sets} WHERE user_id = ? AND fragment = ?",
            [*data.values(), user["id"], row["fragment"]],
        )
        changes = {k: bool(v) if k == "is_pinned" else v for k, v in data.items()}
        event_bus(store).publish(
            {"type": "navigation_view", "op": "update_view", "fragment": fragment, "data": changes},
            [user["id"]],
        )


def delete_view(store: Store, user: Row, fragment: str) -> None:
    with store.atomic():
        row = _own_view(store, user, fragment)
        store.execute(
            "DELETE FROM navigation_views WHERE user_id = ? AND fragment = ?",
            [user["id"], row["fragment"]],
        )
        event_bus(store).publish(
            {"type": "navigation_view", "op": "remove", "fragment": fragment}, [user["id"]]
        )


def list_views(store: Store, user: Row) -> list[dict[str, Any]]:
    rows = store.query(
        "SELECT * FROM navigation_views WHERE user_id = ? ORDER BY rowid", [user["id"]]
    )
    return [view_record(r) for r in rows]


# -- saved snippets (spec 4.13, 4.14) --------------------------------------------------------------
MAX_TITLE_LENGTH = 60


def _title(title: str) -> str:
    title = title.strip()
    if not title:
        raise ApiError("Title cannot be empty.")
    if len(title) > MAX_TITLE_LENGTH:
        raise ApiError(f"Title is too long (limit: {MAX_TITLE_LENGTH} characters).")
    return title


def _content(content: str) -> str:
    content = content.strip()
    if not content:
        raise ApiError("Content cannot be empty.")
    limit = realm_mod.LIMITS["max_message_length"]
    if len(content) > limit:
        raise ApiError(f"Content is too long (limit: {limit} characters).")
    return content


def snippet_record(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "title": row["title"],
        "content": row["content"],
        "date_created": row["date_created"],
    }


def create_snippet(store: Store, user: Row, *, title: str, content: str) -> int:
    title, content = _title(title), _content(content)
    with store.atomic():
        new_id = store.insert(
            "saved_snippets",
            {
                "user_id": user["id"],
                "title": title,
                "content": content,
                "date_created": int(clock.now()),
            },
        )
        row = store.one("SELECT * FROM saved_snippets WHERE id = ?", [new_id])
        assert row is not None
        event_bus(store).publish(
            {"type": "saved_snippets", "op": "add", "saved_snippet": snippet_record(row)},
            [user["id"]],
        )
    return new_id


def _own_snippet(store: Store, user: Row, snippet_id: int) -> Row:
    row = store.one(
        "SELECT * FROM saved_snippets WHERE id = ? AND user_id = ?", [snippet_id, user["id"]]
    )
    if row is None:
        raise not_found("Saved snippet does not exist.")
    return row


def update_snippet(
    store: Store, user: Row, snippet_id: int, *, title: str | None, content: str | None
) -> None:
    with store.atomic():
        row = _own_snippet(store, user, snippet_id)
        if title is None and content is None:
            return
        new_title = _title(title) if title is not None else row["title"]
        new_content = _content(content) if content is not None else row["content"]
        store.execute(
            "UPDATE saved_snippets SET title = ?, content = ? WHERE id = ?",
            [new_title, new_content, row["id"]],
        )
        fresh = store.one("SELECT * FROM saved_snippets WHERE id = ?", [row["id"]])
        assert fresh is not None
        event_bus(store).publish(
            {
                "type": "saved_snippets",
                "op": "update_snippet",
                "saved_snippet": snippet_record(fresh),
            },
            [user["id"]],
        )


def delete_snippet(store: Store, user: Row, snippet_id: int) -> None:
    with store.atomic():
        row = _own_snippet(store, user, snippet_id)
        store.execute("DELETE FROM saved_snippets WHERE id = ?", [row["id"]])
        event_bus(store).publish(
            {"type": "saved_snippets", "op": "remove", "saved_snippet_id": row["id"]},
            [user["id"]],
        )


def list_snippets(store: Store, user: Row) -> list[dict[str, Any]]:
    rows = store.query("SELECT * FROM saved_snippets WHERE user_id = ? ORDER BY id", [user["id"]])
    return [snippet_record(r) for r in rows]


# -- typing notifications (spec 4.11 and the general endpoint) -------------------------------------
OPS = ("start", "stop")
#: channel typing events are not sent to channels with more subscribers than this
MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS = 100


def _check_op(op: str) -> None:
    if op not in OPS:
        raise ApiError("Invalid op", var_name="op")


def _person(store: Store, user: Row) -> dict[str, Any]:
    return {"user_id": user["id"], "email": users.api_email(store, user)}


def _active(store: Store, user_ids: list[int]) -> list[int]:
    if not user_ids:
        return []
    marks = ",".join("?" * len(user_ids))
    rows = store.query(f"SELECT id FROM users WHERE is_active = 1 AND id IN ({marks})", user_ids)
    return [int(r["id"]) for r in rows]


def send_typing(
    store: Store,
    user: Row,
    *,
    op: str,
    message_type: str = "direct",
    to: Any = None,
    stream_id: int | None = None,
    topic: str | None = None,
) -> None:
    """``POST /typing``: announce that the user started or stopped composing."""
    _check_op(op)
    if message_type in ("direct", "private"):
        if to is None:
            raise ApiError("Missing 'to' argument", code="REQUEST_VARIABLE_MISSING", var_name="to")
        if isinstance(to, str):
            try:
                to = bounds.loads("to", to)
            except ValueError:
                raise ApiError("Invalid to", var_name="to") from None
        if not isinstance(to, list) or not to:
            raise ApiError("Empty 'to' list")
        people: list[Row] = []
        for ref in to:
            row = (
                users.get_user(store, ref)
                if isinstance(ref, int) and not isinstance(ref, bool)
                else users.user_by_email(store, str(ref))
            )
            if row is None or not row["is_active"]:
                raise ApiError(f"Invalid user ID {ref}")
            people.append(row)
        ids = sorted({p["id"] for p in people} | {user["id"]})
        rows = [r for r in (users.get_user(store, i) for i in ids) if r is not None]
        event = {
            "type": "typing",
            "op": op,
            "message_type": "direct",
            "sender": _person(store, user),
            "recipients": [_person(store, r) for r in rows],
        }
        event_bus(store).publish(event, _active(store, ids))
        return
    if message_type not in ("stream", "channel"):
        raise ApiError("Invalid type", var_name="type")
    if stream_id is None:
        raise ApiError(
            "Missing 'stream_id' argument", code="REQUEST_VARIABLE_MISSING", var_name="stream_id"
        )
    if topic is None:
        raise ApiError(
            "Missing 'topic' argument", code="REQUEST_VARIABLE_MISSING", var_name="topic"
        )
    stream = channels.access_stream(store, user, stream_id)
    subscribers = channels.subscriber_ids(store, stream["id"])
    if len(subscribers) > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS:
        return
    event = {
        "type": "typing",
        "op": op,
        "message_type": "stream",
        "sender": _person(store, user),
        "stream_id": stream["id"],
        "topic": messages.normalise_topic(topic),
    }
    event_bus(store).publish(event, subscribers)


def send_edit_typing(store: Store, user: Row, message_id: int, *, op: str) -> None:
    """``POST /messages/{message_id}/typing``: the user started or stopped editing."""
    _check_op(op)
    message = messages.access_message(store, user, message_id)
    settings = realm_mod.settings(store)
    if not settings["allow_message_editing"]:
        raise ApiError("Your organization has turned off message editing")
    if message["sender_id"] != user["id"]:
        raise ApiError("You don't have permission to edit this message")
    limit = settings["message_content_edit_limit_seconds"]
    if limit is not None and messages.now() - int(message["timestamp"]) > int(limit):
        raise ApiError("The time limit for editing this message has passed")
    event: dict[str, Any] = {
        "type": "typing_edit_message",
        "op": op,
        "sender_id": user["id"],
        "message_id": message["id"],
    }
    if message["stream_id"] is not None:
        event["recipient"] = {
            "type": "channel",
            "channel_id": message["stream_id"],
            "topic": message["topic"],
        }
        targets = channels.subscriber_ids(store, message["stream_id"])
        if len(targets) > MAX_STREAM_SIZE_FOR_TYPING_NOTIFICATIONS:
            return
    else:
        key = store.scalar(
            "SELECT user_set FROM recipients WHERE id = ?", [message["recipient_id"]]
        )
        ids = [int(x) for x in str(key or "").split(",") if x]
        event["recipient"] = {"type": "direct", "user_ids": ids}
        targets = _active(store, ids)
    event_bus(store).publish(event, targets)


# -- alert words -----------------------------------------------------------------------------------
MAX_ALERT_WORD_LENGTH = 100


def list_alert_words(store: Store, user: Row) -> list[str]:
    """The person's alert words, in the order they were added."""
    rows = store.query(
        "SELECT word FROM alert_words WHERE user_id = ? ORDER BY rowid", [user["id"]]
    )
    return [r["word"] for r in rows]


def _check_words(words: Any) -> list[str]:
    if not isinstance(words, list):
        raise ApiError("alert_words is not a list", var_name="alert_words")
    out: list[str] = []
    for i, word in enumerate(words):
        if not isinstance(word, str):
            raise ApiError(f"alert_words[{i}] is not a string", var_name="alert_words")
        if len(word) > MAX_ALERT_WORD_LENGTH:
            raise ApiError(
                f"alert_words[{i}] is too long (limit: {MAX_ALERT_WORD_LENGTH} characters)",
                var_name="alert_words",
            )
        if word.strip():
            out.append(word.strip())
    return out


def _announce_alert_words(store: Store, user: Row) -> list[str]:
    words = list_alert_words(store, user)
    event_bus(store).publish({"type": "alert_words", "alert_words": words}, [user["id"]])
    return words


def add_alert_words(store: Store, user: Row, words: Any) -> list[str]:
    """``POST /users/me/alert_words``: add words (case-insensitively new ones only)."""
    cleaned = _check_words(words)
    with store.atomic():
        for word in cleaned:
            store.execute(
                "INSERT OR IGNORE INTO alert_words (user_id, word) VALUES (?, ?)",
                [user["id"], word],
            )
        return _announce_alert_words(store, user)


def remove_alert_words(store: Store, user: Row, words: Any) -> list[str]:
    """``DELETE /users/me/alert_words``: remove words (case-insensitively; unknown ones skipped)."""
    cleaned = _check_words(words)
    with store.atomic():
        for word in cleaned:
            store.execute(
                "DELETE FROM alert_words WHERE user_id = ? AND lower(word) = lower(?)",
                [user["id"], word],
            )
        return _announce_alert_words(store, user)


# -- drafts ----------------------------------------------------------------------------------------
DRAFT_TYPES = ("", "stream", "private")
MAX_DRAFTS_IN_REGISTER = 1000


def draft_record(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "type": row["type"],
        "to": json.loads(row["recipient_ids"]),
        "topic": row["topic"],
        "content": row["content"],
        "timestamp": row["last_edit_time"],
    }


def list_drafts(store: Store, user: Row, *, limit: int | None = None) -> list[dict[str, Any]]:
    """The person's drafts, most recently edited first."""
    rows = store.query(
        "SELECT * FROM drafts WHERE user_id = ? ORDER BY last_edit_time DESC, id DESC"
        + (" LIMIT ?" if limit is not None else ""),
        [user["id"], limit] if limit is not None else [user["id"]],
    )
    return [draft_record(r) for r in rows]


def _require_sync(store: Store, user: Row) -> None:
    if not user_settings.setting(store, user["id"], "enable_drafts_synchronization"):
        raise ApiError("User has disabled synchronizing drafts.")


def _check_draft(store: Store, user: Row, raw: Any, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise ApiError(f"{where} is not a dict", var_name=where.split("[")[0])
    for key in ("type", "to", "topic", "content"):
        if key not in raw:
            raise ApiError(f"{where}['{key}'] is missing", var_name=where.split("[")[0])
    kind, to, topic, content = raw["type"], raw["to"], raw["topic"], raw["content"]
    if kind not in DRAFT_TYPES:
        raise ApiError(f"Invalid {where}['type']", var_name=where.split("[")[0])
    if not isinstance(to, list) or not all(
        isinstance(x, int) and not isinstance(x, bool) for x in to
    ):
        raise ApiError(f"{where}['to'] is not a list of integers", var_name=where.split("[")[0])
    if not isinstance(topic, str) or not isinstance(content, str):
        raise ApiError(f"{where}['content'] is not a string", var_name=where.split("[")[0])
    timestamp = raw.get("timestamp")
    if timestamp is None:
        timestamp = int(clock.now())
    elif not isinstance(timestamp, int | float) or isinstance(timestamp, bool):
        raise ApiError(f"{where}['timestamp'] is not a number", var_name=where.split("[")[0])
    elif timestamp < 0:
        raise ApiError("Timestamp must not be negative.")
    if kind == "stream":
        if len(to) != 1:
            raise ApiError("Must specify exactly 1 channel ID for channel messages")
        channels.access_stream(store, user, to[0])
    elif kind == "private":
        for uid in to:
            target = users.get_user(store, uid)
            if target is None or not target["is_active"]:
                raise ApiError(f"Invalid user ID {uid}")
        to = sorted(set(to))
    else:
        to, topic = [], ""
    limit = realm_mod.LIMITS["max_topic_length"]
    return {
        "type": kind,
        "recipient_ids": json.dumps(to),
        "topic": topic.strip()[:limit],
        "content": content,
        "last_edit_time": int(timestamp),
    }


def create_drafts(store: Store, user: Row, drafts: Any) -> list[int]:
    """``POST /drafts``: store every draft or none; their ids in order."""
    if not isinstance(drafts, list):
        raise ApiError("drafts is not a list", var_name="drafts")
    with store.atomic():
        _require_sync(store, user)
        checked = [_check_draft(store, user, d, f"drafts[{i}]") for i, d in enumerate(drafts)]
        ids = [store.insert("drafts", {"user_id": user["id"], **c}) for c in checked]
        records = [draft_record(r) for r in (_own_draft(store, user, i) for i in ids)]
        if records:
            event_bus(store).publish(
                {"type": "drafts", "op": "add", "drafts": records}, [user["id"]]
            )
    return ids


def _own_draft(store: Store, user: Row, draft_id: int) -> Row:
    row = store.one("SELECT * FROM drafts WHERE id = ? AND user_id = ?", [draft_id, user["id"]])
    if row is None:
        raise not_found("Draft does not exist")
    return row


def edit_draft(store: Store, user: Row, draft_id: int, draft: Any) -> None:
    """``PATCH /drafts/{draft_id}``: replace the draft's contents."""
    with store.atomic():
        _require_sync(store, user)
        row = _own_draft(store, user, draft_id)
        checked = _check_draft(store, user, draft, "draft")
        sets = ", ".join(f"{k} = ?" for k in checked)
        store.execute(f"UPDATE drafts SET {sets} WHERE id = ?", [*checked.values(), row["id"]])
        record = draft_record(_own_draft(store, user, draft_id))
        event_bus(store).publish({"type": "drafts", "op": "update", "draft": record}, [user["id"]])


def delete_draft(store: Store, user: Row, draft_id: int) -> None:
    """``DELETE /drafts/{draft_id}``."""
    with store.atomic():
        _require_sync(store, user)
        row = _own_draft(store, user, draft_id)
        store.execute("DELETE FROM drafts WHERE id = ?", [row["id"]])
        event_bus(store).publish(
            {"type": "drafts", "op": "remove", "draft_id": row["id"]}, [user["id"]]
        )


# -- muted users -----------------------------------------------------------------------------------
def list_muted_users(store: Store, user: Row) -> list[dict[str, int]]:
    """``[{id, timestamp}]`` of the people ``user`` muted."""
    rows = store.query(
        "SELECT muted_user_id, date_muted FROM muted_users WHERE user_id = ? "
        "ORDER BY date_muted, muted_user_id",
        [user["id"]],
    )
    return [{"id": r["muted_user_id"], "timestamp": r["date_muted"]} for r in rows]


def _announce_muted(store: Store, user: Row) -> None:
    event_bus(store).publish(
        {"type": "muted_users", "muted_users": list_muted_users(store, user)}, [user["id"]]
    )


def mute_user(store: Store, user: Row, muted_user_id: int) -> None:
    """``POST /users/me/muted_users/{muted_user_id}``; their messages become read."""
    if muted_user_id == user["id"]:
        raise ApiError("Cannot mute self")
    with store.atomic():
        target = users.get_user(store, muted_user_id)
        if target is None or target["is_bot"] or target["is_system_bot"]:
            raise ApiError("No such user")
        if store.one(
            "SELECT 1 FROM muted_users WHERE user_id = ? AND muted_user_id = ?",
            [user["id"], muted_user_id],
        ):
            raise ApiError("User already muted")
        store.insert(
            "muted_users",
            {"user_id": user["id"], "muted_user_id": muted_user_id, "date_muted": int(clock.now())},
        )
        unread = [
            int(r["message_id"])
            for r in store.query(
                "SELECT f.message_id FROM message_flags f JOIN messages m ON m.id = f.message_id "
                "WHERE f.user_id = ? AND m.sender_id = ? AND f.flags & ? = 0 ORDER BY f.message_id",
                [user["id"], muted_user_id, messages.READ],
            )
        ]
        if unread:
            marks = ",".join("?" * len(unread))
            store.execute(
                f"UPDATE message_flags SET flags = flags | ? WHERE user_id = ? "
                f"AND message_id IN ({marks})",
                [messages.READ, user["id"], *unread],
            )
            event_bus(store).publish(
                {
                    "type": "update_message_flags",
                    "op": "add",
                    "operation": "add",
                    "flag": "read",
                    "messages": unread,
                    "all": False,
                },
                [user["id"]],
            )
        _announce_muted(store, user)


def unmute_user(store: Store, user: Row, muted_user_id: int) -> None:
    """``DELETE /users/me/muted_users/{muted_user_id}``."""
    if muted_user_id == user["id"]:
        raise ApiError("Cannot unmute self")
    with store.atomic():
        target = users.get_user(store, muted_user_id)
        if target is None or target["is_bot"] or target["is_system_bot"]:
            raise ApiError("No such user")
        gone = store.execute(
            "DELETE FROM muted_users WHERE user_id = ? AND muted_user_id = ?",
            [user["id"], muted_user_id],
        ).rowcount
        if not gone:
            raise ApiError("User is not muted")
        _announce_muted(store, user)
