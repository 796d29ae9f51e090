"""The ``engine="pandas"`` of the views: frames in memory, counted by the views' one SQL.

A view called with frames (the README's in-memory use) runs the same SQL as over a dataset's
folder (its ``sql`` in the registry), through an in-process DuckDB that reads the frames where
they are. The messages frame becomes the view ``m`` with the dataset's layout: the long frames
given (``reactions``, ``edits``, ``dm_recipients``) are gathered back into each message's
lists, in their rows' order; categorical columns are read as text. What comes back is
aggregates, finished by the view's pandas code as with the other engines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa

from ..schema import validate
from ._duck import DuckSource
from ._source import SqlSource
from ._sql import Kept, arrow_of

R = TypeVar("R")

__all__ = ["LISTS", "MemorySource", "in_memory"]

#: The message columns the views' SQL reads.
_COLUMNS = (
    "id",
    "timestamp",
    "type",
    "stream_id",
    "channel",
    "topic",
    "sender_id",
    "sender",
    "client",
    "last_moved_timestamp",
    "is_moved",
)

#: Each long frame's list column: its fields, in the dataset's order, and their SQL types.
_LISTS: dict[str, tuple[tuple[str, str], ...]] = {
    "dm_recipients": (("user_id", "BIGINT"),),
    "reactions": (
        ("user_id", "BIGINT"),
        ("emoji_name", "VARCHAR"),
        ("emoji_code", "VARCHAR"),
        ("reaction_type", "VARCHAR"),
    ),
    "edits": (
        ("timestamp", "TIMESTAMPTZ"),
        ("user_id", "BIGINT"),
        ("kind", "VARCHAR"),
        ("prev_topic", "VARCHAR"),
        ("topic", "VARCHAR"),
        ("prev_stream_id", "BIGINT"),
        ("stream_id", "BIGINT"),
    ),
}


def _arrow(frame: pd.DataFrame, columns: list[str]) -> pa.Table:
    """``columns`` of ``frame`` as the engines read a dataset's, plus its row order."""
    table = arrow_of(frame[columns])
    return table.append_column("row_", pa.array(np.arange(len(frame), dtype=np.int64)))


class MemorySource(DuckSource):
    """Frames in memory seen through DuckDB, with the messages as the view ``m``.

    Args:
        messages: the messages frame (checked as the views check it).
        lists: the long frames given (``reactions``, ``edits``, ``dm_recipients``); one not
            given is an empty list on every message.
    """

    engine = "pandas"

    def __init__(self, messages: pd.DataFrame, lists: dict[str, pd.DataFrame | None]):
        import duckdb

        SqlSource.__init__(self)
        self.manifest = {}
        self._attrs = dict(messages.attrs)
        df = validate(pd.DataFrame(messages, copy=False), "messages")
        self.con: duckdb.DuckDBPyConnection = duckdb.connect()
        self.con.execute("SET TimeZone = 'UTC'")
        self.memory_limit = str(
            self.con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
        )
        self._empty = False
        self.con.register("chatops_messages", _arrow(df, list(_COLUMNS)))
        # a frame built by hand may say a message was moved without saying when
        select = [
            "g.* EXCLUDE (row_, is_moved, last_moved_timestamp)",
            "coalesce(g.last_moved_timestamp, CASE WHEN g.is_moved THEN g.timestamp END) "
            "AS last_moved_timestamp",
        ]
        joins = []
        for name, fields in _LISTS.items():
            frame = lists.get(name)
            if frame is None:
                struct = "BIGINT" if name == "dm_recipients" else f"STRUCT({_struct_type(fields)})"
                select.append(f"CAST([] AS {struct}[]) AS {name}")
                continue
            long = validate(pd.DataFrame(frame, copy=False), name)
            self.con.register(f"chatops_{name}", _arrow(long, ["message_id", *dict(fields)]))
            item = (
                "user_id"
                if name == "dm_recipients"
                else "{" + ", ".join(f"'{f}': {f}" for f, _ in fields) + "}"
            )
            joins.append(
                f"LEFT JOIN (SELECT message_id, list({item} ORDER BY row_) AS {name} "
                f"FROM chatops_{name} GROUP BY message_id) AS l_{name} "
                f"ON l_{name}.message_id = g.id"
            )
            select.append(f"coalesce(l_{name}.{name}, []) AS {name}")
        self.con.execute(
            f"CREATE TEMP VIEW m AS SELECT {', '.join(select)} "
            f"FROM chatops_messages AS g {' '.join(joins)}"
        )

    def coverage_attrs(self) -> dict[str, Any]:
        """The frame's own ``coverage`` (what a dataset put in its ``attrs``)."""
        return {k: v for k, v in self._attrs.items() if k in ("coverage", "coverage_detail")}

    def _org_table(self, name: str) -> pd.DataFrame | None:
        return None


def _struct_type(fields: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{f} {t}" for f, t in fields)


#: The long frames a view may take, gathered into each message's lists for its SQL.
LISTS = tuple(_LISTS)


def in_memory(params: dict[str, Any], sql: Callable[[Kept, dict[str, Any]], R]) -> R:
    """A view's call (``params``: every argument but ``engine``) counted by its SQL over the
    frames in memory: ``messages`` and the long frames given (``reactions``, ``edits``,
    ``dm_recipients``), which its SQL then reads as each message's lists."""
    lists = {name: params.get(name) for name in LISTS}
    with MemorySource(params["messages"], lists) as src:
        given = {name: None if name in LISTS else value for name, value in params.items()}
        return sql(Kept(src, given), given)
