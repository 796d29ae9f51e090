"""Requests in flight at once, the waiting ones served by priority.

A sync fetches many narrows at once through a few slots. Served in the order they ask, the
pages of the largest narrow, each asked for only when the one before has come, wait behind
every small narrow's page, and at the end that one narrow is fetched alone while the others
are done: its chain of pages is the sync's critical path. Served largest remaining first, that
chain starts at once and the small narrows fill the other slots.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

__all__ = ["Slots"]


class Slots:
    """At most ``n`` holders at once; when one leaves, the waiter with the highest ``priority``
    enters (the earliest among equals)."""

    def __init__(self, n: int) -> None:
        if n < 1:
            raise ValueError(f"at least one slot is needed, got {n}")
        self.free = n
        self._waiting: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @asynccontextmanager
    async def __call__(self, priority: float = 0.0) -> AsyncIterator[None]:
        await self._acquire(priority)
        try:
            yield
        finally:
            self._release()

    async def __aenter__(self) -> None:
        await self._acquire(0.0)

    async def __aexit__(self, *exc: object) -> None:
        self._release()

    async def _acquire(self, priority: float) -> None:
        if self.free and not self._waiting:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (-priority, next(self._order), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release()  # the slot came as the waiter was cancelled: pass it on
            raise

    def _release(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():  # a cancelled waiter's turn is done already: skip it
                turn.set_result(None)
                return
        self.free += 1
