"""An organization's history as a local, incremental Parquet dataset.

One call syncs what an account can read into a cache folder and returns the frames the views
take; a re-run fetches only what is new, and re-checks a window of recent messages for edits,
moves, reactions and deletions::

    >>> from chatops.analytics import Dataset
    >>> ds = Dataset.sync("~/.zuliprc", cache="~/chatops-data/acme")
    >>> f = ds.frames()
    >>> f.messages.groupby("channel", observed=True).size()

The layout (``docs/dataset-layout.md``)::

    CACHE/manifest.json                      schema version, watermarks, files, coverage
    CACHE/messages/narrow=channel-12/part-000007.parquet
    CACHE/messages/narrow=dm/part-000003.parquet
    CACHE/tables/{users,channels,subscriptions,user_groups}.parquet

A message lives in exactly one part file of the narrow it is in now; the manifest lists the live
files, and a file enters or leaves the dataset only by an atomic rewrite of the manifest, so an
interrupted sync (Ctrl-C or ``kill -9``) leaves the last complete state and the next sync resumes
from its watermarks. Files are private to their owner (0600, folders 0700).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import gc
import os
import re
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from tqdm.auto import tqdm

from .._base_client import RateBudget
from .._client import AsyncClient, Client
from .._config import Credentials
from .._exceptions import ApiError
from . import _files
from ._files import SCHEMA_VERSION
from ._pages import MESSAGE_SCHEMA, decode_page, page_table
from ._tables import CATEGORICAL, frames_from_table
from .realm_export import import_export
from .records import AnalyticsFrames, channels_frame, users_frame
from .schema import validate

__all__ = ["SCHEMA_VERSION", "Dataset", "SyncStats", "default_cache"]

T = TypeVar("T")

#: The most messages one ``GET /messages`` returns.
MAX_PAGE = 5000
_PART = re.compile(r"^part-\d{6}\.parquet$")
_TABLES = ("users", "channels", "subscriptions", "user_groups")
Source = Client | AsyncClient | Credentials | str | os.PathLike[str]


def default_cache(site: str, email: str) -> Path:
    """``$XDG_CACHE_HOME/chatops/datasets/<host>/<email>`` (``~/.cache`` by default)."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    host = re.sub(r"[^A-Za-z0-9._-]+", "_", site.split("://", 1)[-1])
    who = re.sub(r"[^A-Za-z0-9._@-]+", "_", email)
    return root / "chatops" / "datasets" / host / who


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

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


# -- the sync -------------------------------------------------------------------------------


