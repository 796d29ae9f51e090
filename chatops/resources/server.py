"""Server settings (no authentication) and registration."""

from __future__ import annotations

from typing import Any

from ..types import ServerSettings
from ._base import AsyncResource, SyncResource

__all__ = ["AsyncServer", "Server"]


class Server(SyncResource):
    """``client.server``: what the server is and what it offers."""

    def settings(self) -> ServerSettings:
        """``GET /server_settings``, sent without credentials."""
        return self._client._request("GET", "/server_settings", cast_to=ServerSettings, auth=False)

    def register(self, **params: Any) -> dict[str, Any]:
        """``POST /register`` with the given parameters; returns the raw initial state."""
        return self._client._request(
            "POST", "/register", params=params, cast_to=dict[str, Any], idempotent=True
        )


class AsyncServer(AsyncResource):
    """``client.server`` of an ``AsyncClient``."""

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
