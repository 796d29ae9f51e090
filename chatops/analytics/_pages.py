"""``GET /messages`` pages -> Arrow tables, with no Python dict per message in between.

A page is decoded by msgspec into small Structs holding only the fields the dataset keeps, and
the columns go straight into Arrow arrays; reactions, edit history, direct-message recipients and
topic links become list columns of the same row (one Parquet file holds a message whole).
"""

from __future__ import annotations

from typing import Any

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


class _Reaction(msgspec.Struct):
    emoji_name: str = ""
    emoji_code: str = ""
    reaction_type: str = "unicode_emoji"
    user_id: int | None = None


class _Edit(msgspec.Struct):
    timestamp: int = 0
    user_id: int | None = None
    prev_topic: str | None = None
    prev_subject: str | None = None
    topic: str | None = None
    prev_stream: int | None = None
    stream: int | None = None


class _Recipient(msgspec.Struct):
    id: int


class _Link(msgspec.Struct):
    text: str = ""
    url: str = ""


class _Message(msgspec.Struct):
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
    client: str = ""
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


def _list_array(offsets: list[int], children: pa.Array, type_: pa.DataType) -> pa.Array:
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), children, type=type_)


def page_table(messages: list[_Message], *, content: bool = False) -> pa.Table:
    """The messages as a table of :data:`MESSAGE_SCHEMA` (``content`` kept only if asked)."""
    n = len(messages)
    ids: list[int] = [0] * n
    ts: list[int] = [0] * n
    types: list[str] = [""] * n
    sids: list[int | None] = [None] * n
    chans: list[str | None] = [None] * n
    topics: list[str | None] = [None] * n
    senders: list[int] = [0] * n
    names: list[str] = [""] * n
    emails: list[str] = [""] * n
    clients: list[str] = [""] * n
    texts: list[str | None] = [None] * n
    lengths: list[int] = [0] * n
    rids: list[int | None] = [None] * n
    edited: list[int | None] = [None] * n
    moved: list[int | None] = [None] * n
    dm_off: list[int] = [0]
    dm_ids: list[int] = []
    re_off: list[int] = [0]
    re_cols: dict[str, list[Any]] = {k: [] for k in REACTION_TYPE.names}
    ed_off: list[int] = [0]
    ed_cols: dict[str, list[Any]] = {k: [] for k in EDIT_TYPE.names}
    ln_off: list[int] = [0]
    ln_text: list[str] = []
    ln_url: list[str] = []
    for i, m in enumerate(messages):
        ids[i] = m.id
        ts[i] = m.timestamp
        types[i] = m.type
        senders[i] = m.sender_id
        names[i] = m.sender_full_name
        emails[i] = m.sender_email
        clients[i] = m.client
        lengths[i] = len(m.content)
        if content:
            texts[i] = m.content
        rids[i] = m.recipient_id
        edited[i] = m.last_edit_timestamp
        moved[i] = m.last_moved_timestamp
        recipient = m.display_recipient
        if isinstance(recipient, str):
            sids[i] = m.stream_id
            chans[i] = recipient
            topics[i] = m.subject
        else:
            dm_ids.extend(r.id for r in recipient)
        dm_off.append(len(dm_ids))
        for r in m.reactions:
            re_cols["user_id"].append(r.user_id)
            re_cols["emoji_name"].append(r.emoji_name)
            re_cols["emoji_code"].append(r.emoji_code)
            re_cols["reaction_type"].append(r.reaction_type)
        re_off.append(len(re_cols["user_id"]))
        for e in m.edit_history or ():
            prev = e.prev_topic if e.prev_topic is not None else e.prev_subject
            ed_cols["timestamp"].append(e.timestamp)
            ed_cols["user_id"].append(e.user_id)
            ed_cols["kind"].append(_edit_kind(prev, e.topic, e.prev_stream))
            ed_cols["prev_topic"].append(prev)
            ed_cols["topic"].append(e.topic)
            ed_cols["prev_stream_id"].append(e.prev_stream)
            ed_cols["stream_id"].append(e.stream)
        ed_off.append(len(ed_cols["timestamp"]))
        for link in m.topic_links:
            ln_text.append(link.text)
            ln_url.append(link.url)
        ln_off.append(len(ln_text))
    reactions = pa.StructArray.from_arrays(
        [pa.array(re_cols[f.name], f.type) for f in REACTION_TYPE], fields=list(REACTION_TYPE)
    )
    edits = pa.StructArray.from_arrays(
        [pa.array(ed_cols[f.name], f.type) for f in EDIT_TYPE], fields=list(EDIT_TYPE)
    )
    links = pa.StructArray.from_arrays(
        [pa.array(ln_text, pa.string()), pa.array(ln_url, pa.string())], fields=list(LINK_TYPE)
    )
    s = MESSAGE_SCHEMA
    columns = [
        pa.array(ids, pa.int64()),
        pa.array(ts, pa.int64()).cast(_TS),
        pa.array(types, pa.string()),
        pa.array(sids, pa.int64()),
        pa.array(chans, pa.string()),
        pa.array(topics, pa.string()),
        pa.array(senders, pa.int64()),
        pa.array(names, pa.string()),
        pa.array(emails, pa.string()),
        pa.array(clients, pa.string()),
        pa.array(texts, pa.string()),
        pa.array(lengths, pa.int64()),
        pa.array(rids, pa.int64()),
        pa.array(edited, pa.int64()).cast(_TS),
        pa.array(moved, pa.int64()).cast(_TS),
        _list_array(dm_off, pa.array(dm_ids, pa.int64()), s.field("dm_recipients").type),
        _list_array(re_off, reactions, s.field("reactions").type),
        _list_array(ed_off, edits, s.field("edits").type),
        _list_array(ln_off, links, s.field("topic_links").type),
    ]
    return pa.Table.from_arrays(columns, schema=s)