class _Progress:
    """Messages fetched, their rate and the time left, estimated from the id ranges covered."""

    def __init__(self, enabled: bool) -> None:
        self.bar = tqdm(total=None, unit="msg", desc="sync", disable=not enabled, leave=True)
        self.spans: dict[str, tuple[int, int]] = {}
        self.reached: dict[str, int] = {}
        self.count = 0

    def plan(self, key: str, start: int, newest: int) -> None:
        self.spans[key] = (start, max(start, newest))
        self.reached[key] = start

    def advance(self, key: str, n: int, last_id: int) -> None:
        self.count += n
        if key in self.reached:
            self.reached[key] = last_id
        total = sum(hi - lo for lo, hi in self.spans.values())
        covered = sum(
            min(self.reached[k], hi) - lo for k, (lo, hi) in self.spans.items() if hi > lo
        )
        if total > 0 and covered > 0:
            self.bar.total = max(self.count, round(self.count * total / covered))
        self.bar.update(n)

    def close(self) -> None:
        if self.bar.total is not None:
            self.bar.total = self.count
        self.bar.refresh()
        self.bar.close()


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
    ) -> None:
        self.client = client
        self.cache = cache
        self.m = manifest
        self.recheck = recheck
        self.sem = asyncio.Semaphore(concurrency)
        self.concurrency = concurrency
        self.page_size = page_size
        self.flush_rows = flush_rows
        self.content = content
        self.progress = _Progress(progress)
        self.stats = SyncStats()
        self.vanished: set[int] = set()
        self.threshold: int | None = None
        self.seen: set[int] = set()

    # -- files of a narrow

    def _path(self, rel: str) -> Path:
        return self.cache / rel

    def _save(self) -> None:
        self.m["updated"] = int(time.time())
        _files.write_json(self.m, self.cache / "manifest.json")

    def _new_part(self, key: str) -> str:
        n = int(self.m["next_part"])
        self.m["next_part"] = n + 1
        folder = _files.private_dir(_files.private_dir(self.cache / "messages") / f"narrow={key}")
        return str((folder / f"part-{n:06d}.parquet").relative_to(self.cache))

    def _commit(self, key: str, table: pa.Table, drop: list[dict[str, Any]]) -> None:
        """Write ``table`` as a new part of ``key``, drop the ``drop`` files, in one manifest step."""
        state = self.m["narrows"][key]
        files: list[dict[str, Any]] = [f for f in state["files"] if f not in drop]
        table = table.sort_by("id")
        # The newest rows go to a small part of their own: the next sync's re-check window
        # then rewrites that part, not the whole history of the narrow.
        tail = max(self.recheck, 1)
        pieces = (
            [table.slice(0, table.num_rows - tail), table.slice(table.num_rows - tail)]
            if table.num_rows > 2 * tail
            else [table]
        )
        for piece in pieces:
            if not piece.num_rows:
                continue
            rel = self._new_part(key)
            _files.write_parquet(piece, self._path(rel))
            ids = piece["id"]
            files.append(
                {
                    "path": rel,
                    "rows": piece.num_rows,
                    "min_id": pc.min(ids).as_py(),
                    "max_id": pc.max(ids).as_py(),
                }
            )
            state["watermark"] = max(state.get("watermark") or 0, pc.max(ids).as_py())
        state["files"] = sorted(files, key=lambda f: (f["max_id"], f["path"]))
        self._save()
        for f in drop:
            with contextlib.suppress(FileNotFoundError):
                self._path(f["path"]).unlink()

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
        kept = pa.concat_tables(
            [pq.read_table(self._path(f["path"]), schema=MESSAGE_SCHEMA) for f in drop]
        )
        rechecked = kept.filter(pc.greater_equal(kept["id"], start))
        self.vanished.update(rechecked["id"].to_pylist())
        self.stats.rechecked += rechecked.num_rows
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

    async def _get(self, params: dict[str, Any]) -> Any:
        async with self.sem:
            body = await self.client._request(
                "GET", "/messages", params=params, cast_to=bytes, idempotent=True
            )
        self.stats.requests += 1
        return await asyncio.to_thread(decode_page, body)

    async def _newest(self, narrow: list[dict[str, Any]]) -> int:
        page = await self._get(
            {"anchor": "newest", "num_before": 1, "num_after": 0, "narrow": narrow}
        )
        return max((m.id for m in page.messages), default=0)

    async def _narrow(self, key: str, narrow: list[dict[str, Any]], first_id: int) -> None:
        start, drop, kept = self._window(key)
        if start is None:  # a first sync: learn how far it goes, for the time left
            self.progress.plan(key, first_id, await self._newest(narrow))
        anchor: int | str = start if start is not None else "oldest"
        include = True
        buffer: list[pa.Table] = [kept] if kept is not None and kept.num_rows else []
        buffered = 0
        pending_drop = drop
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
                }
            )
            msgs = page.messages
            if isinstance(anchor, int):
                msgs = [m for m in msgs if m.id > anchor or (include and m.id == anchor)]
            if msgs:
                table = await asyncio.to_thread(page_table, msgs, content=self.content)
                buffer.append(table)
                buffered += len(msgs)
                self.stats.fetched += len(msgs)
                ids = [m.id for m in msgs]
                self.seen.update(ids)
                self.progress.advance(key, len(msgs), ids[-1])
                anchor, include = max(ids), False
            done = page.found_newest or not msgs
            if buffer and (done or buffered >= self.flush_rows) or (done and pending_drop):
                merged = pa.concat_tables(buffer) if buffer else MESSAGE_SCHEMA.empty_table()
                self._commit(key, merged, pending_drop)
                buffer, buffered, pending_drop = [], 0, []
            if done:
                break
        self.m["narrows"][key]["synced_at"] = int(time.time())
        self._save()

    async def _moved(self, readable: Mapping[str, Any]) -> None:
        """Messages that left their narrow's window: moved elsewhere, or deleted."""
        missing = sorted(self.vanished - self.seen)
        self.stats.removed = len(missing)
        for i in range(0, len(missing), 1000):
            chunk = missing[i : i + 1000]
            page = await self._get({"message_ids": chunk, "apply_markdown": False})
            by_key: dict[str, list[Any]] = {}
            for msg in page.messages:
                key = "dm" if msg.stream_id is None else f"channel-{msg.stream_id}"
                if key in readable:
                    by_key.setdefault(key, []).append(msg)
            for key, msgs in by_key.items():
                self.m["narrows"].setdefault(key, {"files": [], "watermark": None})
                table = page_table(sorted(msgs, key=lambda m: m.id), content=self.content)
                self._commit(key, table, [])
                self.stats.moved += len(msgs)
                self.stats.removed -= len(msgs)

    # -- organization tables

    async def _tables(self) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        c = self.client
        users = await c.users.list()
        mine = {s.stream_id for s in await c.channels.subscriptions()}
        try:
            channels = await c.channels.list(include_all=True)
        except ApiError:
            channels = await c.channels.list()
        readable: dict[str, dict[str, Any]] = {}
        hidden: list[dict[str, Any]] = []
        for ch in channels:
            if ch.stream_id in mine or not ch.invite_only:
                readable[f"channel-{ch.stream_id}"] = {
                    "kind": "channel",
                    "stream_id": ch.stream_id,
                    "name": ch.name,
                    "first_message_id": ch.first_message_id or 0,
                }
            else:
                hidden.append(
                    {"stream_id": ch.stream_id, "name": ch.name, "reason": "private, not a member"}
                )
        readable["dm"] = {"kind": "dm", "name": "direct messages", "first_message_id": 0}

        async def members(sid: int) -> list[tuple[int, int]]:
            async with self.sem:
                try:
                    return [(sid, u) for u in await c.channels.members(sid)]
                except ApiError:
                    return []

        pairs = [
            p
            for chunk in await asyncio.gather(
                *(members(v["stream_id"]) for v in readable.values() if v["kind"] == "channel")
            )
            for p in chunk
        ]
        groups = await c.user_groups.list()
        tables = {
            "users": users_frame(users),
            "channels": channels_frame(channels),
            "subscriptions": pd.DataFrame(pairs, columns=["stream_id", "user_id"], dtype="Int64"),
            "user_groups": pd.DataFrame(
                [(g.name, u) for g in groups for u in g.members], columns=["name", "user_id"]
            ).astype({"user_id": "Int64"}),
        }
        folder = _files.private_dir(self.cache / "tables")
        for name, df in tables.items():
            _files.write_parquet(
                pa.Table.from_pandas(df, preserve_index=False), folder / f"{name}.parquet"
            )
        coverage = {
            "as_of": int(time.time()),
            "channels_readable": sorted(
                (
                    {"stream_id": v["stream_id"], "name": v["name"]}
                    for v in readable.values()
                    if v["kind"] == "channel"
                ),
                key=lambda d: d["stream_id"],
            ),
            "channels_not_readable": sorted(hidden, key=lambda d: d["stream_id"]),
        }
        return readable, coverage

    async def run(self) -> SyncStats:
        began = time.monotonic()
        try:
            readable, coverage = await self._tables()
            for key, meta in readable.items():
                state = self.m["narrows"].setdefault(key, {"files": [], "watermark": None})
                state.update({k: v for k, v in meta.items() if k != "first_message_id"})
            gone = [k for k in self.m["narrows"] if k not in readable]
            for key in gone:  # no longer readable: kept, marked
                self.m["narrows"][key]["readable"] = False
            for key in readable:
                self.m["narrows"][key]["readable"] = True
            before = {k: self.m["narrows"][k].get("watermark") for k in readable}
            self.threshold = self._threshold(list(readable))
            firsts = [v["first_message_id"] for v in readable.values() if v["first_message_id"]]
            lowest = min(firsts, default=0)
            await asyncio.gather(
                *(
                    self._narrow(
                        key,
                        (
                            [{"operator": "is", "operand": "dm"}]
                            if meta["kind"] == "dm"
                            else [{"operator": "channel", "operand": meta["stream_id"]}]
                        ),
                        meta["first_message_id"] or lowest,
                    )
                    for key, meta in readable.items()
                )
            )
            await self._moved(readable)
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
            self.stats.refused = self.client.rate_budget.refused if self.client.rate_budget else 0
            self.stats.seconds = round(time.monotonic() - began, 3)
            self.m["last_sync"] = self.stats.as_dict() | {"finished": int(time.time())}
            self._save()
            return self.stats
        finally:
            self.progress.close()


