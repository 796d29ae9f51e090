"""Scheduled messages (spec 4.3) and message reminders (spec 4.16).

Written in ``chatops/_async/resources/scheduled.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.scheduled import AsyncReminders, AsyncScheduledMessages
from .._sync.resources.scheduled import Reminders, ScheduledMessages

__all__ = ["AsyncReminders", "AsyncScheduledMessages", "Reminders", "ScheduledMessages"]
