"""The organization's settings for new users (``PATCH /realm/user_settings_defaults``):
administrators only, every value checked before any is stored, one
``realm_user_settings_defaults`` event per change, ``/register``'s block, and new users (not
the existing ones) starting with them."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, raw


@pytest.fixture
def admin(fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "member", fetch_event_types=["realm_user_settings_defaults"])
    yield q
    q.close()


def _defaults(sandbox: Sandbox) -> dict[str, Any]:
    q = Queue(sandbox, "guest", fetch_event_types=["realm_user_settings_defaults"])
    q.close()
    block: dict[str, Any] = q.registration["realm_user_settings_defaults"]
    return block


def _settings(client: chatops.Client) -> dict[str, Any]:
    state = client.server.register(fetch_event_types=["user_settings"])
    settings: dict[str, Any] = state["user_settings"]
    return settings


def test_defaults_are_announced_registered_and_given_to_new_users_only(
    fresh_sandbox: Sandbox,
    admin: chatops.Client,
    queue: Queue,
    client_for: Callable[..., chatops.Client],
) -> None:
    before = _defaults(fresh_sandbox)
    assert (before["emojiset"], before["enter_sends"], before["email_address_visibility"]) == (
        "google",
        False,
        1,
    )
    assert [c["key"] for c in before["emojiset_choices"]] == ["google", "twitter", "text"]
    admin.realm.update_user_settings_defaults(
        emojiset="text", enter_sends=True, web_font_size_px=14, email_address_visibility=3
    )
    events = [e for e in queue.poll() if e["type"] == "realm_user_settings_defaults"]
    assert {(e["op"], e["property"], e["value"]) for e in events} == {
        ("update", "emojiset", "text"),
        ("update", "enter_sends", True),
        ("update", "web_font_size_px", 14),
        ("update", "email_address_visibility", 3),
    }
    after = _defaults(fresh_sandbox)
    assert (after["emojiset"], after["enter_sends"], after["web_font_size_px"]) == (
        "text",
        True,
        14,
    )
    assert after["email_address_visibility"] == 3
    # existing people keep theirs
    assert _settings(client_for("member", fresh_sandbox))["emojiset"] == "google"
    # a new person starts with the organization's
    new_id = admin.users.create(email="newcomer@example.com", password="pw-123456", full_name="N")
    row = fresh_sandbox.store.one("SELECT * FROM users WHERE id = ?", [new_id])
    assert row is not None and row["email_address_visibility"] == 3
    newcomer = chatops.Client(
        site=fresh_sandbox.site, email="newcomer@example.com", api_key=row["api_key"]
    )
    try:
        mine = _settings(newcomer)
    finally:
        newcomer.close()
    assert (mine["emojiset"], mine["enter_sends"], mine["web_font_size_px"]) == ("text", True, 14)
    # sending the current value again announces nothing
    admin.realm.update_user_settings_defaults(emojiset="text")
    assert not [e for e in queue.poll() if e["type"] == "realm_user_settings_defaults"]


def test_unsupported_names_are_listed_as_ignored(fresh_sandbox: Sandbox) -> None:
    status, body = raw(
        fresh_sandbox,
        "admin",
        "PATCH",
        "/realm/user_settings_defaults",
        left_side_userlist="true",
        default_language="de",
        full_name="x",
    )
    assert status == 200, body
    assert sorted(body["ignored_parameters_unsupported"]) == ["default_language", "full_name"]
    assert _defaults(fresh_sandbox)["default_language"] == "en"


@pytest.mark.parametrize(
    ("settings", "msg"),
    [
        ({"emojiset": "comic"}, "Invalid emojiset"),
        ({"color_scheme": 9}, "Invalid color_scheme"),
        ({"enter_sends": True, "web_font_size_px": 99}, "Invalid web_font_size_px"),
        ({"notification_sound": "gong"}, "Invalid notification_sound"),
        ({"email_address_visibility": 7}, "Invalid email_address_visibility"),
    ],
)
def test_bad_values_change_nothing(
    fresh_sandbox: Sandbox, admin: chatops.Client, queue: Queue, settings: dict[str, Any], msg: str
) -> None:
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST", msg=msg):
        admin.realm.update_user_settings_defaults(**settings)
    assert not [e for e in queue.poll() if e["type"] == "realm_user_settings_defaults"]


def test_members_may_not(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], queue: Queue
) -> None:
    for account in ("member", "moderator"):
        with (
            unchanged(fresh_sandbox.store),
            api_error("UNAUTHORIZED_PRINCIPAL", msg="Must be an organization administrator"),
        ):
            client_for(account, fresh_sandbox).realm.update_user_settings_defaults(enter_sends=True)
    assert not [e for e in queue.poll() if e["type"] == "realm_user_settings_defaults"]
