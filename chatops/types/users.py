"""Typed records: users (see :mod:`chatops.types`)."""

from __future__ import annotations

from typing import Any

import msgspec

from ._base import Record

# -- users: users, API keys, status ----------------------------------------------------------------


class ProfileFieldValue(Record):
    """A custom profile field value."""

    value: Any = None
    rendered_value: str | None = None


#: Organization roles (spec section 2) by their integer value.
ROLE_NAMES: dict[int, str] = {
    100: "owner",
    200: "administrator",
    300: "moderator",
    400: "member",
    600: "guest",
}


def role_name(role: int | None) -> str:
    """The name of an organization role value (``400`` -> ``"member"``)."""
    if role is None:
        return "unknown"
    return ROLE_NAMES.get(int(role), f"role {role}")


class User(Record):
    """A user or bot (spec section 2). ``delivery_email`` is None when hidden.

    As the real server sends them: ``bot_type`` and ``bot_owner_id`` only for bots (None
    otherwise), ``is_system_bot`` only for system bots (False otherwise), ``profile_data`` only
    for people when asked for.
    """

    user_id: int
    email: str
    full_name: str
    delivery_email: str | None = None
    date_joined: str = ""
    is_active: bool = True
    is_owner: bool = False
    is_admin: bool = False
    is_guest: bool = False
    is_bot: bool = False
    bot_type: int | None = None
    bot_owner_id: int | None = None
    role: int = 400
    timezone: str = ""
    avatar_url: str | None = None
    avatar_version: int = 0
    profile_data: dict[str, ProfileFieldValue] | None = None
    max_message_id: int | None = None
    is_system_bot: bool = False


class UserResult(Record):
    """``GET /users/{user_id}``."""

    user: User


class UsersResult(Record):
    """``GET /users``."""

    members: list[User] = []


class UserIdResult(Record):
    """``POST /users``."""

    user_id: int


class ApiKeyResult(Record):
    """``POST /fetch_api_key``. ``user_id`` is sent from feature level 171."""

    api_key: str
    email: str
    user_id: int | None = None

    def __repr__(self) -> str:
        return f"ApiKeyResult(email={self.email!r}, user_id={self.user_id!r})"


class UserStatus(Record):
    """A user's status; fields not set are absent (``GET /users/{id}/status``)."""

    status_text: str | None = None
    emoji_name: str | None = None
    emoji_code: str | None = None
    reaction_type: str | None = None
    away: bool | None = None


class UserStatusResult(Record):
    """``GET /users/{user_id}/status``."""

    status: UserStatus = msgspec.field(default_factory=UserStatus)


class PresenceEntry(Record):
    """One client's presence in the legacy shape (``status`` is ``offline`` when stale)."""

    status: str
    timestamp: int
    client: str | None = None
    pushable: bool | None = None


class UserPresence(Record):
    """``GET /users/{user_id_or_email}/presence``: ``aggregated`` and per-client entries."""

    presence: dict[str, PresenceEntry] = {}

    @property
    def aggregated(self) -> PresenceEntry | None:
        return self.presence.get("aggregated")


class ModernPresence(Record):
    """A person's presence in the modern shape: when last active, when last connected."""

    active_timestamp: int
    idle_timestamp: int


class RealmPresence(Record):
    """``GET /realm/presence`` and ``POST /users/me/presence``.

    ``presences`` is keyed by user ID (str) in the modern shape, or by email in the legacy one
    (each a dict of client name to entry): see :meth:`modern`.
    """

    presences: dict[str, Any] = {}
    server_timestamp: float | None = None
    presence_last_update_id: int | None = None

    def modern(self) -> dict[int, ModernPresence]:
        """The modern-shape entries by user ID (empty for a legacy answer)."""
        return {
            int(k): msgspec.convert(v, ModernPresence)
            for k, v in self.presences.items()
            if k.isdigit()
        }

    def legacy(self) -> dict[str, PresenceEntry]:
        """The legacy-shape ``aggregated`` entries by email (empty for a modern answer)."""
        return {
            k: msgspec.convert(v["aggregated"], PresenceEntry)
            for k, v in self.presences.items()
            if not k.isdigit() and isinstance(v, dict) and "aggregated" in v
        }
