"""Each view's one SQL definition, over the kept messages as the view ``k``.

On every engine a view counts in SQL over ``k`` (the messages in the period, bots dropped
when asked) and gets back aggregates only (one row per day, person, channel, topic or cell of
its result), never one row per message; the view's pandas code finishes from those, so every
engine gives the same result. The small frames a call brings (the senders' zones, a user
group's members, presence) reach the SQL as tables (:meth:`Kept.load`).

The SQL is written once, in DuckDB's dialect, and run as it is by DuckDB, over the frames in
memory (:mod:`._memory`) or the dataset's folder (:mod:`._duck`); Spark runs its translation
by sqlglot (:mod:`._spark_sql`). A view reaches its engine only through :class:`Kept`, whose
``source`` is a :class:`~._source.SqlSource`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from .._common import TimeLike, bot_ids, check_period_and_bots, check_tz, utc
from ..localtime import SENDER, sender_zone_note, sender_zones
from ..schema import RESOLVED_PREFIX, validate

if TYPE_CHECKING:
    from ._source import SqlSource

__all__ = [
    "RESOLVED_SQL",
    "Kept",
    "arrow_of",
    "topic_name_sql",
    "in_list",
    "literal_time",
    "private_channel_ids",
    "sql_text",
    "tz_literal",
]


def literal_time(value: TimeLike) -> str:
    """A UTC time as a DuckDB ``TIMESTAMPTZ`` literal."""
    return f"TIMESTAMPTZ '{utc(value).isoformat()}'"


def tz_literal(tz: str) -> str:
    """A time-zone name as an SQL string (after :func:`check_tz`, so no quotes inside)."""
    return "'" + tz.replace("'", "''") + "'"


def sql_text(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


#: the resolved-topic prefix as an SQL string
RESOLVED_SQL = sql_text(RESOLVED_PREFIX)


def topic_name_sql() -> str:
    """The SQL of a message's topic name without the resolved prefix."""
    return (
        f"CASE WHEN starts_with(topic, {RESOLVED_SQL}) "
        f"THEN substr(topic, {len(RESOLVED_PREFIX) + 1}) ELSE topic END"
    )


def in_list(column: str, ids: Iterable[int]) -> str:
    """``column IN (ids)`` in SQL (``FALSE`` for no ids; NULL never matches)."""
    listed = ", ".join(str(int(i)) for i in ids)
    return f"coalesce({column} IN ({listed}), FALSE)" if listed else "FALSE"


def private_channel_ids(channels: pd.DataFrame) -> list[int]:
    """The ids of the invite-only channels (none when the frame does not say)."""
    if "invite_only" not in channels.columns:
        return []
    c = validate(channels, "channels")
    return sorted(int(s) for s in c.loc[c["invite_only"].fillna(False).astype(bool), "stream_id"])


def _readable(field: pa.Field) -> pa.Field:
    """A column as the engines read the dataset's: categories (the frames' text columns) as
    text, whatever their values, and UTC instants in µs."""
    if pa.types.is_dictionary(field.type):
        return pa.field(field.name, pa.string())
    if pa.types.is_timestamp(field.type):
        return pa.field(field.name, pa.timestamp("us", "UTC"))
    return field


def arrow_of(frame: pd.DataFrame) -> pa.Table:
    """``frame`` in Arrow as the engines read a dataset's columns (categories as text,
    instants in microseconds, UTC: a finer instant is cut to its microsecond, as the dataset
    stores it)."""
    table = pa.Table.from_pandas(pd.DataFrame(frame, copy=False), preserve_index=False)
    return table.cast(pa.schema([_readable(f) for f in table.schema]), safe=False)


