"""The event iterators of ``client.events.listen``: ``EventStream`` and ``AsyncEventStream``.

Both are written by hand: the synchronous one blocks in its poll and is stopped from another
thread; the asynchronous one runs its poll as a task that ``stop()`` cancels. What they
remember across queues is :class:`_StreamState`, shared (no I/O there).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .._base_client import NotGiven, logger
from .._exceptions import BadEventQueueId, TransportError
from .._retry import backoff
from ..types import MessagesPage, QueueRegistration

if TYPE_CHECKING:
    from .._async_client.resources.events import AsyncEvents
    from .._sync_client.resources.events import Events

__all__ = ["DEFAULT_POLL_TIMEOUT", "AsyncEventStream", "Event", "EventStream"]

Event = dict[str, Any]
#: client-side wait for one long-poll when the server does not say
DEFAULT_POLL_TIMEOUT = 90.0
#: messages fetched per page when catching up after a lost queue
RESYNC_PAGE = 1000


class _StreamState:
    """What an event iterator remembers across queues (no I/O here)."""

    def __init__(self, register: dict[str, Any], poll_timeout: float | None) -> None:
        self.register = register
        self.poll_timeout = poll_timeout
        self.queue_id: str | None = None
        self.last_event_id = -1
        self.last_message_id: int | None = None
        self.lost_queue = False
        #: how many times the iterator had to register a new queue after losing one
        self.reregistrations = 0
        self.stopped = False

    @property
    def wants_messages(self) -> bool:
        types = self.register.get("event_types")
        return isinstance(types, NotGiven) or types is None or "message" in types

    def registered(self, reg: QueueRegistration) -> bool:
        """Take a new queue; True when missed messages must be fetched first."""
        self.queue_id = reg.queue_id
        self.last_event_id = reg.last_event_id
        if reg.event_queue_longpoll_timeout_seconds and self.poll_timeout is None:
            self.poll_timeout = float(reg.event_queue_longpoll_timeout_seconds)
        resync = self.lost_queue and self.wants_messages and self.last_message_id is not None
        if self.lost_queue:
            self.reregistrations += 1
        if self.last_message_id is None and reg.max_message_id is not None:
            self.last_message_id = reg.max_message_id
        self.lost_queue = False
        return resync

    def lose_queue(self) -> None:
        logger.info("event queue %s is gone; registering a new one", self.queue_id)
        self.queue_id = None
        self.lost_queue = True

    def history_params(self, anchor: int) -> dict[str, Any]:
        narrow = self.register.get("narrow")
        return {
            "anchor": str(anchor),
            "include_anchor": False,
            "num_before": 0,
            "num_after": RESYNC_PAGE,
            "narrow": [] if isinstance(narrow, NotGiven) or narrow is None else narrow,
            "apply_markdown": self.register.get("apply_markdown") is True,
            "client_gravatar": self.register.get("client_gravatar") is True,
        }

    def missed(self, page: MessagesPage) -> list[Event]:
        """Message events rebuilt from a page of history after the last message seen."""
        out: list[Event] = []
        for message in page.messages:
            record = _to_builtins(message)
            flags = record.pop("flags", None) or []
            out.append({"type": "message", "message": record, "flags": flags, "id": -1})
        return out

    def accept(self, events: list[Event]) -> list[Event]:
        """Events to hand out from a poll: no heartbeats, no message already handed out."""
        out: list[Event] = []
        for event in events:
            event_id = event.get("id")
            if isinstance(event_id, int) and event_id > self.last_event_id:
                self.last_event_id = event_id
            if event.get("type") == "heartbeat":
                continue
            if event.get("type") == "message":
                mid = int(event.get("message", {}).get("id", 0))
                if self.last_message_id is not None and mid <= self.last_message_id:
                    continue
                self.last_message_id = mid
            out.append(event)
        return out


def _to_builtins(message: Any) -> dict[str, Any]:
    import msgspec

    record: dict[str, Any] = msgspec.to_builtins(message)
    return record


class _Stream:
    """What both iterators show of their state."""

    state: _StreamState

    @property
    def queue_id(self) -> str | None:
        return self.state.queue_id

    @property
    def reregistrations(self) -> int:
        return self.state.reregistrations


class EventStream(_Stream):
    """Events one by one from a queue, re-registering when the server forgets it.

    Iterate it (blocking); ``stop()`` (from any thread) ends the iteration cleanly and
    deletes the queue; as a context manager it stops on exit.
    """

    def __init__(self, events: Events, state: _StreamState) -> None:
        self._events = events
        self.state = state
        self._lock = threading.Lock()
        self._buffer: list[Event] = []

    def open(self) -> EventStream:
        """Register the queue now (iteration would do it), so no later event is missed."""
        if self.state.queue_id is None and not self.state.stopped:
            self._buffer += self._events._open(self.state)
        return self

    def __iter__(self) -> Iterator[Event]:
        attempt = 0
        while not self.state.stopped:
            while self._buffer:
                yield self._buffer.pop(0)
                if self.state.stopped:
                    break
            try:
                if self.state.queue_id is None:
                    self.open()
                    continue
                events = self._events.get(
                    self.state.queue_id,
                    last_event_id=self.state.last_event_id,
                    timeout=self.state.poll_timeout or DEFAULT_POLL_TIMEOUT,
                )
                attempt = 0
            except BadEventQueueId:
                if self.state.stopped:
                    break
                self.state.lose_queue()
                continue
            except TransportError:
                if self.state.stopped:
                    break
                delay = backoff(attempt)
                logger.info("polling events failed; retrying in %.1fs", delay)
                attempt += 1
                time.sleep(delay)
                continue
            for event in self.state.accept(events):
                yield event
                if self.state.stopped:
                    break
        self._delete()

    def stop(self) -> None:
        """End the iteration (a waiting poll returns at once) and delete the queue."""
        self.state.stopped = True
        self._delete()

    def _delete(self) -> None:
        with self._lock:
            self._events._close(self.state)

    def __enter__(self) -> EventStream:
        return self.open()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


class AsyncEventStream(_Stream):
    """The async twin of :class:`EventStream`: ``async for event in stream``."""

    def __init__(self, events: AsyncEvents, state: _StreamState) -> None:
        self._events = events
        self.state = state
        self._buffer: list[Event] = []
        self._poll: asyncio.Task[list[Event]] | None = None

    async def open(self) -> AsyncEventStream:
        """Register the queue now (iteration would do it), so no later event is missed."""
        if self.state.queue_id is None and not self.state.stopped:
            self._buffer += await self._events._open(self.state)
        return self

    def __aiter__(self) -> AsyncIterator[Event]:
        return self

    async def __anext__(self) -> Event:
        attempt = 0
        while not self._buffer:
            if self.state.stopped:
                await self.aclose()
                raise StopAsyncIteration
            try:
                if self.state.queue_id is None:
                    self._buffer += await self._events._open(self.state)
                    continue
                self._poll = asyncio.ensure_future(
                    self._events.get(
                        self.state.queue_id,
                        last_event_id=self.state.last_event_id,
                        timeout=self.state.poll_timeout or DEFAULT_POLL_TIMEOUT,
                    )
                )
                try:
                    events = await self._poll
                finally:
                    self._poll = None
                attempt = 0
            except asyncio.CancelledError:
                if self.state.stopped:  # stop() cancelled the poll
                    continue
                raise
            except BadEventQueueId:
                if not self.state.stopped:
                    self.state.lose_queue()
                continue
            except TransportError:
                if self.state.stopped:
                    continue
                delay = backoff(attempt)
                attempt += 1
                await asyncio.sleep(delay)
                continue
            self._buffer += self.state.accept(events)
        return self._buffer.pop(0)

    def stop(self) -> None:
        """End the iteration: a waiting poll is cancelled; the queue goes at ``aclose()``."""
        self.state.stopped = True
        if self._poll is not None:
            self._poll.cancel()

    async def aclose(self) -> None:
        """Stop and delete the queue."""
        self.stop()
        await self._events._close(self.state)

    async def __aenter__(self) -> AsyncEventStream:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
