"""``GET /messages`` pages -> Arrow tables, with no Python dict per message in between.

A page is decoded by msgspec into small Structs holding only the fields the dataset keeps, and
the columns go straight into Arrow arrays; reactions, edit history, direct-message recipients and
topic links become list columns of the same row (one Parquet file holds a message whole).
"""

from __future__ import annotations

from itertools import accumulate

import msgspec
import pyarrow as pa

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
    type: str = ""
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
    """The parts of a ``GET /messages`` answer the dataset reads."""

    messages: list[_Message] = []
    found_newest: bool = False
    found_oldest: bool = False


_DECODER = msgspec.json.Decoder(Page)


def decode_page(body: bytes) -> Page:
    """Decode a ``GET /messages`` body (raises ``msgspec.DecodeError`` on anything else)."""
    return _DECODER.decode(body)


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


def _offsets(lengths: list[int]) -> pa.Array:
    return pa.array([0, *accumulate(lengths)], pa.int32())


def page_table(messages: list[_Message], *, content: bool = False) -> pa.Table:
    """The messages as a table of :data:`MESSAGE_SCHEMA` (``content`` kept only if asked).

    Built column by column with comprehensions (a loop assigning a dozen lists per message
    costs several times more); the nested lists walk only the messages that have entries.
    """
    ms = messages
    channel = [isinstance(m.display_recipient, str) for m in ms]
    s = MESSAGE_SCHEMA
    re_lens = [len(m.reactions) for m in ms]
    reacts = [r for m in ms if m.reactions for r in m.reactions]
    reactions = pa.StructArray.from_arrays(
        [
            pa.array([r.user_id for r in reacts], pa.int64()),
            pa.array([r.emoji_name for r in reacts], pa.string()),
            pa.array([r.emoji_code for r in reacts], pa.string()),
            pa.array([r.reaction_type for r in reacts], pa.string()),
        ],
        fields=list(REACTION_TYPE),
    )
    ed_lens = [len(m.edit_history) if m.edit_history else 0 for m in ms]
    eds = [e for m in ms if m.edit_history for e in m.edit_history]
    prevs = [e.prev_topic if e.prev_topic is not None else e.prev_subject for e in eds]
    edits = pa.StructArray.from_arrays(
        [
            pa.array([e.timestamp for e in eds], pa.int64()).cast(_TS),
            pa.array([e.user_id for e in eds], pa.int64()),
            pa.array(
                [_edit_kind(p, e.topic, e.prev_stream) for p, e in zip(prevs, eds, strict=True)],
                pa.string(),
            ),
            pa.array(prevs, pa.string()),
            pa.array([e.topic for e in eds], pa.string()),
            pa.array([e.prev_stream for e in eds], pa.int64()),
            pa.array([e.stream for e in eds], pa.int64()),
        ],
        fields=list(EDIT_TYPE),
    )
    ln_lens = [len(m.topic_links) for m in ms]
    links_ = [x for m in ms if m.topic_links for x in m.topic_links]
    links = pa.StructArray.from_arrays(
        [
            pa.array([x.text for x in links_], pa.string()),
            pa.array([x.url for x in links_], pa.string()),
        ],
        fields=list(LINK_TYPE),
    )
    dm_lens = [0 if c else len(m.display_recipient) for c, m in zip(channel, ms, strict=True)]
    dm_ids = [
        r.id for m in ms if not isinstance(m.display_recipient, str) for r in m.display_recipient
    ]
    columns = [
        pa.array([m.id for m in ms], pa.int64()),
        pa.array([m.timestamp for m in ms], pa.int64()).cast(_TS),
        pa.array([m.type for m in ms], pa.string()),
        pa.array(
            [m.stream_id if c else None for c, m in zip(channel, ms, strict=True)], pa.int64()
        ),
        pa.array(
            [m.display_recipient if c else None for c, m in zip(channel, ms, strict=True)],
            pa.string(),
        ),
        pa.array([m.subject if c else None for c, m in zip(channel, ms, strict=True)], pa.string()),
        pa.array([m.sender_id for m in ms], pa.int64()),
        pa.array([m.sender_full_name for m in ms], pa.string()),
        pa.array([m.sender_email for m in ms], pa.string()),
        pa.array([m.client for m in ms], pa.string()),
        pa.array([m.content for m in ms] if content else [None] * len(ms), pa.string()),
        pa.array([len(m.content) for m in ms], pa.int64()),
        pa.array([m.recipient_id for m in ms], pa.int64()),
        pa.array([m.last_edit_timestamp for m in ms], pa.int64()).cast(_TS),
        pa.array([m.last_moved_timestamp for m in ms], pa.int64()).cast(_TS),
        pa.ListArray.from_arrays(
            _offsets(dm_lens), pa.array(dm_ids, pa.int64()), type=s.field("dm_recipients").type
        ),
        pa.ListArray.from_arrays(_offsets(re_lens), reactions, type=s.field("reactions").type),
        pa.ListArray.from_arrays(_offsets(ed_lens), edits, type=s.field("edits").type),
        pa.ListArray.from_arrays(_offsets(ln_lens), links, type=s.field("topic_links").type),
    ]
    return pa.Table.from_arrays(columns, schema=s)
