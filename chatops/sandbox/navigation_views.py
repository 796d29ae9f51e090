"""Navigation views (spec 4.12): built-in views a user pins or hides, and custom named views."""

from __future__ import annotations

from typing import Any

from .bus import event_bus
from .errors import ApiError
from .store import Row, Store

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


def _check_name(
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


def record(row: Row) -> dict[str, Any]:
    return {"fragment": row["fragment"], "is_pinned": bool(row["is_pinned"]), "name": row["name"]}


def create(store: Store, user: Row, *, fragment: str, is_pinned: bool, name: str | None) -> None:
    fragment = fragment.strip()
    if not fragment:
        raise ApiError("fragment cannot be blank", var_name="fragment")
    with store.atomic():
        if store.one(
            "SELECT 1 FROM navigation_views WHERE user_id = ? AND fragment = ?",
            [user["id"], fragment],
        ):
            raise ApiError("Navigation view already exists.")
        _check_name(store, user, fragment, name, creating=True)
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


def _own(store: Store, user: Row, fragment: str) -> Row:
    row = store.one(
        "SELECT * FROM navigation_views WHERE user_id = ? AND fragment = ?", [user["id"], fragment]
    )
    if row is None:
        raise ApiError("Navigation view does not exist.")
    return row


def update(store: Store, user: Row, fragment: str, *, is_pinned: bool | None, name: Any) -> None:
    """Change ``is_pinned`` and/or ``name`` (``name`` is MISSING-like None when not sent)."""
    with store.atomic():
        row = _own(store, user, fragment)
        data: dict[str, Any] = {}
        if name is not None:
            _check_name(store, user, fragment, name, creating=False)
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
            {"type": "navigation_view", "op": "update", "fragment": fragment, "data": changes},
            [user["id"]],
        )


def delete(store: Store, user: Row, fragment: str) -> None:
    with store.atomic():
        row = _own(store, user, fragment)
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
    return [record(r) for r in rows]
