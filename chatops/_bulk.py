"""Bulk operations: many API calls with bounded concurrency, one result per item.

A failed item never stops the others; the report says which items succeeded and why the
others failed::

    report = await client.users.set_status_many(
        [{"user_id": 12, "status_text": "On call"}, ...], concurrency=8
    )
    for item in report.failed:
        print(item.item, item.error)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ._exceptions import ChatopsError

__all__ = ["BulkItem", "BulkReport", "run_bounded", "run_sequential"]

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_CONCURRENCY = 8
PACE_SECONDS = 0.5


@dataclass
class BulkItem(Generic[T]):
    """The outcome of one item: its ``result`` when ``ok``, else the ``error`` it raised."""

    item: T
    ok: bool
    result: Any = None
    error: ChatopsError | None = None


@dataclass
class BulkReport(Generic[T]):
    """One :class:`BulkItem` per input item, in input order."""

    items: list[BulkItem[T]] = field(default_factory=list)

    @property
    def succeeded(self) -> list[BulkItem[T]]:
        """The items that succeeded."""
        return [i for i in self.items if i.ok]

    @property
    def failed(self) -> list[BulkItem[T]]:
        """The items that failed, each with its ``error``."""
        return [i for i in self.items if not i.ok]

    @property
    def ok(self) -> bool:
        """Whether every item succeeded."""
        return all(i.ok for i in self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[BulkItem[T]]:
        return iter(self.items)

    def __repr__(self) -> str:
        return f"BulkReport({len(self.succeeded)} succeeded, {len(self.failed)} failed)"


async def run_bounded(
    items: Iterable[T],
    call: Callable[[T], Awaitable[R]],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    remaining: Callable[[], int | None] | None = None,
) -> BulkReport[T]:
    """Run ``call(item)`` for every item, at most ``concurrency`` at a time.

    ``remaining`` reports the server's ``X-RateLimit-Remaining``; when it falls below the
    concurrency the calls slow down instead of running into HTTP 429.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    todo = list(items)
    results: list[BulkItem[T] | None] = [None] * len(todo)
    gate = asyncio.Semaphore(concurrency)

    async def one(index: int, item: T) -> None:
        async with gate:
            left = remaining() if remaining is not None else None
            if left is not None and left < concurrency:
                await asyncio.sleep(PACE_SECONDS)
            try:
                results[index] = BulkItem(item, True, await call(item))
            except ChatopsError as exc:
                results[index] = BulkItem(item, False, error=exc)

    await asyncio.gather(*(one(i, item) for i, item in enumerate(todo)))
    return BulkReport([r for r in results if r is not None])


def run_sequential(
    items: Iterable[T],
    call: Callable[[T], R],
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    remaining: Callable[[], int | None] | None = None,
) -> BulkReport[T]:
    """The synchronous twin of :func:`run_bounded`: one item after another.

    It takes the same arguments (so that the two clients' bulk methods are one source):
    ``concurrency`` is checked but one call runs at a time, and one call at a time never
    needs to slow down for the rate limit, so ``remaining`` is not read.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    report: BulkReport[T] = BulkReport()
    for item in items:
        try:
            report.items.append(BulkItem(item, True, call(item)))
        except ChatopsError as exc:
            report.items.append(BulkItem(item, False, error=exc))
    return report
