"""Bots: create, list, change and deactivate the requester's bots; bot storage (spec 4.22).

URL and configuration parameters are JSON, as the real server reads them: ``payload_url``
goes out as a JSON string (``"https://..."`` with the quotes), ``config_data`` as a JSON
object. Writing the receiving side of an outgoing-webhook bot is :mod:`chatops.webhooks`.
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from ..._base_client import NOT_GIVEN, NotGiven
from ...resources._base import AsyncResource, drop_not_given, given
from ...types import (
    BotApiKeyResult,
    BotResult,
    BotStorageResult,
    BotUpdateResult,
    OwnBot,
    OwnBotsResult,
)

__all__ = ["AsyncBots"]


def json_text(value: str | NotGiven) -> str | NotGiven:
    """A string parameter the server decodes as JSON: sent as JSON text, quotes included."""
    if isinstance(value, NotGiven):
        return value
    return msgspec.json.encode(value).decode()


def _bot_params(params: dict[str, Any]) -> dict[str, Any]:
    """The webhook URLs as JSON text (the server decodes them), ``config_data`` as a dict."""
    for name in ("payload_url", "service_payload_url"):
        if name in params:
            params[name] = json_text(params[name])
    if "config_data" in params:
        params["config_data"] = dict(params["config_data"])
    return params


def _keys(keys: Sequence[str] | NotGiven) -> dict[str, object]:
    return drop_not_given(keys=keys if isinstance(keys, NotGiven) else list(keys))


class AsyncBots(AsyncResource):
    """``client.bots``: bots owned by the requester, and the requester's bot storage.

    Example::

        bot = client.bots.create(full_name="Standup Bot", short_name="standup")
        client.bots.update(bot.user_id, full_name="Daily Standup Bot")
        client.bots.deactivate(bot.user_id)
    """

    async def create(
        self,
        *,
        full_name: str,
        short_name: str,
        bot_type: int | NotGiven = NOT_GIVEN,
        payload_url: str | NotGiven = NOT_GIVEN,
        interface_type: int | NotGiven = NOT_GIVEN,
        service_name: str | NotGiven = NOT_GIVEN,
        config_data: Mapping[str, str] | NotGiven = NOT_GIVEN,
    ) -> BotResult:
        """``POST /bots``: a bot owned by the requester (1 generic, 2 incoming, 3 outgoing, 4 embedded).

        An outgoing-webhook bot (``bot_type=3``) needs ``payload_url``; the result's
        ``services`` carry its fixed token for the receiver (``chatops.webhooks``).
        ``config_data`` configures an incoming-webhook or embedded bot.
        """
        params = _bot_params(given(locals()))
        return await self._client._request("POST", "/bots", params=params, cast_to=BotResult)

    async def list(self) -> builtins.list[OwnBot]:
        """``GET /bots``: the requester's active bots, oldest first (administrators too)."""
        return (await self._client._request("GET", "/bots", cast_to=OwnBotsResult)).bots

    async def update(
        self,
        bot_id: int,
        *,
        full_name: str | NotGiven = NOT_GIVEN,
        bot_owner_id: int | NotGiven = NOT_GIVEN,
        role: int | NotGiven = NOT_GIVEN,
        default_sending_stream: str | NotGiven = NOT_GIVEN,
        default_events_register_stream: str | NotGiven = NOT_GIVEN,
        default_all_public_streams: bool | NotGiven = NOT_GIVEN,
        service_payload_url: str | NotGiven = NOT_GIVEN,
        service_interface: int | NotGiven = NOT_GIVEN,
        config_data: Mapping[str, str] | NotGiven = NOT_GIVEN,
    ) -> BotUpdateResult:
        """``PATCH /bots/{bot_id}`` (its owner or an administrator): change the bot.

        ``bot_owner_id`` hands the bot to another active person; a default channel of ``""``
        clears it; ``service_payload_url`` moves an outgoing-webhook bot's receiver.
        """
        params = _bot_params(given(locals(), "bot_id"))
        return await self._client._request(
            "PATCH", f"/bots/{int(bot_id)}", params=params, cast_to=BotUpdateResult
        )

    async def regenerate_api_key(self, bot_id: int) -> str:
        """``POST /bots/{bot_id}/api_key/regenerate``: the new key; the old one stops working."""
        path = f"/bots/{int(bot_id)}/api_key/regenerate"
        return (await self._client._request("POST", path, cast_to=BotApiKeyResult)).api_key

    async def deactivate(self, bot_id: int) -> None:
        """``DELETE /bots/{bot_id}``: deactivate the bot."""
        await self._client._request("DELETE", f"/bots/{int(bot_id)}")

    async def get_storage(self, keys: Sequence[str] | NotGiven = NOT_GIVEN) -> dict[str, str]:
        """``GET /bot_storage``: the requester's entries of ``keys`` (all when not given)."""
        result = await self._client._request(
            "GET", "/bot_storage", params=_keys(keys), cast_to=BotStorageResult
        )
        return result.storage

    async def update_storage(self, storage: Mapping[str, str]) -> None:
        """``PUT /bot_storage``: set entries (keys and values are strings)."""
        await self._client._request("PUT", "/bot_storage", params={"storage": dict(storage)})

    async def remove_storage(self, keys: Sequence[str] | NotGiven = NOT_GIVEN) -> None:
        """``DELETE /bot_storage``: remove ``keys`` (every entry when not given)."""
        await self._client._request("DELETE", "/bot_storage", params=_keys(keys))
