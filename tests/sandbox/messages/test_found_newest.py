"""``found_newest`` / ``found_oldest`` as the real server decides them, and pagers that trust them.

The real server says ``found_newest`` when fewer than ``num_after`` messages came back after
the anchor (always at ``newest``), and ``found_oldest`` when fewer than ``num_before`` came back
before it (always at ``oldest``). A page that exactly reaches the newest message does not say
so: the next, short, page does.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.helpers import post, raw, topic_ids


def page(sandbox: Sandbox, topic: str, **params: Any) -> dict[str, Any]:
    narrow = [
        {"operator": "channel", "operand": "general"},
        {"operator": "topic", "operand": topic},
    ]
    query = {k: v if isinstance(v, str) else json.dumps(v) for k, v in params.items()}
    status, body = raw(sandbox, "member", "GET", "/messages", narrow=json.dumps(narrow), **query)
    assert status == 200, body
    return body


def ids_of(body: dict[str, Any]) -> list[int]:
    return [m["id"] for m in body["messages"]]


def test_found_newest_needs_a_short_page(sandbox: Sandbox) -> None:
    ids = [post(sandbox, "admin", "general", "found rule", f"m{i}") for i in range(4)]
    exact = page(sandbox, "found rule", anchor="oldest", num_before=0, num_after=4)
    assert ids_of(exact) == ids
    assert exact["found_oldest"] is True and exact["found_newest"] is False
    short = page(sandbox, "found rule", anchor="oldest", num_before=0, num_after=5)
    assert ids_of(short) == ids and short["found_newest"] is True
    after_last = page(
        sandbox, "found rule", anchor=ids[-1], include_anchor=False, num_before=0, num_after=1
    )
    assert ids_of(after_last) == [] and after_last["found_newest"] is True
    assert after_last["found_anchor"] is False  # an excluded anchor is not fetched
    with_last = page(sandbox, "found rule", anchor=ids[-1], num_before=0, num_after=1)
    assert ids_of(with_last) == [ids[-1]] and with_last["found_anchor"] is True
    assert with_last["found_newest"] is True and with_last["found_oldest"] is False


def test_found_oldest_needs_a_short_page(sandbox: Sandbox) -> None:
    ids = [post(sandbox, "admin", "general", "found old", f"m{i}") for i in range(3)]
    exact = page(sandbox, "found old", anchor="newest", num_before=3, num_after=0)
    assert ids_of(exact) == ids
    assert exact["found_newest"] is True and exact["found_oldest"] is False
    assert exact["anchor"] == 10_000_000_000_000_000
    short = page(sandbox, "found old", anchor="newest", num_before=4, num_after=0)
    assert short["found_oldest"] is True
    middle = page(sandbox, "found old", anchor=ids[1], num_before=1, num_after=1)
    assert ids_of(middle) == ids
    assert middle["found_oldest"] is False and middle["found_newest"] is False
    no_after = page(sandbox, "found old", anchor=ids[0], num_before=0, num_after=0)
    assert ids_of(no_after) == [ids[0]]
    assert no_after["found_newest"] is False and no_after["found_oldest"] is False
    at_zero = page(sandbox, "found old", anchor="0", num_before=5, num_after=1)
    assert ids_of(at_zero) == ids[:1] and at_zero["found_oldest"] is True


def test_first_unread_with_nothing_unread_is_newest(sandbox: Sandbox) -> None:
    ids = [post(sandbox, "member", "general", "found unread", f"m{i}") for i in range(2)]
    body = page(sandbox, "found unread", anchor="first_unread", num_before=5, num_after=5)
    assert ids_of(body) == ids
    assert body["anchor"] == 10_000_000_000_000_000
    assert body["found_newest"] is True and body["found_oldest"] is True


def test_a_pager_trusting_found_newest_gets_every_message(sandbox: Sandbox) -> None:
    """Pages of three, exactly filled at the end, with messages arriving while it pages."""
    topic = "found pager"
    first = [post(sandbox, "admin", "general", topic, f"p{i}") for i in range(6)]
    seen: list[int] = []
    body = page(sandbox, topic, anchor="oldest", num_before=0, num_after=3)
    arrivals = iter([2, 1, 1])  # the last one lands just after a page that reached the newest
    while True:
        seen += ids_of(body)
        more = next(arrivals, 0)
        for i in range(more):
            post(sandbox, "admin", "general", topic, f"late {len(seen)} {i}")
        if body["found_newest"]:
            break
        body = page(
            sandbox, topic, anchor=seen[-1], include_anchor=False, num_before=0, num_after=3
        )
    everything = topic_ids(sandbox, "general", topic)
    assert len(everything) == len(first) + 4
    assert seen == everything


def test_client_pagers_get_every_message_with_new_ones_arriving(
    sandbox: Sandbox, member: chatops.Client
) -> None:
    topic = "found client pager"
    for i in range(7):
        post(sandbox, "admin", "general", topic, f"c{i}")
    narrow = [("channel", "general"), ("topic", topic)]
    newer: list[int] = []
    for n, batch in enumerate(
        member.messages.iter_pages(narrow=narrow, page_size=3, direction="newer")
    ):
        newer += [m.id for m in batch]
        if n == 0:
            post(sandbox, "admin", "general", topic, "arrived while paging")
    assert newer == topic_ids(sandbox, "general", topic)
    older = [m.id for m in member.messages.iter_history(narrow=narrow, page_size=4)]
    assert older == topic_ids(sandbox, "general", topic)[::-1]

    async def collect() -> list[int]:
        async with chatops.AsyncClient.from_zuliprc(sandbox.zuliprc("member")) as client:
            return [
                m.id
                async for m in client.messages.iter_history(
                    narrow=narrow, page_size=4, direction="newer"
                )
            ]

    assert asyncio.run(collect()) == topic_ids(sandbox, "general", topic)


def test_exactly_full_last_page_is_followed_by_an_empty_one(sandbox: Sandbox) -> None:
    """With 6 messages and pages of 3, the old rule stopped after two requests; the real one
    needs a third, empty page, and still ends."""
    topic = "found exact"
    ids = [post(sandbox, "admin", "general", topic, f"e{i}") for i in range(6)]
    requests = 0
    seen: list[int] = []
    anchor: Any = "oldest"
    include = True
    while True:
        body = page(
            sandbox, topic, anchor=anchor, include_anchor=include, num_before=0, num_after=3
        )
        requests += 1
        seen += ids_of(body)
        if body["found_newest"]:
            break
        anchor, include = seen[-1], False
    assert seen == ids and requests == 3
