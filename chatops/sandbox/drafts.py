"""Drafts: a person's unsent messages, kept on the server when they synchronize drafts.

Every change is told to the person's own queues in a ``drafts`` event; ``POST /register``
holds the :data:`MAX_DRAFTS_IN_REGISTER` most recently edited.
"""

from __future__ import annotations

import json
from typing import Any

from . import channels, clock, user_settings, users
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError, not_found
from .store import Row, Store

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
