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
import contextlib
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .._client import AsyncClient
from .._exceptions import ApiError, BadEventQueueId
from ..types import QueueRegistration
from . import _files
from ._org import read_channels, write_tables
from ._pages import MESSAGE_SCHEMA, decode_page, message_records, page_table, records_table
from ._progress import Progress
from ._slots import Slots

__all__ = ["EVENT_TYPES", "MAX_PAGE", "SyncStats"]

#: The most messages one ``GET /messages`` returns.
MAX_PAGE = 5000
#: The newest messages of each narrow asked for before the fetch, for the progress bar.
SAMPLE = 100
#: The priority of the requests that plan a narrow: before any other (the bar's total needs
#: every plan), the others by the messages their narrow has left to fetch.
PLANNING = float("inf")
#: Message ids asked for in one ``GET /messages?message_ids=...``.
LOOKUP_CHUNK = 1000
#: The events the queue a sync leaves behind collects for the next one.
EVENT_TYPES = ["update_message", "delete_message", "reaction"]
Narrow = list[dict[str, Any]]


@dataclass
class SyncStats:
    """What one sync did."""

    fetched: int = 0
    requests: int = 0
    new: int = 0
    rechecked: int = 0
    removed: int = 0
    moved: int = 0
    refused: int = 0
    seconds: float = 0.0
    #: stored messages re-read because an event or a topic list said they changed
    changed: int = 0
    #: topics re-read because their newest id or name differs from the server's
    topics_reread: int = 0
    #: how changes outside the window were found: ``first sync``, ``events and topic lists``,
    #: ``topic lists`` (the queue had expired) or ``full re-read`` (verify, or content added)
    changes_from: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class _Plan:
    """What a sync fetches of one narrow (``_Syncer._plan``)."""

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


def _key(stream_id: int | None) -> str:
    return "dm" if stream_id is None else f"channel-{stream_id}"


def _narrow_of(meta: Mapping[str, Any]) -> Narrow:
    if meta["kind"] == "dm":
        return [{"operator": "is", "operand": "dm"}]
    return [{"operator": "channel", "operand": meta["stream_id"]}]


