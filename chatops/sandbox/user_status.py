"""User status: set one's own, set another user's as an administrator (spec 4.7), read it.

Emoji names resolve through the three namespaces of spec section 2: the organization's custom
emoji, the service's extra emoji, then Unicode emoji by name (:mod:`.emoji_data`).
"""

from __future__ import annotations

from typing import Any

from . import clock, emoji_data
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store
from .users import get_user

MAX_STATUS_TEXT = 60


def get_status(store: Store, user_id: int) -> dict[str, Any]:
    """``GET /users/{user_id}/status``: the fields set, or an empty object."""
    if get_user(store, user_id) is None:
        raise ApiError("No such user")
    row = store.one("SELECT * FROM user_status WHERE user_id = ?", [user_id])
    if row is None:
        return {}
    out: dict[str, Any] = {}
    if row["away"]:
        out["away"] = True
    if row["status_text"]:
        out["status_text"] = row["status_text"]
    if row["emoji_name"]:
        out["emoji_name"] = row["emoji_name"]
        out["emoji_code"] = row["emoji_code"]
        out["reaction_type"] = row["reaction_type"]
    return out


def update_status(
    store: Store,
    actor: Row,
    target_id: int,
    *,
    status_text: str | None = None,
    emoji_name: str | None = None,
    emoji_code: str | None = None,
    reaction_type: str | None = None,
    away: bool | None = None,
) -> None:
    """Set a user's status; ``actor`` must be that user or an administrator (4.7)."""
    if target_id != actor["id"] and not realm_mod.is_admin(actor):
        raise ApiError("Insufficient permission")
    target = get_user(store, target_id)
    if target is None or not target["is_active"]:
        raise ApiError("No such user")
    if status_text is None and emoji_name is None and emoji_code is None and reaction_type is None:
        if away is None:
            raise ApiError("Client did not pass any new values.")
    if status_text is not None:
        status_text = status_text.strip()
        if len(status_text) > MAX_STATUS_TEXT:
            raise ApiError(f"status_text is too long (limit: {MAX_STATUS_TEXT} characters)")
    if (emoji_code is not None or reaction_type is not None) and emoji_name is None:
        raise ApiError(
            "Client must pass emoji_name if they pass either emoji_code or reaction_type."
        )
    if emoji_name:
        if reaction_type is not None and reaction_type not in emoji_data.REACTION_TYPES:
            raise ApiError("Invalid emoji type.")
        if emoji_code is None or reaction_type is None:
            code, derived = emoji_data.resolve_name(store, emoji_name)
            emoji_code = emoji_code if emoji_code is not None else code
            reaction_type = reaction_type if reaction_type is not None else derived
        reaction_type = emoji_data.normalise_type(reaction_type)
        emoji_data.check_emoji(store, emoji_name, emoji_code, reaction_type)
    elif emoji_name == "":
        emoji_code, reaction_type = "", ""
    current = store.one("SELECT * FROM user_status WHERE user_id = ?", [target_id]) or {
        "status_text": "",
        "emoji_name": "",
        "emoji_code": "",
        "reaction_type": "",
        "away": 0,
    }
    row = {
        "user_id": target_id,
        "status_text": current["status_text"] if status_text is None else status_text,
        "emoji_name": current["emoji_name"] if emoji_name is None else emoji_name,
        "emoji_code": current["emoji_code"] if emoji_name is None else emoji_code,
        "reaction_type": current["reaction_type"] if emoji_name is None else reaction_type,
        "away": int(current["away"]) if away is None else int(away),
        "timestamp": int(clock.now()),
    }
    with store.atomic():
        store.execute(
            "INSERT OR REPLACE INTO user_status (user_id, status_text, emoji_name, emoji_code, "
            "reaction_type, away, timestamp) VALUES (:user_id, :status_text, :emoji_name, "
            ":emoji_code, :reaction_type, :away, :timestamp)",
            row,
        )
    event: dict[str, Any] = {"type": "user_status", "user_id": target_id}
    if away is not None:
        event["away"] = away
    if status_text is not None:
        event["status_text"] = status_text
    if emoji_name is not None:
        event.update(
            {"emoji_name": emoji_name, "emoji_code": emoji_code, "reaction_type": reaction_type}
        )
    ids = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
    event_bus(store).publish(event, ids)
