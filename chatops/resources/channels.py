"""Channels (``GET /streams``)."""

from __future__ import annotations

import builtins

from .._base_client import NOT_GIVEN, NotGiven
from ..types import Channel, ChannelsResult
from ._base import AsyncResource, SyncResource, drop_not_given

__all__ = ["AsyncChannels", "Channels"]


class Channels(SyncResource):
    """``client.channels``."""

    def list(
        self,
        *,
        include_public: bool | NotGiven = NOT_GIVEN,
        include_web_public: bool | NotGiven = NOT_GIVEN,
        include_subscribed: bool | NotGiven = NOT_GIVEN,
        include_all: bool | NotGiven = NOT_GIVEN,
        include_default: bool | NotGiven = NOT_GIVEN,
        include_owner_subscribed: bool | NotGiven = NOT_GIVEN,
        exclude_archived: bool | NotGiven = NOT_GIVEN,
    ) -> builtins.list[Channel]:
        """``GET /streams``: the channels the user can see."""
        params = drop_not_given(
            include_public=include_public,
            include_web_public=include_web_public,
            include_subscribed=include_subscribed,
            include_all=include_all,
            include_default=include_default,
            include_owner_subscribed=include_owner_subscribed,
            exclude_archived=exclude_archived,
        )
        return self._client._request(
            "GET", "/streams", params=params, cast_to=ChannelsResult
        ).streams


class AsyncChannels(AsyncResource):
    """``client.channels`` of an ``AsyncClient``."""

    async def list(
        self,
        *,
        include_public: bool | NotGiven = NOT_GIVEN,
        include_web_public: bool | NotGiven = NOT_GIVEN,
        include_subscribed: bool | NotGiven = NOT_GIVEN,
        include_all: bool | NotGiven = NOT_GIVEN,
        include_default: bool | NotGiven = NOT_GIVEN,
        include_owner_subscribed: bool | NotGiven = NOT_GIVEN,
        exclude_archived: bool | NotGiven = NOT_GIVEN,
    ) -> builtins.list[Channel]:
        """``GET /streams``: the channels the user can see."""
        params = drop_not_given(
            include_public=include_public,
            include_web_public=include_web_public,
            include_subscribed=include_subscribed,
            include_all=include_all,
            include_default=include_default,
            include_owner_subscribed=include_owner_subscribed,
            exclude_archived=exclude_archived,
        )
        result = await self._client._request(
            "GET", "/streams", params=params, cast_to=ChannelsResult
        )
        return result.streams
