"""An organization export written, file by file, into the dataset's Parquet layout."""

from __future__ import annotations

import ctypes
import errno
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from . import _files
from ._export_tables import (
    EMPTY_TOPIC_DISPLAY_NAME,
    MalformedExport,
    api_message,
    export_files,
    load_json,
    parse_realm,
    realm_identity,
    table_rows,
    user_groups,
)
from ._pages import _Message as _PageMessage
from ._pages import records_table
from .records import channels_frame, subscriptions_frame, users_frame

__all__ = ["Parts", "build", "check_target", "exchange"]


class Parts:
    """Records -> part files of their narrow, holding at most about ``2 * flush_rows`` rows."""

    def __init__(self, root: Path, manifest: dict[str, Any], content: bool, flush_rows: int):
        self.root = root
        self.m = manifest
        self.content = content
        self.flush_rows = flush_rows
        self.buffers: dict[str, list[pa.Table]] = {}
        self.counts: dict[str, int] = {}
        self.conversations: set[int] = set()
        self.messages = 0

    def add(self, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        for r in records:
            if r["type"] == "stream" and r["subject"] == "":
                r["subject"] = EMPTY_TOPIC_DISPLAY_NAME  # as a sync stores it
        table = records_table(msgspec.convert(records, list[_PageMessage]), content=self.content)
        rows: dict[str, list[int]] = {}
        for i, r in enumerate(records):
            if r["type"] == "stream":
                rows.setdefault(f"channel-{r['stream_id']}", []).append(i)
            else:
                rows.setdefault("dm", []).append(i)
                self.conversations.add(int(r["recipient_id"]))
        self.messages += len(records)
        for key, indices in rows.items():
            self.buffers.setdefault(key, []).append(table.take(indices))
            self.counts[key] = self.counts.get(key, 0) + len(indices)
            if self.counts[key] >= self.flush_rows:
                self.flush(key)
        while sum(self.counts.values()) >= 2 * self.flush_rows:
            self.flush(max(self.counts, key=lambda k: self.counts[k]))

    def flush(self, key: str) -> None:
        parts = self.buffers.pop(key, [])
        self.counts.pop(key, None)
        if not parts:
            return
        table = pa.concat_tables(parts).sort_by("id")
        n = int(self.m["next_part"])
        self.m["next_part"] = n + 1
        folder = _files.private_dir(_files.private_dir(self.root / "messages") / f"narrow={key}")
        path = folder / f"part-{n:06d}.parquet"
        _files.write_parquet(table, path)
        ids = table["id"]
        low, high = pc.min(ids).as_py(), pc.max(ids).as_py()
        state = self.m["narrows"][key]
        state["files"] = sorted(
            [
                *state["files"],
                {
                    "path": str(path.relative_to(self.root)),
                    "rows": table.num_rows,
                    "min_id": low,
                    "max_id": high,
                },
            ],
            key=lambda f: (f["max_id"], f["path"]),
        )
        state["watermark"] = max(state["watermark"] or 0, high)

    def close(self) -> None:
        for key in list(self.buffers):
            self.flush(key)


def build(source: Path, out: Path, *, content: bool, flush_rows: int, progress: bool) -> None:
    """Write the dataset of the export ``source`` into the empty folder ``out``."""
    from tqdm.auto import tqdm

    began = time.monotonic()
    with export_files(source) as (realm_file, message_files):
        data = load_json(realm_file, "realm.json")
        realm = parse_realm(data)
        identity = realm_identity(data)
        if not isinstance(data, Mapping):  # parse_realm checked it
            raise MalformedExport("realm.json: expected an object of tables")
        groups = user_groups(data)
        del data
        exported_at = int(realm_file.stat().st_mtime)
        if not message_files:
            raise MalformedExport(f"{source}: the export has no messages-NNNNNN.json file")
        manifest = _files.new_manifest("", "", content)
        manifest["site"] = manifest["email"] = None  # an export has neither
        manifest["source"] = {
            "kind": "export",
            "file": source.name,
            "realm": identity,
            "exported_at": exported_at,
        }
        manifest["narrows"] = {
            f"channel-{sid}": {
                "kind": "channel",
                "stream_id": sid,
                "name": s["name"],
                "watermark": None,
                "readable": True,
                "files": [],
            }
            for sid, s in sorted(realm.streams.items())
        }
        manifest["narrows"]["dm"] = {
            "kind": "dm",
            "name": "direct messages",
            "watermark": None,
            "readable": True,
            "files": [],
        }
        parts = Parts(out, manifest, content, flush_rows)
        with tqdm(
            total=len(message_files), desc="import", unit="file", disable=not progress
        ) as bar:
            for name, file in message_files:
                chunk = load_json(file, name)
                if not isinstance(chunk, Mapping):
                    raise MalformedExport(f"{name}: expected an object of tables")
                records = [
                    api_message(m, realm, name) for m in table_rows(chunk, "zerver_message", name)
                ]
                del chunk
                parts.add(records)
                del records
                bar.update(1)
                bar.set_postfix(messages=parts.messages, refresh=False)
        parts.close()
    tables = {
        "users": users_frame(realm.accounts()),
        "channels": channels_frame(realm.streams.values()),
        "subscriptions": subscriptions_frame(realm.stream_members),
        "user_groups": groups,
    }
    folder = _files.private_dir(out / "tables")
    for name, df in tables.items():
        _files.write_parquet(
            pa.Table.from_pandas(df, preserve_index=False), folder / f"{name}.parquet"
        )
    now = int(time.time())
    for state in manifest["narrows"].values():
        state["synced_at"] = now
    manifest["coverage"] = {
        "as_of": exported_at,
        "source": "export",
        "channels_readable": [
            {"stream_id": sid, "name": s["name"]} for sid, s in sorted(realm.streams.items())
        ],
        "channels_not_readable": [],
        "dm_conversations": len(parts.conversations),
    }
    manifest["source"]["imported"] = {
        "messages": parts.messages,
        "message_files": len(message_files),
        "seconds": round(time.monotonic() - began, 3),
        "finished": now,
    }
    manifest["updated"] = now
    _files.write_json(manifest, out / "manifest.json")


def exchange(a: Path, b: Path) -> None:
    """Swap two folders: in one step where the system can (Linux ``renameat2``), else three."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is not None:
        at_fdcwd, rename_exchange = -100, 2
        if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), str(b))
    aside = a.with_name(a.name + "-previous")
    os.rename(b, aside)
    os.rename(a, b)
    os.rename(aside, a)


def check_target(cache: Path) -> None:
    if cache.exists() and not cache.is_dir():
        raise ValueError(f"{cache} is not a folder")
    if not cache.exists():
        return
    manifest = _files.read_manifest(cache)
    if manifest is None:
        if any(p.name != ".lock" for p in cache.iterdir()):
            raise ValueError(
                f"{cache} holds files but no dataset: import into a new or empty folder"
            )
        return
    if manifest.get("source", {}).get("kind") != "export":
        raise ValueError(
            f"{cache} holds a dataset synced from {manifest['site']} as {manifest['email']}: "
            "import into another folder"
        )
