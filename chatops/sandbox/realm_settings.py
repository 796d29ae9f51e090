"""``PATCH /realm``: organization settings, including the group-valued permissions.

Group settings take ``{"new": value, "old"?: value}`` and follow :mod:`.group_settings`; the
others are plain values with their own checks. Changes are announced by realm ``update_dict``
events (spec section 6).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import group_settings as gs
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store

# Settings only owners may change (the real server guards these with the owner role).
OWNER_ONLY = ("can_manage_all_groups", "can_create_groups")
TOPICS_POLICIES = ("allow_empty_topic", "disable_empty_topic")


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ApiError(f"{name} is not a boolean", var_name=name)
    return value


def _limit(name: str, value: Any) -> int | None:
    """Seconds, or ``"unlimited"`` / null for no limit."""
    if value is None or value == "unlimited":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ApiError(f"Invalid {name}", var_name=name)
    return value


def _non_negative(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ApiError(f"Invalid {name}", var_name=name)
    return value


def _topics_policy(name: str, value: Any) -> str:
    if value not in TOPICS_POLICIES:
        raise ApiError(f"Invalid {name}", var_name=name)
    return str(value)


PLAIN_SETTINGS: dict[str, Callable[[str, Any], Any]] = {
    "allow_message_editing": _bool,
    "allow_edit_history": _bool,
    "enable_spectator_access": _bool,
    "enable_read_receipts": _bool,
    "invite_required": _bool,
    "email_changes_disabled": _bool,
    "message_content_edit_limit_seconds": _limit,
    "message_content_delete_limit_seconds": _limit,
    "move_messages_within_stream_limit_seconds": _limit,
    "move_messages_between_streams_limit_seconds": _limit,
    "waiting_period_threshold": _non_negative,
    "topics_policy": _topics_policy,
}


def update_realm(
    store: Store,
    user: Row,
    *,
    plain: dict[str, Any],
    groups: dict[str, tuple[Any, Any]],
    name: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """Apply the changes an administrator sent; returns what actually changed."""
    if not plain and not groups and name is None and description is None:
        raise ApiError("No new data supplied")
    current = realm_mod.settings(store)
    changes: dict[str, Any] = {}
    for setting, raw in plain.items():
        value = PLAIN_SETTINGS[setting](setting, raw)
        if current.get(setting) != value:
            changes[setting] = value
    for setting, (new, old) in groups.items():
        config = gs.REALM_GROUP_SETTINGS[setting]
        if (
            setting in ("can_manage_all_groups", "create_multiuse_invite_group")
            and not int(user["role"]) == realm_mod.ROLE_OWNER
        ):
            if setting == "can_manage_all_groups":
                raise ApiError("Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
        value = gs.apply_update(store, setting, current[setting], new, old, config)
        if not gs.same_value(store, value, current[setting]):
            changes[setting] = value
    row_changes: dict[str, Any] = {}
    if name is not None:
        name = name.strip()
        if not name or len(name) > 40:
            raise ApiError("Invalid organization name", var_name="name")
        row_changes["name"] = name
    if description is not None:
        if len(description) > 1000:
            raise ApiError("Organization description is too long.", var_name="description")
        row_changes["description"] = description
    with store.atomic():
        if changes:
            realm_mod.update_settings(store, changes)
        for column, value in row_changes.items():
            store.execute(f"UPDATE realm SET {column} = ? WHERE id = 1", [value])
    announced = {**changes, **row_changes}
    if announced:
        ids = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
        event_bus(store).publish(
            {"type": "realm", "op": "update_dict", "property": "default", "data": announced}, ids
        )
    return announced
