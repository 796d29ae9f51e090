"""``GET /messages`` pages -> Arrow tables, with no Python dict per message in between.

A page is decoded by msgspec into small Structs holding only the fields the frames keep, and
the columns go straight into Arrow arrays; reactions, edit history, direct-message recipients and
topic links become list columns of the same row (one Parquet file holds a message whole).

The one decoder of messages: the dataset's sync, ``AnalyticsFrames.from_records`` (the raw pages
of ``iter_history``, or records converted to these Structs) and the export import all use it.
"""

from __future__ import annotations

import contextlib
import gc
import operator
from collections.abc import Iterator, Sequence, Sized
from itertools import chain
from typing import Any

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .schema import RESOLVED_PREFIX

__all__ = ["MESSAGE_SCHEMA", "Page", "decode_page", "page_table"]

_TS = pa.timestamp("s", tz="UTC")

REACTION_TYPE = pa.struct(
    [
        ("user_id", pa.int64()),
        ("emoji_name", pa.string()),
        ("emoji_code", pa.string()),
        ("reaction_type", pa.string()),
    ]
)
EDIT_TYPE = pa.struct(
    [
        ("timestamp", _TS),
        ("user_id", pa.int64()),
        ("kind", pa.string()),
        ("prev_topic", pa.string()),
        ("topic", pa.string()),
        ("prev_stream_id", pa.int64()),
        ("stream_id", pa.int64()),
    ]
)
LINK_TYPE = pa.struct([("text", pa.string()), ("url", pa.string())])

#: The columns of a message part file (``narrow`` is the hive partition, not a column).
MESSAGE_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("timestamp", _TS),
        ("type", pa.string()),
        ("stream_id", pa.int64()),
        ("channel", pa.string()),
        ("topic", pa.string()),
        ("sender_id", pa.int64()),
        ("sender", pa.string()),
        ("sender_email", pa.string()),
        ("client", pa.string()),
        ("content", pa.string()),
        ("content_length", pa.int64()),
        ("recipient_id", pa.int64()),
        ("last_edit_timestamp", _TS),
        ("last_moved_timestamp", _TS),
        ("dm_recipients", pa.list_(pa.int64())),
        ("reactions", pa.list_(REACTION_TYPE)),
        ("edits", pa.list_(EDIT_TYPE)),
        ("topic_links", pa.list_(LINK_TYPE)),
    ]
)


class _Reaction(msgspec.Struct, gc=False):
    emoji_name: str = ""
    emoji_code: str | None = ""
    reaction_type: str = "unicode_emoji"
    user_id: int | None = None


class _Edit(msgspec.Struct, gc=False):
    timestamp: int = 0
    user_id: int | None = None
    prev_topic: str | None = None
    prev_subject: str | None = None
    topic: str | None = None
    prev_stream: int | None = None
    stream: int | None = None


class _Recipient(msgspec.Struct, gc=False):
    id: int


class _Link(msgspec.Struct, gc=False):
    text: str = ""
    url: str = ""


class _Message(msgspec.Struct, gc=False):
    id: int
    sender_id: int = 0
    sender_email: str = ""
    sender_full_name: str = ""
    stream_id: int | None = None
    subject: str = ""
    display_recipient: str | list[_Recipient] = ""
    recipient_id: int | None = None
    content: str = ""
    client: str | None = ""
    timestamp: int = 0
    last_edit_timestamp: int | None = None
    last_moved_timestamp: int | None = None
    edit_history: list[_Edit] | None = None
    reactions: list[_Reaction] = []
    topic_links: list[_Link] = []


class Page(msgspec.Struct):
    """The parts of a ``GET /messages`` answer the frames read."""

    messages: list[_Message] = []
    found_newest: bool = False
    found_oldest: bool = False


_DECODER = msgspec.json.Decoder(Page)
_NO_STRING = pa.scalar(None, pa.string())
_RECIPIENT_ID = operator.attrgetter("id")


def decode_page(body: bytes) -> Page:
    """Decode a ``GET /messages`` body (raises ``msgspec.DecodeError`` on anything else).

    The cyclic garbage collector is paused meanwhile: a page allocates tens of thousands of
    lists and strings, none of them in a cycle, and the collections they would trigger more
    than double the time of a decode.
    """
    with _gc_paused():
        return _DECODER.decode(body)


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector (process-wide) while many acyclic objects are made."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _edit_kind(prev_topic: str | None, topic: str | None, prev_stream: int | None) -> str:
    if prev_stream is not None:
        return "move_channel"
    if prev_topic is not None:
        new = topic or ""
        if new.startswith(RESOLVED_PREFIX) and not prev_topic.startswith(RESOLVED_PREFIX):
            return "resolve"
        if prev_topic.startswith(RESOLVED_PREFIX) and not new.startswith(RESOLVED_PREFIX):
            return "unresolve"
        return "move_topic"
    return "edit"


def _offsets(lists: Sequence[Sized]) -> pa.Array:
    """The offsets of a list array whose lists have the lengths of ``lists``."""
    offsets = np.zeros(len(lists) + 1, np.int32)
    np.cumsum(np.fromiter(map(len, lists), np.int32, count=len(lists)), out=offsets[1:])
    return pa.array(offsets)


