"""``GET /messages`` pages -> Arrow tables, with no Python object per message field in between.

The one decoder of messages: the dataset's sync, ``AnalyticsFrames.from_records`` (the raw pages
of ``iter_history``, or records) and the export import all use it.

A page is read twice, each time by a parser in C:

- msgspec reads what a walk over history needs (each message's ``id``; ``found_oldest`` and
  ``found_newest``) and the one field Arrow cannot type, ``display_recipient`` (a channel's name
  or a list of people): :func:`decode_page`, a few milliseconds a page;
- Arrow's JSON reader reads the rest straight into columns (:func:`page_table`). It releases the
  GIL, so pages are turned into tables in threads, in parallel with each other and with the
  requests for the next pages.

Reactions, edit history, direct-message recipients and topic links become list columns of the
same row (one Parquet file holds a message whole). Records (``Message`` objects or API dicts)
are validated into the page's message type and written as a page (:func:`records_table`), so
they take the same path.
"""

from __future__ import annotations

import contextlib
import gc
import operator
from collections.abc import Iterator, Sequence, Sized
from dataclasses import dataclass
from itertools import chain

import msgspec
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj

from ..schema import RESOLVED_PREFIX

__all__ = [
    "MESSAGE_SCHEMA",
    "Page",
    "decode_page",
    "message_records",
    "page_table",
    "records_table",
]

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
    """A message as the frames read it: records are validated into this, then written as a page."""

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


class _Head(msgspec.Struct, gc=False):
    """What msgspec reads of a message: its id, and its recipient (a name or people)."""

    id: int
    display_recipient: str | list[_Recipient] = ""


class _Envelope(msgspec.Struct):
    messages: list[_Head] = []
    found_newest: bool = False
    found_oldest: bool = False


class _Records(msgspec.Struct):
    messages: list[_Message] = []


@dataclass(frozen=True, slots=True, repr=False)
class Page:
    """A ``GET /messages`` answer: its messages' ids (``messages``, in the answer's order, each
    with an ``id``), whether history ends either way, and the body :func:`page_table` reads."""

    body: bytes
    messages: list[_Head]
    found_oldest: bool
    found_newest: bool

    def __repr__(self) -> str:
        return f"Page({len(self.messages)} messages, {len(self.body):,} bytes)"


_HEADS = msgspec.json.Decoder(_Envelope)
_RECORDS = msgspec.json.Decoder(_Records)
_ENCODER = msgspec.json.Encoder()
_NO_STRING = pa.scalar(None, pa.string())
_RECIPIENT = operator.attrgetter("display_recipient")
_RECIPIENT_ID = operator.attrgetter("id")

_I, _S = pa.int64(), pa.string()
# what Arrow's reader reads of a message, as the API names it (display_recipient is msgspec's)
_WIRE_EDIT = pa.struct(
    [
        ("timestamp", _I),
        ("user_id", _I),
        ("prev_topic", _S),
        ("prev_subject", _S),
        ("topic", _S),
        ("prev_stream", _I),
        ("stream", _I),
    ]
)
_WIRE_MESSAGE = pa.struct(
    [
        ("id", _I),
        ("sender_id", _I),
        ("sender_email", _S),
        ("sender_full_name", _S),
        ("stream_id", _I),
        ("subject", _S),
        ("recipient_id", _I),
        ("content", _S),
        ("client", _S),
        ("timestamp", _I),
        ("last_edit_timestamp", _I),
        ("last_moved_timestamp", _I),
        ("edit_history", pa.list_(_WIRE_EDIT)),
        ("reactions", pa.list_(REACTION_TYPE)),
        ("topic_links", pa.list_(LINK_TYPE)),
    ]
)
_PARSE = pj.ParseOptions(
    explicit_schema=pa.schema([("messages", pa.list_(_WIRE_MESSAGE))]),
    unexpected_field_behavior="ignore",
)