def _count_above(syncer: _Syncer, key: str, watermark: int | None) -> int:
    floor = int(watermark or 0)
    return sum(
        int(
            pc.sum(
                pc.greater(pq.read_table(syncer._path(f["path"]), columns=["id"])["id"], floor)
            ).as_py()
            or 0
        )
        for f in syncer.m["narrows"][key]["files"]
        if int(f["max_id"]) > floor
    )


def _credentials(source: Source) -> Credentials:
    if isinstance(source, Client | AsyncClient):
        return source.credentials
    if isinstance(source, Credentials):
        return source
    path = Path(source).expanduser()
    if not path.is_file():
        raise ValueError(f"no zuliprc file at {path}")
    with Client.from_zuliprc(path) as client:
        return client.credentials


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion, also from inside a running loop (a notebook)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _clean(cache: Path, manifest: dict[str, Any]) -> None:
    """Remove what an interrupted sync left: temporary files and parts not in the manifest."""
    live = {f["path"] for n in manifest["narrows"].values() for f in n["files"]}
    root = cache / "messages"
    if root.exists():
        for path in root.rglob("*"):
            if path.is_file():
                rel = str(path.relative_to(cache))
                if rel not in live and (_PART.match(path.name) or ".tmp-" in path.name):
                    path.unlink()
    for path in cache.glob(".*.tmp-*"):
        path.unlink()