def _columns(structs: Sequence[msgspec.Struct], kind: type[msgspec.Struct]) -> dict[str, Any]:
    """Field name -> the values of ``structs`` (of type ``kind``) as a tuple, transposed in C."""
    names = kind.__struct_fields__
    if not structs:
        return dict.fromkeys(names, ())
    with _gc_paused():  # a tuple per struct: collections would more than double the time
        rows = list(map(msgspec.structs.astuple, structs))
        return dict(zip(names, zip(*rows, strict=True), strict=True))


def page_table(messages: list[_Message], *, content: bool = False) -> pa.Table:
    """The messages as a table of :data:`MESSAGE_SCHEMA` (``content`` kept only if asked).

    The fields are transposed into columns by ``zip`` over ``msgspec.structs.astuple`` (a
    comprehension per column costs several times more); what tells a channel message from a
    direct one (``stream_id`` present) is Arrow compute, and the nested lists walk only the
    messages that have entries.
    """
    with _gc_paused():  # tens of thousands of acyclic objects: see decode_page
        return _page_table(messages, content)


def _page_table(ms: list[_Message], content: bool) -> pa.Table:
    col = _columns(ms, _Message)
    recipients = col["display_recipient"]
    histories = [h or () for h in col["edit_history"]]
    reaction_lists, link_lists = col["reactions"], col["topic_links"]
    s = MESSAGE_SCHEMA
    stream_ids = pa.array(col["stream_id"], pa.int64())  # absent from direct messages
    is_channel = pc.is_valid(stream_ids)
    # the text's length in code points (Arrow's utf8_length): the text itself only if kept
    contents = pa.array(col["content"], pa.string()) if content else None
    lengths = np.fromiter(map(len, col["content"]), np.int64, count=len(ms))
    reacts = list(chain.from_iterable(reaction_lists))
    rc = _columns(reacts, _Reaction)
    reactions = pa.StructArray.from_arrays(
        [
            pa.array(rc["user_id"], pa.int64()),
            pa.array(rc["emoji_name"], pa.string()),
            pa.array(rc["emoji_code"], pa.string()),
            pa.array(rc["reaction_type"], pa.string()),
        ],
        fields=list(REACTION_TYPE),
    )
    eds = list(chain.from_iterable(histories))
    ec = _columns(eds, _Edit)
    prevs = [
        p if p is not None else q for p, q in zip(ec["prev_topic"], ec["prev_subject"], strict=True)
    ]
    edits = pa.StructArray.from_arrays(
        [
            pa.array(ec["timestamp"], pa.int64()).cast(_TS),
            pa.array(ec["user_id"], pa.int64()),
            pa.array(
                map(_edit_kind, prevs, ec["topic"], ec["prev_stream"]), pa.string(), size=len(eds)
            ),
            pa.array(prevs, pa.string()),
            pa.array(ec["topic"], pa.string()),
            pa.array(ec["prev_stream"], pa.int64()),
            pa.array(ec["stream"], pa.int64()),
        ],
        fields=list(EDIT_TYPE),
    )
    links_ = list(chain.from_iterable(link_lists))
    lc = _columns(links_, _Link)
    links = pa.StructArray.from_arrays(
        [pa.array(lc["text"], pa.string()), pa.array(lc["url"], pa.string())],
        fields=list(LINK_TYPE),
    )
    # a channel message's recipient is the channel's name, a direct message's its people
    dm_lists = [() if d.__class__ is str else d for d in recipients]
    dm_ids = list(map(_RECIPIENT_ID, chain.from_iterable(dm_lists)))
    columns = [
        pa.array(col["id"], pa.int64()),
        pa.array(col["timestamp"], pa.int64()).cast(_TS),
        pc.if_else(is_channel, "stream", "private"),
        stream_ids,
        pc.if_else(
            is_channel,
            pa.array([d if d.__class__ is str else "" for d in recipients], pa.string()),
            _NO_STRING,
        ),
        pc.if_else(is_channel, pa.array(col["subject"], pa.string()), _NO_STRING),
        pa.array(col["sender_id"], pa.int64()),
        pa.array(col["sender_full_name"], pa.string()),
        pa.array(col["sender_email"], pa.string()),
        pa.array(col["client"], pa.string()),
        contents if contents is not None else pa.nulls(len(ms), pa.string()),
        pa.array(lengths, pa.int64()),
        pa.array(col["recipient_id"], pa.int64()),
        pa.array(col["last_edit_timestamp"], pa.int64()).cast(_TS),
        pa.array(col["last_moved_timestamp"], pa.int64()).cast(_TS),
        pa.ListArray.from_arrays(
            _offsets(dm_lists), pa.array(dm_ids, pa.int64()), type=s.field("dm_recipients").type
        ),
        pa.ListArray.from_arrays(
            _offsets(reaction_lists), reactions, type=s.field("reactions").type
        ),
        pa.ListArray.from_arrays(_offsets(histories), edits, type=s.field("edits").type),
        pa.ListArray.from_arrays(_offsets(link_lists), links, type=s.field("topic_links").type),
    ]
    return pa.Table.from_arrays(columns, schema=s)