class _Syncer:
    def __init__(
        self,
        client: AsyncClient,
        cache: Path,
        manifest: dict[str, Any],
        *,
        recheck: int,
        concurrency: int,
        page_size: int,
        flush_rows: int,
        content: bool,
        progress: bool,
        full: bool,
    ) -> None:
        self.client = client
        self.cache = cache
        self.m = manifest
        self.recheck = recheck
        self.sem = Slots(concurrency)
        #: narrows being planned: their requests go first (``PLANNING``)
        self.planning: set[str] = set()
        self.concurrency = concurrency
        self.page_size = page_size
        self.flush_rows = flush_rows
        self.content = content
        self.full = full
        self.progress = Progress(progress)
        self.stats = SyncStats()
        #: ids stored in a range that was fetched again (found again, or to be looked up)
        self.vanished: set[int] = set()
        #: ids this sync has fetched in their current state
        self.seen: set[int] = set()
        #: ids the events named as edited, moved or reacted to, and as deleted
        self.changed: set[int] = set()
        self.deleted: set[int] = set()
        self.threshold: int | None = None
        #: fetched ids under this may still be stored in another narrow (moved since)
        self.below = 0
        self.relocate: dict[int, str] = {}
        #: narrows fetched from their first message by this sync
        self.whole: set[str] = set()
        self._saving = threading.Lock()
        #: the manifest changed since the write in progress began (``_save_soon``)
        self._dirty = False
        self._saver: asyncio.Future[None] | None = None

    # -- files of a narrow

    def _path(self, rel: str) -> Path:
        return self.cache / rel

    def _save(self) -> None:
        # Also called from worker threads (``_commit_soon``): one write at a time, each of the
        # manifest as it is when the write begins, so the last one written is the newest.
        with self._saving:
            self.m["updated"] = int(time.time())
            _files.write_json(self.m, self.cache / "manifest.json")

    def _new_part(self, key: str) -> str:
        n = int(self.m["next_part"])
        self.m["next_part"] = n + 1
        folder = _files.private_dir(_files.private_dir(self.cache / "messages") / f"narrow={key}")
        return str((folder / f"part-{n:06d}.parquet").relative_to(self.cache))

    def _commit(
        self, key: str, table: pa.Table, drop: list[dict[str, Any]], *, extend: bool = True
    ) -> None:
        """Write ``table`` as a new part of ``key``, drop the ``drop`` files, in one manifest step.

        ``extend``: the rows are the narrow's fetched tail, so its watermark moves up to them
        (rows put back after a change leave the watermark where the fetch left it).
        """
        names = self._part_names(key, table)
        self._record(
            key, _files.write_parts(self.cache, table, names, self._tail), drop, extend=extend
        )

    async def _commit_soon(
        self, key: str, table: pa.Table, drop: list[dict[str, Any]], *, extend: bool = True
    ) -> None:
        """``_commit``, with the sorting, encoding and writing of the parts in a worker thread,
        so the event loop goes on reading the other narrows' pages meanwhile."""
        names = self._part_names(key, table)
        parts = await asyncio.to_thread(_files.write_parts, self.cache, table, names, self._tail)
        self._update(key, parts, drop, extend=extend)
        await self._save_soon()
        _files.unlink_parts(self.cache, drop)

    async def _save_soon(self) -> None:
        """Save the manifest in a worker thread; returns once a write begun after this call
        has ended. Calls made while a write is under way share the next one, so narrows that
        finish together cost one write (and one ``fsync``), not one each."""
        self._dirty = True
        if self._saver is None or self._saver.done():
            self._saver = asyncio.ensure_future(self._saves())
        # shielded: a narrow's task cancelled does not cancel the write others wait for
        await asyncio.shield(self._saver)

    async def _saves(self) -> None:
        while self._dirty:
            self._dirty = False
            await asyncio.to_thread(self._save)

    def _part_names(self, key: str, table: pa.Table) -> list[str]:
        # The newest rows go to a small part of their own: the next sync's re-check window
        # then rewrites that part, not the whole history of the narrow.
        pieces = 2 if table.num_rows > 2 * self._tail else 1 if table.num_rows else 0
        return [self._new_part(key) for _ in range(pieces)]

    @property
    def _tail(self) -> int:
        return max(self.recheck, 1)

    def _record(
        self,
        key: str,
        parts: list[dict[str, Any]],
        drop: list[dict[str, Any]],
        *,
        extend: bool,
    ) -> None:
        """Put the written ``parts`` in the manifest in place of ``drop``, then delete those."""
        self._update(key, parts, drop, extend=extend)
        self._save()
        _files.unlink_parts(self.cache, drop)

    def _update(
        self,
        key: str,
        parts: list[dict[str, Any]],
        drop: list[dict[str, Any]],
        *,
        extend: bool,
    ) -> None:
        state = self.m["narrows"][key]
        files: list[dict[str, Any]] = [f for f in state["files"] if f not in drop] + parts
        if extend and parts:
            state["watermark"] = max(state.get("watermark") or 0, max(f["max_id"] for f in parts))
        state["files"] = sorted(files, key=lambda f: (f["max_id"], f["path"]))

    def _drop_narrow(self, key: str) -> None:
        """Take a narrow the account can no longer read out of the dataset (a fresh sync would
        not have it), its files with it."""
        state = self.m["narrows"].pop(key)
        self._save()
        _files.unlink_parts(self.cache, state["files"])

    def _window(self, key: str) -> tuple[int | None, list[dict[str, Any]], pa.Table | None]:
        """The first id to re-check, the files the re-check rewrites and the rows they keep."""
        state = self.m["narrows"][key]
        files = state["files"]
        if not files:
            return None, [], None
        after = int(state["watermark"] or 0) + 1
        # the dataset's window, or from the watermark if an interrupted sync left this behind
        start = after if self.threshold is None else min(self.threshold, after)
        drop = [f for f in files if int(f["max_id"]) >= start]
        if not drop:
            return start, [], None
        keep_any = any(int(f["min_id"]) < start for f in drop)
        kept = pa.concat_tables(
            [
                pq.read_table(self._path(f["path"]), schema=MESSAGE_SCHEMA)
                if keep_any
                else pq.read_table(self._path(f["path"]), columns=["id"])
                for f in drop
            ]
        )
        rechecked = kept["id"].filter(pc.greater_equal(kept["id"], start))
        self.vanished.update(rechecked.to_pylist())
        self.stats.rechecked += len(rechecked)
        if not keep_any:
            return start, drop, None
        return start, drop, kept.filter(pc.less(kept["id"], start))

    def _threshold(self, keys: list[str]) -> int | None:
        """The id of the ``recheck``-th newest stored message: the window starts there."""
        if self.recheck <= 0:
            return None
        files = sorted(
            (f for k in keys for f in self.m["narrows"][k]["files"]),
            key=lambda f: int(f["max_id"]),
            reverse=True,
        )
        # The newest ``recheck`` ids seen so far, kept at that size as files are read (newest
        # files first); once it is full, a file whose newest id is older than its oldest
        # cannot change it, and neither can any file after it.
        top: pa.Array | None = None
        for f in files:
            if (
                top is not None
                and len(top) >= self.recheck
                and int(f["max_id"]) < pc.min(top).as_py()
            ):
                break
            ids = pq.read_table(self._path(f["path"]), columns=["id"])["id"].combine_chunks()
            merged = ids if top is None else pa.concat_arrays([top, ids])
            keep = pc.select_k_unstable(
                merged, k=min(self.recheck, len(merged)), sort_keys=[("dummy", "descending")]
            )
            top = merged.take(keep)
        if top is not None and len(top) >= self.recheck:
            return int(pc.min(top).as_py())
        if not files:
            return None
        return int(min(int(f["min_id"]) for f in files))

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
        narrow = _narrow_of(self.m["narrows"][key])
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
                self._pages(_narrow_of(self.m["narrows"][key]), start, key), None
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

    # -- the event queue

    async def _drain(self) -> bool:
        """Read what the queue the last sync registered collected; False if it is gone."""
        queue = self.m.get("events")
        if not queue:
            return False
        last = int(queue["last_event_id"])
        try:
            # One read, never acknowledged (the queue is deleted once this sync has finished):
            # a sync interrupted after it reads the same events again.
            events = await self.client.events.get(
                queue["queue_id"], last_event_id=last, dont_block=True
            )
        except BadEventQueueId:
            return False
        self.stats.requests += 1
        for event in events:
            if int(event.get("id", -1)) > last:
                self._event(event)
        return True

    def _event(self, event: Mapping[str, Any]) -> None:
        kind = event.get("type")
        if kind == "update_message":
            ids = event.get("message_ids") or [event.get("message_id")]
            self.changed.update(int(i) for i in ids if i is not None)
        elif kind == "reaction" and event.get("message_id") is not None:
            self.changed.add(int(event["message_id"]))
        elif kind == "delete_message":
            ids = event.get("message_ids") or [event.get("message_id")]
            self.deleted.update(int(i) for i in ids if i is not None)

    async def _register(self) -> QueueRegistration:
        """The queue the next sync drains, and the channels with their subscribers (one
        request for every channel's members)."""
        reg = await self.client.events.register(
            event_types=EVENT_TYPES,
            fetch_event_types=["subscription"],
            include_subscribers=True,
            apply_markdown=False,
            client_gravatar=True,
            client_capabilities={"bulk_message_deletion": True},
        )
        self.stats.requests += 1
        return reg

    async def _forget(self, queue: Mapping[str, Any] | None) -> None:
        if queue:
            with contextlib.suppress(ApiError):
                await self.client.events.delete_queue(queue["queue_id"])

    # -- topics

    def _stored_topics(self, key: str) -> pa.Table:
        """``topic`` (lowercased), ``id``: the stored messages of a channel narrow."""
        files = self.m["narrows"][key]["files"]
        if not files:
            return pa.table({"topic": pa.array([], pa.string()), "id": pa.array([], pa.int64())})
        t = pa.concat_tables(
            [pq.read_table(self._path(f["path"]), columns=["id", "topic"]) for f in files]
        )
        return pa.table({"topic": pc.utf8_lower(t["topic"]), "id": t["id"]})

    async def _topic_list(self, stream_id: int) -> list[dict[str, Any]]:
        async with self.sem:
            body = await self.client._request(
                "GET", f"/users/me/{stream_id}/topics", cast_to=dict, idempotent=True
            )
        self.stats.requests += 1
        topics: list[dict[str, Any]] = body.get("topics", [])
        return topics

    async def _topics(self, key: str, upserts: dict[int, Any]) -> None:
        """Re-read the topics of a channel whose newest id or name differs from the server's."""
        sid = int(self.m["narrows"][key]["stream_id"])
        try:
            server = await self._topic_list(sid)
        except ApiError:
            return
        stored = await asyncio.to_thread(self._stored_topics, key)
        maxima = {
            row["topic"]: row["id_max"]
            for row in stored.group_by("topic").aggregate([("id", "max")]).to_pylist()
        }
        names = {str(t["name"]).lower(): (str(t["name"]), int(t["max_id"])) for t in server}
        differ = [names[t] for t in names if maxima.get(t) != names[t][1]]
        gone = [t for t in maxima if t not in names]
        changed = {t[0].lower() for t in differ} | set(gone)
        if not changed:
            return
        self.stats.topics_reread += len(changed)
        ids = stored.filter(pc.is_in(stored["topic"], pa.array(sorted(changed))))["id"]
        self.vanished.update(ids.to_pylist())
        for name, _ in differ:
            narrow = [*_narrow_of(self.m["narrows"][key]), {"operator": "topic", "operand": name}]
            async for page, msgs, _done in self._pages(narrow, "oldest", None):
                for m in await asyncio.to_thread(message_records, page, msgs):
                    upserts[m.id] = m

    # -- messages looked up by id, and the changes put in place

    async def _lookup(self, ids: list[int], upserts: dict[int, Any]) -> set[int]:
        """Fetch ``ids`` as they are now into ``upserts``; returns those not found."""
        missing = set(ids)
        for i in range(0, len(ids), LOOKUP_CHUNK):
            page = await self._get(
                {
                    "message_ids": ids[i : i + LOOKUP_CHUNK],
                    "apply_markdown": False,
                    "client_gravatar": True,
                }
            )
            for m in await asyncio.to_thread(message_records, page):
                upserts[m.id] = m
                missing.discard(m.id)
        self.stats.fetched += len(ids) - len(missing)
        return missing

    def _apply(
        self, upserts: Mapping[int, Any], remove: set[int], readable: Mapping[str, Any]
    ) -> tuple[dict[int, str], dict[int, str]]:
        """Take ``remove`` and the upserted ids out of every file that holds them, and store the
        upserted messages in the narrow each is in now (if the account can read it)."""
        everything = remove | set(upserts) | set(self.relocate)
        ids = np.array(sorted(everything), dtype=np.int64)
        if not len(ids):
            return {}, {}
        own: dict[str, set[int]] = {}
        for i, key in self.relocate.items():
            if i not in upserts and i not in remove:
                own.setdefault(key, set()).add(i)
        by_key: dict[str, list[Any]] = {}
        for m in upserts.values():
            key = _key(m.stream_id)
            if key in readable:
                by_key.setdefault(key, []).append(m)
        was: dict[int, str] = {}  # id -> the narrow it was stored in
        now: dict[int, str] = {}
        for key in list(self.m["narrows"]):
            wanted = pa.array(sorted(everything - own[key]) if key in own else ids, pa.int64())
            drop: list[dict[str, Any]] = []
            kept: list[pa.Table] = []
            for f in self.m["narrows"][key]["files"]:
                at = int(np.searchsorted(ids, int(f["min_id"])))
                if at >= len(ids) or ids[at] > int(f["max_id"]):
                    continue  # no id of the change in this file's range
                t = pq.read_table(self._path(f["path"]), columns=["id"])
                hit = pc.is_in(t["id"], wanted)
                if not pc.any(hit).as_py():
                    continue
                was.update(dict.fromkeys(t["id"].filter(hit).to_pylist(), key))
                t = pq.read_table(self._path(f["path"]), schema=MESSAGE_SCHEMA)
                drop.append(f)
                kept.append(t.filter(pc.invert(pc.is_in(t["id"], wanted))))
            new = sorted(by_key.pop(key, []), key=lambda m: m.id)
            if new:
                now.update(dict.fromkeys((m.id for m in new), key))
                kept.append(records_table(new, content=self.content))
            if drop or new:
                table = pa.concat_tables(kept) if kept else MESSAGE_SCHEMA.empty_table()
                self._commit(key, table, drop, extend=False)
        now.update((i, k) for k, mine in own.items() for i in mine)
        return was, now

    async def _reconcile(self, readable: Mapping[str, Any], *, topics: bool) -> None:
        upserts: dict[int, Any] = {}
        if topics:
            # a narrow fetched whole by this sync is as the server has it: no list to compare
            keys = [
                k for k, v in readable.items() if v["kind"] == "channel" and k not in self.whole
            ]
            await asyncio.gather(*(self._topics(k, upserts) for k in keys))
        self.seen.update(upserts)
        before = self.vanished - self.seen
        look = sorted((before | self.changed) - self.seen - self.deleted)
        self.stats.changed = len(upserts)
        missing = await self._lookup(look, upserts) if look else set()
        self.stats.changed = len(upserts)
        was, now = self._apply(upserts, (missing | self.deleted) - set(upserts), readable)
        # stored before, and not any more: deleted, or moved where the account cannot read
        self.stats.removed = len(((self.vanished - self.seen) | set(was)) - set(now))
        self.stats.moved = sum(1 for i, key in was.items() if i in now and now[i] != key)

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
                write_tables(self.client, self.cache, readable, channels, subscribers, self.sem)
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


def _count_above(syncer: _Syncer, key: str, watermark: int | None) -> int:
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