# -- the dataset ----------------------------------------------------------------------------


class Dataset:
    """A synced organization in a cache folder: its manifest, its files and its frames."""

    def __init__(self, cache: str | os.PathLike[str]) -> None:
        self.cache = Path(cache).expanduser()
        manifest = _files.read_manifest(self.cache)
        if manifest is None:
            raise ValueError(f"{self.cache} holds no dataset (no manifest.json): sync first")
        self.manifest = manifest

    def __repr__(self) -> str:
        return f"Dataset(cache={str(self.cache)!r}, messages={self.message_count})"

    @classmethod
    def sync(
        cls,
        source: Source,
        cache: str | os.PathLike[str] | None = None,
        *,
        recheck: int = 1000,
        concurrency: int = 4,
        page_size: int = MAX_PAGE,
        flush_rows: int = 100_000,
        content: bool | None = None,
        progress: bool = True,
    ) -> Dataset:
        """Fetch what is new since the last sync (everything, the first time) into ``cache``.

        Args:
            source: a ``Client``, ``AsyncClient``, ``Credentials`` or the path of a zuliprc.
            cache: the folder; default :func:`default_cache` of the site and account.
            recheck: how many of each narrow's newest stored messages to fetch again, to catch
                edits, moves, reactions and deletions (0: only newer messages).
            concurrency: requests in flight at once (all share one rate-limit budget).
            page_size: messages per request (at most 5,000, the API's limit).
            flush_rows: messages fetched before they are committed to disk; what an interrupted
                sync fetches again at most, per narrow.
            content: keep message text (default: as the cache was made; no text for a new one).
            progress: show a progress bar (a widget in notebooks).
        """
        if not 1 <= page_size <= MAX_PAGE:
            raise ValueError(f"page_size must be between 1 and {MAX_PAGE}, got {page_size}")
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if recheck < 0:
            raise ValueError(f"recheck must be 0 or more, got {recheck}")
        if flush_rows < 1:
            raise ValueError(f"flush_rows must be at least 1, got {flush_rows}")
        creds = _credentials(source)
        folder = (
            Path(cache).expanduser()
            if cache is not None
            else default_cache(creds.site, creds.email)
        )
        _files.private_dir(folder)
        with _files.locked(folder):
            manifest = _files.read_manifest(folder)
            if manifest is None:
                manifest = _files.new_manifest(creds.site, creds.email, bool(content))
            elif manifest.get("source", {}).get("kind") == "export":
                raise ValueError(
                    f"{folder} holds the organization export {manifest['source']['file']}: "
                    "sync into another cache folder"
                )
            elif (manifest["site"], manifest["email"]) != (creds.site, creds.email):
                raise ValueError(
                    f"{folder} holds {manifest['email']} on {manifest['site']}, "
                    f"not {creds.email} on {creds.site}: use another cache folder"
                )
            elif content is not None and bool(content) != bool(manifest["content"]):
                raise ValueError(
                    f"{folder} was made with content={manifest['content']}: "
                    "use another cache folder to change it"
                )
            _clean(folder, manifest)

            async def go() -> None:
                async with AsyncClient(credentials=creds, max_retries=10) as client:
                    client.max_retry_wait = 120.0
                    client.rate_budget = RateBudget()
                    syncer = _Syncer(
                        client,
                        folder,
                        manifest,
                        recheck=recheck,
                        concurrency=concurrency,
                        page_size=page_size,
                        flush_rows=flush_rows,
                        content=bool(manifest["content"]),
                        progress=progress,
                    )
                    await syncer.run()

            try:
                _run(go())
            finally:
                # The pages are garbage now (some of it in reference cycles, left while the
                # collector was paused for a page): collect it and hand the allocator's free
                # pages back to the system, rather than have the frames sit on top of them.
                gc.collect()
                pa.default_memory_pool().release_unused()
        return cls(folder)

    @classmethod
    def from_export(
        cls,
        path: str | os.PathLike[str],
        cache: str | os.PathLike[str],
        *,
        content: bool = False,
        flush_rows: int = 100_000,
        progress: bool = True,
    ) -> Dataset:
        """Build the dataset of a Zulip organization data export, with no request to a server.

        The cache gets the layout a sync writes (``docs/dataset-layout.md``), so ``frames()``,
        ``info()``, ``export()`` and DuckDB read it alike; its manifest's ``source`` names the
        export, and its coverage is everything the export holds (every channel and direct
        message). Message files are read one at a time and written per narrow every
        ``flush_rows`` messages, so memory holds the organization's tables and about twice
        ``flush_rows`` messages, never the whole export.

        Importing into a folder that holds an earlier import replaces it in one step: the new
        dataset is built beside it and the two folders are swapped, so an interrupted import
        leaves the earlier one whole. A folder that holds a synced dataset, or other files, is
        refused.

        Args:
            path: the export's tarball (``.tar.gz``) or its unpacked folder.
            cache: the folder to write (required: an export has no site and account to name it).
            content: keep message text (Markdown source).
            flush_rows: messages of a narrow held before they are written as a part file.
            progress: show a progress bar over the export's message files.

        Raises :class:`~chatops.analytics.realm_export.MalformedExport` (a ``ValueError``) when
        the export is not in Zulip's format, ``ValueError`` for a folder it will not write, and
        ``RuntimeError`` while another sync or import writes the folder.
        """
        return cls(
            import_export(path, cache, content=content, flush_rows=flush_rows, progress=progress)
        )

    # -- what it holds

    def _files(self) -> list[Path]:
        return [
            self.cache / f["path"] for n in self.manifest["narrows"].values() for f in n["files"]
        ]

    @property
    def message_count(self) -> int:
        """Messages in the cache."""
        return sum(int(f["rows"]) for n in self.manifest["narrows"].values() for f in n["files"])

    def info(self) -> dict[str, Any]:
        """What the cache holds: counts, watermarks, coverage, sizes on disk."""
        sizes = {
            "messages": sum(p.stat().st_size for p in self._files() if p.exists()),
            **{
                t: (self.cache / "tables" / f"{t}.parquet").stat().st_size
                for t in _TABLES
                if (self.cache / "tables" / f"{t}.parquet").exists()
            },
        }
        m = self.manifest
        return {
            "cache": str(self.cache),
            "source": m.get("source", {"kind": "sync"}),
            "site": m["site"],
            "email": m["email"],
            "schema_version": m["schema_version"],
            "content": m["content"],
            "updated": m["updated"],
            "messages": self.message_count,
            "narrows": {
                k: {
                    "name": n.get("name", k),
                    "watermark": n.get("watermark"),
                    "messages": sum(int(f["rows"]) for f in n["files"]),
                    "files": len(n["files"]),
                    "readable": n.get("readable", True),
                    "synced_at": n.get("synced_at"),
                }
                for k, n in sorted(m["narrows"].items())
            },
            "coverage": m["coverage"],
            "bytes": sizes,
            "last_sync": m["last_sync"],
        }

    def table(self, *, content: bool = False) -> pa.Table:
        """Every stored message as one Arrow table (with ``narrow``), sorted by id.

        The columns the frames make categorical (``narrow`` and :data:`CATEGORICAL`) are read
        dictionary-encoded, as Parquet stores them: each distinct name is held once.
        """
        columns = [c for c in MESSAGE_SCHEMA.names if content or c != "content"]
        parts = []
        for key, n in self.manifest["narrows"].items():
            narrow = pa.array([key], pa.string())
            for f in n["files"]:
                with pq.ParquetFile(self.cache / f["path"], read_dictionary=CATEGORICAL) as pf:
                    t = pf.read(columns=columns, use_threads=False)
                codes = pa.nulls(t.num_rows, pa.int32()).fill_null(0)
                parts.append(
                    t.append_column("narrow", pa.DictionaryArray.from_arrays(codes, narrow))
                )
        if not parts:
            schema = pa.schema(
                [
                    pa.field(c, pa.dictionary(pa.int32(), pa.string()))
                    if c in CATEGORICAL
                    else MESSAGE_SCHEMA.field(c)
                    for c in columns
                ]
            )
            return schema.empty_table().append_column(
                "narrow", pa.array([], pa.dictionary(pa.int32(), pa.string()))
            )
        table = pa.concat_tables(parts).unify_dictionaries()
        del parts
        # Sorted one column at a time, each original column let go once its sorted copy is
        # made: the whole table is never held twice.
        order = pc.sort_indices(table["id"])
        names = table.column_names
        sorted_columns = []
        for name in names:
            sorted_columns.append(table[name].take(order))
            table = table.drop_columns([name])
        return pa.table(sorted_columns, names=names)

    def _org_table(self, name: str, kind: str) -> pd.DataFrame | None:
        path = self.cache / "tables" / f"{name}.parquet"
        if not path.exists():
            return None
        return validate(pq.read_table(path).to_pandas(), kind)

    def frames(self, *, content: bool = False) -> AnalyticsFrames:
        """The frames of :mod:`chatops.analytics.schema`, built from the cache (no request).

        Args:
            content: add the message text as a ``content`` column (if the cache keeps it).
        """
        table = self.table(content=content and bool(self.manifest["content"]))
        return AnalyticsFrames(
            **frames_from_table(table),
            users=self._org_table("users", "users"),
            channels=self._org_table("channels", "channels"),
            subscriptions=self._org_table("subscriptions", "subscriptions"),
            user_groups=self._org_table("user_groups", "user_groups"),
        )

    def export(
        self, out: str | os.PathLike[str], *, format: Literal["parquet", "csv"]
    ) -> list[Path]:
        """Write every frame to ``out`` as ``<name>.parquet`` or ``<name>.csv``; returns the paths."""
        if format not in ("parquet", "csv"):
            raise ValueError(f"format must be parquet or csv, got {format!r}")
        folder = _files.private_dir(Path(out).expanduser())
        f = self.frames(content=bool(self.manifest["content"]))
        written = []
        for name in (
            "messages",
            "reactions",
            "edits",
            "dm_recipients",
            "topic_links",
            "topics",
            "users",
            "channels",
            "subscriptions",
            "user_groups",
        ):
            df = getattr(f, name)
            if df is None:
                continue
            path = folder / f"{name}.{format}"
            if format == "csv":
                _files.atomic_write(path, _csv_writer(df))
            else:
                _files.write_parquet(pa.Table.from_pandas(df, preserve_index=False), path)
            written.append(path)
        return written


def _csv_writer(df: pd.DataFrame) -> Callable[[Path], None]:
    def write(tmp: Path) -> None:
        df.to_csv(tmp, index=False)

    return write
