"""Saved snippets (spec 4.13, 4.14): a user's reusable Markdown texts."""

from __future__ import annotations

import time
from typing import Any

from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError, not_found
from .store import Row, Store

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


def record(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "title": row["title"],
        "content": row["content"],
        "date_created": row["date_created"],
    }


def create(store: Store, user: Row, *, title: str, content: str) -> int:
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
            {"type": "saved_snippets", "op": "add", "saved_snippet": record(row)}, [user["id"]]
        )
    return new_id


def _own(store: Store, user: Row, snippet_id: int) -> Row:
    row = store.one(
        "SELECT * FROM saved_snippets WHERE id = ? AND user_id = ?", [snippet_id, user["id"]]
    )
    if row is None:
        raise not_found("Saved snippet does not exist.")
    return row


def update(
    store: Store, user: Row, snippet_id: int, *, title: str | None, content: str | None
) -> None:
    with store.atomic():
        row = _own(store, user, snippet_id)
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
            {"type": "saved_snippets", "op": "update", "saved_snippet": record(fresh)},
            [user["id"]],
        )


def delete(store: Store, user: Row, snippet_id: int) -> None:
    with store.atomic():
        row = _own(store, user, snippet_id)
        store.execute("DELETE FROM saved_snippets WHERE id = ?", [row["id"]])
        event_bus(store).publish(
            {"type": "saved_snippets", "op": "remove", "saved_snippet_id": row["id"]},
            [user["id"]],
        )


def list_snippets(store: Store, user: Row) -> list[dict[str, Any]]:
    rows = store.query("SELECT * FROM saved_snippets WHERE user_id = ? ORDER BY id", [user["id"]])
    return [record(r) for r in rows]
