"""The page decoder: a ``GET /messages`` body into the message table, exact values."""

from __future__ import annotations

import json
from typing import Any

import httpx
import msgspec
import pyarrow as pa
import pytest

import chatops
from chatops.analytics import AnalyticsFrames
from chatops.analytics.dataset._pages import (
    MESSAGE_SCHEMA,
    decode_page,
    message_records,
    page_table,
    records_table,
)
from chatops.analytics.dataset.records import _structs

RESOLVED = "✔ "


def _channel(id: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": id,
        "type": "stream",
        "timestamp": 1_700_000_000 + id,
        "sender_id": 10,
        "sender_full_name": "Ada",
        "sender_email": "ada@example.com",
        "client": "website",
        "content": "plain",
        "subject": "plans",
        "stream_id": 3,
        "display_recipient": "general",
        "recipient_id": 30,
        "avatar_url": None,
        "flags": ["read"],
        "reactions": [],
        "submessages": [],
        "topic_links": [],
    } | extra


def _direct(id: int, people: list[int]) -> dict[str, Any]:
    m = _channel(id, type="private", subject="", recipient_id=99)
    del m["stream_id"]
    m["display_recipient"] = [{"id": p, "email": f"{p}@x", "full_name": str(p)} for p in people]
    return m


def _edit(**fields: Any) -> dict[str, Any]:
    return {"timestamp": 1_700_000_500, "user_id": 11} | fields


MESSAGES = [
    _channel(
        1,
        content="a\U0001f600\nb",  # four code points, the emoji written as a surrogate pair
        last_edit_timestamp=1_700_000_600,
        edit_history=[
            _edit(prev_content="x", prev_rendered_content="<p>x</p>"),
            _edit(prev_topic="draft", topic="plans"),
            _edit(prev_subject="old", topic="plans"),  # before feature level 118
            _edit(prev_topic="plans", topic=RESOLVED + "plans"),
            _edit(prev_topic=RESOLVED + "plans", topic="plans"),
            _edit(prev_stream=4, stream=3, prev_topic="a", topic="b"),
        ],
        reactions=[
            {
                "emoji_name": "tada",
                "emoji_code": "1f389",
                "reaction_type": "unicode_emoji",
                "user_id": 12,
                "user": {"id": 12},
            },
        ],
        topic_links=[{"text": "#12", "url": "https://tracker/12"}],
    ),
    _direct(2, [10, 11, 12]),
    _channel(3, client=None, display_recipient="dev", stream_id=5, subject=""),
]


def _body(messages: list[dict[str, Any]], oldest: bool = True, **dumps: Any) -> bytes:
    page = {
        "result": "success",
        "msg": "",
        "anchor": 1,
        "found_anchor": True,
        "found_oldest": oldest,
        "found_newest": False,
        "history_limited": False,
        "messages": messages,
    }
    return json.dumps(page, **dumps).encode()


def test_a_page_reads_into_its_columns_exactly() -> None:
    page = decode_page(_body(MESSAGES))
    assert [m.id for m in page.messages] == [1, 2, 3]
    assert (page.found_oldest, page.found_newest) == (True, False)
    table = page_table(page, content=True)
    assert table.schema.equals(MESSAGE_SCHEMA)
    rows = table.to_pylist()
    assert [r["type"] for r in rows] == ["stream", "private", "stream"]
    assert [r["channel"] for r in rows] == ["general", None, "dev"]
    assert [r["topic"] for r in rows] == ["plans", None, ""]
    assert [r["stream_id"] for r in rows] == [3, None, 5]
    assert [r["client"] for r in rows] == ["website", "website", None]
    assert rows[0]["content"] == "a\U0001f600\nb"
    assert [r["content_length"] for r in rows] == [4, 5, 5]
    assert [r["dm_recipients"] for r in rows] == [[], [10, 11, 12], []]
    assert rows[0]["reactions"] == [
        {
            "user_id": 12,
            "emoji_name": "tada",
            "emoji_code": "1f389",
            "reaction_type": "unicode_emoji",
        }
    ]
    assert rows[0]["topic_links"] == [{"text": "#12", "url": "https://tracker/12"}]
    assert [e["kind"] for e in rows[0]["edits"]] == [
        "edit",
        "move_topic",
        "move_topic",
        "resolve",
        "unresolve",
        "move_channel",
    ]
    assert [e["prev_topic"] for e in rows[0]["edits"]] == [
        None,
        "draft",
        "old",
        "plans",
        RESOLVED + "plans",
        "a",
    ]
    assert rows[0]["edits"][5]["prev_stream_id"] == 4 and rows[0]["edits"][5]["stream_id"] == 3
    assert rows[1]["edits"] == [] and rows[2]["reactions"] == []
    assert rows[0]["last_edit_timestamp"].timestamp() == 1_700_000_600
    assert rows[1]["last_edit_timestamp"] is None
    # the text is dropped unless asked for; its length stays
    assert page_table(page)["content"].null_count == 3
    assert page_table(page)["content_length"].to_pylist() == [4, 5, 5]


