"""A sync's requests: pages of messages, and each narrow's plan and fetch."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from ._narrow_files import Narrow, NarrowFiles, narrow_of
from ._pages import MESSAGE_SCHEMA, decode_page, page_table

__all__ = ["MAX_PAGE", "Fetcher"]

#: The most messages one ``GET /messages`` returns.
MAX_PAGE = 5000
#: The newest messages of each narrow asked for before the fetch, for the progress bar.
SAMPLE = 100
#: The priority of the requests that plan a narrow: before any other (the bar's total needs
#: every plan), the others by the messages their narrow has left to fetch.
PLANNING = float("inf")


@dataclass
class _Plan:
    """What a sync fetches of one narrow (``Fetcher._plan``)."""

    key: str
    #: the first id to fetch, or None: everything (nothing is stored)
    start: int | None
    #: the files the fetch replaces, and the rows of them it keeps
    drop: list[dict[str, Any]]
    kept: pa.Table | None
    newest: int
    #: the narrow's newest page, fetched with the plan when nothing is stored
    tail: pa.Table | None = None
    #: the tail is the whole narrow
    complete: bool = False
    #: when it is not: the narrow's pages from its oldest, and the first of them (as a table,
    #: and whether it reached the tail)
    pages: Any = None
    first: tuple[pa.Table, bool] | None = None


async def _one(item: Any) -> Any:
    yield item


class Fetcher(NarrowFiles):
    """The requests of a sync: planning each narrow, then fetching it."""

    # -- requests

    async def _get(self, params: dict[str, Any], priority: float = 0.0) -> Any:
        """A page of messages, decoded; a waiting request of higher ``priority`` goes first:
        every narrow's plan, then the narrows with the most left to fetch (see ``_slots``)."""
        async with self.sem(priority):
            body = await self.client._request(
                "GET", "/messages", params=params, cast_to=bytes, idempotent=True
            )
        self.stats.requests += 1
        return await asyncio.to_thread(decode_page, body)

    def _priority(self, key: str | None) -> float:
        if key is None:
            return 0.0
        return PLANNING if key in self.planning else self.progress.left(key)

    async def _sample(self, narrow: Narrow) -> tuple[list[int], bool]:
        """The ids of the newest messages of ``narrow``, and whether that is all of them."""
        page = await self._get(
            {
                "anchor": "newest",
                "num_before": SAMPLE,
                "num_after": 0,
                "narrow": narrow,
                "apply_markdown": False,
                "client_gravatar": True,
            },
            PLANNING,
        )
        return sorted(m.id for m in page.messages), bool(page.found_oldest)

    async def _pages(
        self, narrow: Narrow, anchor: int | str, key: str | None, until: int | None = None
    ) -> Any:
        """Every message of ``narrow`` from ``anchor`` (included) on, one page at a time; with
        ``until``, only those older than that id."""
        include = True
        while True:
            page = await self._get(
                {
                    "anchor": anchor,
                    "num_before": 0,
                    "num_after": self.page_size,
                    "include_anchor": include,
                    "narrow": narrow,
                    "apply_markdown": False,
                    "client_gravatar": True,
                },
                self._priority(key),
            )
            msgs = page.messages
            reached = until is not None and any(m.id >= until for m in msgs)
            if isinstance(anchor, int):
                msgs = [m for m in msgs if m.id > anchor or (include and m.id == anchor)]
            if reached:
                msgs = [m for m in msgs if m.id < until]
            if msgs:
                ids = self._took(key, msgs)
                if key is not None:
                    self.progress.advance(key, len(msgs), ids[-1])
                anchor, include = max(ids), False
            done = page.found_newest or not msgs or reached
            yield page, msgs, done
            if done:
                return

    def _took(self, key: str | None, msgs: list[Any]) -> list[int]:
        """Note fetched messages as seen; returns their ids."""
        self.stats.fetched += len(msgs)
        ids = [m.id for m in msgs]
        self.seen.update(ids)
        if key is not None:
            # older than the window: another narrow may hold it still (moved here)
            self.relocate.update((i, key) for i in ids if i < self.below)
        return ids

    async def _plan(self, key: str, first_id: int) -> _Plan:
        self.planning.add(key)
        try:
            return await self._plan_narrow(key, first_id)
        finally:
            self.planning.discard(key)

    async def _plan_narrow(self, key: str, first_id: int) -> _Plan:
        """What to fetch of a narrow: from where, the files it replaces, and its newest id.

        A narrow with nothing stored gets its newest page now (a whole page, not a sample):
        most narrows fit in one, and then that page is the narrow, with no other request.
        """
        start, drop, kept = self._window(key)
        narrow = narrow_of(self.m["narrows"][key])
        if start is not None:
            sample, complete = await self._sample(narrow)
            newest = sample[-1] if sample else 0
            self.progress.plan(key, start, newest, sample, complete)
            return _Plan(key, start, drop, kept, newest)
        page = await self._get(
            {
                "anchor": "newest",
                "num_before": self.page_size,
                "num_after": 0,
                "narrow": narrow,
                "apply_markdown": False,
                "client_gravatar": True,
            },
            PLANNING,
        )
        msgs = sorted(page.messages, key=lambda m: m.id)
        ids = self._took(key, msgs) if msgs else []
        complete = bool(page.found_oldest) or not ids
        self.progress.tail(key, first_id, ids, complete)
        tail = await asyncio.to_thread(page_table, page, content=self.content) if msgs else None
        plan = _Plan(key, None, drop, kept, ids[-1] if ids else 0, tail, complete)
        if not complete:
            # and its oldest page: with the newest, it tells how dense the narrow is between
            plan.pages = self._pages(narrow, "oldest", key, until=ids[0])
            first_page, first, done = await anext(plan.pages)
            table = await asyncio.to_thread(page_table, first_page, first, content=self.content)
            plan.first = (table, done)
        return plan

    async def _narrow(self, plan: _Plan) -> None:
        key, start, drop, kept = plan.key, plan.start, plan.drop, plan.kept
        if start is not None and plan.newest < start and not drop:
            return  # nothing newer, nothing stored to re-check: no request
        if start is None:
            self.whole.add(key)
        buffer: list[pa.Table] = [kept] if kept is not None and kept.num_rows else []
        buffered = 0
        pending_drop = drop
        pages: Any
        if start is None and plan.complete:
            # the newest page was the whole narrow
            pages = _one((plan.tail, True))
        elif start is None:
            # from the oldest page, fetched with the plan, up to the newest
            pages = self._tables_of(plan.pages, plan.tail, plan.first)
        else:
            pages = self._tables_of(
                self._pages(narrow_of(self.m["narrows"][key]), start, key), None
            )
        async for table, done in pages:
            if table is not None and table.num_rows:
                buffer.append(table)
                buffered += table.num_rows
            if done:
                self.m["narrows"][key]["synced_at"] = int(time.time())
            if buffer and (done or buffered >= self.flush_rows) or (done and pending_drop):
                merged = pa.concat_tables(buffer) if buffer else MESSAGE_SCHEMA.empty_table()
                await self._commit_soon(key, merged, pending_drop)
                buffer, buffered, pending_drop = [], 0, []
            elif done:
                await self._save_soon()

    async def _tables_of(
        self, pages: Any, tail: pa.Table | None, first: tuple[pa.Table, bool] | None = None
    ) -> Any:
        """The pages as Arrow tables (after ``first``, one already made), then ``tail`` (the
        narrow's newest page) with the last."""
        if first is not None:
            table, done = first
            if done:
                yield (table if tail is None else pa.concat_tables([table, tail])), True
                return
            yield table, False
        async for page, msgs, done in pages:
            table = (
                await asyncio.to_thread(page_table, page, msgs, content=self.content)
                if msgs
                else None
            )
            if done and tail is not None:
                table = tail if table is None else pa.concat_tables([table, tail])
            yield table, done
