"""``PATCH /users/me/subscriptions``: joining (``add``) and leaving (``delete``) channels in one
transaction, as the real server's ``update_subscriptions_backend`` composes the two: one
answer with both halves' fields, and nothing changed (nor announced) when either is refused."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, assert_error, raw, stream_id

Make = Callable[..., chatops.Client]


@pytest.fixture
def member(fresh_sandbox: Sandbox, client_for: Make) -> chatops.Client:
    return client_for("member", fresh_sandbox)


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "member", event_types=["subscription", "stream"])
    yield q
    q.close()


def _subscribed(sandbox: Sandbox, account: str) -> set[str]:
    rows = sandbox.store.query(
        "SELECT s.name FROM subscriptions x JOIN streams s ON s.id = x.stream_id "
        "WHERE x.user_id = ? AND x.active = 1",
        [sandbox.accounts[account].user_id],
    )
    return {r["name"] for r in rows}


def test_join_and_leave_at_once(
    fresh_sandbox: Sandbox, member: chatops.Client, queue: Queue
) -> None:
    me = str(member.users.me().user_id)
    assert "general" in _subscribed(fresh_sandbox, "member")
    result = member.channels.update_subscriptions(
        add=[{"name": "Tea room", "color": "#e79ab5", "description": "Brews"}, "general"],
        delete=["random"],
    )
    assert result.subscribed == {me: ["Tea room"]}
    assert result.already_subscribed == {me: ["general"]}
    assert (result.removed, result.not_removed) == (["random"], [])
    assert {"Tea room", "general"} <= _subscribed(fresh_sandbox, "member")
    assert "random" not in _subscribed(fresh_sandbox, "member")
    tea = stream_id(fresh_sandbox, "Tea room")
    row = fresh_sandbox.store.one(
        "SELECT color FROM subscriptions WHERE stream_id = ? AND user_id = ?", [tea, int(me)]
    )
    assert row is not None and row["color"] == "#e79ab5"
    events = queue.poll()
    added = [e for e in events if e["type"] == "subscription" and e["op"] == "add"]
    assert [
        (s["name"], s["color"], s["description"]) for e in added for s in e["subscriptions"]
    ] == [("Tea room", "#e79ab5", "Brews")]
    removed = [e for e in events if e["type"] == "subscription" and e["op"] == "remove"]
    assert [s["name"] for e in removed for s in e["subscriptions"]] == ["random"]
    # leaving a channel one is not in is reported, not refused
    again = member.channels.update_subscriptions(delete=["random"])
    assert (again.subscribed, again.removed, again.not_removed) == ({}, [], ["random"])


def test_a_refused_half_undoes_the_other(
    fresh_sandbox: Sandbox, member: chatops.Client, client_for: Make, queue: Queue
) -> None:
    with (
        unchanged(fresh_sandbox.store),
        api_error("STREAM_DOES_NOT_EXIST", stream="no such channel"),
    ):
        member.channels.update_subscriptions(add=["Brand new"], delete=["no such channel"])
    owner = client_for("owner", fresh_sandbox)
    owner.channels.subscribe(["locked"], invite_only=True)
    queue.poll()
    assert "general" in _subscribed(fresh_sandbox, "member")
    with (
        unchanged(fresh_sandbox.store),
        api_error("BAD_REQUEST", msg="Unable to access channel (locked)."),
    ):
        member.channels.update_subscriptions(add=["locked"], delete=["general"])
    with (
        unchanged(fresh_sandbox.store),
        api_error("BAD_REQUEST", msg="add.color is not a valid hex color code"),
    ):
        member.channels.update_subscriptions(
            add=[{"name": "Colour", "color": "pink"}], delete=["general"]
        )
    assert not [e for e in queue.poll() if e["type"] in ("subscription", "stream")]


def test_nothing_to_do(fresh_sandbox: Sandbox, member: chatops.Client) -> None:
    with unchanged(fresh_sandbox.store):
        body = assert_error(
            raw(fresh_sandbox, "member", "PATCH", "/users/me/subscriptions"), "BAD_REQUEST"
        )
        assert body["msg"] == 'Nothing to do. Specify at least one of "add" or "delete".'
        empty = raw(
            fresh_sandbox,
            "member",
            "PATCH",
            "/users/me/subscriptions",
            add=json.dumps([]),
            delete=json.dumps([]),
        )
        assert assert_error(empty, "BAD_REQUEST")["msg"] == body["msg"]
        assert (
            assert_error(
                raw(fresh_sandbox, "member", "PATCH", "/users/me/subscriptions", add='{"name": 1}'),
                "BAD_REQUEST",
            )["msg"]
            == "add is not a list"
        )
    with pytest.raises(ValueError, match="add or to delete"):
        member.channels.update_subscriptions()
