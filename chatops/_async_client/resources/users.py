"""Users: own user, one user, all users; status; the life cycle of users and bots."""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Iterable, Mapping
from typing import Any, Literal
from urllib.parse import quote

from ..._base_client import NOT_GIVEN, NotGiven, check_length
from ..._bulk import DEFAULT_CONCURRENCY, BulkReport, run_bounded
from ...resources._base import AsyncResource, given
from ...types import (
    BotResult,
    RealmPresence,
    User,
    UserIdResult,
    UserPresence,
    UserResult,
    UsersResult,
    UserStatus,
    UserStatusResult,
)

MAX_STATUS_TEXT = 60
ReactionType = Literal["unicode_emoji", "realm_emoji", "service_extra_emoji", "zulip_extra_emoji"]
#: custom profile field values by field ID
ProfileData = Mapping[int, Any]
#: the keyword arguments of ``set_status`` as a dict, plus ``user_id`` for bulk updates
StatusUpdate = Mapping[str, Any]


def _profile_data(values: ProfileData | NotGiven) -> builtins.list[dict[str, Any]] | NotGiven:
    if isinstance(values, NotGiven):
        return values
    return [{"id": int(field_id), "value": value} for field_id, value in values.items()]


def _status_params(params: dict[str, Any]) -> dict[str, Any]:
    if isinstance(params.get("status_text"), str):
        check_length("status_text", params["status_text"].strip(), MAX_STATUS_TEXT)
    return params


def _status_path(user_id: int | None) -> str:
    return "/users/me/status" if user_id is None else f"/users/{int(user_id)}/status"


def _split_update(update: StatusUpdate) -> tuple[int | None, dict[str, Any]]:
    fields = dict(update)
    user_id = fields.pop("user_id", None)
    allowed = {"status_text", "emoji_name", "emoji_code", "reaction_type", "away"}
    unknown = set(fields) - allowed
    if unknown:
        raise TypeError(f"unknown status fields: {', '.join(sorted(unknown))}")
    return user_id, _status_params(given(fields))


__all__ = ["AsyncUsers"]


PresenceStatus = Literal["active", "idle"]


def _presence_path(user_id_or_email: int | str) -> str:
    if isinstance(user_id_or_email, str) and not user_id_or_email.strip():
        raise ValueError("give a user ID or an email address")
    return f"/users/{quote(str(user_id_or_email), safe='@')}/presence"


def _email_path(email: str) -> str:
    if not isinstance(email, str) or "@" not in email or not email.strip():
        raise ValueError(f"give an email address, not {email!r}")
    return f"/users/{quote(email.strip(), safe='@')}"


