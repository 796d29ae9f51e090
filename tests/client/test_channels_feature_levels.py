"""The channel, topic and typing calls adapt to servers at older feature levels (spec 9)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from urllib.parse import parse_qs

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import messages as messages_mod
from chatops.sandbox.bus import event_bus


@pytest.fixture(scope="module")
def old_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A sandbox that reports feature level 8: before ids as principals, user_topics, edit typing."""
    with Sandbox.start(tmp_path_factory.mktemp("old"), size="small", seed=5, feature_level=8) as sb:
        yield sb


@pytest.fixture
def old_admin(old_sandbox: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(old_sandbox.zuliprc("admin")) as client:
        yield client


def test_principals_are_sent_as_emails_before_level_9(
    old_admin: chatops.Client, old_sandbox: Sandbox
) -> None:
    member = old_sandbox.accounts["member"]
    result = old_admin.channels.subscribe(["old-principals"], principals=[member.user_id])
    # before feature level 289 the result is keyed by email
    assert list(result.subscribed.values()) == [["old-principals"]]
    channel = old_admin.channels.get_id("old-principals")
    assert member.user_id in old_admin.channels.members(channel)
    removed = old_admin.channels.unsubscribe(["old-principals"], principals=[member.user_id])
    assert removed.removed == ["old-principals"]


def test_bad_principal_is_403_unauthorized_principal_before_208(
    old_admin: chatops.Client,
) -> None:
    with pytest.raises(chatops.UnauthorizedPrincipal) as info:
        old_admin.channels.subscribe(["old-bad"], principals=["nobody@nowhere.test"])
    assert info.value.status == 403


def test_edit_typing_uses_the_old_path_before_361(
    old_admin: chatops.Client, old_sandbox: Sandbox
) -> None:
    store = old_sandbox.store
    admin = store.one("SELECT * FROM users WHERE id = ?", [old_sandbox.accounts["admin"].user_id])
    assert admin is not None
    mid = messages_mod.send_message(
        store, admin, message_type="stream", to="general", topic="typing", content="draft"
    )
    queue_events: list[dict[str, object]] = []
    original = event_bus(store).publish

    def spy(event: dict[str, object], user_ids: object) -> None:
        queue_events.append(event)
        original(event, user_ids)  # type: ignore[arg-type]

    event_bus(store).publish = spy  # type: ignore[method-assign]
    try:
        old_admin.typing.editing(mid, "start")
    finally:
        event_bus(store).publish = original  # type: ignore[method-assign]
    assert [e["type"] for e in queue_events] == ["typing_edit_message"]


def test_topic_muting_uses_the_old_path_before_170(
    old_admin: chatops.Client, old_sandbox: Sandbox
) -> None:
    channel = old_admin.channels.get_id("general")
    old_admin.channels.set_topic_visibility(channel, "quiet", 1)
    row = old_sandbox.store.one(
        "SELECT visibility_policy FROM user_topics WHERE user_id = ? AND topic = 'quiet'",
        [old_sandbox.accounts["admin"].user_id],
    )
    assert row == {"visibility_policy": 1}
    with pytest.raises(ValueError, match="only mute"):
        old_admin.channels.set_topic_visibility(channel, "quiet", 3)


def test_scheduled_message_type_is_stream_before_248(old_sandbox: Sandbox) -> None:
    """The client asks for ``channel`` and sends ``stream``, the only name an old server knows."""
    sent: list[dict[str, list[str]]] = []

    def remember(request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path.endswith("/scheduled_messages"):
            sent.append(parse_qs(request.content.decode()))

    http = httpx.Client(event_hooks={"request": [remember]})
    with chatops.Client.from_zuliprc(old_sandbox.zuliprc("admin"), http_client=http) as client:
        channel = client.channels.get_id("general")
        later = int(time.time()) + 3600
        sid = client.scheduled_messages.create(
            "channel", channel, "old", topic="t", scheduled_delivery_timestamp=later
        )
        client.scheduled_messages.delete(sid)
    http.close()
    assert [params["type"] for params in sent] == [["stream"]]
