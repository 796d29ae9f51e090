"""What an organization file can make that nothing else here makes: accounts, channels, default
channels and custom profile fields (created, changed, reordered, removed)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ..._exceptions import ApiError
from .._base import Change, Phase, Reading, read
from .._call import ApiCall
from .channels import ArchiveChannel
from .people import DeactivateUser

if TYPE_CHECKING:
    from ..._client import Client

__all__ = [
    "CreateChannel",
    "CreateProfileField",
    "CreateUser",
    "DeleteProfileField",
    "ReorderProfileFields",
    "SetDefaultChannel",
    "UpdateProfileField",
]


class CreateUser(Change, frozen=True, kw_only=True):
    """Create an account (``POST /users``) with a random password nobody is told: the person
    sets their own with "Forgot your password?". Undone by deactivating it."""

    email: str
    full_name: str

    def call(self) -> ApiCall:
        return ApiCall(
            method="POST",
            path="/users",
            params={"email": self.email, "full_name": self.full_name, "password": "(random)"},
        )

    def send(self, client: Client) -> dict[str, Any]:
        params = {
            "email": self.email,
            "full_name": self.full_name,
            "password": secrets.token_urlsafe(24),
        }
        return dict(client.post("/users", params=params))

    def state(self, client: Client) -> Reading:
        try:
            client.get(f"/users/{self.email}")
        except ApiError as exc:
            if exc.status == 400 and exc.code == "BAD_REQUEST":  # "No such user"
                return Reading(False, f"GET /users/{self.email}: no such user")
            if 400 <= exc.status < 500 and exc.status != 429:
                return Reading(None, f"GET /users/{self.email} refused ({exc.code}): cannot tell")
            raise
        return Reading(True, f"GET /users/{self.email}: the account exists")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        return None if "user_id" not in answer else DeactivateUser(user_id=int(answer["user_id"]))


def _stream_id(client: Client, name: str) -> int | Reading:
    answer = read(client, "/streams", {"include_all": True, "exclude_archived": False})
    if isinstance(answer, Reading):
        return answer
    for stream in answer.get("streams") or []:
        if str(stream.get("name", "")).casefold() == name.casefold():
            return int(stream["stream_id"])
    return Reading(False, f"GET /streams: no channel named {name!r}")


class CreateChannel(Change, frozen=True, kw_only=True):
    """Create a channel (``POST /users/me/subscriptions`` with a new name), its first
    subscribers ``principals`` and its settings as the call takes them (``invite_only``,
    ``history_public_to_subscribers``, ``is_web_public``, ``folder_id``, group settings by
    id). Undone by archiving it."""

    name: str
    description: str = ""
    principals: list[int] = []
    settings: dict[str, Any] = {}

    def call(self) -> ApiCall:
        params: dict[str, Any] = {
            "subscriptions": [{"name": self.name, "description": self.description}],
            **self.settings,
        }
        if self.principals:
            params["principals"] = list(self.principals)
        return ApiCall(method="POST", path="/users/me/subscriptions", params=params)

    def send(self, client: Client) -> dict[str, Any]:
        answer = super().send(client)
        found = _stream_id(client, self.name)
        return {**answer, "stream_id": found} if isinstance(found, int) else answer

    def state(self, client: Client) -> Reading:
        found = _stream_id(client, self.name)
        if isinstance(found, Reading):
            return found
        return Reading(True, f"GET /streams: #{self.name} is channel {found}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if not isinstance(answer.get("stream_id"), int):
            return None
        return ArchiveChannel(stream_id=int(answer["stream_id"]))


def _defaults(client: Client) -> set[int] | Reading:
    answer = read(client, "/streams", {"include_all": True, "include_default": True})
    if isinstance(answer, Reading):
        return answer
    return {int(s["stream_id"]) for s in answer.get("streams") or [] if s.get("is_default")}


class SetDefaultChannel(Change, frozen=True, kw_only=True):
    """Make a channel a default one for new members (``POST /default_streams``) or not
    (``DELETE /default_streams``); undone by the other."""

    stream_id: int
    default: bool = True

    def call(self) -> ApiCall:
        return ApiCall(
            method="POST" if self.default else "DELETE",
            path="/default_streams",
            params={"stream_id": self.stream_id},
        )

    def state(self, client: Client) -> Reading:
        found = _defaults(client)
        if isinstance(found, Reading):
            return found
        now = self.stream_id in found
        word = "a default channel" if now else "not a default channel"
        return Reading(now is self.default, f"GET /streams: channel {self.stream_id} {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change:
        return SetDefaultChannel(stream_id=self.stream_id, default=not self.default)


def _fields(client: Client) -> list[dict[str, Any]] | Reading:
    answer = read(client, "/realm/profile_fields")
    if isinstance(answer, Reading):
        return answer
    return [dict(f) for f in answer.get("custom_fields") or [] if isinstance(f, dict)]


#: a profile field's settings as the create and update calls take them
FIELD_KEYS = ("name", "hint", "field_data", "display_in_profile_summary", "required",
              "editable_by_user")  # fmt: skip


def _field_settings(field: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: field.get(k) for k in FIELD_KEYS if k in field}
    data = out.get("field_data")
    if isinstance(data, str):
        out["field_data"] = json.loads(data) if data else {}
    return out


class CreateProfileField(Change, frozen=True, kw_only=True):
    """Add a custom profile field (``POST /realm/profile_fields``); undone by removing it."""

    field_type: int
    settings: dict[str, Any]

    def call(self) -> ApiCall:
        params = {"field_type": self.field_type, **self.settings}
        if isinstance(params.get("field_data"), Mapping):
            params["field_data"] = json.dumps(params["field_data"])
        return ApiCall(method="POST", path="/realm/profile_fields", params=params)

    def state(self, client: Client) -> Reading:
        found = _fields(client)
        if isinstance(found, Reading):
            return found
        name = str(self.settings.get("name", ""))
        there = any(str(f.get("name")) == name for f in found)
        return Reading(there, f"GET /realm/profile_fields: {name!r} {'listed' if there else 'not'}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        return None if "id" not in answer else DeleteProfileField(field_id=int(answer["id"]))


class UpdateProfileField(Change, frozen=True, kw_only=True):
    """Change a custom profile field (``PATCH /realm/profile_fields/{id}``)."""

    field_id: int
    settings: dict[str, Any]

    def call(self) -> ApiCall:
        params = dict(self.settings)
        if isinstance(params.get("field_data"), Mapping):
            params["field_data"] = json.dumps(params["field_data"])
        return ApiCall(method="PATCH", path=f"/realm/profile_fields/{self.field_id}", params=params)

    def _current(self, client: Client) -> dict[str, Any] | Reading:
        found = _fields(client)
        if isinstance(found, Reading):
            return found
        for field in found:
            if field.get("id") == self.field_id:
                return _field_settings(field)
        return Reading(None, f"GET /realm/profile_fields: no field {self.field_id}")

    def before(self, client: Client) -> dict[str, Any] | None:
        current = self._current(client)
        return None if isinstance(current, Reading) else {k: current.get(k) for k in self.settings}

    def state(self, client: Client) -> Reading:
        current = self._current(client)
        if isinstance(current, Reading):
            return current
        differ = [k for k, v in self.settings.items() if current.get(k) != v]
        word = f"{', '.join(differ)} differ" if differ else "as set"
        return Reading(not differ, f"GET /realm/profile_fields: field {self.field_id} {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        return (
            None
            if before is None
            else UpdateProfileField(field_id=self.field_id, settings=dict(before))
        )


class DeleteProfileField(Change, frozen=True, kw_only=True):
    """Remove a custom profile field and everyone's value in it (``DELETE
    /realm/profile_fields/{id}``); the values cannot be put back."""

    phase: ClassVar[Phase] = Phase.REMOVE
    irreversible: ClassVar[str | None] = "everyone's value in the field goes with it"
    field_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="DELETE", path=f"/realm/profile_fields/{self.field_id}")

    def state(self, client: Client) -> Reading:
        found = _fields(client)
        if isinstance(found, Reading):
            return found
        gone = all(f.get("id") != self.field_id for f in found)
        word = "not listed" if gone else "still listed"
        return Reading(gone, f"GET /realm/profile_fields: field {self.field_id} {word}")


class ReorderProfileFields(Change, frozen=True, kw_only=True):
    """Put the custom profile fields in this order (``PATCH /realm/profile_fields``)."""

    order: list[int]

    def call(self) -> ApiCall:
        return ApiCall(method="PATCH", path="/realm/profile_fields", params={"order": self.order})

    def before(self, client: Client) -> dict[str, Any] | None:
        found = _fields(client)
        return None if isinstance(found, Reading) else {"order": [f["id"] for f in found]}

    def state(self, client: Client) -> Reading:
        found = _fields(client)
        if isinstance(found, Reading):
            return found
        done = [f["id"] for f in found] == list(self.order)
        return Reading(
            done, "GET /realm/profile_fields: " + ("in order" if done else "other order")
        )

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        return None if not before else ReorderProfileFields(order=list(before["order"]))
