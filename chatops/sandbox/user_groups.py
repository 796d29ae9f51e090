"""User groups: listing, creation, membership, settings, deactivation (spec 4.21) and reactivation.

A group's permission settings (``can_manage_group`` and the others of facts 3.8) are group-setting
values kept in ``user_groups.settings``; their rules live in :mod:`.group_settings`. A deactivated
group keeps its members but no longer counts for mentions or permissions
(:func:`.realm.user_in_group` ignores it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from . import clock
from . import group_settings as gs
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store

MAX_NAME_LENGTH = 100
RESERVED_PREFIXES = ("@", "role:", "user:", "stream:", "channel:")


def active_user_ids(store: Store) -> list[int]:
    return [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]


def get_group(store: Store, group_id: int) -> Row:
    row = store.one("SELECT * FROM user_groups WHERE id = ? AND name IS NOT NULL", [group_id])
    if row is None:
        raise ApiError("Invalid user group")
    return row


def group_settings(store: Store, group: Row) -> dict[str, Any]:
    """Every permission setting of a group, defaults filled in."""
    ids = realm_mod.system_group_ids(store)
    stored = json.loads(group["settings"] or "{}")
    out: dict[str, Any] = {}
    for name, config in gs.USER_GROUP_SETTINGS.items():
        if name in stored:
            out[name] = stored[name]
        elif group["is_system_group"]:
            out[name] = ids[config.default_for_system_groups or "role:nobody"]
        elif config.default_group_name == "group_creator":
            creator = group["creator_id"]
            out[name] = {
                "direct_members": [creator] if creator is not None else [],
                "direct_subgroups": [],
            }
        else:
            out[name] = ids[config.default_group_name]
    return out


def direct_members(store: Store, group_id: int) -> list[int]:
    rows = store.query(
        "SELECT user_id FROM group_members WHERE group_id = ? ORDER BY user_id", [group_id]
    )
    return [int(r["user_id"]) for r in rows]


def direct_subgroups(store: Store, group_id: int) -> list[int]:
    rows = store.query(
        "SELECT subgroup_id FROM group_subgroups WHERE group_id = ? ORDER BY subgroup_id",
        [group_id],
    )
    return [int(r["subgroup_id"]) for r in rows]


def group_record(store: Store, group: Row) -> dict[str, Any]:
    """The user group record of ``GET /user_groups``."""
    if group["is_system_group"]:
        members = sorted(gs.members_of(store, int(group["id"])))
    else:
        members = direct_members(store, group["id"])
    record: dict[str, Any] = {
        "id": group["id"],
        "name": group["name"],
        "description": group["description"],
        "members": members,
        "direct_subgroup_ids": direct_subgroups(store, group["id"]),
        "creator_id": group["creator_id"],
        "date_created": group["date_created"] or None,
        "is_system_group": bool(group["is_system_group"]),
        "deactivated": bool(group["deactivated"]),
    }
    record.update(group_settings(store, group))
    return record


def list_groups(store: Store, *, include_deactivated_groups: bool = False) -> list[dict[str, Any]]:
    rows = store.query("SELECT * FROM user_groups WHERE name IS NOT NULL ORDER BY id")
    return [
        group_record(store, r) for r in rows if include_deactivated_groups or not r["deactivated"]
    ]


# -- permissions -----------------------------------------------------------------------------
def can_manage(store: Store, user: Row, group: Row) -> bool:
    if realm_mod.realm_permits(store, user, "can_manage_all_groups"):
        return True
    return realm_mod.user_has_setting(store, user, group_settings(store, group)["can_manage_group"])


def _require_manage(store: Store, user: Row, group: Row) -> None:
    if group["is_system_group"]:
        raise ApiError("Insufficient permission")
    if int(user["role"]) == realm_mod.ROLE_GUEST or not can_manage(store, user, group):
        raise ApiError("Insufficient permission")


def can_add_members(store: Store, user: Row, group: Row) -> bool:
    """Whether ``user`` may add other users to the group (also checked by invitations)."""
    if group["is_system_group"]:
        return False
    if int(user["role"]) == realm_mod.ROLE_GUEST:
        return False
    if can_manage(store, user, group):
        return True
    return realm_mod.user_has_setting(
        store, user, group_settings(store, group)["can_add_members_group"]
    )


def _check_name(store: Store, name: str, group_id: int | None = None) -> str:
    name = name.strip()
    if not name:
        raise ApiError("User group name cannot be empty.")
    if len(name) > MAX_NAME_LENGTH:
        raise ApiError(f"User group name cannot exceed {MAX_NAME_LENGTH} characters.")
    if name.startswith(RESERVED_PREFIXES):
        raise ApiError(f"User group name cannot start with '{name.split(':')[0]}'.")
    clash = store.one(
        "SELECT id FROM user_groups WHERE lower(name) = lower(?) AND id IS NOT ?", [name, group_id]
    )
    if clash is not None:
        raise ApiError(f"User group '{name}' already exists.")
    return name


def _check_users(store: Store, user_ids: Iterable[int]) -> None:
    for uid in user_ids:
        row = store.one("SELECT is_active FROM users WHERE id = ?", [uid])
        if row is None or not row["is_active"]:
            raise ApiError(f"Invalid user ID: {uid}")


def _check_subgroups(store: Store, group_id: int | None, subgroup_ids: Iterable[int]) -> None:
    for sid in subgroup_ids:
        row = store.one("SELECT * FROM user_groups WHERE id = ? AND name IS NOT NULL", [sid])
        if row is None:
            raise ApiError(f"Invalid user group ID: {sid}")
        if row["deactivated"]:
            raise ApiError("User group is deactivated.")
        if group_id is not None and (sid == group_id or group_id in _all_subgroups(store, sid)):
            raise ApiError("User group subgroups cannot form a cycle.")


def _all_subgroups(store: Store, group_id: int) -> set[int]:
    out: set[int] = set()
    todo = [group_id]
    while todo:
        gid = todo.pop()
        for sub in direct_subgroups(store, gid):
            if sub not in out:
                out.add(sub)
                todo.append(sub)
    return out


# -- reading membership (feature level 127) ----------------------------------------------------
def _read_group(store: Store, group_id: int) -> Row:
    """A group whose membership anyone in the organization may read, deactivated ones too."""
    return get_group(store, group_id)


def _direct_active_members(store: Store, group: Row) -> set[int]:
    if group["is_system_group"]:  # role groups hold their members through the role
        return gs.members_of(store, int(group["id"]))
    rows = store.query(
        "SELECT m.user_id FROM group_members m JOIN users u ON u.id = m.user_id "
        "WHERE m.group_id = ? AND u.is_active = 1",
        [group["id"]],
    )
    return {int(r["user_id"]) for r in rows}


def member_ids(store: Store, group_id: int, *, direct_member_only: bool = False) -> list[int]:
    """``GET /user_groups/{id}/members``: active members, through subgroups unless direct only.

    As on the real server since feature level 303, deactivated users are left out.
    """
    group = _read_group(store, group_id)
    members = _direct_active_members(store, group)
    if not direct_member_only:
        for sub in _all_subgroups(store, group_id):
            row = store.one("SELECT * FROM user_groups WHERE id = ?", [sub])
            if row is not None:
                members |= _direct_active_members(store, row)
    return sorted(members)


def is_member(
    store: Store, group_id: int, user_id: int, *, direct_member_only: bool = False
) -> bool:
    """``GET /user_groups/{id}/members/{user_id}``; 400 "No such user" for an unknown user."""
    _read_group(store, group_id)
    if store.one("SELECT 1 FROM users WHERE id = ?", [user_id]) is None:
        raise ApiError("No such user")
    return user_id in member_ids(store, group_id, direct_member_only=direct_member_only)


def subgroup_ids(store: Store, group_id: int, *, direct_subgroup_only: bool = False) -> list[int]:
    """``GET /user_groups/{id}/subgroups``: direct subgroups, or every subgroup below."""
    _read_group(store, group_id)
    if direct_subgroup_only:
        return direct_subgroups(store, group_id)
    return sorted(_all_subgroups(store, group_id))


# -- creation and changes ----------------------------------------------------------------------
def create_group(
    store: Store,
    user: Row,
    *,
    name: str,
    description: str,
    members: list[int],
    subgroups: list[int] | None = None,
    settings: dict[str, Any] | None = None,
) -> int:
    """``POST /user_groups/create``; returns the new group's id (who may create one is the
    route's guard, :data:`~chatops.sandbox.roles.USER_GROUP_CREATE`)."""
    with store.atomic():
        name = _check_name(store, name)
        _check_users(store, members)
        _check_subgroups(store, None, subgroups or [])
        stored: dict[str, Any] = {}
        for setting, raw in (settings or {}).items():
            stored[setting] = gs.validate(store, setting, raw, gs.USER_GROUP_SETTINGS[setting])
        group_id = store.insert(
            "user_groups",
            {
                "name": name,
                "description": description,
                "creator_id": user["id"],
                "date_created": int(clock.now()),
                "settings": json.dumps(stored),
            },
        )
        store.executemany(
            "INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)",
            [(group_id, uid) for uid in members],
        )
        store.executemany(
            "INSERT OR IGNORE INTO group_subgroups (group_id, subgroup_id) VALUES (?, ?)",
            [(group_id, sid) for sid in subgroups or []],
        )
        record = group_record(store, get_group(store, group_id))
    event_bus(store).publish(
        {"type": "user_group", "op": "add", "group": record}, active_user_ids(store)
    )
    return group_id


