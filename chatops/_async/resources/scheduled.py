"""Scheduled messages (spec 4.3) and message reminders (spec 4.16)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from ..._base_client import NOT_GIVEN, NotGiven, check_length
from ...resources._base import AsyncResource, drop_not_given
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


def _scheduled_params(
    caps: Capabilities,
    type: MessageType | NotGiven,
    to: int | Sequence[int] | NotGiven,
    content: str | NotGiven,
    topic: str | NotGiven,
    scheduled_delivery_timestamp: int | NotGiven,
) -> dict[str, Any]:
    if not isinstance(content, NotGiven):
        check_length("content", content, caps.max_message_length)
    return drop_not_given(
        type=type if isinstance(type, NotGiven) else _message_type(caps, type),
        to=to if isinstance(to, NotGiven) else _to(to),
        content=content,
        topic=topic if isinstance(topic, NotGiven) else _topic_in(caps, topic),
        scheduled_delivery_timestamp=scheduled_delivery_timestamp,
    )


def _update_params(
    caps: Capabilities,
    type: MessageType | NotGiven,
    to: int | Sequence[int] | NotGiven,
    content: str | NotGiven,
    topic: str | NotGiven,
    scheduled_delivery_timestamp: int | NotGiven,
) -> dict[str, Any]:
    if not isinstance(type, NotGiven):
        if isinstance(to, NotGiven):
            raise ValueError("changing the type of a scheduled message needs `to`")
        if type in ("channel", "stream") and isinstance(topic, NotGiven):
            raise ValueError("changing a scheduled message to a channel message needs `topic`")
    return _scheduled_params(caps, type, to, content, topic, scheduled_delivery_timestamp)


def _reminder_params(
    caps: Capabilities, message_id: int, scheduled_delivery_timestamp: int, note: str | NotGiven
) -> dict[str, Any]:
    if not isinstance(note, NotGiven):
        check_length("note", note, caps.max_reminder_note_length)
    return drop_not_given(
        message_id=int(message_id),
        scheduled_delivery_timestamp=int(scheduled_delivery_timestamp),
        note=note,
    )


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
        caps = await self._client.get_capabilities()
        params = _scheduled_params(caps, type, to, content, topic, scheduled_delivery_timestamp)
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
        caps = await self._client.get_capabilities()
        params = _update_params(caps, type, to, content, topic, scheduled_delivery_timestamp)
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
        caps = await self._client.get_capabilities()
        params = _reminder_params(caps, message_id, scheduled_delivery_timestamp, note)
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
