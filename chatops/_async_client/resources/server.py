"""Server settings (no authentication) and registration."""

from __future__ import annotations

from typing import Any

from ..._base_client import NOT_GIVEN, NotGiven
from ...resources._base import AsyncResource, given
from ...types import BigBlueButtonCall, ServerSettings

__all__ = ["AsyncServer"]


class AsyncServer(AsyncResource):
    """``client.server``: what the server is and what it offers."""

    async def settings(self) -> ServerSettings:
        """``GET /server_settings``, sent without credentials."""
        return await self._client._request(
            "GET", "/server_settings", cast_to=ServerSettings, auth=False
        )

    async def register(self, **params: Any) -> dict[str, Any]:
        """``POST /register`` with the given parameters; returns the raw initial state."""
        return await self._client._request(
            "POST", "/register", params=params, cast_to=dict[str, Any], idempotent=True
        )

    async def bigbluebutton_call(
        self, meeting_name: str, *, voice_only: bool | NotGiven = NOT_GIVEN
    ) -> str:
        """``GET /calls/bigbluebutton/create``: the join link of a new BigBlueButton call.

        The server signs the call's details into the link without asking the video server;
        following the link needs one (a server without one refuses there).

        Args:
            meeting_name: the call's name.
            voice_only: cameras off for everyone; only the caller, the call's moderator, can
                turn them on.
        """
        params = given(locals())
        result = await self._client._request(
            "GET", "/calls/bigbluebutton/create", params=params, cast_to=BigBlueButtonCall
        )
        return result.url
