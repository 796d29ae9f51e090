"""Channel folders (spec 4.6, facts 2.7): administrators group channels into named folders."""

from __future__ import annotations

from typing import Any

from . import clock
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .rendering import render
from .store import Row, Store


def _name(store: Store, name: str, folder_id: int | None = None) -> str:
    name = name.strip()
    if not name:
        raise ApiError("Channel folder name can't be empty.")
    limit = realm_mod.LIMITS["max_channel_folder_name_length"]
    if len(name) > limit:
        raise ApiError(f"Channel folder name too long (limit: {limit} characters).")
    for i, ch in enumerate(name):
        if not ch.isprintable():
            raise ApiError(f"Invalid character in channel folder name, at position {i + 1}.")
    clash = store.one(
        "SELECT id FROM channel_folders WHERE lower(name) = lower(?) AND id != ?",
        [name, folder_id or 0],
    )
    if clash is not None:
        raise ApiError(f"Channel folder '{name}' already exists")
    return name


def _description(description: str) -> str:
    limit = realm_mod.LIMITS["max_channel_folder_description_length"]
    if len(description) > limit:
        raise ApiError(f"Channel folder description too long (limit: {limit} characters).")
    return description


def record(row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "description": row["description"],
        "rendered_description": row["rendered_description"],
        "creator_id": row["creator_id"],
        "date_created": row["date_created"],
        "is_archived": bool(row["is_archived"]),
        "order": row["folder_order"],
    }


def _everyone(store: Store) -> list[int]:
    return [r["id"] for r in store.query("SELECT id FROM users WHERE is_active = 1")]


def create(store: Store, user: Row, *, name: str, description: str) -> int:
    with store.atomic():
        name = _name(store, name)
        description = _description(description)
        order = int(store.scalar("SELECT coalesce(max(folder_order), -1) + 1 FROM channel_folders"))
        new_id = store.insert(
            "channel_folders",
            {
                "name": name,
                "description": description,
                "rendered_description": render(description) if description else "",
                "creator_id": user["id"],
                "date_created": int(clock.now()),
                "folder_order": order,
            },
        )
        row = store.one("SELECT * FROM channel_folders WHERE id = ?", [new_id])
        assert row is not None
        event_bus(store).publish(
            {"type": "channel_folder", "op": "add", "channel_folder": record(row)},
            _everyone(store),
        )
    return new_id


def list_folders(store: Store, *, include_archived: bool = False) -> list[dict[str, Any]]:
    sql = "SELECT * FROM channel_folders"
    if not include_archived:
        sql += " WHERE is_archived = 0"
    return [record(r) for r in store.query(sql + " ORDER BY folder_order, id")]


def update(
    store: Store,
    user: Row,
    folder_id: int,
    *,
    name: str | None = None,
    description: str | None = None,
    is_archived: bool | None = None,
) -> None:
    with store.atomic():
        row = store.one("SELECT * FROM channel_folders WHERE id = ?", [folder_id])
        if row is None:
            raise ApiError("Invalid channel folder ID")
        data: dict[str, Any] = {}
        if name is not None:
            data["name"] = _name(store, name, folder_id)
        if description is not None:
            data["description"] = _description(description)
            data["rendered_description"] = render(description) if description else ""
        if is_archived is not None:
            if is_archived and store.one(
                "SELECT 1 FROM streams WHERE folder_id = ? AND is_archived = 0", [folder_id]
            ):
                raise ApiError(
                    "You need to remove all the channels from this folder to archive it."
                )
            data["is_archived"] = int(is_archived)
        if not data:
            raise ApiError("Nothing to change")
        sets = ", ".join(f"{k} = ?" for k in data)
        store.execute(
            f"UPDATE channel_folders SET {sets} WHERE id = ?", [*data.values(), folder_id]
        )
        changes = {k: bool(v) if k == "is_archived" else v for k, v in data.items()}
        event_bus(store).publish(
            {
                "type": "channel_folder",
                "op": "update",
                "channel_folder_id": folder_id,
                "data": changes,
            },
            _everyone(store),
        )


def reorder(store: Store, user: Row, order: list[int]) -> None:
    with store.atomic():
        ids = [r["id"] for r in store.query("SELECT id FROM channel_folders")]
        if sorted(order) != sorted(ids) or len(set(order)) != len(order):
            raise ApiError("order must contain every channel folder ID exactly once")
        for position, folder_id in enumerate(order):
            store.execute(
                "UPDATE channel_folders SET folder_order = ? WHERE id = ?", [position, folder_id]
            )
        event_bus(store).publish(
            {"type": "channel_folder", "op": "reorder", "order": list(order)}, _everyone(store)
        )