def decode_page(body: bytes) -> Page:
    """Read a ``GET /messages`` body's ids and ends (raises ``msgspec.DecodeError`` on anything
    else); the columns are read from ``body`` by :func:`page_table`.

    The cyclic garbage collector is paused meanwhile: a page allocates thousands of small
    objects, none of them in a cycle, and the collections they would trigger cost more than
    the decoding.
    """
    with _gc_paused():
        env = _HEADS.decode(body)
    return Page(body, env.messages, env.found_oldest, env.found_newest)


def message_records(page: Page, keep: Sequence[_Head] | None = None) -> list[_Message]:
    """The page's messages (those of ``keep`` if given) as records, for the few that a sync
    looks up by id and files one by one."""
    records = _records(page.body)
    if keep is None:
        return records
    wanted = {h.id for h in keep}
    return [m for m in records if m.id in wanted]


def _records(body: bytes) -> list[_Message]:
    """Every message of a page body, validated by msgspec (which names a wrong value)."""
    with _gc_paused():
        return _RECORDS.decode(body).messages


def records_table(records: list[_Message], *, content: bool = False) -> pa.Table:
    """Validated records as a table of :data:`MESSAGE_SCHEMA`, through the page decoder."""
    return page_table(decode_page(_ENCODER.encode(_Records(records))), content=content)


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


def _offsets(lists: Sequence[Sized]) -> pa.Array:
    """The offsets of a list array whose lists have the lengths of ``lists``."""
    offsets = np.zeros(len(lists) + 1, np.int32)
    np.cumsum(np.fromiter(map(len, lists), np.int32, count=len(lists)), out=offsets[1:])
    return pa.array(offsets)


def _wire(body: bytes) -> pa.StructArray:
    """The page's messages as Arrow reads them (one struct per message, API field names).

    The body is read as one line of JSON lines: outside strings a newline is only whitespace,
    and inside them JSON has it escaped, so a pretty-printed body reads the same flattened.
    """
    if b"\n" in body or b"\r" in body:
        body = body.replace(b"\n", b" ").replace(b"\r", b" ")
    read = pj.ReadOptions(use_threads=False, block_size=len(body) + 64)
    table = pj.read_json(pa.BufferReader(body), read_options=read, parse_options=_PARSE)
    messages = table.column("messages").combine_chunks()
    return messages.flatten() if len(messages) else pa.array([], _WIRE_MESSAGE)


def _read(page: Page) -> pa.StructArray:
    """:func:`_wire`, or, when Arrow refuses a value msgspec would take (or fails on one that
    is wrong), the page validated by msgspec (which names what is wrong) and written again."""
    try:
        wire = _wire(page.body)
        if pc.struct_field(wire, "id").null_count == 0 and len(wire) == len(page.messages):
            return wire
    except pa.ArrowInvalid:
        pass
    return _wire(_ENCODER.encode(_Records(_records(page.body))))


def _no_null_lists(lists: pa.ListArray) -> pa.ListArray:
    """An absent list (``edit_history`` of a message never edited) as an empty one."""
    if lists.null_count == 0:
        return lists
    return pa.ListArray.from_arrays(lists.offsets, lists.values)


def _edits(history: pa.ListArray) -> pa.Array:
    """The edit-history entries as :data:`EDIT_TYPE`, each with what it did (``kind``)."""
    e = dict(zip([f.name for f in _WIRE_EDIT], history.values.flatten(), strict=True))
    prev = pc.coalesce(e["prev_topic"], e["prev_subject"])
    new = pc.coalesce(e["topic"], "")
    resolved_now = pc.starts_with(new, RESOLVED_PREFIX)
    resolved_before = pc.starts_with(prev, RESOLVED_PREFIX)  # null when no topic changed
    kind = pc.case_when(
        pc.make_struct(
            pc.is_valid(e["prev_stream"]),
            pc.and_(resolved_now, pc.invert(resolved_before)),
            pc.and_(resolved_before, pc.invert(resolved_now)),
            pc.is_valid(prev),
        ),
        "move_channel",
        "resolve",
        "unresolve",
        "move_topic",
        "edit",
    )
    return pa.StructArray.from_arrays(
        [
            pc.fill_null(e["timestamp"], 0).cast(_TS),
            e["user_id"],
            kind,
            prev,
            e["topic"],
            e["prev_stream"],
            e["stream"],
        ],
        fields=list(EDIT_TYPE),
    )


