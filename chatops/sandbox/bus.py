"""The event bus: ``POST /register`` creates a queue, ``GET /events`` long-polls it.

Domain modules announce what happened with ``event_bus(store).publish(event, user_ids)``; the bus
hands the event to every live queue of those users whose ``event_types`` include it. Queues live
in memory, like the real server's, and expire when unused for ``queue_timeout`` seconds.

Events published inside a transaction are held until it commits (and dropped when it rolls
back), so a refused request never announces anything. Long-polls wait on an ``asyncio.Event``
that :meth:`EventBus.publish` sets from whatever thread published, so a waiting ``GET /events``
never blocks the server's event loop.

The shapes of the events live with the area that emits them (``messages.publish_message``,
``reactions.publish_reaction``, ...). The bus of a store is :func:`event_bus`; the Store only
holds the deliveries until its transaction commits (:meth:`Store.after_commit`).
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ApiError
from .store import Store

QUEUE_TIMEOUT_SECONDS = 600
#: how long a blocking ``GET /events`` waits before answering with a heartbeat
HEARTBEAT_SECONDS = 50.0

Event = dict[str, Any]
#: builds the event one queue receives (None: nothing for that queue)
EventMaker = Callable[["EventQueue"], Event | None]


@dataclass
class EventQueue:
    """One client's queue: its events since registration, numbered from 0."""

    queue_id: str
    user_id: int
    event_types: set[str] | None
    apply_markdown: bool = False
    client_gravatar: bool = False
    all_public_streams: bool = False
    client_capabilities: dict[str, Any] = field(default_factory=dict)
    #: presence events without the email (``slim_presence`` at registration)
    slim_presence: bool = False
    last_used: float = field(default_factory=time.monotonic)
    next_id: int = 0
    pending: list[Event] = field(default_factory=list)
    polling: int = 0
    _waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = field(
        default_factory=list, repr=False
    )

    def wants(self, event_type: str) -> bool:
        return (
            event_type == "heartbeat" or self.event_types is None or event_type in self.event_types
        )

    @property
    def last_event_id(self) -> int:
        return self.next_id - 1


def bad_queue(queue_id: str) -> ApiError:
    return ApiError(f"Bad event queue ID: {queue_id}", code="BAD_EVENT_QUEUE_ID", queue_id=queue_id)