def update_group(
    store: Store,
    user: Row,
    group_id: int,
    *,
    name: str | None = None,
    description: str | None = None,
    deactivated: bool | None = None,
    settings: dict[str, tuple[Any, Any]] | None = None,
) -> None:
    """``PATCH /user_groups/{id}``: name, description, reactivation and permission settings."""
    group = get_group(store, group_id)
    _require_manage(store, user, group)
    if name is None and description is None and deactivated is None and not settings:
        raise ApiError("No new data supplied")
    data: dict[str, Any] = {}
    with store.atomic():
        if name is not None and name != group["name"]:
            data["name"] = _check_name(store, name, group_id)
        if description is not None and description != group["description"]:
            data["description"] = description
        if deactivated is True and not group["deactivated"]:
            _check_not_in_use(store, group_id)
            data["deactivated"] = True
        elif deactivated is False and group["deactivated"]:
            data["deactivated"] = False
        current = group_settings(store, group)
        stored = json.loads(group["settings"] or "{}")
        for setting, (new, old) in (settings or {}).items():
            value = gs.apply_update(
                store, setting, current[setting], new, old, gs.USER_GROUP_SETTINGS[setting]
            )
            if not gs.same_value(store, value, current[setting]):
                stored[setting] = value
                data[setting] = value
        store.execute(
            "UPDATE user_groups SET name = ?, description = ?, deactivated = ?, settings = ? "
            "WHERE id = ?",
            [
                data.get("name", group["name"]),
                data.get("description", group["description"]),
                int(data.get("deactivated", bool(group["deactivated"]))),
                json.dumps(stored),
                group_id,
            ],
        )
    if data:
        event_bus(store).publish(
            {"type": "user_group", "op": "update", "group_id": group_id, "data": data},
            active_user_ids(store),
        )


