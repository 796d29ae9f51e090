"""Read receipts (``GET /messages/{message_id}/read_receipts``) as the real server counts
them: whoever has read the message, bots included, except the sender, those who turned
``send_read_receipts`` off, the muted and the muters, and deactivated accounts; refused when
the organization turned read receipts off or the asker may not read the message."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import realm_settings
from tests.sandbox.helpers import api_error

Make = Callable[..., chatops.Client]
EVERYONE = ("owner", "admin", "moderator", "member", "guest", "bot")


@pytest.fixture
def people(fresh_sandbox: Sandbox, client_for: Make) -> dict[str, chatops.Client]:
    return {name: client_for(name, fresh_sandbox) for name in EVERYONE}


def _id(sandbox: Sandbox, account: str) -> int:
    return sandbox.accounts[account].user_id


def _message(people: dict[str, chatops.Client], channel: str) -> int:
    ids = [people[name].users.me().user_id for name in EVERYONE]
    people["owner"].channels.subscribe([channel], principals=ids)
    return people["member"].messages.send_to_channel(channel, "receipts", "hello").id


def test_who_counts_as_having_read(
    fresh_sandbox: Sandbox, people: dict[str, chatops.Client]
) -> None:
    mid = _message(people, "receipts one")
    ask = people["owner"].messages.read_receipts
    assert ask(mid) == []  # the sender has read it, and never counts
    for name in ("admin", "moderator", "guest", "bot"):
        people[name].messages.update_flags([mid], op="add", flag="read")
    ids = {name: _id(fresh_sandbox, name) for name in EVERYONE}
    assert ask(mid) == sorted(ids[n] for n in ("admin", "moderator", "guest", "bot"))
    # marking it unread again takes the receipt back
    people["guest"].messages.update_flags([mid], op="remove", flag="read")
    assert ask(mid) == sorted(ids[n] for n in ("admin", "moderator", "bot"))
    # a reader's own privacy setting
    people["moderator"].users.update_settings(send_read_receipts=False)
    assert ask(mid) == sorted(ids[n] for n in ("admin", "bot"))
    # the asker's reader appears to the reader themselves too
    assert ids["admin"] in people["admin"].messages.read_receipts(mid)
    # muted by the asker, or muting the asker
    people["owner"].users.mute(ids["admin"])
    assert ask(mid) == [ids["bot"]]
    assert ids["admin"] in people["member"].messages.read_receipts(mid)
    people["owner"].users.unmute(ids["admin"])
    people["admin"].users.mute(ids["owner"])
    assert ask(mid) == [ids["bot"]]
    people["admin"].users.unmute(ids["owner"])
    # deactivated readers are left out
    people["owner"].users.deactivate(ids["bot"])
    try:
        assert ask(mid) == [ids["admin"]]
    finally:
        people["owner"].users.reactivate(ids["bot"])


def test_refused_when_disabled_or_unreadable(
    fresh_sandbox: Sandbox, people: dict[str, chatops.Client]
) -> None:
    mid = _message(people, "receipts two")
    people["admin"].messages.update_flags([mid], op="add", flag="read")
    with realm_settings(fresh_sandbox.store, enable_read_receipts=False):
        with api_error("BAD_REQUEST", msg="Read receipts are disabled in this organization."):
            people["owner"].messages.read_receipts(mid)
    direct = people["member"].messages.send_direct(_id(fresh_sandbox, "admin"), "just us").id
    with api_error("BAD_REQUEST", msg="Invalid message(s)"):
        people["guest"].messages.read_receipts(direct)
    with api_error("BAD_REQUEST", msg="Invalid message(s)"):
        people["owner"].messages.read_receipts(direct + 10_000)


def test_the_organization_setting_is_an_organization_setting(
    fresh_sandbox: Sandbox, people: dict[str, chatops.Client]
) -> None:
    state = people["member"].server.register(fetch_event_types=["realm"])
    assert state["realm_enable_read_receipts"] is True
    people["admin"].realm.update(enable_read_receipts=False)
    try:
        mid = _message(people, "receipts three")
        with api_error("BAD_REQUEST", msg="Read receipts are disabled in this organization."):
            people["owner"].messages.read_receipts(mid)
        state = people["member"].server.register(fetch_event_types=["realm"])
        assert state["realm_enable_read_receipts"] is False
    finally:
        people["admin"].realm.update(enable_read_receipts=True)
