"""Arrow tables of :data:`~._pages.MESSAGE_SCHEMA` -> the analytics frames.

The one way messages become frames: the dataset reads its Parquet files into such a table, and
:meth:`~chatops.analytics.AnalyticsFrames.from_records` decodes pages (or records) into one with
the same page decoder, so both give equal frames for the same messages.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..schema import RESOLVED_PREFIX, validate

__all__ = [
    "CATEGORICAL",
    "dm_recipients_from_table",
    "edits_from_table",
    "frames_from_table",
    "messages_from_table",
    "reactions_from_table",
    "topic_links_from_table",
    "topics_frame",
]

#: The message columns the frames make categorical (read dictionary-encoded from the files).
CATEGORICAL = ("type", "channel", "topic", "sender", "sender_email", "client")

_TYPES = {pa.int64(): pd.Int64Dtype(), pa.bool_(): pd.BooleanDtype(), pa.string(): pd.StringDtype()}
_MESSAGE_COLUMNS = (
    "id",
    "timestamp",
    "type",
    "stream_id",
    "channel",
    "topic",
    "sender_id",
    "sender",
    "sender_email",
    "client",
    "content_length",
    "recipient_id",
    "last_edit_timestamp",
    "last_moved_timestamp",
    "content",
)


def _first_seen(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """``column`` dictionary-encoded with its values in order of first appearance.

    That is the order ``dictionary_encode`` gives a plain string column, so the categories of a
    frame do not depend on how its rows were spread over files (nor on which files a re-sync
    rewrote); values no row uses are dropped.
    """
    if not pa.types.is_dictionary(column.type):
        return pc.dictionary_encode(column)
    if isinstance(column, pa.ChunkedArray):
        column = column.unify_dictionaries().combine_chunks()
    used = pc.unique(column.indices).drop_null()
    position = np.zeros(len(column.dictionary), np.int32)  # unused values: never looked up
    position[used.to_numpy()] = np.arange(len(used), dtype=np.int32)
    codes = pc.take(pa.array(position), column.indices)
    return pa.DictionaryArray.from_arrays(codes, column.dictionary.take(used))


def _pandas(table: pa.Table, categorical: tuple[str, ...] = ()) -> pd.DataFrame:
    cols = {}
    for name in table.column_names:
        col = table[name]
        if name in categorical:
            col = _first_seen(col)
        cols[name] = col
    df: pd.DataFrame = pa.table(cols).to_pandas(
        types_mapper=_TYPES.get, coerce_temporal_nanoseconds=True, split_blocks=True
    )
    return df


def _flatten(table: pa.Table, column: str) -> tuple[pa.Array, pa.Table]:
    """The message ids and the rows of a list column, one per element."""
    lists = table[column].combine_chunks()
    parents = pc.list_parent_indices(lists)
    ids = table["id"].combine_chunks().take(parents)
    flat = pc.list_flatten(lists)
    if isinstance(flat, pa.ChunkedArray):
        flat = flat.combine_chunks()
    children = {f.name: flat.field(i) for i, f in enumerate(flat.type)}
    return ids, pa.table(children)


def messages_from_table(table: pa.Table) -> pd.DataFrame:
    """The ``messages`` frame of a table of :data:`MESSAGE_SCHEMA` (in its row order)."""
    base = table.select([c for c in _MESSAGE_COLUMNS if c in table.column_names])
    base = base.append_column("is_edited", pc.is_valid(table["last_edit_timestamp"]))
    base = base.append_column("is_moved", pc.is_valid(table["last_moved_timestamp"]))
    base = base.append_column(
        "reaction_count", pc.cast(pc.list_value_length(table["reactions"]), pa.int64())
    )
    return validate(_pandas(base, CATEGORICAL), "messages")


def reactions_from_table(table: pa.Table) -> pd.DataFrame:
    """The ``reactions`` frame: one row per element of the ``reactions`` lists."""
    ids, r = _flatten(table, "reactions")
    return validate(
        _pandas(r.add_column(0, "message_id", ids), ("emoji_name", "emoji_code", "reaction_type")),
        "reactions",
    )


def edits_from_table(table: pa.Table) -> pd.DataFrame:
    """The ``edits`` frame: one row per element of the ``edits`` lists."""
    ids, e = _flatten(table, "edits")
    return validate(_pandas(e.add_column(0, "message_id", ids), ("kind",)), "edits")


def dm_recipients_from_table(table: pa.Table) -> pd.DataFrame:
    """The ``dm_recipients`` frame: one row per element of the ``dm_recipients`` lists."""
    lists = table["dm_recipients"].combine_chunks()
    dm = pa.table(
        {
            "message_id": table["id"].combine_chunks().take(pc.list_parent_indices(lists)),
            "user_id": pc.list_flatten(lists),
        }
    )
    return validate(_pandas(dm), "dm_recipients")


def topic_links_from_table(table: pa.Table) -> pd.DataFrame:
    """The ``topic_links`` frame: one row per element of the ``topic_links`` lists."""
    ids, ln = _flatten(table, "topic_links")
    return validate(_pandas(ln.add_column(0, "message_id", ids)), "topic_links")


def frames_from_table(table: pa.Table) -> dict[str, Any]:
    """Every message-derived frame of ``table``, by the name of its ``AnalyticsFrames`` field."""
    messages = messages_from_table(table)
    return {
        "messages": messages,
        "reactions": reactions_from_table(table),
        "edits": edits_from_table(table),
        "dm_recipients": dm_recipients_from_table(table),
        "topics": topics_frame(messages),
        "topic_links": topic_links_from_table(table),
    }


def topics_frame(messages: pd.DataFrame) -> pd.DataFrame:
    """One row per (channel, topic) of a messages frame: size, span, senders, resolved.

    Rows in the order of ``stream_id``, then of the ``topic`` categories; grouped by Arrow on
    the categories' codes (a pandas ``groupby`` over two keys costs several times more).
    """
    m = messages[messages["stream_id"].notna()]
    if m.empty:
        return validate(pd.DataFrame(columns=["stream_id", "channel", "topic"]), "topics")
    topic = m["topic"].astype("category")
    channel = m["channel"].astype("category")
    stamps = m["timestamp"].astype("datetime64[ns, UTC]")
    keyed = pa.table(
        {
            "stream_id": pa.array(m["stream_id"].to_numpy("int64")),
            "topic": pa.array(topic.cat.codes.to_numpy("int32")),
            "channel": pa.array(channel.cat.codes.to_numpy("int32")),
            "id": pa.array(m["id"].to_numpy("int64")),
            "sender_id": pa.array(m["sender_id"].to_numpy("int64", na_value=-1)),
            "timestamp": pa.array(stamps.to_numpy("int64")),
        }
    )
    g = keyed.group_by(["stream_id", "topic"], use_threads=False).aggregate(
        [
            ("channel", "first"),
            ("id", "count"),
            ("sender_id", "count_distinct"),
            ("id", "min"),
            ("id", "max"),
            ("timestamp", "min"),
            ("timestamp", "max"),
        ]
    )
    g = g.take(pc.sort_indices(g, [("stream_id", "ascending"), ("topic", "ascending")]))

    def ints(name: str) -> pd.Series:
        return pd.Series(g[name].to_numpy(), dtype="Int64")

    def times(name: str) -> pd.Series:
        return pd.Series(pd.to_datetime(g[name].to_numpy(), utc=True))

    topics = pd.Categorical.from_codes(g["topic"].to_numpy(), categories=topic.cat.categories)
    out = pd.DataFrame(
        {
            "stream_id": ints("stream_id"),
            "channel": pd.Categorical.from_codes(
                g["channel_first"].to_numpy(), categories=channel.cat.categories
            ),
            "topic": topics,
            "messages": ints("id_count"),
            "senders": ints("sender_id_count_distinct"),
            "first_message_id": ints("id_min"),
            "last_message_id": ints("id_max"),
            "first_timestamp": times("timestamp_min"),
            "last_timestamp": times("timestamp_max"),
        }
    )
    out["resolved"] = out["topic"].astype("string").str.startswith(RESOLVED_PREFIX)
    return validate(out, "topics")