def update_members(
    store: Store,
    user: Row,
    group_id: int,
    *,
    add: list[int],
    delete: list[int],
    add_subgroups: list[int] | None = None,
    delete_subgroups: list[int] | None = None,
) -> None:
    """``POST /user_groups/{id}/members`` (joining, leaving, adding and removing members)."""
    group = get_group(store, group_id)
    if group["is_system_group"]:
        raise ApiError("Insufficient permission")
    settings = group_settings(store, group)
    manage = int(user["role"]) != realm_mod.ROLE_GUEST and can_manage(store, user, group)
    if not (add or delete or add_subgroups or delete_subgroups):
        raise ApiError("Nothing to do. Specify at least one of 'add' or 'delete'.")
    with store.atomic():
        if add:
            joining = add == [user["id"]]
            allowed = manage or (
                realm_mod.user_has_setting(store, user, settings["can_join_group"])
                if joining
                else can_add_members(store, user, group)
            )
            if not allowed:
                raise ApiError("Insufficient permission")
            _check_users(store, add)
            present = set(direct_members(store, group_id))
            for uid in add:
                if uid in present:
                    raise ApiError(f"User {uid} is already a member of this group")
            store.executemany(
                "INSERT INTO group_members (group_id, user_id) VALUES (?, ?)",
                [(group_id, uid) for uid in add],
            )
        if delete:
            leaving = delete == [user["id"]]
            allowed = manage or realm_mod.user_has_setting(
                store,
                user,
                settings["can_leave_group"] if leaving else settings["can_remove_members_group"],
            )
            if not allowed:
                raise ApiError("Insufficient permission")
            present = set(direct_members(store, group_id))
            for uid in delete:
                if uid not in present:
                    raise ApiError(f"There is no member '{uid}' in this user group")
            store.executemany(
                "DELETE FROM group_members WHERE group_id = ? AND user_id = ?",
                [(group_id, uid) for uid in delete],
            )
        if add_subgroups or delete_subgroups:
            _update_subgroups(store, user, group, add_subgroups or [], delete_subgroups or [])
    if add:
        event_bus(store).publish(
            {"type": "user_group", "op": "add_members", "group_id": group_id, "user_ids": add},
            active_user_ids(store),
        )
    if delete:
        event_bus(store).publish(
            {
                "type": "user_group",
                "op": "remove_members",
                "group_id": group_id,
                "user_ids": delete,
            },
            active_user_ids(store),
        )