def test_records_read_as_the_page_they_come_from() -> None:
    body = _body(MESSAGES)
    by_page = page_table(decode_page(body), content=True)
    assert records_table(_structs(MESSAGES), content=True).equals(by_page)
    assert records_table(message_records(decode_page(body)), content=True).equals(by_page)


def test_a_pretty_printed_page_reads_the_same() -> None:
    compact = page_table(decode_page(_body(MESSAGES)), content=True)
    pretty = page_table(decode_page(_body(MESSAGES, indent=2)), content=True)
    crlf = _body(MESSAGES, indent=1).replace(b"\n", b"\r\n")
    assert pretty.equals(compact)
    assert page_table(decode_page(crlf), content=True).equals(compact)


def test_part_of_a_page_in_any_order_comes_out_in_id_order() -> None:
    page = decode_page(_body([MESSAGES[2], MESSAGES[0], MESSAGES[1]]))
    keep = [m for m in page.messages if m.id != 2]
    table = page_table(page, keep)
    assert table["id"].to_pylist() == [1, 3]
    assert table["channel"].to_pylist() == ["general", "dev"]
    assert page_table(page, [])["id"].to_pylist() == []
    assert page_table(decode_page(_body([]))).num_rows == 0


@pytest.mark.parametrize(
    ("field", "value", "where"),
    [
        ("stream_id", "five", r"\$\.messages\[1\]\.stream_id"),
        ("edit_history", [{"timestamp": "noon"}], r"\$\.messages\[1\]\.edit_history\[0\]"),
        ("reactions", [{"user_id": [1]}], r"\$\.messages\[1\]\.reactions\[0\]\.user_id"),
    ],
)
def test_a_wrong_value_is_refused_naming_where_it_is(field: str, value: Any, where: str) -> None:
    bad = [MESSAGES[0], MESSAGES[2] | {field: value}]
    page = decode_page(_body(bad))  # the ids are fine
    with pytest.raises(msgspec.ValidationError, match=where):
        page_table(page)


def test_a_bad_page_in_a_history_stops_the_frames_with_its_error() -> None:
    """The pages are read in worker threads: an error in one reaches the caller, once."""
    pages = [
        _body([_channel(i) for i in range(21, 31)], oldest=False),
        _body([_channel(i) for i in range(11, 20)] + [_channel(20, timestamp="noon")]),
    ]
    served: list[int] = []

    def handle(request: httpx.Request) -> httpx.Response:
        served.append(1)
        return httpx.Response(200, content=pages[min(len(served), 2) - 1])

    client = chatops.Client(
        "https://chat.example.com",
        "a@example.com",
        "k" * 32,
        transport=httpx.MockTransport(handle),
    )
    with client, pytest.raises(msgspec.ValidationError, match=r"timestamp"):
        AnalyticsFrames.from_records(client.messages.iter_history(page_size=10))
    assert len(served) >= 2


def test_table_columns_are_those_of_the_schema() -> None:
    table = page_table(decode_page(_body(MESSAGES)))
    assert table.column_names == MESSAGE_SCHEMA.names
    assert table["timestamp"].type == pa.timestamp("s", tz="UTC")
