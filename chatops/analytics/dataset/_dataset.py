"""The :class:`Dataset`: a sync's or an import's folder, and the frames read from it."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import os
import re
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Literal, TypeVar

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..._base_client import RateBudget
from ..._client import AsyncClient, Client
from ..._config import Credentials, resolve_credentials
from ..._tabular import check_excel_rows, write_csv, write_excel
from ..coverage import Coverage, coverage_from_manifest, iso
from ..pseudonyms import PseudonymKey, load_key
from ..schema import validate
from . import _files
from ._pages import MESSAGE_SCHEMA
from ._refresh import MAX_PAGE, Refresh
from ._share import shared_frames, shared_note
from ._tables import CATEGORICAL, frames_from_table
from .realm_export import import_export
from .records import AnalyticsFrames

__all__ = ["Dataset", "default_cache"]

T = TypeVar("T")

_PART = re.compile(r"^part-\d{6}\.parquet$")
_TABLES = ("users", "channels", "subscriptions", "user_groups")
Source = Client | AsyncClient | Credentials | str | os.PathLike[str]
#: the frames an export writes, in order
_EXPORTED = (
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
)


def default_cache(site: str, email: str) -> Path:
    """``$XDG_CACHE_HOME/chatops/datasets/<host>/<email>`` (``~/.cache`` by default)."""
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    host = re.sub(r"[^A-Za-z0-9._-]+", "_", site.split("://", 1)[-1])
    who = re.sub(r"[^A-Za-z0-9._@-]+", "_", email)
    return root / "chatops" / "datasets" / host / who


def _credentials(source: Source) -> Credentials:
    if isinstance(source, Client | AsyncClient):
        return source.credentials
    if isinstance(source, Credentials):
        return source
    path = Path(source).expanduser()
    if not path.is_file():
        raise ValueError(f"no zuliprc file at {path}")
    return resolve_credentials(None, None, None, config_file=path)


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
        verify: bool = False,
    ) -> Dataset:
        """Make ``cache`` equal what the account reads now: everything the first time, then
        what is new and what changed.

        A re-sync drains the event queue the previous sync registered (edits, moves, reactions
        and deletions since, exact while the queue lives: ten minutes unused on a default
        server), compares every channel's topic list with the stored topics and re-reads the
        topics that differ, and fetches the newest ``recheck`` stored messages again.
        ``docs/dataset-layout.md`` says what a re-sync cannot see once the queue has expired;
        ``verify=True`` re-reads everything.

        Args:
            source: a ``Client``, ``AsyncClient``, ``Credentials`` or the path of a zuliprc.
            cache: the folder; default :func:`default_cache` of the site and account.
            recheck: how many of the dataset's newest stored messages, counted over all its
                channels and direct messages together, are fetched again on a re-sync
                (default 1,000; 0: none).
            concurrency: requests in flight at once (all share one rate-limit budget).
            page_size: messages per request (at most 5,000, the API's limit).
            flush_rows: messages fetched before they are committed to disk; what an interrupted
                sync fetches again at most, per narrow.
            content: keep message text (default: as the cache was made; no text for a new
                one). ``True`` on a cache made without text fetches the text of every message
                it holds; ``False`` on one with text is refused.
            progress: show a progress bar (a widget in notebooks).
            verify: re-read every stored message, as a sync into an empty folder would.
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
            elif content is False and manifest["content"]:
                raise ValueError(
                    f"{folder} keeps message text (content=True): "
                    "use another cache folder for a dataset without it"
                )
            elif content and not manifest["content"]:
                # the text of the messages already stored is fetched by re-reading them all;
                # the mark stays until a sync has done so (an interrupted one is resumed)
                manifest["content"] = True
                manifest["content_pending"] = True
            _clean(folder, manifest)
            full = verify or bool(manifest.get("content_pending"))

            async def go() -> None:
                async with AsyncClient(credentials=creds, max_retries=10) as client:
                    client.max_retry_wait = 120.0
                    client.rate_budget = RateBudget()
                    syncer = Refresh(
                        client,
                        folder,
                        manifest,
                        recheck=recheck,
                        concurrency=concurrency,
                        page_size=page_size,
                        flush_rows=flush_rows,
                        content=bool(manifest["content"]),
                        progress=progress,
                        full=full,
                    )
                    await syncer.run()
                    if manifest.pop("content_pending", None):
                        syncer._save()

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

        Raises :class:`~chatops.analytics.dataset.realm_export.MalformedExport` (a ``ValueError``) when
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
        source = dict(m.get("source", {"kind": "sync"}))
        if "exported_at" in source:
            source["exported_at"] = iso(source["exported_at"])
        if "imported" in source:
            source["imported"] = source["imported"] | {
                "finished": iso(source["imported"].get("finished"))
            }
        last = m["last_sync"]
        return {
            "cache": str(self.cache),
            "source": source,
            "site": m["site"],
            "email": m["email"],
            "schema_version": m["schema_version"],
            "content": m["content"],
            "updated": iso(m["updated"]),
            "messages": self.message_count,
            "narrows": {
                k: {
                    "name": n.get("name", k),
                    "watermark": n.get("watermark"),
                    "messages": sum(int(f["rows"]) for f in n["files"]),
                    "files": len(n["files"]),
                    "archived": n.get("archived", False),
                    "synced_at": iso(n.get("synced_at")),
                }
                for k, n in sorted(m["narrows"].items())
            },
            "coverage": self.coverage().as_dict(),
            "bytes": sizes,
            "last_sync": None if last is None else last | {"finished": iso(last.get("finished"))},
        }

    def coverage(self) -> Coverage:
        """What the dataset covers: channels read, not readable (and why), archived, direct
        conversations, the period of its messages, whether text is kept."""
        first = last = None
        spans = [
            (int(f["min_id"]), int(f["max_id"]), f["path"])
            for n in self.manifest["narrows"].values()
            for f in n["files"]
        ]
        if spans:
            # the oldest and newest message by id (ids grow with time), from two files
            lo = min(spans)
            hi = max(spans, key=lambda s: s[1])
            t_lo = pq.read_table(self.cache / lo[2], columns=["id", "timestamp"])
            t_hi = pq.read_table(self.cache / hi[2], columns=["id", "timestamp"])
            first = pc.min(t_lo["timestamp"]).as_py()
            last = pc.max(t_hi["timestamp"]).as_py()
        return coverage_from_manifest(self.manifest, first=first, last=last)

    def table(self, *, content: bool = False) -> pa.Table:
        """Every stored message as one Arrow table (with ``narrow``), sorted by id.

        The columns the frames make categorical (``narrow`` and :data:`CATEGORICAL`) are read
        dictionary-encoded, as Parquet stores them: each distinct name is held once.
        """
        columns = [c for c in MESSAGE_SCHEMA.names if content or c != "content"]

        def read(key: str, path: str) -> pa.Table:
            with pq.ParquetFile(self.cache / path, read_dictionary=CATEGORICAL) as pf:
                t = pf.read(columns=columns, use_threads=False)
            codes = pa.nulls(t.num_rows, pa.int32()).fill_null(0)
            narrow = pa.DictionaryArray.from_arrays(codes, pa.array([key], pa.string()))
            return t.append_column("narrow", narrow)

        files = [(k, f["path"]) for k, n in self.manifest["narrows"].items() for f in n["files"]]
        # a few files at once: decoding Parquet lets go of the GIL
        with concurrent.futures.ThreadPoolExecutor(min(4, os.cpu_count() or 1)) as pool:
            parts = list(pool.map(lambda kp: read(*kp), files))
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
        frames = AnalyticsFrames(
            **frames_from_table(table),
            users=self._org_table("users", "users"),
            channels=self._org_table("channels", "channels"),
            subscriptions=self._org_table("subscriptions", "subscriptions"),
            user_groups=self._org_table("user_groups", "user_groups"),
        )
        cov = coverage_from_manifest(
            self.manifest,
            first=frames.messages["timestamp"].min() if len(frames.messages) else None,
            last=frames.messages["timestamp"].max() if len(frames.messages) else None,
        )
        # what the views and figures print (``messages.attrs["coverage"]``), and the detail
        frames.messages.attrs["coverage"] = cov.note()
        frames.messages.attrs["coverage_detail"] = cov
        frames.messages.attrs["viewpoint"] = cov.viewpoint
        if frames.topics is not None:  # counted from the same messages
            frames.topics.attrs["viewpoint"] = cov.viewpoint
        return frames

    def export(
        self,
        out: str | os.PathLike[str],
        *,
        format: Literal["parquet", "csv", "xlsx"],
        pseudonymise: bool = False,
        key: PseudonymKey | str | bytes | None = None,
    ) -> list[Path]:
        """Write every frame to the folder ``out``; returns the paths written.

        Args:
            out: the folder (made owner-only when missing).
            format: ``parquet`` or ``csv`` (a ``<frame>.parquet`` or ``<frame>.csv`` file a
                frame), or ``xlsx`` (one workbook, ``dataset.xlsx``: a sheet a frame, after an
                ``about`` sheet with the coverage and the time zone of the time columns, UTC;
                a frame longer than an Excel sheet is refused before anything is written).
            pseudonymise: write a copy to hand to someone else: keyed pseudonyms for people,
                topics and direct-message conversations, no names, emails or message text
                (:mod:`chatops.analytics.dataset._share` lists what each frame keeps).
            key: the pseudonym key; default the configured one
                (:func:`chatops.analytics.pseudonyms.load_key`).

        Raises:
            ValueError: an unknown format, ``pseudonymise`` with no key configured, or a
                frame too long for an Excel sheet; nothing is written then.

        Example::

            >>> ds.export("share/", format="xlsx", pseudonymise=True)
            [PosixPath('share/dataset.xlsx')]
        """
        if format not in ("parquet", "csv", "xlsx"):
            raise ValueError(f"format must be parquet, csv or xlsx, got {format!r}")
        secret = load_key(key) if pseudonymise else None
        f = self.frames(content=bool(self.manifest["content"]) and not pseudonymise)
        frames: dict[str, pd.DataFrame] = {
            name: df for name in _EXPORTED if (df := getattr(f, name)) is not None
        }
        cov: Coverage = f.messages.attrs["coverage_detail"]
        note = cov.note()
        if secret is not None:
            frames = shared_frames(frames, secret)
            note = shared_note(cov)
        if format == "xlsx":
            check_excel_rows(frames)
        folder = _files.private_dir(Path(out).expanduser())
        if format == "xlsx":
            return [write_excel(frames, folder / "dataset.xlsx", note=note)]
        written = []
        for name, df in frames.items():
            path = folder / f"{name}.{format}"
            if format == "csv":
                write_csv(df, path)
            else:
                # the coverage travels with the file, as JSON in its pandas metadata (the
                # detail names the account synced, so a shared copy has the note alone)
                df.attrs = {"coverage": note} if name == "messages" else {}
                if name == "messages" and secret is None:
                    df.attrs["coverage_detail"] = cov.as_dict()
                _files.write_parquet(pa.Table.from_pandas(df, preserve_index=False), path)
            written.append(path)
        return written
