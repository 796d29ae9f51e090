"""The state of one sync, and the narrows' part files and manifest it rewrites.

The sync (:mod:`._refresh`) is one object whose parts build on each other: this base holds
what the sync knows and writes; :class:`~._fetch.Fetcher` adds the requests and each
narrow's fetch; :class:`~._changes.Changes` finds and applies what changed in stored
history; :class:`~._refresh.Refresh` runs them in order.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..._client import AsyncClient
from . import _files
from ._pages import MESSAGE_SCHEMA
from ._progress import Progress
from ._slots import Slots

__all__ = ["Narrow", "NarrowFiles", "SyncStats", "key_of", "narrow_of"]

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


def key_of(stream_id: int | None) -> str:
    """The manifest's key of the narrow a message of ``stream_id`` (None: direct) is in."""
    return "dm" if stream_id is None else f"channel-{stream_id}"


def narrow_of(meta: Mapping[str, Any]) -> Narrow:
    """The ``GET /messages`` narrow of a manifest narrow."""
    if meta["kind"] == "dm":
        return [{"operator": "is", "operand": "dm"}]
    return [{"operator": "channel", "operand": meta["stream_id"]}]


class NarrowFiles:
    """What one sync knows, and the writes of its narrows' part files and of the manifest."""

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
