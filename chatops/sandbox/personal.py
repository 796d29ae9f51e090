"""Personal tools: navigation views, saved snippets and typing notifications (spec 4.11-4.14).

Each user's own sidebar views and reusable snippets, and the typing notifications sent while
composing or editing; the events of each go to the user's (or the conversation's) queues.
"""

from __future__ import annotations

import time
from typing import Any

from . import bounds, channels, messages, users
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
                "date_created": int(time.time()),
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