class AsyncUsers(AsyncResource):
    """``client.users``."""

    async def me(self) -> User:
        """``GET /users/me``: the requesting user."""
        return await self._client._request("GET", "/users/me", cast_to=User)

    async def get(
        self,
        user_id: int,
        *,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        include_custom_profile_fields: bool | NotGiven = NOT_GIVEN,
    ) -> User:
        """``GET /users/{user_id}``.

        Args:
            user_id: the user.
            client_gravatar: when true, avatar_url is null for gravatar users (server default).
            include_custom_profile_fields: include ``profile_data``.
        """
        params = given(locals(), "user_id")
        result = await self._client._request(
            "GET", f"/users/{int(user_id)}", params=params, cast_to=UserResult
        )
        return result.user

    async def get_by_email(
        self,
        email: str,
        *,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        include_custom_profile_fields: bool | NotGiven = NOT_GIVEN,
    ) -> User:
        """``GET /users/{email}`` (server feature level 39).

        Args:
            email: the real address, found only when its owner's email visibility lets you see
                it, or the ``user<ID>@<realm host>`` address of :attr:`User.email`.
            client_gravatar: when true, avatar_url is null for gravatar users (server default).
            include_custom_profile_fields: include ``profile_data``.
        """
        params = given(locals(), "email")
        result = await self._client._request(
            "GET", _email_path(email), params=params, cast_to=UserResult
        )
        return result.user

    async def list(
        self,
        *,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        include_custom_profile_fields: bool | NotGiven = NOT_GIVEN,
        user_ids: builtins.list[int] | NotGiven = NOT_GIVEN,
    ) -> builtins.list[User]:
        """``GET /users``: all users, including deactivated users and bots."""
        params = given(locals())
        result = await self._client._request("GET", "/users", params=params, cast_to=UsersResult)
        return result.members

    # -- status (spec 4.7) -----------------------------------------------------------------------

    async def get_status(self, user_id: int) -> UserStatus:
        """``GET /users/{user_id}/status``: the fields set (all None when no status)."""
        result = await self._client._request(
            "GET", f"/users/{int(user_id)}/status", cast_to=UserStatusResult
        )
        return result.status

    async def set_status(
        self,
        *,
        status_text: str | NotGiven = NOT_GIVEN,
        emoji_name: str | NotGiven = NOT_GIVEN,
        emoji_code: str | NotGiven = NOT_GIVEN,
        reaction_type: ReactionType | NotGiven = NOT_GIVEN,
        away: bool | NotGiven = NOT_GIVEN,
    ) -> None:
        """``POST /users/me/status``: set the requester's own status.

        Args:
            status_text: up to 60 characters; ``""`` clears the text.
            emoji_name: an emoji name (custom, extra or Unicode); ``""`` clears the emoji.
            emoji_code: the emoji's code (derived from the name when omitted).
            reaction_type: the emoji namespace (derived from the name when omitted).
            away: deprecated away flag.
        """
        params = _status_params(given(locals()))
        await self._client._request("POST", "/users/me/status", params=params, idempotent=True)

    async def set_user_status(
        self,
        user_id: int,
        *,
        status_text: str | NotGiven = NOT_GIVEN,
        emoji_name: str | NotGiven = NOT_GIVEN,
        emoji_code: str | NotGiven = NOT_GIVEN,
        reaction_type: ReactionType | NotGiven = NOT_GIVEN,
    ) -> None:
        """``POST /users/{user_id}/status`` (administrators, feature level 407): another user's status."""
        params = _status_params(given(locals(), "user_id"))
        await self._client._request(
            "POST", f"/users/{int(user_id)}/status", params=params, idempotent=True
        )

    # -- presence and own account ---------------------------------------------------------------

    async def presence(self, user_id_or_email: int | str) -> UserPresence:
        """``GET /users/{user_id_or_email}/presence``: ``aggregated`` and ``website`` entries."""
        return await self._client._request(
            "GET", _presence_path(user_id_or_email), cast_to=UserPresence
        )

    async def realm_presence(self) -> RealmPresence:
        """``GET /realm/presence``: everyone seen in the last two weeks, keyed by email."""
        return await self._client._request("GET", "/realm/presence", cast_to=RealmPresence)

    async def update_presence(
        self,
        status: PresenceStatus,
        *,
        ping_only: bool | NotGiven = NOT_GIVEN,
        new_user_input: bool | NotGiven = NOT_GIVEN,
        last_update_id: int | NotGiven = NOT_GIVEN,
        history_limit_days: int | NotGiven = NOT_GIVEN,
        slim_presence: bool | NotGiven = NOT_GIVEN,
    ) -> RealmPresence:
        """``POST /users/me/presence``: report ``active`` or ``idle``; returns everyone's.

        Args:
            status: ``"active"`` when the person uses the device, else ``"idle"``.
            ping_only: report only (the answer then has no presences).
            new_user_input: the person interacted since the last report.
            last_update_id: the ``presence_last_update_id`` of the previous answer (``-1``
                at first): only newer presence comes back, in the modern shape.
            history_limit_days: how far back the first fetch goes (default 14).
            slim_presence: the modern shape without ``last_update_id``.
        """
        if status not in ("active", "idle"):
            raise ValueError(f"presence status must be 'active' or 'idle', not {status!r}")
        params = given(locals())
        return await self._client._request(
            "POST", "/users/me/presence", params=params, cast_to=RealmPresence
        )

    async def update_settings(self, **settings: Any) -> None:
        """``PATCH /settings``: change the requester's own settings (``twenty_four_hour_time=True``,
        ``emojiset="text"``, ...); unknown names come back in ``ignored_parameters_unsupported``."""
        if not settings:
            raise ValueError("give at least one setting to change")
        await self._client._request("PATCH", "/settings", params=settings, idempotent=True)

    async def mute(self, user_id: int) -> None:
        """``POST /users/me/muted_users/{user_id}``: hide their messages (they become read)."""
        await self._client._request("POST", f"/users/me/muted_users/{int(user_id)}")

    async def unmute(self, user_id: int) -> None:
        """``DELETE /users/me/muted_users/{user_id}``."""
        await self._client._request("DELETE", f"/users/me/muted_users/{int(user_id)}")

    # -- life cycle ------------------------------------------------------------------------------

    async def create(self, *, email: str, password: str, full_name: str) -> int:
        """``POST /users`` (administrators): create an account; returns its user ID."""
        params = {"email": email, "password": password, "full_name": full_name}
        result = await self._client._request("POST", "/users", params=params, cast_to=UserIdResult)
        return result.user_id

    async def deactivate(self, user_id: int) -> None:
        """``DELETE /users/{user_id}`` (administrators): deactivate a user and their bots.

        The organization's only owner is refused with ``BAD_REQUEST`` ("Cannot deactivate the
        only organization owner"); ``CANNOT_DEACTIVATE_LAST_USER`` is
        :meth:`deactivate_own_account`'s.
        """
        await self._client._request("DELETE", f"/users/{int(user_id)}")

    async def deactivate_own_account(self) -> None:
        """``DELETE /users/me``: deactivate the caller's own account (and the bots they own).

        Refused with ``CANNOT_DEACTIVATE_LAST_USER`` for the organization's only owner
        (``is_last_owner`` True) or its only user (False). The client's credentials stop
        working once it succeeds.
        """
        await self._client._request("DELETE", "/users/me")

    async def reactivate(self, user_id: int) -> None:
        """``POST /users/{user_id}/reactivate`` (administrators)."""
        await self._client._request("POST", f"/users/{int(user_id)}/reactivate")

    async def update(
        self,
        user_id: int,
        *,
        role: int | NotGiven = NOT_GIVEN,
        full_name: str | NotGiven = NOT_GIVEN,
        profile_data: ProfileData | NotGiven = NOT_GIVEN,
    ) -> None:
        """``PATCH /users/{user_id}`` (administrators): change the role (100..600), name or
        custom profile field values (``{field_id: value}``; an empty value removes one)."""
        params = given(locals(), "user_id", "profile_data")
        if not isinstance(profile_data, NotGiven):
            params["profile_data"] = _profile_data(profile_data)
        await self._client._request("PATCH", f"/users/{int(user_id)}", params=params)

    async def update_profile_data(self, values: ProfileData) -> None:
        """``PATCH /users/me/profile_data``: the caller's custom profile field values.

        Args:
            values: ``{field_id: value}``; a person picker's value is a list of user IDs.
        """
        params = {"data": _profile_data(values)}
        await self._client._request("PATCH", "/users/me/profile_data", params=params)

    async def remove_profile_data(self, field_ids: Iterable[int]) -> None:
        """``DELETE /users/me/profile_data``: clear the caller's values of these fields."""
        params = {"data": [int(i) for i in field_ids]}
        await self._client._request("DELETE", "/users/me/profile_data", params=params)

    async def create_bot(
        self,
        *,
        full_name: str,
        short_name: str,
        bot_type: int | NotGiven = NOT_GIVEN,
        payload_url: str | NotGiven = NOT_GIVEN,
        interface_type: int | NotGiven = NOT_GIVEN,
    ) -> BotResult:
        """Deprecated: use ``client.bots.create`` (``POST /bots``), which this calls."""
        warnings.warn(
            "client.users.create_bot is deprecated; use client.bots.create",
            DeprecationWarning,
            stacklevel=2,
        )
        return await self._client.bots.create(**given(locals()))

    async def set_status_many(
        self, updates: Iterable[StatusUpdate], *, concurrency: int = DEFAULT_CONCURRENCY
    ) -> BulkReport[StatusUpdate]:
        """Set many statuses, at most ``concurrency`` requests at a time.

        Each update is a dict of ``set_status`` fields plus ``user_id`` (None or absent for the
        requester); the report has one item per update, in order, with the error of each failure.
        Invalid input (e.g. text over 60 characters) fails that item only. The synchronous
        ``Client`` sends one request after another whatever ``concurrency`` says.
        """

        async def one(update: StatusUpdate) -> None:
            user_id, params = _split_update(update)
            await self._client._request(
                "POST", _status_path(user_id), params=params, idempotent=True
            )

        return await run_bounded(
            updates,
            one,
            concurrency=concurrency,
            remaining=lambda: self._client.rate_limit_remaining,
        )
