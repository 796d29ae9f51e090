"""Deleting a topic (``POST /streams/{stream_id}/delete_topic``): administrators only, the
messages they may read, newest first in batches with a ``delete_message`` event each, the
topic's visibility policies cleared, and ``complete`` as the real server answers."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox, message_delete
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, post, stream_id, topic_ids

Make = Callable[..., chatops.Client]


@pytest.fixture
def admin(fresh_sandbox: Sandbox, client_for: Make) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture
def queues(fresh_sandbox: Sandbox) -> Iterator[tuple[Queue, Queue]]:
    types = ["delete_message", "user_topic"]
    bulk = Queue(
        fresh_sandbox,
        "member",
        event_types=types,
        client_capabilities={"bulk_message_deletion": True},
    )
    one_by_one = Queue(fresh_sandbox, "member", event_types=types)
    yield bulk, one_by_one
    bulk.close()
    one_by_one.close()


def test_a_topic_goes_in_batches_newest_first(
    fresh_sandbox: Sandbox,
    admin: chatops.Client,
    client_for: Make,
    queues: tuple[Queue, Queue],
) -> None:
    sid = stream_id(fresh_sandbox, "general")
    ids = [post(fresh_sandbox, "member", "general", "Old Plans", f"m{i}") for i in range(150)]
    kept = post(fresh_sandbox, "member", "general", "other plans", "stays")
    member = client_for("member", fresh_sandbox)
    member.channels.set_topic_visibility(sid, "old plans", 3)
    assert admin.channels.delete_topic(sid, "OLD PLANS") is True
    assert topic_ids(fresh_sandbox, "general", "Old Plans") == []
    assert topic_ids(fresh_sandbox, "general", "other plans") == [kept]
    bulk, one_by_one = queues
    events = bulk.poll()
    deleted = [e for e in events if e["type"] == "delete_message"]
    # newest first: the newest hundred, then the rest, each batch's ids in increasing order
    assert [e["message_ids"] for e in deleted] == [ids[50:], ids[:50]]
    assert {(e["message_type"], e["stream_id"], e["topic"]) for e in deleted} == {
        ("stream", sid, "old plans")
    }
    # the policy goes, named as the request named the topic (as the real server names it)
    policy = [e for e in events if e["type"] == "user_topic" and e["visibility_policy"] == 0]
    assert [(e["stream_id"], e["topic_name"]) for e in policy] == [(sid, "OLD PLANS")]
    assert (
        fresh_sandbox.store.scalar(
            "SELECT count(*) FROM user_topics WHERE lower(topic) = 'old plans'"
        )
        == 0
    )
    singles = [e["message_id"] for e in one_by_one.poll() if e["type"] == "delete_message"]
    assert singles == ids[50:] + ids[:50]
    # a topic with no messages: nothing to do, complete
    assert admin.channels.delete_topic(sid, "Old Plans") is True


def test_only_what_the_administrator_may_read(
    fresh_sandbox: Sandbox, client_for: Make, admin: chatops.Client
) -> None:
    owner = client_for("owner", fresh_sandbox)
    ids = {n: client_for(n, fresh_sandbox).users.me().user_id for n in ("owner", "member", "admin")}
    owner.channels.subscribe(
        ["protected"],
        principals=[ids["owner"], ids["member"]],
        invite_only=True,
        history_public_to_subscribers=False,
    )
    sid = stream_id(fresh_sandbox, "protected")
    streams = Queue(fresh_sandbox, "owner", event_types=["stream"])
    # not subscribed: the channel is as good as missing
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST", msg="Invalid channel ID"):
        admin.channels.delete_topic(sid, "t")
    before = [post(fresh_sandbox, "member", "protected", "t", f"b{i}") for i in range(3)]
    owner.channels.subscribe(["protected"], principals=[ids["admin"]])
    after = [post(fresh_sandbox, "member", "protected", "t", f"a{i}") for i in range(2)]
    assert admin.channels.delete_topic(sid, "t") is True
    assert topic_ids(fresh_sandbox, "protected", "t") == before
    other = post(fresh_sandbox, "member", "protected", "u", "stays")
    streams.poll()
    # the channel's first message goes: its first_message_id moves to the next one left
    assert owner.channels.delete_topic(sid, "t") is True
    assert topic_ids(fresh_sandbox, "protected", "t") == []
    moved = [e for e in streams.poll() if e.get("property") == "first_message_id"]
    assert [(e["op"], e["stream_id"], e["name"], e["value"]) for e in moved] == [
        ("update", sid, "protected", other)
    ]
    assert owner.channels.get(sid).first_message_id == other
    streams.close()
    assert after


def test_refusals_change_nothing(
    fresh_sandbox: Sandbox, client_for: Make, admin: chatops.Client, queues: tuple[Queue, Queue]
) -> None:
    sid = stream_id(fresh_sandbox, "general")
    post(fresh_sandbox, "member", "general", "keep me", "x")
    for account in ("member", "moderator"):
        with (
            unchanged(fresh_sandbox.store),
            api_error("UNAUTHORIZED_PRINCIPAL", msg="Must be an organization administrator"),
        ):
            client_for(account, fresh_sandbox).channels.delete_topic(sid, "keep me")
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST", msg="Invalid channel ID"):
        admin.channels.delete_topic(sid + 10_000, "keep me")
    assert not [e for q in queues for e in q.poll() if e["type"] == "delete_message"]


def test_out_of_time_answers_incomplete(
    fresh_sandbox: Sandbox, admin: chatops.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    sid = stream_id(fresh_sandbox, "general")
    ids = [post(fresh_sandbox, "member", "general", "slow", f"m{i}") for i in range(3)]
    monkeypatch.setattr(message_delete, "TOPIC_TIME_LIMIT", 0.0)
    assert admin.channels.delete_topic(sid, "slow") is False
    assert topic_ids(fresh_sandbox, "general", "slow") == ids
    monkeypatch.undo()
    assert admin.channels.delete_topic(sid, "slow") is True
    assert topic_ids(fresh_sandbox, "general", "slow") == []
