"""Event queues: register, poll, delete, and an iterator that survives queue expiry.

Written in ``chatops/_async/resources/events.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.events import AsyncEvents, AsyncEventStream
from .._sync.resources.events import Events, EventStream

__all__ = ["AsyncEventStream", "AsyncEvents", "EventStream", "Events"]
