"""Event queues: ``POST /register`` creates one, ``GET /events`` long-polls it.

Domain modules announce what happened with ``store.events.publish(event, user_ids)``; the bus
hands the event to every live queue of those users whose ``event_types`` include it. Queues live
in memory, like the real server's, and expire when unused.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

QUEUE_TIMEOUT_SECONDS = 600


@dataclass
class EventQueue:
    """One client's queue: its events since registration, numbered from 0."""

    queue_id: str
    user_id: int
    event_types: set[str] | None
    last_used: float = field(default_factory=time.monotonic)
    next_id: int = 0
    pending: list[dict[str, Any]] = field(default_factory=list)

    def wants(self, event_type: str) -> bool:
        return self.event_types is None or event_type in self.event_types


class EventBus:
    """Where domain rules publish events and queues collect them."""

    def __init__(self) -> None:
        self.queues: dict[str, EventQueue] = {}
        self.changed = threading.Condition()

    def publish(self, event: dict[str, Any], user_ids: Iterable[int]) -> None:
        targets = set(user_ids)
        with self.changed:
            for queue in self.queues.values():
                if queue.user_id in targets and queue.wants(str(event["type"])):
                    queue.pending.append({**event, "id": queue.next_id})
                    queue.next_id += 1
            self.changed.notify_all()
