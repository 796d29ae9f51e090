"""What the engines share: the messages as the SQL view ``m``, and a view's call run over a
dataset.

:class:`SqlSource` is the messages seen through an SQL engine. Its subclasses open the engine
and run SQL (:class:`~._memory.MemorySource` over frames in memory and
:class:`~._duck.DuckSource` over a dataset's folder, with DuckDB; :class:`~._spark.SparkSource`
with Spark); everything else is written here once, in DuckDB's dialect: the kept messages of a
dataset as frames (for a call that brings a long frame of its own, and for V11, which has no
SQL), the long frames (reactions, edits, direct-message recipients), the categories, the
coverage.

Categorical columns get the categories the dataset's frames have (every value of the whole
dataset, in order of first appearance by message id): groupings on them come out in the same
order.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._common import bot_ids, utc
from ..coverage import coverage_from_manifest
from ..schema import validate

__all__ = ["LIST_FIELDS", "READ_COLUMNS", "TABLES", "SqlSource"]


#: The message columns the views read (the others stay on disk).
_MESSAGE_COLUMNS = ("id", "timestamp", "type", "stream_id", "channel", "topic", "sender_id")
_CATEGORIES = ("type", "channel", "topic", "sender", "client")
#: The message columns the views read as frames.
READ_COLUMNS = (*_MESSAGE_COLUMNS, "sender", "client")

#: Each long frame's list column: its fields, in the dataset's order, and their SQL types.
LIST_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
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

#: The organization's tables a view may take, filled in from the dataset when not given.
TABLES = ("users", "channels", "subscriptions", "user_groups")


class SqlSource:
    """A dataset folder seen through an SQL engine, with its messages as the view ``m``.

    A subclass opens the engine, creates ``m`` over the dataset's part files and sets
    ``manifest`` and ``_empty`` (no part file); it runs SQL through :meth:`arrow` and
    :meth:`execute`.
    """

    #: the engine's name, as ``engine=`` takes it
    engine = ""
    #: where the engine's zones come from, as an error names it
    zone_data = "the engine's time-zone data"
    manifest: dict[str, Any]
    _empty: bool

    def __init__(self) -> None:
        self._categories: dict[str, pd.Index] = {}
        self._tables: dict[str, pd.DataFrame | None] = {}

    # -- what a subclass provides

    def arrow(self, sql: str, params: list[Any] | None = None) -> pa.Table:
        """The result of the query ``sql`` (DuckDB's dialect, ``?`` for ``params``) in Arrow."""
        raise NotImplementedError

    def execute(self, sql: str) -> list[tuple[Any, ...]]:
        """Run ``sql`` (DuckDB's dialect); its rows (none for a statement)."""
        raise NotImplementedError

    def known_zones(self) -> frozenset[str] | None:
        """The time zones the engine knows by name (None: it does not say)."""
        return None

    def load(self, name: str, table: pa.Table) -> None:
        """``table`` (small: a frame of the call) as the table ``name`` of the SQL."""
        raise NotImplementedError

    def _org_table(self, name: str) -> pd.DataFrame | None:
        raise NotImplementedError

    @contextmanager
    def pair_counting(self) -> Iterator[None]:
        """Groups of two small numbers counted in a table with a cell per pair, if the engine
        can (:meth:`Kept.numbered`)."""
        yield

    @contextmanager
    def memory_at_most(self, limit: str) -> Iterator[None]:
        """The engine's memory bounded by ``limit`` inside the block, if it can be."""
        yield

    def close(self) -> None:
        """Let go of the engine."""

    def __enter__(self) -> SqlSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- small tables

    def table(self, name: str) -> pd.DataFrame | None:
        """``users``, ``channels``, ``subscriptions`` or ``user_groups`` (None when absent)."""
        if name not in self._tables:
            self._tables[name] = self._org_table(name)
        return self._tables[name]

    def categories(self, column: str, source: str = "m", order: str = "id") -> pd.Index:
        """Every value of ``column`` in order of first appearance (by ``order``)."""
        key = f"{source}.{column}"
        if key not in self._categories:
            t = self.arrow(
                f"SELECT {column} AS v FROM {source} WHERE {column} IS NOT NULL "
                f"GROUP BY {column} ORDER BY min({order})"
            )
            self._categories[key] = pd.Index(t["v"].to_pylist(), dtype="object")
        return self._categories[key]

    # -- the scan

    def where(
        self,
        since: Any = None,
        until: Any = None,
        exclude_bots: bool = False,
        users: pd.DataFrame | None = None,
    ) -> tuple[str, list[Any]]:
        """The WHERE clause (and its parameters) of the period and the bots."""
        clauses, params = ["TRUE"], []
        # the stored instants are whole microseconds: a bound finer than that is taken up to its
        # next microsecond, which keeps the same messages (and makes no lossy conversion)
        if since is not None:
            clauses.append("timestamp >= ?")
            params.append(utc(since).ceil("us").to_pydatetime())
        if until is not None:
            clauses.append("timestamp < ?")
            params.append(utc(until).ceil("us").to_pydatetime())
        if exclude_bots and users is not None:
            bots = sorted(bot_ids(users))
            if bots:
                clauses.append(f"sender_id NOT IN ({', '.join(str(b) for b in bots)})")
        return " AND ".join(clauses), params

    def _categorical(self, table: pa.Table, column: str, categories: pd.Index) -> pd.Categorical:
        col = table[column]
        encoded = pc.dictionary_encode(col.combine_chunks())
        values = encoded.dictionary
        position = pc.index_in(values, value_set=pa.array(list(categories), pa.string()))
        codes = pc.take(position, encoded.indices).fill_null(-1)
        return pd.Categorical.from_codes(codes.to_numpy(zero_copy_only=False), categories)

    def messages(self, where: str = "TRUE", params: list[Any] | None = None) -> pd.DataFrame:
        """The kept messages, in id order, with the columns the views read."""
        cols = list(READ_COLUMNS)
        if self._empty:
            return validate(pd.DataFrame({c: [] for c in cols}), "messages")
        t = self.arrow(
            f"SELECT {', '.join(cols)}, last_moved_timestamp IS NOT NULL AS is_moved "
            f"FROM m WHERE {where} ORDER BY id",
            params,
        )
        out: dict[str, Any] = {}
        for name in t.column_names:
            if name in _CATEGORIES:
                out[name] = self._categorical(t, name, self.categories(name))
            elif name == "timestamp":
                out[name] = pd.to_datetime(
                    t[name].to_numpy(zero_copy_only=False).astype("datetime64[ns]"), utc=True
                )
            elif name == "is_moved":
                out[name] = pd.array(t[name].to_numpy(zero_copy_only=False), dtype="boolean")
            else:
                out[name] = t[name].to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get)
        del t
        df = validate(pd.DataFrame(out, copy=False), "messages")
        df.attrs.update(self.coverage_attrs())
        return df

    def coverage_attrs(self) -> dict[str, Any]:
        """``coverage`` and ``coverage_detail``, as the dataset's frames carry them."""
        first = last = None
        if not self._empty:
            rows = self.execute("SELECT min(timestamp), max(timestamp) FROM m")
            row = rows[0] if rows else None
            if row is not None and row[0] is not None:
                first, last = pd.Timestamp(row[0]), pd.Timestamp(row[1])
        cov = coverage_from_manifest(self.manifest, first=first, last=last)
        return {"coverage": cov.note(), "coverage_detail": cov, "viewpoint": cov.viewpoint}

    def _unnested(self, column: str, fields: list[str], where: str, params: list[Any]) -> pa.Table:
        select = ", ".join(f"e.{f} AS {f}" for f in fields)
        return self.arrow(
            f"SELECT id AS message_id, {select} FROM ("
            f"  SELECT id, unnest({column}) AS e, generate_subscripts({column}, 1) AS pos"
            f"  FROM m WHERE {where} AND array_length({column}) > 0"
            f") ORDER BY id, pos",
            params,
        )

    def _flat_view(self, column: str, fields: list[str]) -> str:
        name = f"flat_{column}"
        select = ", ".join(f"e.{f} AS {f}" for f in fields)
        self.execute(
            f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT id * 100000 + pos AS o, {select} FROM ("
            f"  SELECT id, unnest({column}) AS e, generate_subscripts({column}, 1) AS pos"
            f"  FROM m WHERE array_length({column}) > 0)"
        )
        return name

    def long_frame(
        self, kind: str, where: str = "TRUE", params: list[Any] | None = None
    ) -> pd.DataFrame:
        """``reactions``, ``edits`` or ``dm_recipients`` of the kept messages."""
        if self._empty:
            return validate(pd.DataFrame({"message_id": [], "user_id": []}), kind)
        params = params or []
        if kind == "dm_recipients":
            t = self.arrow(
                "SELECT id AS message_id, unnest(dm_recipients) AS user_id FROM m "
                f"WHERE {where} AND array_length(dm_recipients) > 0 ORDER BY id",
                params,
            )
            return validate(t.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get), kind)
        if kind not in LIST_FIELDS:
            raise ValueError(f"unknown long frame {kind!r}; choose reactions, edits, dm_recipients")
        fields = [f for f, _ in LIST_FIELDS[kind]]
        cats = ["kind"] if kind == "edits" else ["emoji_name", "emoji_code", "reaction_type"]
        t = self._unnested(kind, fields, where, params)
        flat = self._flat_view(kind, [c for c in cats])
        out: dict[str, Any] = {}
        for name in t.column_names:
            if name in cats:
                out[name] = self._categorical(t, name, self.categories(name, flat, "o"))
            elif name == "timestamp":
                out[name] = pd.to_datetime(
                    t[name].to_numpy(zero_copy_only=False).astype("datetime64[ns]"), utc=True
                )
            else:
                out[name] = t[name].to_pandas(
                    types_mapper={pa.int64(): pd.Int64Dtype(), pa.string(): pd.StringDtype()}.get
                )
        return validate(pd.DataFrame(out, copy=False), kind)