class EventBus:
    """Where domain rules publish events and queues collect them."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.queues: dict[str, EventQueue] = {}
        self.changed = threading.Condition()
        #: seconds a queue survives without a ``GET /events`` (tests shorten it)
        self.queue_timeout: float = QUEUE_TIMEOUT_SECONDS
        #: seconds a blocking ``GET /events`` waits before a heartbeat
        self.heartbeat_seconds: float = HEARTBEAT_SECONDS

    # -- publishing ---------------------------------------------------------------------------
    def publish(self, event: Event, user_ids: Iterable[int]) -> None:
        """Give ``event`` to every queue of ``user_ids`` that asked for its type."""
        self.publish_each(user_ids, str(event["type"]), lambda _queue: event)

    def publish_each(self, user_ids: Iterable[int], event_type: str, make: EventMaker) -> None:
        """Like :meth:`publish`, with the event built per queue (its own flags or rendering)."""
        targets = set(user_ids)
        with self.changed:
            queues = [
                q for q in self.queues.values() if q.user_id in targets and q.wants(event_type)
            ]
        if not queues:
            return
        built = [(q, make(q)) for q in queues]
        self.store.after_commit(lambda: self._deliver(built))

    def _deliver(self, built: list[tuple[EventQueue, Event | None]]) -> None:
        with self.changed:
            for queue, event in built:
                if event is None or self.queues.get(queue.queue_id) is not queue:
                    continue
                queue.pending.append({**event, "id": queue.next_id})
                queue.next_id += 1
                self._wake(queue)
            self.changed.notify_all()

    @staticmethod
    def _wake(queue: EventQueue) -> None:
        for loop, flag in queue._waiters:
            try:
                loop.call_soon_threadsafe(flag.set)
            except RuntimeError:  # the loop is closed; its poll is gone
                pass

    # -- queues -------------------------------------------------------------------------------
    def register(
        self,
        user_id: int,
        event_types: Iterable[str] | None,
        *,
        apply_markdown: bool = False,
        client_gravatar: bool = False,
        all_public_streams: bool = False,
        client_capabilities: Mapping[str, Any] | None = None,
        slim_presence: bool = False,
    ) -> EventQueue:
        queue = EventQueue(
            queue_id=str(uuid.uuid4()),
            user_id=user_id,
            event_types=None if event_types is None else set(event_types),
            apply_markdown=apply_markdown,
            client_gravatar=client_gravatar,
            all_public_streams=all_public_streams,
            client_capabilities=dict(client_capabilities or {}),
            slim_presence=slim_presence,
        )
        with self.changed:
            self.expire()
            self.queues[queue.queue_id] = queue
        return queue

    def get(self, queue_id: str, user_id: int) -> EventQueue:
        """The user's live queue, or ``BAD_EVENT_QUEUE_ID``."""
        with self.changed:
            self.expire()
            queue = self.queues.get(queue_id)
            if queue is None or queue.user_id != user_id:
                raise bad_queue(queue_id)
            queue.last_used = time.monotonic()
            return queue

    def delete(self, queue_id: str, user_id: int) -> None:
        with self.changed:
            queue = self.get(queue_id, user_id)
            del self.queues[queue_id]
            self._wake(queue)
            self.changed.notify_all()

    def expire(self, now: float | None = None) -> list[str]:
        """Drop queues unused for longer than the timeout; returns their ids."""
        now = time.monotonic() if now is None else now
        with self.changed:
            gone = [
                q.queue_id
                for q in self.queues.values()
                if q.polling == 0 and now - q.last_used > self.queue_timeout
            ]
            for queue_id in gone:
                self._wake(self.queues.pop(queue_id))
        return gone

    def acknowledge(self, queue: EventQueue, last_event_id: int) -> None:
        """Forget the events the client has seen (ids up to ``last_event_id``)."""
        with self.changed:
            queue.pending = [e for e in queue.pending if e["id"] > last_event_id]

    async def wait(
        self,
        queue: EventQueue,
        last_event_id: int | None,
        *,
        dont_block: bool = False,
        timeout: float | None = None,
    ) -> list[Event]:
        """The queue's events after ``last_event_id``; waits for one unless ``dont_block``.

        Answers a heartbeat after ``timeout`` (default :attr:`heartbeat_seconds`) with nothing
        new, and ``BAD_EVENT_QUEUE_ID`` if the queue is deleted while waiting.
        """
        if last_event_id is not None:
            self.acknowledge(queue, last_event_id)
        loop = asyncio.get_running_loop()
        flag = asyncio.Event()
        deadline = loop.time() + (self.heartbeat_seconds if timeout is None else timeout)
        with self.changed:
            queue._waiters.append((loop, flag))
            queue.polling += 1
        try:
            while True:
                with self.changed:
                    if self.queues.get(queue.queue_id) is not queue:
                        raise bad_queue(queue.queue_id)
                    if queue.pending or dont_block:
                        return list(queue.pending)
                    flag.clear()
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return [self._heartbeat(queue)]
                try:
                    await asyncio.wait_for(flag.wait(), remaining)
                except TimeoutError:
                    pass
        finally:
            with self.changed:
                queue._waiters.remove((loop, flag))
                queue.polling -= 1
                queue.last_used = time.monotonic()

    def _heartbeat(self, queue: EventQueue) -> Event:
        with self.changed:
            event: Event = {"type": "heartbeat", "id": queue.next_id}
            queue.pending.append(event)
            queue.next_id += 1
            return dict(event)


_buses: weakref.WeakKeyDictionary[Store, EventBus] = weakref.WeakKeyDictionary()
_buses_lock = threading.Lock()


def event_bus(store: Store) -> EventBus:
    """The event bus of ``store``'s organization (made on first use, gone with the store)."""
    with _buses_lock:
        bus = _buses.get(store)
        if bus is None:
            bus = _buses[store] = EventBus(store)
        return bus
