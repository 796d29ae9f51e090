"""Server settings (no authentication) and registration."""

from __future__ import annotations

from typing import Any

from ...resources._base import AsyncResource
from ...types import ServerSettings

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
