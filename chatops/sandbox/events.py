"""Event queues: ``POST /register`` creates one, ``GET /events`` long-polls it.

Domain modules announce what happened with ``store.events.publish(event, user_ids)``; the bus
hands the event to every live queue of those users whose ``event_types`` include it. Queues live
in memory, like the real server's, and expire when unused for ``queue_timeout`` seconds.

Events published inside a transaction are held until it commits (and dropped when it rolls
back), so a refused request never announces anything. Long-polls wait on an ``asyncio.Event``
that :meth:`EventBus.publish` sets from whatever thread published, so a waiting ``GET /events``
never blocks the server's event loop.

The functions at the end build the real server's event shapes for the foundation's areas
(messages, edits and moves, reactions, realm settings); domain modules call them after a change.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .errors import ApiError

if TYPE_CHECKING:
    from .store import Row, Store

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

    def __init__(self) -> None:
        self.queues: dict[str, EventQueue] = {}
        self.changed = threading.Condition()
        #: seconds a queue survives without a ``GET /events`` (tests shorten it)
        self.queue_timeout: float = QUEUE_TIMEOUT_SECONDS
        #: seconds a blocking ``GET /events`` waits before a heartbeat
        self.heartbeat_seconds: float = HEARTBEAT_SECONDS
        # deliveries held by the thread whose transaction is open
        self._held: dict[int, list[Callable[[], None]]] = {}

    # -- transactions (called by Store.atomic at the outermost level) -----------------------
    def begin(self) -> None:
        with self.changed:
            self._held[threading.get_ident()] = []

    def commit(self) -> None:
        with self.changed:
            held = self._held.pop(threading.get_ident(), [])
        for deliver in held:
            deliver()

    def rollback(self) -> None:
        with self.changed:
            self._held.pop(threading.get_ident(), None)

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once the open transaction commits (now, outside of one)."""
        with self.changed:
            held = self._held.get(threading.get_ident())
            if held is not None:
                held.append(action)
                return
        action()

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
        self.after_commit(lambda: self._deliver(built))

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
    ) -> EventQueue:
        queue = EventQueue(
            queue_id=str(uuid.uuid4()),
            user_id=user_id,
            event_types=None if event_types is None else set(event_types),
            apply_markdown=apply_markdown,
            client_gravatar=client_gravatar,
            all_public_streams=all_public_streams,
            client_capabilities=dict(client_capabilities or {}),
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


# -- the foundation's events (real server shapes) ------------------------------------------------


def publish_message(store: Store, message_id: int, host: str) -> None:
    """A ``message`` event for everyone who received message ``message_id``, with their flags."""
    from . import messages as messages_mod
    from . import users

    bus = store.events
    receivers = {
        r["user_id"]: r["flags"]
        for r in store.query(
            "SELECT user_id, flags FROM message_flags WHERE message_id = ?", [message_id]
        )
    }
    with bus.changed:
        wanted = any(q.user_id in receivers and q.wants("message") for q in bus.queues.values())
    if not wanted:
        return
    row = store.one("SELECT * FROM messages WHERE id = ?", [message_id])
    if row is None:
        return

    def make(queue: EventQueue) -> Event | None:
        viewer = users.get_user(store, queue.user_id)
        if viewer is None:
            return None
        fmt = messages_mod.Formatter(
            store,
            viewer,
            host=host,
            apply_markdown=queue.apply_markdown,
            client_gravatar=queue.client_gravatar,
            allow_empty_topic_name=bool(queue.client_capabilities.get("empty_topic_name")),
        )
        bits = receivers.get(queue.user_id, 0)
        record = fmt.format([row])[0]
        flags = [name for bit, name in messages_mod.FLAG_NAMES if bits & bit]
        return {"type": "message", "message": record, "flags": flags}

    bus.publish_each(receivers, "message", make)


def message_audience(store: Store, message_ids: Iterable[int]) -> dict[int, int]:
    """Who has each of the messages: ``{user_id: flags of the first one they have}``."""
    out: dict[int, int] = {}
    for mid in message_ids:
        for r in store.query(
            "SELECT user_id, flags FROM message_flags WHERE message_id = ?", [mid]
        ):
            out.setdefault(r["user_id"], r["flags"])
    return out


def publish_update_message(
    store: Store,
    editor: Row,
    before: Row,
    message_ids: list[int],
    *,
    propagate_mode: str | None,
    timestamp: int,
) -> None:
    """An ``update_message`` event for an edit of ``before`` and/or a move of ``message_ids``."""
    from . import messages as messages_mod

    after = store.one("SELECT * FROM messages WHERE id = ?", [before["id"]])
    if after is None:
        return
    ids = sorted(set(message_ids) | {before["id"]})
    audience = message_audience(store, ids)
    event: Event = {
        "type": "update_message",
        "user_id": editor["id"],
        "edit_timestamp": timestamp,
        "message_id": before["id"],
        "message_ids": ids,
        "rendering_only": False,
        "is_me_message": bool(after["is_me_message"]),
    }
    if before["content"] != after["content"]:
        event.update(
            orig_content=before["content"],
            orig_rendered_content=before["rendered_content"],
            content=after["content"],
            rendered_content=after["rendered_content"],
        )
    if before["stream_id"] is not None:
        name = store.scalar("SELECT name FROM streams WHERE id = ?", [before["stream_id"]])
        event.update(stream_id=before["stream_id"], stream_name=name)
        moved = before["topic"] != after["topic"] or before["stream_id"] != after["stream_id"]
        if moved:
            event["propagate_mode"] = propagate_mode or "change_one"
            event["orig_subject"] = before["topic"]
            event["topic_links"] = []
            if before["topic"] != after["topic"]:
                event["subject"] = after["topic"]
            if before["stream_id"] != after["stream_id"]:
                event["new_stream_id"] = after["stream_id"]

    def make(queue: EventQueue) -> Event:
        bits = audience.get(queue.user_id, 0)
        return {**event, "flags": [n for b, n in messages_mod.FLAG_NAMES if bits & b]}

    store.events.publish_each(audience, "update_message", make)


def publish_reaction(
    store: Store,
    op: str,
    user: Row,
    message_id: int,
    *,
    emoji_name: str,
    emoji_code: str,
    reaction_type: str,
) -> None:
    """A ``reaction`` event (``op`` add or remove) for everyone who has the message."""
    from . import users
    from .realm import REALM_HOST

    event: Event = {
        "type": "reaction",
        "op": op,
        "user_id": user["id"],
        "user": {
            "user_id": user["id"],
            "email": users.api_email(store, user, REALM_HOST),
            "full_name": user["full_name"],
        },
        "message_id": message_id,
        "emoji_name": emoji_name,
        "emoji_code": emoji_code,
        "reaction_type": reaction_type,
    }
    store.events.publish(event, message_audience(store, [message_id]))


def publish_realm_update(store: Store, changes: Mapping[str, Any]) -> None:
    """A realm ``update_dict`` event for every active user (spec 6.4)."""
    if not changes:
        return
    users = [r["id"] for r in store.query("SELECT id FROM users WHERE is_active = 1")]
    store.events.publish(
        {"type": "realm", "op": "update_dict", "property": "default", "data": dict(changes)},
        users,
    )
