"""People and bots: deactivate, reactivate, change a role or a bot's owner."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from .._base import Change, Phase, Reading, read
from .._call import ApiCall

if TYPE_CHECKING:
    from ..._client import Client

__all__ = ["DeactivateBot", "DeactivateUser", "ReactivateUser", "UpdateBot", "UpdateUser"]


def _user(client: Client, user_id: int) -> dict[str, Any] | Reading:
    answer = read(client, f"/users/{user_id}")
    if isinstance(answer, Reading):
        return answer
    return dict(answer.get("user") or {})


def _active(client: Client, user_id: int, wanted: bool) -> Reading:
    user = _user(client, user_id)
    if isinstance(user, Reading):
        return user
    active = user.get("is_active")
    shown = "true" if active is True else "false" if active is False else repr(active)
    return Reading(active is wanted, f"GET /users/{user_id}: is_active {shown}")


class DeactivateUser(Change, frozen=True, kw_only=True):
    """Deactivate an account (``DELETE /users/{id}``); reactivating it undoes this."""

    phase: ClassVar[Phase] = Phase.DEACTIVATE_PEOPLE
    user_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="DELETE", path=f"/users/{self.user_id}")

    def state(self, client: Client) -> Reading:
        return _active(client, self.user_id, False)

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change:
        return ReactivateUser(user_id=self.user_id)


class DeactivateBot(DeactivateUser, frozen=True, kw_only=True):
    """Deactivate a bot (``DELETE /bots/{id}``, or ``DELETE /users/{id}`` as an administrator
    may), before any person: a bot goes before its owner."""

    phase: ClassVar[Phase] = Phase.DEACTIVATE_BOTS
    endpoint: Literal["bots", "users"] = "bots"

    def call(self) -> ApiCall:
        return ApiCall(method="DELETE", path=f"/{self.endpoint}/{self.user_id}")


class ReactivateUser(Change, frozen=True, kw_only=True):
    """Reactivate an account or a bot (``POST /users/{id}/reactivate``)."""

    user_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="POST", path=f"/users/{self.user_id}/reactivate")

    def state(self, client: Client) -> Reading:
        return _active(client, self.user_id, True)

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change:
        return DeactivateUser(user_id=self.user_id)


class _Fields(Change, frozen=True, kw_only=True):
    """A change of an account's fields, read back from ``GET /users/{id}``."""

    user_id: int
    settings: dict[str, Any]
    path_root: ClassVar[str] = "/users"

    def call(self) -> ApiCall:
        return ApiCall(
            method="PATCH", path=f"{self.path_root}/{self.user_id}", params=self.settings
        )

    def before(self, client: Client) -> dict[str, Any] | None:
        user = _user(client, self.user_id)
        if isinstance(user, Reading):
            return None
        return {name: user.get(name) for name in self.settings}

    def state(self, client: Client) -> Reading:
        user = _user(client, self.user_id)
        if isinstance(user, Reading):
            return user
        differ = [n for n, v in self.settings.items() if user.get(n) != v]
        if differ:
            return Reading(False, f"GET /users/{self.user_id}: {', '.join(differ)} differ")
        return Reading(True, f"GET /users/{self.user_id}: {', '.join(self.settings)} as set")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None or any(before.get(n) is None for n in self.settings):
            return None
        return type(self)(user_id=self.user_id, settings={n: before[n] for n in self.settings})


class UpdateUser(_Fields, frozen=True, kw_only=True):
    """Change an account's role or name (``PATCH /users/{id}``)."""


class UpdateBot(_Fields, frozen=True, kw_only=True):
    """Change a bot's settings, such as its owner (``PATCH /bots/{id}``, ``bot_owner_id``)."""

    path_root: ClassVar[str] = "/bots"
