"""Subscription properties (``POST /users/me/subscriptions/properties``), default channels
(``POST``/``DELETE /default_streams``) and a channel's email address, as the real server has
them."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, assert_error, raw, stream_id


@pytest.fixture
def member_of(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> Callable[[str], chatops.Client]:
    return lambda account: client_for(account, fresh_sandbox)


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "member")
    yield q
    q.close()


def _events(queue: Queue, event_type: str, count: int) -> list[dict[str, Any]]:
    """The next ``count`` events of ``event_type``, in the order they were sent."""
    found: list[dict[str, Any]] = []
    deadline = time.monotonic() + 5
    while len(found) < count and time.monotonic() < deadline:
        found += [e for e in queue.poll() if e["type"] == event_type]
        time.sleep(0.02)
    assert len(found) == count, found
    return found


def _is_default(client: chatops.Client, sid: int) -> bool | None:
    """Whether a channel is a default one, as ``GET /streams?include_default=true`` says."""
    channels = client.channels.list(include_default=True)
    return next(c for c in channels if c.stream_id == sid).is_default


def _sub(client: chatops.Client, sid: int) -> chatops.types.Subscription:
    return next(s for s in client.channels.subscriptions() if s.stream_id == sid)


# -- subscription properties ----------------------------------------------------------------------
def test_properties_change_and_announce(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client], queue: Queue
) -> None:
    member = member_of("member")
    sid = stream_id(fresh_sandbox, "engineering")
    member.channels.update_subscription_properties(
        [
            (sid, "color", "#c2c2c2"),
            (sid, "pin_to_top", True),
            (sid, "desktop_notifications", False),
            (sid, "wildcard_mentions_notify", True),
            (sid, "in_home_view", False),
        ]
    )
    sub = _sub(member, sid)
    assert sub.color == "#c2c2c2"
    assert sub.pin_to_top is True
    assert sub.desktop_notifications is False
    assert sub.audible_notifications is None, "an untouched setting still follows the global one"
    assert sub.wildcard_mentions_notify is True
    assert sub.is_muted is True and sub.in_home_view is False
    updates = _events(queue, "subscription", 6)[1:]
    assert [(e["property"], e["value"], e["stream_id"]) for e in updates] == [
        ("pin_to_top", True, sid),
        ("desktop_notifications", False, sid),
        ("wildcard_mentions_notify", True, sid),
        # in_home_view is stored as is_muted and announced under both names
        ("in_home_view", False, sid),
        ("is_muted", True, sid),
    ]
    member.channels.update_subscription_properties([(sid, "is_muted", False)])
    assert _sub(member, sid).in_home_view is True


@pytest.mark.parametrize(
    ("change", "msg"),
    [
        (("color", "red"), "color is not a valid hex color code"),
        (("color", "#12345678"), "color is not a valid hex color code"),
        (("pin_to_top", "yes"), "pin_to_top is not a boolean"),
        (("email_notifications", "true"), "email_notifications is not a boolean"),
        (("is_starred", True), "Unknown subscription property: is_starred"),
    ],
)
def test_bad_property_or_value(
    fresh_sandbox: Sandbox,
    member_of: Callable[[str], chatops.Client],
    change: tuple[str, object],
    msg: str,
) -> None:
    member = member_of("member")
    sid = stream_id(fresh_sandbox, "design")
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        member.channels.update_subscription_properties(
            [(sid, "pin_to_top", True), (sid, change[0], change[1])]  # type: ignore[list-item]
        )
    assert info.value.msg == msg


def test_not_subscribed_or_no_access(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client]
) -> None:
    member = member_of("member")
    design = stream_id(fresh_sandbox, "design")
    mobile = stream_id(fresh_sandbox, "mobile")  # public, the member is not subscribed
    data = stream_id(fresh_sandbox, "data")  # private, not subscribed
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST") as info:
            member.channels.update_subscription_properties(
                [(design, "pin_to_top", True), (mobile, "pin_to_top", True)]
            )
        assert info.value.msg == f"Not subscribed to channel ID {mobile}"
        with api_error("BAD_REQUEST") as info:
            member.channels.update_subscription_properties([(data, "pin_to_top", True)])
        assert info.value.msg == "Invalid channel ID"


def test_malformed_subscription_data(fresh_sandbox: Sandbox) -> None:
    sid = stream_id(fresh_sandbox, "design")
    with unchanged(fresh_sandbox.store):
        body = assert_error(
            raw(fresh_sandbox, "member", "POST", "/users/me/subscriptions/properties"),
            "REQUEST_VARIABLE_MISSING",
        )
        assert body["var_name"] == "subscription_data"
        for data, msg in (
            ({"stream_id": sid}, "subscription_data is not a list"),
            (
                [{"stream_id": sid, "value": True}],
                "property key is missing from subscription_data[]",
            ),
        ):
            body = assert_error(
                raw(
                    fresh_sandbox,
                    "member",
                    "POST",
                    "/users/me/subscriptions/properties",
                    subscription_data=json.dumps(data),
                ),
                "BAD_REQUEST",
            )
            assert body["msg"] == msg


# -- default channels -----------------------------------------------------------------------------
def test_add_and_remove_default_channel(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client], queue: Queue
) -> None:
    admin = member_of("admin")
    design = stream_id(fresh_sandbox, "design")
    admin.channels.add_default(design)
    event = queue.wait_for("default_streams")
    assert design in event["default_streams"]
    assert stream_id(fresh_sandbox, "general") in event["default_streams"]
    assert _is_default(admin, design) is True
    # a user an administrator creates joins the default channels
    new_id = admin.users.create(
        email="newcomer@example.com", password="pw-123456", full_name="New Comer"
    )
    subscribed = {
        r["stream_id"]
        for r in fresh_sandbox.store.query(
            "SELECT stream_id FROM subscriptions WHERE user_id = ? AND active = 1", [new_id]
        )
    }
    assert subscribed == set(event["default_streams"])
    admin.channels.remove_default(design)
    assert design not in queue.wait_for("default_streams")["default_streams"]
    assert _is_default(admin, design) is False


def test_default_channel_refusals(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client]
) -> None:
    admin, member = member_of("admin"), member_of("member")
    design = stream_id(fresh_sandbox, "design")
    marketing = stream_id(fresh_sandbox, "marketing")  # private; the admin is subscribed
    with unchanged(fresh_sandbox.store):
        with api_error("UNAUTHORIZED_PRINCIPAL"):
            member.channels.add_default(design)
        with api_error("UNAUTHORIZED_PRINCIPAL"):
            member.channels.remove_default(stream_id(fresh_sandbox, "general"))
        with api_error("BAD_REQUEST") as info:
            admin.channels.add_default(marketing)
        assert info.value.msg == "Private channels cannot be made default."
        with api_error("BAD_REQUEST") as info:
            admin.channels.add_default(999_999)
        assert info.value.msg == "Invalid channel ID"
        body = assert_error(
            raw(fresh_sandbox, "admin", "POST", "/default_streams"), "REQUEST_VARIABLE_MISSING"
        )
        assert body["var_name"] == "stream_id"


# -- the channel's email address ------------------------------------------------------------------
def test_email_address(fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client]) -> None:
    member, admin = member_of("member"), member_of("admin")
    general = stream_id(fresh_sandbox, "general")
    address = member.channels.email_address(general)
    assert re.fullmatch(r"general\.[0-9a-f]{32}\.show-sender@127\.0\.0\.1", address), address
    assert member.channels.email_address(general) == address, "the address is stable"
    as_self = member.channels.email_address(
        general, sender_id=fresh_sandbox.accounts["member"].user_id
    )
    assert as_self != address and as_self.startswith("general.")
    bot = fresh_sandbox.accounts["bot"].user_id  # owned by the admin
    as_bot = admin.channels.email_address(general, sender_id=bot)
    assert as_bot not in (address, as_self)
    assert admin.channels.email_address(general) != address, "each creator has a token"


def test_email_address_name_part(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client]
) -> None:
    admin = member_of("admin")
    admin.channels.subscribe(["Café & Crème", "日本語"])
    latin = admin.channels.email_address(stream_id(fresh_sandbox, "Café & Crème"))
    assert latin.startswith("cafe-creme."), latin
    other = admin.channels.email_address(stream_id(fresh_sandbox, "日本語"))
    assert re.fullmatch(r"[0-9a-f]{32}\.show-sender@127\.0\.0\.1", other), other


def test_email_address_refusals(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client]
) -> None:
    member = member_of("member")
    general = stream_id(fresh_sandbox, "general")
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST") as info:
            member.channels.email_address(stream_id(fresh_sandbox, "data"))
        assert info.value.msg == "Invalid channel ID"
        with api_error("BAD_REQUEST") as info:
            member.channels.email_address(general, sender_id=fresh_sandbox.accounts["bot"].user_id)
        assert info.value.msg == "Insufficient permission"
        with api_error("BAD_REQUEST") as info:
            member.channels.email_address(
                general, sender_id=fresh_sandbox.accounts["admin"].user_id
            )
        assert info.value.msg == "No such bot"


def test_channel_settings_and_archiving_announce_default_channels(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client], queue: Queue
) -> None:
    admin = member_of("admin")
    admin.channels.subscribe(["soon-default"])
    sid = stream_id(fresh_sandbox, "soon-default")
    admin.channels.update(sid, is_default_stream=True)
    assert sid in queue.wait_for("default_streams")["default_streams"]
    admin.channels.archive(sid)
    assert sid not in queue.wait_for("default_streams")["default_streams"]


def test_single_property_path(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client]
) -> None:
    member = member_of("member")
    sid = stream_id(fresh_sandbox, "random")
    path = f"/users/me/subscriptions/{sid}"
    assert raw(fresh_sandbox, "member", "PATCH", path, property="color", value="#0a0b0c")[0] == 200
    assert raw(fresh_sandbox, "member", "PATCH", path, property="is_muted", value="true")[0] == 200
    sub = _sub(member, sid)
    assert (sub.color, sub.is_muted) == ("#0a0b0c", True)
    with unchanged(fresh_sandbox.store):
        body = assert_error(
            raw(fresh_sandbox, "member", "PATCH", path, property="pin_to_top", value="yes"),
            "BAD_REQUEST",
        )
        assert body["msg"] == "pin_to_top is not a boolean"
        body = assert_error(
            raw(fresh_sandbox, "member", "PATCH", path, property="color"),
            "REQUEST_VARIABLE_MISSING",
        )
        assert body["var_name"] == "value"


def test_archived_channel_is_refused(
    fresh_sandbox: Sandbox, member_of: Callable[[str], chatops.Client]
) -> None:
    admin = member_of("admin")
    admin.channels.subscribe(["archived-soon"])
    sid = stream_id(fresh_sandbox, "archived-soon")
    admin.channels.archive(sid)
    with unchanged(fresh_sandbox.store):
        for call in (
            lambda: admin.channels.update_subscription_properties([(sid, "pin_to_top", True)]),
            lambda: admin.channels.add_default(sid),
            lambda: admin.channels.remove_default(sid),
            lambda: admin.channels.email_address(sid),
        ):
            with api_error("BAD_REQUEST") as info:
                call()
            assert info.value.msg == "Invalid channel ID"
