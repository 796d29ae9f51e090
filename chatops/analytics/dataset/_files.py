"""The dataset's files: private folders, atomic writes, the lock, and the manifest.

Shared by the sync (:mod:`._refresh`) and the import of an organization export
(:mod:`.realm_export`), which write the same layout.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..._files import atomic_write, private_dir

__all__ = [
    "SCHEMA_VERSION",
    "atomic_write",
    "locked",
    "new_manifest",
    "private_dir",
    "read_manifest",
    "unlink_parts",
    "write_json",
    "write_parts",
    "write_parquet",
]

#: Version of the on-disk layout; a cache of another version is refused, never misread.
SCHEMA_VERSION = 1


# -- files ----------------------------------------------------------------------------------


def write_parquet(table: pa.Table, path: Path) -> None:
    # LZ4: a part file of a few hundred messages costs 1.5 ms against zstd's 3.5 ms (a
    # compressor per column chunk, about forty of them), for files about a third larger
    atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression="lz4"))


def write_json(data: Any, path: Path) -> None:
    # msgspec, compact with sorted keys (the bytes json.dumps gives with sort_keys and no
    # spaces, ten times sooner): the manifest is written after every narrow of a sync
    text = msgspec.json.encode(data, order="sorted")

    def write(tmp: Path) -> None:
        tmp.write_bytes(text)

    atomic_write(path, write)


@contextlib.contextmanager
def locked(cache: Path) -> Iterator[None]:
    with open(cache / ".lock", "a+") as fh:
        os.chmod(cache / ".lock", 0o600)
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RuntimeError(f"another sync is writing {cache}") from None
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


# -- the manifest ---------------------------------------------------------------------------


def new_manifest(site: str, email: str, content: bool) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "site": site,
        "email": email,
        "content": content,
        "created": int(time.time()),
        "updated": None,
        "next_part": 1,
        "narrows": {},
        "coverage": {},
        "last_sync": None,
    }


def read_manifest(cache: Path) -> dict[str, Any] | None:
    path = cache / "manifest.json"
    if not path.exists():
        return None
    return check_manifest(json.loads(path.read_text(encoding="utf-8")), cache)


def check_manifest(data: dict[str, Any], where: str | os.PathLike[str]) -> dict[str, Any]:
    """``data``, the manifest read from ``where``, if this chatops reads its layout."""
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise ValueError(
            f"{where} holds a dataset of layout version {version}; this chatops reads version "
            f"{SCHEMA_VERSION}: sync into a new cache folder"
        )
    return data


def write_parts(cache: Path, table: pa.Table, names: list[str], tail: int) -> list[dict[str, Any]]:
    """Write ``table`` sorted by id as the part files ``names`` (two: the newest ``tail`` rows
    go to the second); returns their manifest entries."""
    ids = table["id"]
    if len(ids) > 1 and not pc.all(pc.less(ids[:-1], ids[1:])).as_py():
        table = table.sort_by("id")
    cuts = [0, table.num_rows - tail, table.num_rows] if len(names) == 2 else [0, table.num_rows]
    parts: list[dict[str, Any]] = []
    for rel, lo, hi in zip(names, cuts, cuts[1:], strict=False):
        piece = table.slice(lo, hi - lo)
        write_parquet(piece, cache / rel)
        ids = piece["id"]
        parts.append(
            {
                "path": rel,
                "rows": piece.num_rows,
                "min_id": ids[0].as_py(),
                "max_id": ids[-1].as_py(),
            }
        )
    return parts


def unlink_parts(cache: Path, files: list[dict[str, Any]]) -> None:
    for f in files:
        with contextlib.suppress(FileNotFoundError):
            (cache / f["path"]).unlink()
