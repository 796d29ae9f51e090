"""Scheduled messages (spec 4.3) and message reminders (spec 4.16)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from ..._base_client import NOT_GIVEN, NotGiven, check_length
from ...resources._base import AsyncResource, given
from ...types import (
    Capabilities,
    Reminder,
    ReminderIdResult,
    RemindersResult,
    ScheduledMessage,
    ScheduledMessageIdResult,
    ScheduledMessagesResult,
)
from .messages import MessageType, _message_type, _topic_in

__all__ = ["AsyncReminders", "AsyncScheduledMessages"]


def _to(to: int | Sequence[int]) -> int | builtins.list[int]:
    return to if isinstance(to, int) else builtins.list(to)


def _scheduled_params(caps: Capabilities, params: dict[str, Any]) -> dict[str, Any]:
    if "content" in params:
        check_length("content", params["content"], caps.max_message_length)
    if "type" in params:
        params["type"] = _message_type(caps, params["type"])
    if "to" in params:
        params["to"] = _to(params["to"])
    if "topic" in params:
        params["topic"] = _topic_in(caps, params["topic"])
    return params


def _update_params(caps: Capabilities, params: dict[str, Any]) -> dict[str, Any]:
    if "type" in params:
        if "to" not in params:
            raise ValueError("changing the type of a scheduled message needs `to`")
        if params["type"] in ("channel", "stream") and "topic" not in params:
            raise ValueError("changing a scheduled message to a channel message needs `topic`")
    return _scheduled_params(caps, params)


class AsyncScheduledMessages(AsyncResource):
    """``client.scheduled_messages``: messages the server sends later."""

    async def create(
        self,
        type: MessageType,
        to: int | Sequence[int],
        content: str,
        *,
        scheduled_delivery_timestamp: int,
        topic: str | NotGiven = NOT_GIVEN,
    ) -> int:
        """``POST /scheduled_messages``: returns the scheduled message ID.

        Args:
            type: ``channel`` or ``direct``.
            to: a channel ID, or a list of user IDs.
            scheduled_delivery_timestamp: UNIX seconds, in the future.
            topic: for channel messages.
        """
        params = _scheduled_params(await self._client.get_capabilities(), given(locals()))
        result = await self._client._request(
            "POST", "/scheduled_messages", params=params, cast_to=ScheduledMessageIdResult
        )
        return result.scheduled_message_id

    async def list(self) -> builtins.list[ScheduledMessage]:
        """``GET /scheduled_messages``: the caller's undelivered scheduled messages."""
        result = await self._client._request(
            "GET", "/scheduled_messages", cast_to=ScheduledMessagesResult
        )
        return result.scheduled_messages

    async def update(
        self,
        scheduled_message_id: int,
        *,
        type: MessageType | NotGiven = NOT_GIVEN,
        to: int | Sequence[int] | NotGiven = NOT_GIVEN,
        content: str | NotGiven = NOT_GIVEN,
        topic: str | NotGiven = NOT_GIVEN,
        scheduled_delivery_timestamp: int | NotGiven = NOT_GIVEN,
    ) -> None:
        """``PATCH /scheduled_messages/{id}``; a ``failed`` one needs a new delivery time."""
        params = given(locals(), "scheduled_message_id")
        params = _update_params(await self._client.get_capabilities(), params)
        await self._client._request(
            "PATCH", f"/scheduled_messages/{int(scheduled_message_id)}", params=params
        )

    async def delete(self, scheduled_message_id: int) -> None:
        """``DELETE /scheduled_messages/{id}``."""
        await self._client._request("DELETE", f"/scheduled_messages/{int(scheduled_message_id)}")


class AsyncReminders(AsyncResource):
    """``client.reminders``: reminders about a message, delivered by the notification bot."""

    async def create(
        self,
        message_id: int,
        *,
        scheduled_delivery_timestamp: int,
        note: str | NotGiven = NOT_GIVEN,
    ) -> int:
        """``POST /reminders``: returns the reminder ID."""
        params = given(locals())
        caps = await self._client.get_capabilities()
        if not isinstance(note, NotGiven):
            check_length("note", note, caps.max_reminder_note_length)
        result = await self._client._request(
            "POST", "/reminders", params=params, cast_to=ReminderIdResult
        )
        return result.reminder_id

    async def list(self) -> builtins.list[Reminder]:
        """``GET /reminders``: the caller's pending reminders."""
        result = await self._client._request("GET", "/reminders", cast_to=RemindersResult)
        return result.reminders

    async def delete(self, reminder_id: int) -> None:
        """``DELETE /reminders/{id}``."""
        await self._client._request("DELETE", f"/reminders/{int(reminder_id)}")
