"""The sync's request slots: at most n at once, waiters served by priority, none lost."""

from __future__ import annotations

import asyncio

import pytest

from chatops.analytics.dataset._slots import Slots


def test_waiters_enter_by_priority_then_in_order() -> None:
    async def run() -> list[str]:
        slots, order = Slots(1), []
        release = asyncio.Event()

        async def holder() -> None:
            async with slots(0):
                await release.wait()

        async def waiter(name: str, priority: float) -> None:
            async with slots(priority):
                order.append(name)

        first = asyncio.ensure_future(holder())
        await asyncio.sleep(0)
        tasks = [
            asyncio.ensure_future(waiter(n, p))
            for n, p in [("small", 10), ("big", 16000), ("plan", 0), ("small2", 10)]
        ]
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(first, *tasks)
        return order

    assert asyncio.run(run()) == ["big", "small", "small2", "plan"]


def test_never_more_than_n_at_once_and_every_slot_comes_back() -> None:
    async def run() -> tuple[int, int]:
        slots, inside, most = Slots(3), 0, 0

        async def one(i: int) -> None:
            nonlocal inside, most
            async with slots(i % 5):
                inside += 1
                most = max(most, inside)
                await asyncio.sleep(0.001)
                inside -= 1

        await asyncio.gather(*(one(i) for i in range(40)))
        return most, slots.free

    assert asyncio.run(run()) == (3, 3)


def test_a_cancelled_waiter_does_not_keep_a_slot() -> None:
    async def run() -> int:
        slots = Slots(1)
        release = asyncio.Event()

        async def holder() -> None:
            async with slots:
                await release.wait()

        h = asyncio.ensure_future(holder())
        await asyncio.sleep(0)
        w = asyncio.ensure_future(slots(5).__aenter__())
        await asyncio.sleep(0)
        w.cancel()
        release.set()
        await h
        with pytest.raises(asyncio.CancelledError):
            await w
        async with slots(1):  # the slot the cancelled waiter would have had is free
            pass
        return slots.free

    assert asyncio.run(run()) == 1


def test_no_slot_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one slot"):
        Slots(0)
