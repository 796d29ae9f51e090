"""Users: own user, one user, all users."""

from __future__ import annotations

import builtins

from .._base_client import NOT_GIVEN, NotGiven
from ..types import User, UserResult, UsersResult
from ._base import AsyncResource, SyncResource, drop_not_given

__all__ = ["AsyncUsers", "Users"]


class Users(SyncResource):
    """``client.users``."""

    def me(self) -> User:
        """``GET /users/me``: the requesting user."""
        return self._client._request("GET", "/users/me", cast_to=User)

    def get(
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
        params = drop_not_given(
            client_gravatar=client_gravatar,
            include_custom_profile_fields=include_custom_profile_fields,
        )
        return self._client._request(
            "GET", f"/users/{int(user_id)}", params=params, cast_to=UserResult
        ).user

    def list(
        self,
        *,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        include_custom_profile_fields: bool | NotGiven = NOT_GIVEN,
        user_ids: builtins.list[int] | NotGiven = NOT_GIVEN,
    ) -> builtins.list[User]:
        """``GET /users``: all users, including deactivated users and bots."""
        params = drop_not_given(
            client_gravatar=client_gravatar,
            include_custom_profile_fields=include_custom_profile_fields,
            user_ids=user_ids,
        )
        return self._client._request("GET", "/users", params=params, cast_to=UsersResult).members


class AsyncUsers(AsyncResource):
    """``client.users`` of an ``AsyncClient``."""

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
        """``GET /users/{user_id}``."""
        params = drop_not_given(
            client_gravatar=client_gravatar,
            include_custom_profile_fields=include_custom_profile_fields,
        )
        result = await self._client._request(
            "GET", f"/users/{int(user_id)}", params=params, cast_to=UserResult
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
        params = drop_not_given(
            client_gravatar=client_gravatar,
            include_custom_profile_fields=include_custom_profile_fields,
            user_ids=user_ids,
        )
        result = await self._client._request("GET", "/users", params=params, cast_to=UsersResult)
        return result.members
