"""Bot storage (spec 4.22): a per-account key-value store of strings.

At most :data:`STORAGE_SIZE_LIMIT` characters of keys and values together, as the real
server's ``USER_STATE_SIZE_LIMIT``.
"""

from __future__ import annotations

from .errors import ApiError
from .store import Row, Store

#: characters of keys and values together in one account's bot storage (USER_STATE_SIZE_LIMIT)
STORAGE_SIZE_LIMIT = 10_000_000


def _storage_keys(store: Store, user: Row) -> list[str]:
    rows = store.query("SELECT key FROM bot_storage WHERE bot_id = ? ORDER BY key", [user["id"]])
    return [str(r["key"]) for r in rows]


def get_storage(store: Store, user: Row, keys: list[str] | None) -> dict[str, str]:
    """``GET /bot_storage``: the entries of ``keys`` (all of them when none are given)."""
    wanted = keys or _storage_keys(store, user)
    out: dict[str, str] = {}
    for key in wanted:
        row = store.one(
            "SELECT value FROM bot_storage WHERE bot_id = ? AND key = ?", [user["id"], key]
        )
        if row is None:
            raise ApiError("Key does not exist.")
        out[key] = str(row["value"])
    return out


def update_storage(store: Store, user: Row, entries: dict[str, str]) -> None:
    """``PUT /bot_storage``: set entries; refused past :data:`STORAGE_SIZE_LIMIT` characters."""
    with store.atomic():
        current = {
            str(r["key"]): len(str(r["key"])) + len(str(r["value"]))
            for r in store.query(
                "SELECT key, value FROM bot_storage WHERE bot_id = ?", [user["id"]]
            )
        }
        size = sum(current.values()) + sum(
            len(k) + len(v) - current.get(k, 0) for k, v in entries.items()
        )
        if size > STORAGE_SIZE_LIMIT:
            raise ApiError(
                f"Request exceeds storage limit by {size - STORAGE_SIZE_LIMIT} characters. "
                f"The limit is {STORAGE_SIZE_LIMIT} characters."
            )
        store.executemany(
            "INSERT INTO bot_storage (bot_id, key, value) VALUES (?, ?, ?) "
            "ON CONFLICT (bot_id, key) DO UPDATE SET value = excluded.value",
            [(user["id"], k, v) for k, v in entries.items()],
        )


def remove_storage(store: Store, user: Row, keys: list[str] | None) -> None:
    """``DELETE /bot_storage``: remove ``keys`` (all entries when none are given)."""
    with store.atomic():
        doomed = keys or _storage_keys(store, user)
        marks = ",".join("?" * len(doomed))
        found = (
            store.scalar(
                f"SELECT count(*) FROM bot_storage WHERE bot_id = ? AND key IN ({marks})",
                [user["id"], *doomed],
            )
            if doomed
            else 0
        )
        if int(found) < len(doomed):
            raise ApiError("Key does not exist.")
        if doomed:
            store.execute(
                f"DELETE FROM bot_storage WHERE bot_id = ? AND key IN ({marks})",
                [user["id"], *doomed],
            )
