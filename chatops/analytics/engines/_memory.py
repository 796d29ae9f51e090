"""The ``engine="pandas"`` of the views: frames in memory, counted by the views' one SQL.

A view called with frames (the README's in-memory use) runs the same SQL as over a dataset's
folder (its ``sql`` in the registry), through an in-process DuckDB that reads the frames where
they are. The messages frame becomes the view ``m`` with the dataset's layout: the long frames
given (``reactions``, ``edits``, ``dm_recipients``) are gathered back into each message's
lists, in their rows' order; categorical columns are read as text. What comes back is
aggregates, finished by the view's pandas code as with the other engines.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..schema import validate
from ._duck import DuckSource, settings
from ._source import LIST_FIELDS, READ_COLUMNS, SqlSource
from ._sql import Kept, arrow_of

if TYPE_CHECKING:
    import duckdb

R = TypeVar("R")

__all__ = ["LISTS", "MemorySource", "in_memory"]

#: The message columns the views' SQL reads: a frame's own, and whether a message was moved.
_COLUMNS = (*READ_COLUMNS, "last_moved_timestamp", "is_moved")


def _bare(frame: Any) -> Any:
    """A frame without its ``attrs`` (which pandas would copy into every column taken from
    it), its columns shared; anything else as it is, for :func:`validate` to name."""
    return pd.DataFrame(frame, copy=False) if isinstance(frame, pd.DataFrame) else frame


def _unique_ids(ids: pd.Series) -> None:
    """ValueError naming repeated message ids: a reaction, edit or recipient is matched to
    one message by its id."""
    repeated = ids[ids.duplicated() & ids.notna()].unique()
    if len(repeated):
        shown = ", ".join(str(i) for i in repeated[:5]) + (", ..." if len(repeated) > 5 else "")
        raise ValueError(
            f"messages: {len(repeated)} message id(s) appear more than once ({shown}); the "
            "reactions, edits and dm_recipients frames are matched to messages by id, so each "
            "message must be one row"
        )


def _gathered(long: pd.DataFrame, name: str, fields: list[str]) -> pa.Table:
    """``message_id`` and the list ``name`` of each message in ``long``: its rows' ``fields``
    (a struct each; the ``user_id`` alone for ``dm_recipients``), in their rows' order."""
    table = arrow_of(long[["message_id", *fields]]).filter(pc.field("message_id").is_valid())
    # Arrow's sort is stable: a message's rows stay in their order
    table = table.take(pc.sort_indices(table, sort_keys=[("message_id", "ascending")]))
    ids = table["message_id"].to_numpy()
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]]) if len(ids) else np.array([], int)
    offsets = pa.array(np.r_[starts, len(ids)].astype(np.int32))
    if name == "dm_recipients":
        values: pa.Array = table["user_id"].combine_chunks()
    else:
        columns = [table[f].combine_chunks() for f in fields]
        values = pa.StructArray.from_arrays(columns, names=fields)
    lists = pa.ListArray.from_arrays(offsets, values)
    return pa.table({"message_id": pa.array(ids[starts], pa.int64()), name: lists})


#: one in-memory DuckDB database per process (made on first use); each source is a connection
#: of its own to it, whose temporary tables and registered frames are its own
_DATABASE: tuple[int, Any] | None = None
_DATABASE_LOCK = threading.Lock()


def _connection() -> duckdb.DuckDBPyConnection:
    """A new connection to the process's in-memory DuckDB (far cheaper than a new database)."""
    import duckdb

    global _DATABASE
    with _DATABASE_LOCK:
        if _DATABASE is None or _DATABASE[0] != os.getpid():
            _DATABASE = (os.getpid(), duckdb.connect(config=settings()))
        con: duckdb.DuckDBPyConnection = _DATABASE[1].cursor()
    return con


class MemorySource(DuckSource):
    """Frames in memory seen through DuckDB, with the messages as the view ``m``.

    Args:
        messages: the messages frame (checked as the views check it).
        lists: the long frames given (``reactions``, ``edits``, ``dm_recipients``); one not
            given is an empty list on every message.
    """

    engine = "pandas"

    def __init__(self, messages: pd.DataFrame, lists: dict[str, pd.DataFrame | None]):
        SqlSource.__init__(self)
        self.manifest = {}
        self._attrs = dict(messages.attrs)
        df = validate(_bare(messages), "messages")
        self.con = _connection()
        self.con.execute("SET TimeZone = 'UTC'")
        self.memory_limit = ""
        self._empty = False
        self.con.register("chatops_messages", arrow_of(df[list(_COLUMNS)]))
        # a frame built by hand may say a message was moved without saying when
        select = [
            "g.* EXCLUDE (is_moved, last_moved_timestamp)",
            "coalesce(g.last_moved_timestamp, CASE WHEN g.is_moved THEN g.timestamp END) "
            "AS last_moved_timestamp",
        ]
        joins = []
        if any(lists.get(name) is not None for name in LIST_FIELDS):
            _unique_ids(df["id"])
        for name, fields in LIST_FIELDS.items():
            frame = lists.get(name)
            if frame is None:
                struct = "BIGINT" if name == "dm_recipients" else f"STRUCT({_struct_type(fields)})"
                select.append(f"CAST([] AS {struct}[]) AS {name}")
                continue
            long = validate(_bare(frame), name)
            self.con.register(f"l_{name}", _gathered(long, name, list(dict(fields))))
            joins.append(f"LEFT JOIN l_{name} ON l_{name}.message_id = g.id")
            select.append(f"coalesce(l_{name}.{name}, []) AS {name}")
        self.con.execute(
            f"CREATE TEMP VIEW m AS SELECT {', '.join(select)} "
            f"FROM chatops_messages AS g {' '.join(joins)}"
        )

    @contextmanager
    def memory_at_most(self, limit: str) -> Iterator[None]:
        """As it is: the frames are in memory already, and DuckDB's limit is the process's
        database's, shared with the views other threads run."""
        yield

    def coverage_attrs(self) -> dict[str, Any]:
        """The frame's own ``coverage`` (what a dataset put in its ``attrs``)."""
        return {k: v for k, v in self._attrs.items() if k in ("coverage", "coverage_detail")}

    def _org_table(self, name: str) -> pd.DataFrame | None:
        return None


def _struct_type(fields: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{f} {t}" for f, t in fields)


#: The long frames a view may take, gathered into each message's lists for its SQL.
LISTS = tuple(LIST_FIELDS)


def in_memory(params: dict[str, Any], sql: Callable[[Kept, dict[str, Any]], R]) -> R:
    """A view's call (``params``: every argument but ``engine``) counted by its SQL over the
    frames in memory: ``messages`` and the long frames given (``reactions``, ``edits``,
    ``dm_recipients``), which its SQL then reads as each message's lists."""
    lists = {name: params.get(name) for name in LISTS}
    with MemorySource(params["messages"], lists) as src:
        given = {name: None if name in LISTS else value for name, value in params.items()}
        return sql(Kept(src, given), given)