def page_table(
    page: Page, keep: Sequence[_Head] | None = None, *, content: bool = False
) -> pa.Table:
    """The page's messages (those of ``keep``, a part of ``page.messages``, if given) as a table
    of :data:`MESSAGE_SCHEMA` in id order (``content`` kept only if asked).

    Safe to call from several threads at once: Arrow reads the body without the GIL.
    """
    wire = _read(page)
    heads = page.messages
    if keep is not None and len(keep) != len(heads):
        wanted = {h.id for h in keep}
        mask = [h.id in wanted for h in heads]
        wire = wire.filter(pa.array(mask, pa.bool_()))
        heads = [h for h, m in zip(heads, mask, strict=True) if m]
    ids = pc.struct_field(wire, "id")
    if len(ids) > 1 and not pc.all(pc.greater(ids[1:], ids[:-1])).as_py():
        order = pc.sort_indices(ids)
        wire = wire.take(order)
        heads = [heads[i] for i in order.to_pylist()]
    return _table(wire, heads, content)


def _table(wire: pa.StructArray, heads: list[_Head], content: bool) -> pa.Table:
    f = dict(zip([x.name for x in _WIRE_MESSAGE], wire.flatten(), strict=True))
    s = MESSAGE_SCHEMA
    stream_ids = f["stream_id"]  # absent from direct messages
    is_channel = pc.is_valid(stream_ids)
    # a channel message's recipient is the channel's name, a direct message's its people
    recipients = list(map(_RECIPIENT, heads))
    dm_lists = [() if d.__class__ is str else d for d in recipients]
    dm_ids = list(map(_RECIPIENT_ID, chain.from_iterable(dm_lists)))
    texts = pc.fill_null(f["content"], "")
    history = _no_null_lists(f["edit_history"])
    reactions = _no_null_lists(f["reactions"])
    r = dict(zip([x.name for x in REACTION_TYPE], reactions.values.flatten(), strict=True))
    reaction_values = pa.StructArray.from_arrays(
        [
            r["user_id"],
            pc.fill_null(r["emoji_name"], ""),
            r["emoji_code"],
            pc.fill_null(r["reaction_type"], "unicode_emoji"),
        ],
        fields=list(REACTION_TYPE),
    )
    links = _no_null_lists(f["topic_links"])
    lk = dict(zip([x.name for x in LINK_TYPE], links.values.flatten(), strict=True))
    link_values = pa.StructArray.from_arrays(
        [pc.fill_null(lk["text"], ""), pc.fill_null(lk["url"], "")], fields=list(LINK_TYPE)
    )
    columns = [
        f["id"],
        pc.fill_null(f["timestamp"], 0).cast(_TS),
        pc.if_else(is_channel, "stream", "private"),
        stream_ids,
        pc.if_else(
            is_channel,
            pa.array([d if d.__class__ is str else "" for d in recipients], pa.string()),
            _NO_STRING,
        ),
        pc.if_else(is_channel, pc.fill_null(f["subject"], ""), _NO_STRING),
        pc.fill_null(f["sender_id"], 0),
        pc.fill_null(f["sender_full_name"], ""),
        pc.fill_null(f["sender_email"], ""),
        f["client"],
        texts if content else pa.nulls(len(wire), pa.string()),
        pc.utf8_length(texts).cast(pa.int64()),  # in code points, as Python's len
        f["recipient_id"],
        f["last_edit_timestamp"].cast(_TS),
        f["last_moved_timestamp"].cast(_TS),
        pa.ListArray.from_arrays(
            _offsets(dm_lists), pa.array(dm_ids, pa.int64()), type=s.field("dm_recipients").type
        ),
        pa.ListArray.from_arrays(
            reactions.offsets, reaction_values, type=s.field("reactions").type
        ),
        pa.ListArray.from_arrays(history.offsets, _edits(history), type=s.field("edits").type),
        pa.ListArray.from_arrays(links.offsets, link_values, type=s.field("topic_links").type),
    ]
    return pa.Table.from_arrays(columns, schema=s)
