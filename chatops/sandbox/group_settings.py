"""Group-setting values (spec section 2, facts 1.6): parsed, validated and normalised in one place.

A group-setting value is the integer id of a user group, or an anonymous group
``{"direct_members": [user ids], "direct_subgroups": [group ids]}``. Every setting that takes
one (realm, channel and user-group permissions) has a :class:`GroupSettingConfig` saying which
groups it accepts; :func:`validate` applies it, :func:`apply_update` adds the ``old`` check of
``{"new": ..., "old": ...}`` updates.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from . import bounds
from . import realm as realm_mod
from .errors import ApiError
from .sentinel import MISSING
from .store import Store

__all__ = [
    "CHANNEL_GROUP_SETTINGS",
    "MISSING",
    "REALM_GROUP_SETTINGS",
    "USER_GROUP_SETTINGS",
    "GroupSettingConfig",
    "apply_update",
    "members_of",
    "parse_update",
    "parse_value",
    "validate",
]

GroupValue = int | dict[str, list[int]]


@dataclass(frozen=True)
class GroupSettingConfig:
    """Which groups a permission setting accepts (the real server's ``GroupPermissionSetting``)."""

    require_system_group: bool = False
    allow_internet_group: bool = False
    allow_nobody_group: bool = True
    allow_everyone_group: bool = False
    default_group_name: str = "role:nobody"
    allowed_system_groups: tuple[str, ...] = ()
    default_for_system_groups: str | None = None

    def to_api(self) -> dict[str, Any]:
        """The record ``POST /register`` reports in ``server_supported_permission_settings``."""
        return {
            "require_system_group": self.require_system_group,
            "allow_internet_group": self.allow_internet_group,
            "allow_nobody_group": self.allow_nobody_group,
            "allow_everyone_group": self.allow_everyone_group,
            "default_group_name": self.default_group_name,
            "default_for_system_groups": self.default_for_system_groups,
            "allowed_system_groups": list(self.allowed_system_groups),
        }


def _cfg(default: str, *, everyone: bool = False, nobody: bool = True) -> GroupSettingConfig:
    return GroupSettingConfig(
        allow_everyone_group=everyone, allow_nobody_group=nobody, default_group_name=default
    )


REALM_GROUP_SETTINGS: dict[str, GroupSettingConfig] = {
    "can_access_all_users_group": GroupSettingConfig(
        require_system_group=True,
        allow_nobody_group=False,
        allow_everyone_group=True,
        default_group_name="role:everyone",
        allowed_system_groups=("role:everyone", "role:members"),
    ),
    "can_add_custom_emoji_group": _cfg("role:members"),
    "can_add_subscribers_group": _cfg("role:members"),
    "can_create_groups": _cfg("role:members"),
    "can_create_private_channel_group": _cfg("role:members"),
    "can_create_public_channel_group": _cfg("role:members"),
    "can_create_web_public_channel_group": GroupSettingConfig(
        require_system_group=True,
        default_group_name="role:owners",
        allowed_system_groups=(
            "role:moderators",
            "role:administrators",
            "role:owners",
            "role:nobody",
        ),
    ),
    "can_delete_any_message_group": _cfg("role:administrators"),
    "can_delete_own_message_group": _cfg("role:everyone", everyone=True),
    "can_invite_users_group": _cfg("role:members"),
    "can_manage_all_groups": _cfg("role:owners", nobody=False),
    "can_manage_billing_group": _cfg("role:administrators", nobody=False),
    "can_mention_many_users_group": _cfg("role:administrators", everyone=True),
    "can_move_messages_between_channels_group": _cfg("role:members"),
    "can_move_messages_between_topics_group": _cfg("role:everyone", everyone=True),
    "can_resolve_topics_group": _cfg("role:everyone", everyone=True),
    "can_summarize_topics_group": _cfg("role:everyone", everyone=True),
    "create_multiuse_invite_group": GroupSettingConfig(
        require_system_group=True, default_group_name="role:administrators"
    ),
    "direct_message_initiator_group": _cfg("role:everyone", everyone=True),
    "direct_message_permission_group": _cfg("role:everyone", everyone=True),
}

CHANNEL_GROUP_SETTINGS: dict[str, GroupSettingConfig] = {
    "can_add_subscribers_group": _cfg("role:nobody"),
    "can_administer_channel_group": _cfg("channel_creator"),
    "can_delete_any_message_group": _cfg("role:nobody", everyone=True),
    "can_delete_own_message_group": _cfg("role:everyone", everyone=True),
    "can_move_messages_out_of_channel_group": _cfg("role:nobody", everyone=True),
    "can_move_messages_within_channel_group": _cfg("role:nobody", everyone=True),
    "can_remove_subscribers_group": _cfg("role:administrators", everyone=True),
    "can_resolve_topics_group": _cfg("role:nobody", everyone=True),
    "can_send_message_group": _cfg("role:everyone", everyone=True),
    "can_subscribe_group": _cfg("role:nobody"),
}


def _group_cfg(default: str, *, everyone: bool = False) -> GroupSettingConfig:
    return GroupSettingConfig(
        allow_everyone_group=everyone,
        default_group_name=default,
        default_for_system_groups="role:nobody",
    )


USER_GROUP_SETTINGS: dict[str, GroupSettingConfig] = {
    "can_add_members_group": _group_cfg("group_creator"),
    "can_join_group": _group_cfg("role:nobody"),
    "can_leave_group": _group_cfg("role:everyone", everyone=True),
    "can_manage_group": _group_cfg("group_creator"),
    "can_mention_group": _group_cfg("role:everyone", everyone=True),
    "can_remove_members_group": _group_cfg("group_creator"),
}


# -- syntax ---------------------------------------------------------------------------------------
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_syntax(name: str, value: Any) -> GroupValue:
    """A decoded JSON value checked for the shape of a group-setting value (not yet normalised)."""
    bounds.check_ints(name, value)
    if _is_int(value):
        return int(value)
    if isinstance(value, dict) and set(value) == {"direct_members", "direct_subgroups"}:
        members, subgroups = value["direct_members"], value["direct_subgroups"]
        if (
            isinstance(members, list)
            and isinstance(subgroups, list)
            and all(_is_int(v) for v in members + subgroups)
        ):
            return {"direct_members": list(members), "direct_subgroups": list(subgroups)}
    raise ApiError(f"{name} is not a valid group-setting value", var_name=name)


def parse_value(name: str, raw: str) -> GroupValue:
    """Read a group-setting value sent as JSON text in a form field."""
    try:
        value = bounds.loads(name, raw)
    except ApiError:
        raise
    except ValueError:
        raise ApiError(f'Argument "{name}" is not valid JSON.', var_name=name) from None
    return check_syntax(name, value)


def parse_update(name: str, raw: str) -> tuple[GroupValue, Any]:
    """Read an update ``{"new": value, "old"?: value}``; ``old`` is MISSING when not sent."""
    try:
        value = bounds.loads(name, raw)
    except ApiError:
        raise
    except ValueError:
        raise ApiError(f'Argument "{name}" is not valid JSON.', var_name=name) from None
    if not isinstance(value, dict) or "new" not in value or set(value) - {"new", "old"}:
        raise ApiError(f"{name} is not a valid group-setting update", var_name=name)
    old = check_syntax(name, value["old"]) if "old" in value else MISSING
    return check_syntax(name, value["new"]), old


# -- normalisation and validation --------------------------------------------------------------
def normalise(store: Store, value: GroupValue) -> GroupValue:
    """An anonymous group with no members and one subgroup is that subgroup; an empty one is nobody."""
    if isinstance(value, dict):
        members = sorted(set(value.get("direct_members", [])))
        subgroups = sorted(set(value.get("direct_subgroups", [])))
        if not members and len(subgroups) == 1:
            return subgroups[0]
        if not members and not subgroups:
            return realm_mod.system_group_ids(store)["role:nobody"]
        return {"direct_members": members, "direct_subgroups": subgroups}
    return value


def _check_group(
    store: Store, setting_name: str, group_id: int, config: GroupSettingConfig
) -> None:
    row = store.one(
        "SELECT name, is_system_group, deactivated FROM user_groups WHERE id = ?", [group_id]
    )
    if row is None:
        raise ApiError("Invalid user group")
    if row["deactivated"]:
        raise ApiError("User group is deactivated.")
    if not row["is_system_group"]:
        if config.require_system_group:
            raise ApiError(
                f"'{setting_name}' must be a system user group.",
                code="SYSTEM_GROUP_REQUIRED",
                setting_name=setting_name,
            )
        return
    name = str(row["name"])
    refused = (
        (name == "role:internet" and not config.allow_internet_group)
        or (name == "role:nobody" and not config.allow_nobody_group)
        or (name == "role:everyone" and not config.allow_everyone_group)
        or (bool(config.allowed_system_groups) and name not in config.allowed_system_groups)
    )
    if refused:
        raise ApiError(f"'{setting_name}' setting cannot be set to '{name}' group.")


def validate(
    store: Store,
    setting_name: str,
    value: GroupValue,
    config: GroupSettingConfig | None = None,
) -> GroupValue:
    """Check a value against the setting's configuration; returns it normalised."""
    config = config or config_for(setting_name)
    value = normalise(store, check_syntax(setting_name, value))
    if isinstance(value, int):
        _check_group(store, setting_name, value, config)
        return value
    if config.require_system_group:
        raise ApiError(
            f"'{setting_name}' must be a system user group.",
            code="SYSTEM_GROUP_REQUIRED",
            setting_name=setting_name,
        )
    for user_id in value["direct_members"]:
        if store.one("SELECT 1 FROM users WHERE id = ?", [user_id]) is None:
            raise ApiError(f"Invalid user ID: {user_id}")
    for group_id in value["direct_subgroups"]:
        _check_group(store, setting_name, group_id, config)
    return value


def same_value(store: Store, a: GroupValue, b: GroupValue) -> bool:
    """Whether two values name the same group (members and subgroups compared as sets)."""
    a, b = normalise(store, a), normalise(store, b)
    if isinstance(a, int) or isinstance(b, int):
        return a == b
    return set(a["direct_members"]) == set(b["direct_members"]) and set(
        a["direct_subgroups"]
    ) == set(b["direct_subgroups"])


def apply_update(
    store: Store,
    setting_name: str,
    current: GroupValue,
    new: GroupValue,
    old: Any = MISSING,
    config: GroupSettingConfig | None = None,
) -> GroupValue:
    """Validate ``new`` for an update from ``current``; ``old`` (if sent) must match ``current``."""
    if old is not MISSING and not same_value(store, check_syntax(setting_name, old), current):
        raise ApiError(
            "'old' value does not match the expected value.", code="EXPECTATION_MISMATCH"
        )
    return validate(store, setting_name, new, config)


def config_for(setting_name: str) -> GroupSettingConfig:
    """The configuration of a setting by name (channel, realm, then user-group tables)."""
    for table in (CHANNEL_GROUP_SETTINGS, REALM_GROUP_SETTINGS, USER_GROUP_SETTINGS):
        if setting_name in table:
            return table[setting_name]
    return GroupSettingConfig()


# -- membership --------------------------------------------------------------------------------
def _group_members(store: Store, group_id: int, seen: set[int]) -> set[int]:
    if group_id in seen:
        return set()
    seen.add(group_id)
    row = store.one(
        "SELECT name, is_system_group, deactivated FROM user_groups WHERE id = ?", [group_id]
    )
    if row is None or row["deactivated"]:
        return set()
    if row["is_system_group"]:
        bound = dict(realm_mod.SYSTEM_GROUPS).get(str(row["name"]), 0)
        if bound <= 0:
            return set()
        rows = store.query("SELECT id FROM users WHERE is_active = 1 AND role <= ?", [bound])
        return {int(r["id"]) for r in rows}
    out = {
        int(r["user_id"])
        for r in store.query(
            "SELECT m.user_id FROM group_members m JOIN users u ON u.id = m.user_id "
            "WHERE m.group_id = ? AND u.is_active = 1",
            [group_id],
        )
    }
    for r in store.query("SELECT subgroup_id FROM group_subgroups WHERE group_id = ?", [group_id]):
        out |= _group_members(store, int(r["subgroup_id"]), seen)
    return out


def members_of(store: Store, value: GroupValue) -> set[int]:
    """Ids of the active users a group-setting value contains, through roles and subgroups."""
    if isinstance(value, int):
        return _group_members(store, value, set())
    out: set[int] = set()
    for user_id in value["direct_members"]:
        if store.one("SELECT 1 FROM users WHERE id = ? AND is_active = 1", [user_id]):
            out.add(int(user_id))
    seen: set[int] = set()
    for group_id in value["direct_subgroups"]:
        out |= _group_members(store, group_id, seen)
    return out


def uses_group(value: Any, group_id: int) -> bool:
    """Whether a stored value names the group directly or as a subgroup of an anonymous group."""
    if isinstance(value, int):
        return value == group_id
    if isinstance(value, dict):
        return group_id in value.get("direct_subgroups", [])
    return False


def uses_of_group(store: Store, group_id: int) -> list[dict[str, Any]]:
    """What keeps a group from being deactivated: the ``objections`` of spec 4.21 / facts 2.21.

    Supergroups (active named groups with it as a direct subgroup), then realm, channel
    (unarchived) and user-group (active) permission settings that name it directly or as a
    subgroup of an anonymous group.
    """
    objections: list[dict[str, Any]] = []
    supergroups = store.query(
        "SELECT s.group_id FROM group_subgroups s JOIN user_groups g ON g.id = s.group_id "
        "WHERE s.subgroup_id = ? AND g.deactivated = 0 AND g.name IS NOT NULL "
        "ORDER BY s.group_id",
        [group_id],
    )
    if supergroups:
        objections.append(
            {"type": "subgroup", "supergroup_ids": [int(r["group_id"]) for r in supergroups]}
        )
    realm_uses = sorted(
        name
        for name, value in realm_mod.settings(store).items()
        if name in REALM_GROUP_SETTINGS and uses_group(value, group_id)
    )
    if realm_uses:
        objections.append({"type": "realm", "settings": realm_uses})
    for row in store.query("SELECT id, settings FROM streams WHERE is_archived = 0 ORDER BY id"):
        names = sorted(n for n, v in json.loads(row["settings"]).items() if uses_group(v, group_id))
        if names:
            objections.append({"type": "channel", "channel_id": int(row["id"]), "settings": names})
    for row in store.query(
        "SELECT id, settings FROM user_groups WHERE deactivated = 0 AND name IS NOT NULL "
        "AND id != ? ORDER BY id",
        [group_id],
    ):
        names = sorted(
            n for n, v in json.loads(row["settings"] or "{}").items() if uses_group(v, group_id)
        )
        if names:
            objections.append({"type": "user_group", "group_id": int(row["id"]), "settings": names})
    return objections
