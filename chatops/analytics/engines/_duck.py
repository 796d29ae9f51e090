"""The ``engine="duckdb"`` of the views: the dataset's Parquet folder read by DuckDB.

With ``engine="duckdb"`` a view takes a :class:`~chatops.analytics.Dataset` (or the path of its
folder) in place of the messages frame. DuckDB scans the part files the manifest lists, keeps
only the columns the views read and applies the period (``since``/``until``) and
``exclude_bots`` in the scan; the text and the other columns never reach pandas. Each view then
counts in SQL over those kept messages (its ``_sql`` function, with the helpers of
:mod:`._sql`) and gets back aggregates only, which the view's finishing code turns into the
result, as on the other engines, so they give the same result, value for value (a test
compares every view). What is not DuckDB's own (the kept messages as frames, the long frames,
the categories) is :class:`~._source.SqlSource`'s.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow as pa

from ._source import SqlSource

if TYPE_CHECKING:
    import duckdb

    from ..dataset import Dataset

__all__ = ["PAIR_BITS", "DuckSource", "open_duckdb", "settings"]


#: the bits of a group of two numbers below 2,048 (eleven each, and a null bit each) up to
#: which DuckDB counts in its perfect hash aggregate inside :meth:`Kept.numbered`
PAIR_BITS = 24


#: DuckDB's units of memory, in bytes
_UNITS = {
    "b": 1,
    "byte": 1,
    "bytes": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


def _memory_bytes(text: str) -> int | None:
    """A DuckDB memory setting such as ``"1GB"`` or ``"953.6 MiB"`` in bytes (None: not one)."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", text)
    if found is None or found[2].lower() not in _UNITS:
        return None
    return int(float(found[1]) * _UNITS[found[2].lower()])


#: the zones DuckDB knows, once read
_ZONES: frozenset[str] | None = None


def settings() -> dict[str, Any]:
    """The settings of the views' DuckDB databases: every core, spills (past the memory limit)
    under the system's temporary folder, not the working one, and no order kept where the SQL
    asks for none."""
    return {
        "threads": os.cpu_count() or 1,
        "temp_directory": str(Path(tempfile.gettempdir()) / "chatops-duckdb"),
        "preserve_insertion_order": False,
    }


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DuckSource(SqlSource):
    """A dataset folder seen through DuckDB, its messages as the view ``m``.

    Args:
        dataset: a :class:`~chatops.analytics.Dataset` or the path of its folder.
        memory_limit: DuckDB's own memory ceiling (it spills past it), e.g. ``"1GB"``.
    """

    engine = "duckdb"
    zone_data = "DuckDB's time-zone data"

    def __init__(self, dataset: Dataset | str | os.PathLike[str], memory_limit: str = "1GB"):
        import duckdb

        from ..dataset import Dataset

        super().__init__()
        self.dataset = dataset if isinstance(dataset, Dataset) else Dataset(dataset)
        self.manifest = self.dataset.manifest
        self.memory_limit = memory_limit
        files = [str(p) for p in self.dataset._files()]
        self.con: duckdb.DuckDBPyConnection = duckdb.connect(
            config={**settings(), "memory_limit": memory_limit}
        )
        # local times are computed with named zones; the session zone is fixed, not the machine's
        self.con.execute("SET TimeZone = 'UTC'")
        self._empty = not files
        if files:
            listed = ", ".join(_quote(f) for f in files)
            self.con.execute(f"CREATE VIEW m AS SELECT * FROM read_parquet([{listed}])")

    def close(self) -> None:
        self.con.close()

    def _org_table(self, name: str) -> pd.DataFrame | None:
        return self.dataset._org_table(name, name)

    def arrow(self, sql: str, params: list[Any] | None = None) -> pa.Table:
        rel = self.con.sql(sql, params=params or None)
        # to_arrow_table on DuckDB 1.4 and later; .arrow() before
        fetch = getattr(rel, "to_arrow_table", None) or rel.arrow
        table: pa.Table = fetch()
        return table

    def known_zones(self) -> frozenset[str]:
        """The zones of DuckDB's ICU data (read once per process)."""
        global _ZONES
        if _ZONES is None:
            rows = self.con.execute("SELECT name FROM pg_timezone_names()").fetchall()
            _ZONES = frozenset(str(r[0]) for r in rows)
        return _ZONES

    def load(self, name: str, table: pa.Table) -> None:
        self.con.register(name, table)

    def execute(self, sql: str) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = self.con.execute(sql).fetchall()
        return rows

    @contextmanager
    def pair_counting(self) -> Iterator[None]:
        """DuckDB counts groups of two numbers below 2,048 in its perfect hash aggregate (a cell
        per pair, memory fixed by the numbers, not the rows): :data:`PAIR_BITS` holds the two
        numbers' bits and a null bit each."""
        self.con.execute(f"SET perfect_ht_threshold = {PAIR_BITS}")
        try:
            yield
        finally:
            self.con.execute("RESET perfect_ht_threshold")

    @contextmanager
    def memory_at_most(self, limit: str) -> Iterator[None]:
        """DuckDB's memory limit lowered to ``limit`` (e.g. ``"512MB"``) inside the block, if
        the source's own is higher; the source's own again on leaving (DuckDB's ``RESET`` would
        go back to its default, not to the source's limit)."""
        lower = _memory_bytes(limit)
        if lower is None:
            raise ValueError(f"not a DuckDB memory size: {limit!r}")
        current = _memory_bytes(self.memory_limit)
        if current is not None and current <= lower:
            yield
            return
        self.con.execute(f"SET memory_limit = '{limit}'")
        try:
            yield
        finally:
            self.con.execute(f"SET memory_limit = '{self.memory_limit}'")


def open_duckdb(source: Any) -> DuckSource:
    """The dataset (a :class:`~chatops.analytics.Dataset` or its folder) read by DuckDB."""
    return DuckSource(source)
