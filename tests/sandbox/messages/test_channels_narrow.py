"""The ``channels`` narrow operator (``streams`` before feature level 250): ``public`` is every
public channel whose history is public, subscribed or not; ``web-public`` the web-public ones."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error, raw

WINDOW = 1000


def _channel_ids(sb: Sandbox, message_ids: list[int]) -> set[int]:
    marks = ",".join("?" for _ in message_ids)
    rows = sb.store.query(
        f"SELECT DISTINCT stream_id FROM messages WHERE id IN ({marks})", message_ids
    )
    return {r["stream_id"] for r in rows}


def _reader(sb: Sandbox) -> str:
    """An account subscribed to a private channel, and not to every public one."""
    for name in ("member", "moderator", "admin", "owner"):
        uid = sb.accounts[name].user_id
        private = sb.store.scalar(
            "SELECT count(*) FROM subscriptions s JOIN streams c ON c.id = s.stream_id "
            "WHERE s.user_id = ? AND s.active = 1 AND c.invite_only = 1",
            [uid],
        )
        if private:
            return name
    pytest.fail("no demo account is subscribed to a private channel")


@pytest.mark.parametrize("operator", ["channels", "streams"])
def test_public_is_every_public_channel_and_no_private_one(
    fresh_sandbox: Sandbox, operator: str
) -> None:
    sb = fresh_sandbox
    account = _reader(sb)
    uid = sb.accounts[account].user_id
    # one public channel the reader is not subscribed to, with a new message in it
    sb.store.execute(
        "UPDATE subscriptions SET active = 0 WHERE user_id = ? AND stream_id = "
        "(SELECT id FROM streams WHERE name = 'random')",
        [uid],
    )
    with chatops.Client.from_zuliprc(sb.zuliprc("owner")) as owner:
        unsubscribed = owner.messages.send_to_channel("random", "public narrow", "hello").id
    status, body = raw(
        sb,
        account,
        "GET",
        "/messages",
        anchor="newest",
        num_before=WINDOW,
        num_after=0,
        narrow=f'[{{"operator": "{operator}", "operand": "public"}}]',
    )
    assert status == 200, body
    ids = [m["id"] for m in body["messages"]]
    assert unsubscribed in ids
    public = {
        r["id"]
        for r in sb.store.query(
            "SELECT id FROM streams WHERE invite_only = 0 AND history_public_to_subscribers = 1"
        )
    }
    assert _channel_ids(sb, ids) <= public
    newest = sb.store.query(
        f"SELECT id FROM messages WHERE stream_id IN ({','.join(map(str, public))}) "
        "ORDER BY id DESC LIMIT ?",
        [len(ids)],
    )
    assert sorted(ids) == sorted(r["id"] for r in newest)


def test_negated_public_leaves_only_private_channels_and_direct_messages(
    fresh_sandbox: Sandbox,
) -> None:
    sb = fresh_sandbox
    account = _reader(sb)
    status, body = raw(
        sb,
        account,
        "GET",
        "/messages",
        anchor="newest",
        num_before=200,
        num_after=0,
        narrow='[{"operator": "channels", "operand": "public", "negated": true}]',
    )
    assert status == 200, body
    for m in body["messages"]:
        if m["type"] == "stream":
            row = sb.store.one("SELECT invite_only FROM streams WHERE id = ?", [m["stream_id"]])
            assert row is not None and row["invite_only"] == 1
    assert body["messages"], "the reader has private-channel or direct messages"


def test_web_public(fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]) -> None:
    sb = fresh_sandbox
    sb.store.execute("UPDATE streams SET is_web_public = 1 WHERE name = 'design'")
    try:
        member = client_for("member", sb)
        page = member.messages.get(
            anchor="newest", num_before=300, narrow=[("channels", "web-public")]
        )
        design = int(sb.store.scalar("SELECT id FROM streams WHERE name = 'design'"))
        assert page.messages
        assert {m.stream_id for m in page.messages} == {design}
    finally:
        sb.store.execute("UPDATE streams SET is_web_public = 0 WHERE name = 'design'")


def test_an_unknown_channels_operand_is_a_bad_narrow(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    member = client_for("member", fresh_sandbox)
    with unchanged(fresh_sandbox.store), api_error("BAD_NARROW") as info:
        member.messages.get(anchor="newest", num_before=5, narrow=[("channels", "private")])
    assert "unknown channels operand private" in info.value.msg
