"""Personal tools: navigation views, saved snippets, alert words, muted users (spec 4.12-4.14).

Each user's own sidebar views, reusable snippets, alert words and muted users; the events of
each go to the user's own queues. The area's companions: typing notifications (spec 4.11) in
:mod:`.typing_notifications`, drafts in :mod:`.drafts`.
"""

from __future__ import annotations

from typing import Any

from . import clock, messages, users
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
