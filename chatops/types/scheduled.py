"""Typed records: scheduled (see :mod:`chatops.types`)."""

from __future__ import annotations

from ._base import Record

# -- scheduled: scheduled messages and reminders ---------------------------------------------------


class ScheduledMessage(Record):
    """A scheduled message; ``to`` is a channel id or a list of user ids; ``failed`` if sending failed."""

    scheduled_message_id: int
    type: str
    to: int | list[int]
    content: str
    rendered_content: str = ""
    topic: str | None = None
    scheduled_delivery_timestamp: int = 0
    failed: bool = False


class ScheduledMessagesResult(Record):
    """``GET /scheduled_messages``."""

    scheduled_messages: list[ScheduledMessage] = []


class ScheduledMessageIdResult(Record):
    """``POST /scheduled_messages``."""

    scheduled_message_id: int


class Reminder(Record):
    """A message reminder: a direct message to oneself, later, linking a message."""

    reminder_id: int
    type: str = "private"
    to: list[int] = []
    content: str = ""
    rendered_content: str = ""
    scheduled_delivery_timestamp: int = 0
    failed: bool = False
    reminder_target_message_id: int | None = None


class RemindersResult(Record):
    """``GET /reminders``."""

    reminders: list[Reminder] = []


class ReminderIdResult(Record):
    """``POST /reminders``."""

    reminder_id: int
