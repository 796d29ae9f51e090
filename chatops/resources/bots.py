"""Bots owned by the requester: create one, deactivate one (spec 4.22).

Writing the receiving side of an outgoing-webhook bot is :mod:`chatops.webhooks`.
"""

from __future__ import annotations

from .._base_client import NOT_GIVEN, NotGiven
from ..types import BotResult
from ._base import AsyncResource, SyncResource, drop_not_given

__all__ = ["AsyncBots", "Bots"]


def _bot_params(
    full_name: str,
    short_name: str,
    bot_type: int | NotGiven,
    payload_url: str | NotGiven,
    interface_type: int | NotGiven,
) -> dict[str, object]:
    return drop_not_given(
        full_name=full_name,
        short_name=short_name,
        bot_type=bot_type,
        payload_url=payload_url,
        interface_type=interface_type,
    )


class Bots(SyncResource):
    """``client.bots``: bots owned by the requester.

    Example::

        bot = client.bots.create(full_name="Standup Bot", short_name="standup")
        client.bots.deactivate(bot.user_id)
    """

    def create(
        self,
        *,
        full_name: str,
        short_name: str,
        bot_type: int | NotGiven = NOT_GIVEN,
        payload_url: str | NotGiven = NOT_GIVEN,
        interface_type: int | NotGiven = NOT_GIVEN,
    ) -> BotResult:
        """``POST /bots``: a bot owned by the requester (1 generic, 2 incoming, 3 outgoing, 4 embedded).

        An outgoing-webhook bot (``bot_type=3``) needs ``payload_url``; the result's
        ``services`` carry its fixed token for the receiver (``chatops.webhooks``).
        """
        params = _bot_params(full_name, short_name, bot_type, payload_url, interface_type)
        return self._client._request("POST", "/bots", params=params, cast_to=BotResult)

    def deactivate(self, bot_id: int) -> None:
        """``DELETE /bots/{bot_id}``: deactivate the bot."""
        self._client._request("DELETE", f"/bots/{int(bot_id)}")


class AsyncBots(AsyncResource):
    """``client.bots`` of an ``AsyncClient``."""

    async def create(
        self,
        *,
        full_name: str,
        short_name: str,
        bot_type: int | NotGiven = NOT_GIVEN,
        payload_url: str | NotGiven = NOT_GIVEN,
        interface_type: int | NotGiven = NOT_GIVEN,
    ) -> BotResult:
        """``POST /bots``: a bot owned by the requester."""
        params = _bot_params(full_name, short_name, bot_type, payload_url, interface_type)
        return await self._client._request("POST", "/bots", params=params, cast_to=BotResult)

    async def deactivate(self, bot_id: int) -> None:
        """``DELETE /bots/{bot_id}``: deactivate the bot."""
        await self._client._request("DELETE", f"/bots/{int(bot_id)}")
