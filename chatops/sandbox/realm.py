"""The organization: its settings, limits, roles and group-based permissions.

Permission settings hold group-setting values (spec section 2): a user-group id, or an
anonymous group ``{"direct_members": [...], "direct_subgroups": [...]}``. System groups are
resolved from roles, so they never go stale when a role changes.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import ApiError
from .store import Row, Store

FEATURE_LEVEL = 416
ZULIP_VERSION = "11.0-chatops-sandbox"
EMPTY_TOPIC_DISPLAY_NAME = "general chat"
#: the host of the placeholder emails (``user10@demo.chatops.test``)
REALM_HOST = "demo.chatops.test"
RESOLVED_TOPIC_PREFIX = "\u2714 "
WILDCARD_MENTION_THRESHOLD = 15

ROLE_OWNER, ROLE_ADMIN, ROLE_MODERATOR, ROLE_MEMBER, ROLE_GUEST = 100, 200, 300, 400, 600
ROLES = (ROLE_OWNER, ROLE_ADMIN, ROLE_MODERATOR, ROLE_MEMBER, ROLE_GUEST)

# System groups, in id order; the bound is the largest role number that belongs.
SYSTEM_GROUPS: list[tuple[str, int]] = [
    ("role:internet", ROLE_GUEST),
    ("role:everyone", ROLE_GUEST),
    ("role:members", ROLE_MEMBER),
    ("role:fullmembers", ROLE_MEMBER),
    ("role:moderators", ROLE_MODERATOR),
    ("role:administrators", ROLE_ADMIN),
    ("role:owners", ROLE_OWNER),
    ("role:nobody", 0),
]

LIMITS: dict[str, int] = {
    "max_topic_length": 60,
    "max_message_length": 10000,
    "max_stream_name_length": 60,
    "max_stream_description_length": 1024,
    "max_channel_folder_name_length": 60,
    "max_channel_folder_description_length": 1024,
    "max_file_upload_size_mib": 100,
    "max_reminder_note_length": 1000,
    "max_bulk_new_subscription_messages": 100,
}

# Group-valued realm settings and the system group each defaults to.
GROUP_SETTING_DEFAULTS: dict[str, str] = {
    "can_access_all_users_group": "role:everyone",
    "can_add_custom_emoji_group": "role:members",
    "can_add_subscribers_group": "role:members",
    "can_create_groups": "role:members",
    "can_create_private_channel_group": "role:members",
    "can_create_public_channel_group": "role:members",
    "can_create_web_public_channel_group": "role:owners",
    "can_delete_any_message_group": "role:administrators",
    "can_delete_own_message_group": "role:everyone",
    "can_invite_users_group": "role:members",
    "can_manage_all_groups": "role:owners",
    "can_manage_billing_group": "role:administrators",
    "can_mention_many_users_group": "role:administrators",
    "can_move_messages_between_channels_group": "role:members",
    "can_move_messages_between_topics_group": "role:everyone",
    "can_resolve_topics_group": "role:everyone",
    "can_summarize_topics_group": "role:everyone",
    "create_multiuse_invite_group": "role:administrators",
    "direct_message_initiator_group": "role:everyone",
    "direct_message_permission_group": "role:everyone",
}

PLAIN_SETTING_DEFAULTS: dict[str, Any] = {
    "allow_message_editing": True,
    "allow_edit_history": True,
    "message_content_edit_limit_seconds": 600,
    "message_content_delete_limit_seconds": None,
    "move_messages_within_stream_limit_seconds": 604800,
    "move_messages_between_streams_limit_seconds": 604800,
    "topics_policy": "allow_empty_topic",
    "enable_spectator_access": False,
    "email_changes_disabled": False,
    "invite_required": True,
    "waiting_period_threshold": 0,
    "message_retention_days": -1,
    "enable_read_receipts": True,
}


def realm_row(store: Store) -> Row:
    row = store.one("SELECT * FROM realm WHERE id = 1")
    if row is None:
        raise ApiError("Organization is not set up", code="SERVER_NOT_READY", status=500)
    return row


def settings(store: Store) -> dict[str, Any]:
    """Every realm setting with its current value (group settings as ids or objects)."""
    stored = json.loads(realm_row(store)["settings"])
    values: dict[str, Any] = dict(PLAIN_SETTING_DEFAULTS)
    ids = system_group_ids(store)
    for name, group in GROUP_SETTING_DEFAULTS.items():
        values[name] = ids[group]
    values.update(stored)
    return values


def update_settings(store: Store, changes: dict[str, Any]) -> None:
    stored = json.loads(realm_row(store)["settings"])
    stored.update(changes)
    store.execute("UPDATE realm SET settings = ? WHERE id = 1", [json.dumps(stored)])


def system_group_ids(store: Store) -> dict[str, int]:
    rows = store.query("SELECT id, name FROM user_groups WHERE is_system_group = 1")
    return {r["name"]: r["id"] for r in rows}


def create_system_groups(store: Store) -> None:
    for name, _bound in SYSTEM_GROUPS:
        store.insert(
            "user_groups",
            {"name": name, "is_system_group": 1, "description": f"System group {name}"},
        )


# -- group membership -------------------------------------------------------------------
def _role_bound(store: Store, group_id: int) -> int | None:
    row = store.one("SELECT name, is_system_group FROM user_groups WHERE id = ?", [group_id])
    if row is None or not row["is_system_group"]:
        return None
    return dict(SYSTEM_GROUPS)[row["name"]]


def user_in_group(store: Store, user: Row, group_id: int, _seen: set[int] | None = None) -> bool:
    """Whether ``user`` belongs to the group, through its role, members or subgroups."""
    seen = _seen if _seen is not None else set()
    if group_id in seen:
        return False
    seen.add(group_id)
    group = store.one(
        "SELECT is_system_group, deactivated FROM user_groups WHERE id = ?", [group_id]
    )
    if group is None or group["deactivated"]:
        return False
    bound = _role_bound(store, group_id)
    if bound is not None:
        return bool(user["is_active"]) and bound > 0 and user["role"] <= bound
    if store.one(
        "SELECT 1 FROM group_members WHERE group_id = ? AND user_id = ?", [group_id, user["id"]]
    ):
        return True
    subgroups = store.query(
        "SELECT subgroup_id FROM group_subgroups WHERE group_id = ?", [group_id]
    )
    return any(user_in_group(store, user, r["subgroup_id"], seen) for r in subgroups)


def user_has_setting(store: Store, user: Row, value: Any) -> bool:
    """Whether ``user`` is in a group-setting value (an id or an anonymous group)."""
    if isinstance(value, int):
        return user_in_group(store, user, value)
    if isinstance(value, dict):
        if user["id"] in value.get("direct_members", []):
            return bool(user["is_active"])
        return any(user_in_group(store, user, g) for g in value.get("direct_subgroups", []))
    return False


def realm_permits(store: Store, user: Row, setting: str) -> bool:
    return user_has_setting(store, user, settings(store)[setting])


def is_admin(user: Row) -> bool:
    return int(user["role"]) <= ROLE_ADMIN


def is_moderator_or_above(user: Row) -> bool:
    return int(user["role"]) <= ROLE_MODERATOR


def require_admin(user: Row) -> None:
    if not is_admin(user):
        raise ApiError("Must be an organization administrator", code="UNAUTHORIZED_PRINCIPAL")


def realm_url(base_url: str) -> str:
    return base_url.rstrip("/")
