"""The user life cycle as administrators drive it: create, deactivate, reactivate, change role.

Creating a bot, which any member may do, is the bots area's (:func:`.bots.create_bot`).
"""

from __future__ import annotations

from typing import Any

from . import bots, channel_settings, custom_profile_fields, invitations, users
from . import realm as realm_mod
from .bus import event_bus
from .emails import valid_email
from .errors import ApiError
from .store import Row, Store
from .user_groups import active_user_ids


def _target(store: Store, user_id: int) -> Row:
    row = users.get_user(store, user_id)
    if row is None or row["is_system_bot"]:
        raise ApiError("No such user")
    return row


def _check_name(full_name: str) -> str:
    return users.check_full_name(full_name)


def _announce(store: Store, event: dict[str, Any]) -> None:
    event_bus(store).publish(event, active_user_ids(store))


def create_user(store: Store, actor: Row, *, email: str, password: str, full_name: str) -> int:
    """``POST /users``: administrators create an account directly."""
    email = email.strip()
    if not valid_email(email):
        raise ApiError(f"Bad name or username: '{email}'")
    full_name = _check_name(full_name)
    with store.atomic():
        user_id = users.create_user(store, email=email, full_name=full_name, password=password)
        channel_settings.subscribe_to_defaults(store, user_id)
        row = users.get_user(store, user_id)
    assert row is not None
    users.announce_added(store, int(row["id"]), active_user_ids(store))
    return user_id


def _owners(store: Store) -> list[int]:
    rows = store.query(
        "SELECT id FROM users WHERE role = ? AND is_active = 1 AND is_bot = 0",
        [realm_mod.ROLE_OWNER],
    )
    return [int(r["id"]) for r in rows]


