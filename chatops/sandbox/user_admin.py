"""The user life cycle as administrators drive it: create, deactivate, reactivate, change role, bots."""

from __future__ import annotations

import re
from typing import Any

from . import realm as realm_mod
from . import users
from .bots import register_outgoing_webhook
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store
from .user_groups import active_user_ids

EMAIL = re.compile(r"^[^@\s,<>]+@[^@\s,<>]+\.[^@\s,<>]+$")
BOT_TYPES = (1, 2, 3, 4)
MAX_NAME_LENGTH = 100


def _target(store: Store, user_id: int) -> Row:
    row = users.get_user(store, user_id)
    if row is None or row["is_system_bot"]:
        raise ApiError("No such user")
    return row


def _check_name(full_name: str) -> str:
    full_name = full_name.strip()
    if not full_name:
        raise ApiError("Name too short!")
    if len(full_name) > MAX_NAME_LENGTH:
        raise ApiError("Name too long!")
    return full_name


def _person(row: Row) -> dict[str, Any]:
    return {
        "user_id": row["id"],
        "email": row["delivery_email"],
        "full_name": row["full_name"],
        "role": row["role"],
        "is_active": bool(row["is_active"]),
        "is_bot": bool(row["is_bot"]),
        "bot_type": row["bot_type"],
        "bot_owner_id": row["bot_owner_id"],
    }


def _announce(store: Store, event: dict[str, Any]) -> None:
    event_bus(store).publish(event, active_user_ids(store))


def create_user(store: Store, actor: Row, *, email: str, password: str, full_name: str) -> int:
    """``POST /users``: administrators create an account directly."""
    realm_mod.require_admin(actor)
    email = email.strip()
    if not EMAIL.match(email):
        raise ApiError(f"Bad name or username: '{email}'")
    full_name = _check_name(full_name)
    with store.atomic():
        user_id = users.create_user(store, email=email, full_name=full_name, password=password)
        row = users.get_user(store, user_id)
    assert row is not None
    _announce(store, {"type": "realm_user", "op": "add", "person": _person(row)})
    return user_id


def _owners(store: Store) -> list[int]:
    rows = store.query(
        "SELECT id FROM users WHERE role = ? AND is_active = 1 AND is_bot = 0",
        [realm_mod.ROLE_OWNER],
    )
    return [int(r["id"]) for r in rows]


def deactivate_user(store: Store, actor: Row, user_id: int) -> None:
    """``DELETE /users/{id}`` (and ``DELETE /bots/{id}``): their bots go with them."""
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
            raise ApiError(
                "Cannot deactivate the only organization owner",
                code="CANNOT_DEACTIVATE_LAST_USER",
                is_last_owner=True,
                entity=target["full_name"],
            )
    with store.atomic():
        bots = store.query(
            "SELECT id FROM users WHERE bot_owner_id = ? AND is_active = 1", [user_id]
        )
        gone = [user_id, *(int(b["id"]) for b in bots)]
        store.executemany("UPDATE users SET is_active = 0 WHERE id = ?", [(i,) for i in gone])
    for uid in gone:
        _announce(
            store,
            {"type": "realm_user", "op": "update", "person": {"user_id": uid, "is_active": False}},
        )


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


def update_user(
    store: Store,
    actor: Row,
    user_id: int,
    *,
    role: int | None = None,
    full_name: str | None = None,
) -> None:
    """``PATCH /users/{id}``: role and name, administrators only; owner roles need an owner."""
    realm_mod.require_admin(actor)
    target = _target(store, user_id)
    if role is None and full_name is None:
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


def create_bot(
    store: Store,
    actor: Row,
    *,
    full_name: str,
    short_name: str,
    bot_type: int = 1,
    payload_url: str | None = None,
    interface_type: int = 1,
) -> dict[str, Any]:
    """``POST /bots``: returns ``user_id``, ``api_key`` and ``email`` of the new bot.

    An outgoing-webhook bot (type 3) needs ``payload_url``; its service and fixed token are
    returned under ``services``.
    """
    if int(actor["role"]) == realm_mod.ROLE_GUEST or actor["is_bot"]:
        raise ApiError("Must be an organization member", code="UNAUTHORIZED_PRINCIPAL")
    if bot_type not in BOT_TYPES:
        raise ApiError("Invalid bot type")
    if bot_type == 3 and not payload_url:
        raise ApiError(
            "Missing 'payload_url' argument",
            code="REQUEST_VARIABLE_MISSING",
            var_name="payload_url",
        )
    if interface_type not in (1, 2):
        raise ApiError("Invalid interface type", var_name="interface_type")
    full_name = _check_name(full_name)
    short_name = short_name.strip().lower()
    if not short_name or not re.match(r"^[a-z0-9_.\-]+$", short_name):
        raise ApiError("Bad name or username")
    email = f"{short_name}-bot@{realm_mod.REALM_HOST}"
    with store.atomic():
        if store.one("SELECT 1 FROM users WHERE lower(delivery_email) = lower(?)", [email]):
            raise ApiError("Username already in use")
        user_id = users.create_user(
            store,
            email=email,
            full_name=full_name,
            is_bot=True,
            bot_type=bot_type,
            bot_owner_id=actor["id"],
        )
        services: list[dict[str, Any]] = []
        if bot_type == 3:
            assert payload_url is not None
            token = register_outgoing_webhook(store, user_id, payload_url, interface=interface_type)
            services.append({"base_url": payload_url, "interface": interface_type, "token": token})
        row = users.get_user(store, user_id)
    assert row is not None
    _announce(store, {"type": "realm_bot", "op": "add", "bot": _person(row)})
    return {"user_id": user_id, "api_key": row["api_key"], "email": email, "services": services}