def update_subgroups(
    store: Store, user: Row, group_id: int, *, add: list[int], delete: list[int]
) -> None:
    """``POST /user_groups/{id}/subgroups``."""
    group = get_group(store, group_id)
    if not (add or delete):
        raise ApiError("Nothing to do. Specify at least one of 'add' or 'delete'.")
    with store.atomic():
        _update_subgroups(store, user, group, add, delete)


def _update_subgroups(
    store: Store, user: Row, group: Row, add: list[int], delete: list[int]
) -> None:
    group_id = int(group["id"])
    _require_manage(store, user, group)
    present = set(direct_subgroups(store, group_id))
    if add:
        _check_subgroups(store, group_id, add)
        for sid in add:
            if sid in present:
                raise ApiError(f"User group {sid} is already a subgroup of this group.")
        store.executemany(
            "INSERT INTO group_subgroups (group_id, subgroup_id) VALUES (?, ?)",
            [(group_id, sid) for sid in add],
        )
    if delete:
        for sid in delete:
            if sid not in present:
                raise ApiError(f"User group {sid} is not a subgroup of this group.")
        store.executemany(
            "DELETE FROM group_subgroups WHERE group_id = ? AND subgroup_id = ?",
            [(group_id, sid) for sid in delete],
        )
    for op, ids in (("add_subgroups", add), ("remove_subgroups", delete)):
        if ids:
            event_bus(store).publish(
                {"type": "user_group", "op": op, "group_id": group_id, "direct_subgroup_ids": ids},
                active_user_ids(store),
            )


# -- deactivation (spec 4.21) -------------------------------------------------------------------
def deactivate_group(store: Store, user: Row, group_id: int) -> None:
    """Deactivate a group no permission setting or supergroup uses; else list the ``objections``."""
    row = store.one("SELECT * FROM user_groups WHERE id = ?", [group_id])
    if row is None or row["name"] is None or row["is_system_group"]:
        raise ApiError("Invalid user group")
    _require_manage(store, user, row)
    if row["deactivated"]:
        raise ApiError("User group is already deactivated.")
    _check_not_in_use(store, group_id)
    with store.atomic():
        store.execute("UPDATE user_groups SET deactivated = 1 WHERE id = ?", [group_id])
    event_bus(store).publish(
        {"type": "user_group", "op": "update", "group_id": group_id, "data": {"deactivated": True}},
        active_user_ids(store),
    )


def _check_not_in_use(store: Store, group_id: int) -> None:
    objections = gs.uses_of_group(store, group_id)
    if objections:
        raise ApiError(
            "Cannot deactivate user group in use.",
            code="CANNOT_DEACTIVATE_GROUP_IN_USE",
            objections=objections,
        )
