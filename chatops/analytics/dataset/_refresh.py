"""The sync of a dataset: fetch what is new, then make the stored messages equal the server's.

A sync (``Dataset.sync``) does, in order:

1. drains the event queue the previous sync left (``update_message``, ``delete_message`` and
   ``reaction`` events since then), and registers the queue the next sync will drain;
2. re-reads the organization's tables and which channels the account can read (archived
   channels included); a narrow no longer readable leaves the dataset;
3. per narrow, fetches every message from the re-check window's first id (or the narrow's
   watermark) to the newest, replacing the stored part files that hold the window;
4. compares each channel's topic list (``GET /users/me/{stream_id}/topics``: name and newest
   id) with the stored topics and re-reads the topics that differ;
5. looks up by id every message an event named, or that left a re-read range, and stores it
   in the narrow it is in now (or drops it: deleted, or no longer readable).

``docs/dataset-layout.md`` says what this can and cannot see when the queue has expired.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ._changes import EVENT_TYPES, Changes
from ._fetch import MAX_PAGE
from ._narrow_files import SyncStats
from ._org import read_channels, write_tables
from .records import registered_accounts

__all__ = ["EVENT_TYPES", "MAX_PAGE", "Refresh", "SyncStats"]


class Refresh(Changes):
    """One sync of a dataset folder: :meth:`run` does the steps above, in order."""

    async def _messages(
        self, readable: Mapping[str, Any], had_files: bool
    ) -> dict[str, int | None]:
        """Fetch every readable narrow's new and re-checked messages; returns the narrows'
        watermarks as they were before."""
        for key in [k for k in self.m["narrows"] if k not in readable]:
            self._drop_narrow(key)
        for key, meta in readable.items():
            state = self.m["narrows"].setdefault(key, {"files": [], "watermark": None})
            state.update({k: v for k, v in meta.items() if k != "first_message_id"})
            state["readable"] = True
        before = {k: self.m["narrows"][k].get("watermark") for k in readable}
        if self.full:
            self.threshold = 0
        else:
            self.threshold = self._threshold(list(readable))
        marks = [int(n.get("watermark") or 0) for n in self.m["narrows"].values()]
        self.below = (
            0
            if not had_files or self.full
            else (self.threshold if self.threshold is not None else max(marks, default=0) + 1)
        )
        firsts = [v["first_message_id"] for v in readable.values() if v["first_message_id"]]
        lowest = min(firsts, default=0)
        unplanned = len(readable)

        async def one(key: str, first_id: int) -> None:
            nonlocal unplanned
            plan = await self._plan(key, first_id)
            unplanned -= 1
            if not unplanned:  # the bar shows from here, with every narrow's estimate in it
                self.progress.start()
            await self._narrow(plan)

        # a narrow's pages are fetched as soon as its own plan is made
        await asyncio.gather(
            *(one(key, meta["first_message_id"] or lowest) for key, meta in readable.items())
        )
        return before

    async def run(self) -> SyncStats:
        began = time.monotonic()
        try:
            had_files = any(n["files"] for n in self.m["narrows"].values())
            old_queue = self.m.get("events")
            alive = await self._drain()
            # The queue the next sync drains is registered before anything is read, so every
            # change made while this sync reads is in it.
            registered = await self._register()
            queue = {"queue_id": registered.queue_id, "last_event_id": registered.last_event_id}
            readable, coverage, channels, subscribers = await read_channels(self.client, registered)
            # the organization's tables are read while the messages are: nothing here needs them
            tables = asyncio.ensure_future(
                write_tables(
                    self.client,
                    self.cache,
                    registered_accounts(registered),
                    readable,
                    channels,
                    subscribers,
                    self.sem,
                )
            )
            try:
                before = await self._messages(readable, had_files)
                await tables
            finally:
                tables.cancel()
            self.stats.changes_from = (
                "full re-read"
                if self.full
                else "first sync"
                if not had_files
                else "events and topic lists"
                if alive
                else "topic lists"
            )
            await self._reconcile(readable, topics=had_files and not self.full)
            self.stats.new = sum(_count_above(self, k, before[k]) for k in readable)
            dm_files = [self._path(f["path"]) for f in self.m["narrows"]["dm"]["files"]]
            conversations = (
                pc.count_distinct(
                    pa.chunked_array(
                        [
                            pq.read_table(p, columns=["recipient_id"])["recipient_id"]
                            for p in dm_files
                        ]
                    )
                ).as_py()
                if dm_files
                else 0
            )
            coverage["dm_conversations"] = conversations
            self.m["coverage"] = coverage
            self.m["events"] = queue
            self.stats.refused = self.client.rate_budget.refused if self.client.rate_budget else 0
            self.stats.seconds = round(time.monotonic() - began, 3)
            self.m["last_sync"] = self.stats.as_dict() | {"finished": int(time.time())}
            self._save()
            if old_queue != queue:
                await self._forget(old_queue)
            return self.stats
        finally:
            self.progress.close()


def _count_above(syncer: Refresh, key: str, watermark: int | None) -> int:
    floor = int(watermark or 0)
    # a file wholly above the floor is counted from the manifest; only one across it is read
    return sum(
        int(f["rows"])
        if int(f["min_id"]) > floor
        else int(
            pc.sum(
                pc.greater(pq.read_table(syncer._path(f["path"]), columns=["id"])["id"], floor)
            ).as_py()
            or 0
        )
        for f in syncer.m["narrows"][key]["files"]
        if int(f["max_id"]) > floor
    )
