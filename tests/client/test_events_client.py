"""The client's event iterators (sync and async) against a real sandbox."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox.bus import event_bus


@pytest.fixture
def short_queues(sandbox: Sandbox) -> Iterator[None]:
    bus = event_bus(sandbox.store)
    old = bus.queue_timeout
    bus.queue_timeout = 0.3
    yield
    bus.queue_timeout = old


def test_register_get_delete(member: chatops.Client, admin: chatops.Client) -> None:
    reg = member.events.register(event_types=["message"])
    assert reg.queue_id and reg.last_event_id == -1 and reg.feature_level >= 296
    assert member.events.get(reg.queue_id, dont_block=True) == []
    mid = admin.messages.send_to_channel("general", "client events", "hi").id
    events = member.events.get(reg.queue_id, last_event_id=-1, timeout=10)
    assert [e["message"]["id"] for e in events] == [mid]
    member.events.delete_queue(reg.queue_id)
    with pytest.raises(chatops.BadEventQueueId):
        member.events.get(reg.queue_id, dont_block=True)


def test_register_fetches_every_channels_subscribers_in_one_request(
    member: chatops.Client,
) -> None:
    reg = member.events.register(
        event_types=["message"], fetch_event_types=["subscription"], include_subscribers=True
    )
    blocks = (reg.subscriptions, reg.unsubscribed, reg.never_subscribed)
    assert all(b is not None for b in blocks)
    listed = {int(s["stream_id"]): s["subscribers"] for b in blocks for s in b or ()}
    mine = {s.stream_id for s in member.channels.subscriptions()}
    assert mine == {int(s["stream_id"]) for s in reg.subscriptions or ()}
    for sid in sorted(listed)[:5]:
        assert sorted(listed[sid]) == sorted(member.channels.members(sid))
    plain = member.events.register(event_types=["message"], fetch_event_types=[])
    assert plain.subscriptions is None and plain.never_subscribed is None
    for queue in (reg.queue_id, plain.queue_id):
        assert queue is not None
        member.events.delete_queue(queue)


@pytest.mark.sync_only("a thread iterates while the test sends and stops")
def test_iterator_yields_events_and_stops_cleanly(
    member: chatops.Client, admin: chatops.Client
) -> None:
    got: list[dict[str, Any]] = []
    stream = member.events.listen(event_types=["message", "reaction"])

    def consume() -> None:
        for event in stream:
            got.append(event)

    worker = threading.Thread(target=consume)
    worker.start()
    wait_until(lambda: stream.queue_id is not None)
    mid = admin.messages.send_to_channel("general", "iterate", "first").id
    admin.messages.add_reaction(mid, "tada")
    wait_until(lambda: len(got) >= 2)
    t0 = time.monotonic()
    stream.stop()  # from another thread, while the consumer waits in a long-poll
    worker.join(5)
    assert not worker.is_alive() and time.monotonic() - t0 < 5
    assert [e["type"] for e in got] == ["message", "reaction"]
    assert got[0]["message"]["id"] == mid
    assert stream.queue_id is None


@pytest.mark.sync_only("the async twin is test_async_iterator")
def test_expired_queue_is_reregistered_without_missing_a_message(
    sandbox: Sandbox, member: chatops.Client, admin: chatops.Client, short_queues: None
) -> None:
    with member.events.listen(event_types=["message"]) as stream:
        events = iter(stream)
        first = admin.messages.send_to_channel("general", "expiry", "before expiry").id
        assert next(events)["message"]["id"] == first
        old_queue = stream.queue_id
        # the consumer is busy: the queue expires, and a message arrives meanwhile
        missed = admin.messages.send_to_channel("general", "expiry", "while away").id
        deadline = time.monotonic() + 5  # the expiry job wakes at its own pace
        while old_queue in event_bus(sandbox.store).queues:
            assert time.monotonic() < deadline, "the idle queue did not expire"
            time.sleep(0.05)
        after = next(events)
        assert after["message"]["id"] == missed
        assert after["message"]["content"] == "while away"
        assert stream.reregistrations == 1 and stream.queue_id != old_queue
        later = admin.messages.send_to_channel("general", "expiry", "after").id
        assert next(events)["message"]["id"] == later  # no duplicate of the missed one


@pytest.mark.sync_only("drives AsyncClient itself; admin sends from a thread")
def test_async_iterator(sandbox: Sandbox, admin: chatops.Client, short_queues: None) -> None:
    async def main() -> list[int]:
        async with chatops.AsyncClient.from_zuliprc(sandbox.zuliprc("member")) as client:
            seen: list[int] = []
            async with client.events.listen(event_types=["message"]) as stream:
                first = await asyncio.to_thread(
                    admin.messages.send_to_channel, "general", "async", "one"
                )
                async for event in stream:
                    seen.append(event["message"]["id"])
                    if len(seen) == 1:
                        assert event["message"]["id"] == first.id
                        await asyncio.to_thread(
                            admin.messages.send_to_channel, "general", "async", "two"
                        )
                        # the queue expires meanwhile (the expiry job wakes at its own pace)
                        deadline = time.monotonic() + 5
                        while stream.queue_id in event_bus(sandbox.store).queues:
                            assert time.monotonic() < deadline, "the idle queue did not expire"
                            await asyncio.sleep(0.05)
                    else:
                        stream.stop()
                assert stream.reregistrations == 1
            return seen

    seen = asyncio.run(main())
    assert len(seen) == 2 and seen[1] > seen[0]


def test_async_stop_cancels_a_waiting_poll(sandbox: Sandbox) -> None:
    async def main() -> float:
        async with chatops.AsyncClient.from_zuliprc(sandbox.zuliprc("member")) as client:
            stream = client.events.listen(event_types=["message"])

            async def consume() -> None:
                async for _event in stream:
                    pass

            task = asyncio.create_task(consume())
            while stream.queue_id is None:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            t0 = time.monotonic()
            stream.stop()
            await asyncio.wait_for(task, 5)
            await stream.aclose()
            return time.monotonic() - t0

    assert asyncio.run(main()) < 5


def wait_until(check: Callable[[], Any], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)