def deactivate_user(store: Store, actor: Row, user_id: int) -> None:
    """``DELETE /users/{id}`` (and ``DELETE /bots/{id}``): their bots go with them.

    The organization's only human owner is refused with ``BAD_REQUEST`` and no extra field,
    as the real server's ``deactivate_user_backend`` answers (``CANNOT_DEACTIVATE_LAST_USER``
    is ``DELETE /users/me``'s).
    """
    target = _target(store, user_id)
    if target["is_bot"] and target["bot_owner_id"] == actor["id"]:
        pass  # owners may deactivate their own bots
    else:
        realm_mod.require_admin(actor)
    if not target["is_active"]:
        raise ApiError("User already deactivated")
    if int(target["role"]) == realm_mod.ROLE_OWNER and not target["is_bot"]:
        if int(actor["role"]) != realm_mod.ROLE_OWNER:
            raise ApiError("Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
        if _owners(store) == [user_id]:
            # the real ``deactivate_user_backend``: a plain error, unlike ``DELETE /users/me``
            raise ApiError("Cannot deactivate the only organization owner")
    _deactivate(store, user_id)


def _deactivate(store: Store, user_id: int) -> None:
    """Deactivate a person or bot with the bots they own, and announce each."""
    with store.atomic():
        owned = store.query(
            "SELECT id FROM users WHERE bot_owner_id = ? AND is_active = 1", [user_id]
        )
        gone = [user_id, *(int(b["id"]) for b in owned)]
        store.executemany("UPDATE users SET is_active = 0 WHERE id = ?", [(i,) for i in gone])
        for uid in gone:
            invitations.revoke_sent_by(store, uid)
    for uid in gone:
        _announce(
            store,
            {"type": "realm_user", "op": "update", "person": {"user_id": uid, "is_active": False}},
        )
        bots.announce_active(store, uid)


def deactivate_own_account(store: Store, user: Row) -> None:
    """``DELETE /users/me``: anyone may leave, unless they are the last of the organization.

    As the real server's ``deactivate_user_own_backend``: the only active account (bots
    counted) is refused with ``is_last_owner: false``; the only human owner while others
    remain with ``is_last_owner: true``, both ``CANNOT_DEACTIVATE_LAST_USER``. The bots the
    person owns are deactivated with them.

    Args:
        store: the organization.
        user: who leaves.
    """
    active = int(
        store.scalar("SELECT count(*) FROM users WHERE is_active = 1 AND is_system_bot = 0")
    )
    if active == 1:
        raise ApiError(
            "Cannot deactivate the only user.",
            code="CANNOT_DEACTIVATE_LAST_USER",
            is_last_owner=False,
            entity="user",
        )
    if int(user["role"]) == realm_mod.ROLE_OWNER and _owners(store) == [int(user["id"])]:
        raise ApiError(
            "Cannot deactivate the only organization owner.",
            code="CANNOT_DEACTIVATE_LAST_USER",
            is_last_owner=True,
            entity="organization owner",
        )
    _deactivate(store, int(user["id"]))


def reactivate_user(store: Store, actor: Row, user_id: int) -> None:
    """``POST /users/{id}/reactivate``."""
    realm_mod.require_admin(actor)
    target = _target(store, user_id)
    if target["is_active"]:
        raise ApiError("User is already active")
    if target["is_bot"] and target["bot_owner_id"] is not None:
        owner = users.get_user(store, target["bot_owner_id"])
        if owner is not None and not owner["is_active"]:
            raise ApiError(
                f"Bot is owned by {owner['full_name']}, who is deactivated. "
                "Reactivate the owner or transfer ownership first."
            )
    with store.atomic():
        store.execute("UPDATE users SET is_active = 1 WHERE id = ?", [user_id])
    _announce(
        store,
        {"type": "realm_user", "op": "update", "person": {"user_id": user_id, "is_active": True}},
    )
    bots.announce_active(store, user_id)


def update_user(
    store: Store,
    actor: Row,
    user_id: int,
    *,
    role: int | None = None,
    full_name: str | None = None,
    profile_data: Any = None,
) -> None:
    """``PATCH /users/{id}``: role, name and profile data, administrators only; owner roles
    need an owner. An empty ``profile_data`` value removes it."""
    realm_mod.require_admin(actor)
    target = _target(store, user_id)
    if role is None and full_name is None and profile_data is None:
        raise ApiError("No new data supplied")
    person: dict[str, Any] = {"user_id": user_id}
    if role is not None:
        if role not in realm_mod.ROLES:
            raise ApiError("Invalid role", var_name="role")
        involves_owner = realm_mod.ROLE_OWNER in (role, int(target["role"]))
        if involves_owner and int(actor["role"]) != realm_mod.ROLE_OWNER:
            raise ApiError("Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
        if (
            int(target["role"]) == realm_mod.ROLE_OWNER
            and role != realm_mod.ROLE_OWNER
            and _owners(store) == [user_id]
        ):
            raise ApiError(
                "The owner permission cannot be removed from the only organization owner."
            )
        if role != target["role"]:
            person["role"] = role
    if full_name is not None:
        full_name = _check_name(full_name)
        if full_name != target["full_name"]:
            person["full_name"] = full_name
    with store.atomic():
        if profile_data is not None:
            custom_profile_fields.update_values(
                store, actor, target, profile_data, empty_removes=True
            )
        if "role" in person:
            store.execute("UPDATE users SET role = ? WHERE id = ?", [person["role"], user_id])
        if "full_name" in person:
            store.execute(
                "UPDATE users SET full_name = ? WHERE id = ?", [person["full_name"], user_id]
            )
    if len(person) > 1:
        _announce(store, {"type": "realm_user", "op": "update", "person": person})


def check_own_name(store: Store, user: Row, full_name: str) -> str:
    """The new name a person gives themself (``PATCH /settings``), checked."""
    if realm_mod.settings(store).get("name_changes_disabled") and not realm_mod.is_admin(user):
        raise ApiError("Name changes are disabled in this organization.")
    return _check_name(full_name)


def set_own_name(store: Store, user: Row, full_name: str) -> None:
    """Store a checked new name and announce it (inside the caller's transaction)."""
    store.execute("UPDATE users SET full_name = ? WHERE id = ?", [full_name, user["id"]])
    _announce(
        store,
        {
            "type": "realm_user",
            "op": "update",
            "person": {"user_id": user["id"], "full_name": full_name},
        },
    )