class Kept:
    """The kept messages of one view call, as the temporary view ``k`` of the engine's source.

    Args:
        source: the open source (DuckDB's or Spark's).
        params: the view's arguments (``users`` already filled from the dataset).
    """

    def __init__(self, source: SqlSource, params: dict[str, Any]):
        self.source = source
        self.params = params
        since, until = params.get("since"), params.get("until")
        exclude_bots = bool(params.get("exclude_bots"))
        users = params.get("users")
        check_period_and_bots(users, since, until, exclude_bots)
        clauses = ["TRUE"]
        if since is not None:
            clauses.append(f"timestamp >= {literal_time(since)}")
        if until is not None:
            clauses.append(f"timestamp < {literal_time(until)}")
        self.bots = sorted(bot_ids(users))
        if exclude_bots and self.bots:
            clauses.append(f"sender_id NOT IN ({', '.join(str(b) for b in self.bots)})")
        self.where = " AND ".join(clauses)
        #: what ``k`` selects its rows from: the messages, with the senders' zones once asked
        self._rows = "SELECT * FROM m"
        self._define()
        self.attrs = source.coverage_attrs()

    def _define(self) -> None:
        self.execute(f"CREATE OR REPLACE TEMP VIEW k AS {self._rows} WHERE {self.where}")

    def load(self, name: str, frame: pd.DataFrame) -> None:
        """A small frame of the call (the senders' zones, a group's members, presence) as the
        table ``name`` of the view's SQL."""
        self.source.load(name, arrow_of(frame))

    def on_sender_clocks(self, users: pd.DataFrame | None, default_tz: str) -> str:
        """``k`` with each message's ``zone``: its sender's own (the users' ``timezone``), or
        ``default_tz`` for people without one, which :meth:`local` of ``"sender"`` reads.
        Returns the note saying how many senders have none."""
        self.zone(default_tz)
        known = self.source.known_zones()
        # a zone the engine does not know counts as none, as one this machine does not know
        zones = {uid: z for uid, z in sender_zones(users).items() if known is None or z in known}
        self.load(
            "zones",
            pd.DataFrame(
                {
                    "user_id": pd.array(list(zones), dtype="int64"),
                    "zone": pd.array(list(zones.values()), dtype="string"),
                }
            ),
        )
        self._rows = (
            f"SELECT m.*, coalesce(z.zone, {tz_literal(default_tz)}) AS zone, "
            "z.zone IS NULL AS zoneless FROM m LEFT JOIN zones AS z ON z.user_id = m.sender_id"
        )
        self._define()
        missing, senders = self.execute(
            "SELECT count(DISTINCT sender_id) FILTER (zoneless), count(DISTINCT sender_id) FROM k"
        )[0]
        return sender_zone_note(int(missing), int(senders), default_tz)

    def frame(self, sql: str) -> pd.DataFrame:
        """The result of ``sql`` as a pandas frame (text as ``string``, times in ns)."""
        table: pa.Table = self.source.arrow(sql)
        # times in nanoseconds, as the views' frames hold them
        fields = [
            pa.field(f.name, pa.timestamp("ns", f.type.tz)) if pa.types.is_timestamp(f.type) else f
            for f in table.schema
        ]
        table = table.cast(pa.schema(fields))
        # each column's Arrow memory freed as it is converted: a frame of millions of rows is
        # not held twice
        out: pd.DataFrame = table.to_pandas(
            types_mapper={pa.string(): pd.StringDtype(), pa.large_string(): pd.StringDtype()}.get,
            self_destruct=True,
            split_blocks=True,
        )
        # a column taken from Arrow without a copy is read-only: copied one at a time, so the
        # frame can be changed (by the view's finishing, or by whoever gets the result)
        for name, dtype in out.dtypes.items():
            if isinstance(dtype, np.dtype | pd.DatetimeTZDtype):
                out[name] = out[name].copy()
        return out

    @contextmanager
    def numbered(self, table: str, ids: str) -> Iterator[None]:
        """The ids of the SQL ``ids`` (a column ``id``) numbered 0 to n - 1 in their order, as
        the temporary table ``table`` (``id``, ``ix``), dropped on leaving.

        While inside, DuckDB counts groups of two such numbers in its perfect hash aggregate
        (a cell per pair, memory fixed by the numbers, not the rows) when both are below 2,048:
        :data:`PAIR_BITS` holds the two numbers' bits and a null bit each.
        """
        self.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT id, "
            f"(row_number() OVER (ORDER BY id) - 1)::INTEGER AS ix FROM ({ids})"
        )
        try:
            with self.source.pair_counting():
                yield
        finally:
            self.execute(f"DROP TABLE IF EXISTS {table}")

    @contextmanager
    def memory_at_most(self, limit: str) -> Iterator[None]:
        """The engine's memory for one statement bounded by ``limit`` (e.g. ``"512MB"``) inside
        the block, if the source's own is higher (:meth:`~._duck.DuckSource.memory_at_most`).

        For a statement that sorts or windows every message: past the limit the engine spills
        to disk, so the process's peak stays about the same whatever the history.
        """
        with self.source.memory_at_most(limit):
            yield

    def execute(self, sql: str) -> list[tuple[Any, ...]]:
        """Run ``sql`` (a statement or a query); its rows (none for a statement)."""
        return self.source.execute(sql)

    def scalar(self, sql: str) -> Any:
        """The first value of the first row of ``sql`` (None when no row)."""
        rows = self.execute(sql)
        return rows[0][0] if rows else None

    def coverage(self, coverage: str | None) -> str | None:
        """The coverage note, as :func:`~chatops.analytics._common.coverage_of` gives it."""
        if coverage is not None:
            return coverage
        note = self.attrs.get("coverage")
        return None if note is None else str(note)

    def window(self, period: Any, as_of: TimeLike | None, until: TimeLike | None) -> None:
        """Narrow ``k`` to ``(end - period, end]`` (``end``: ``as_of``, ``until`` or the last)."""
        if period is None:
            return
        end = self.end(as_of, until)
        start = end - period
        self.where += f" AND timestamp > {literal_time(start)} AND timestamp <= {literal_time(end)}"
        self._define()

    def end(self, as_of: TimeLike | None, until: TimeLike | None) -> pd.Timestamp:
        """``as_of``, else ``until``, else the last kept message's time (else now)."""
        if as_of is not None:
            return utc(as_of)
        if until is not None:
            return utc(until)
        last = self.scalar("SELECT max(timestamp) FROM k")
        return pd.Timestamp.now(tz="UTC") if last is None else utc(pd.Timestamp(last))

    def local(self, tz: str) -> str:
        """The SQL of a message's local (naive) time in ``tz`` (``"sender"``: on its sender's
        clock, after :meth:`on_sender_clocks`)."""
        if tz == SENDER:
            return "timezone(zone, timestamp)"
        return f"timezone({tz_literal(self.zone(tz))}, timestamp)"

    def zone(self, tz: str) -> str:
        """``tz`` checked (ValueError naming it) as this machine and the engine know it."""
        check_tz(tz)
        known = self.source.known_zones()
        if known is not None and tz not in known:
            raise ValueError(
                f"time zone {tz!r} is not in {self.source.zone_data} (older or newer than this "
                f"machine's), which engine={self.source.engine!r} reads: choose another zone"
            )
        return tz
