"""Outgoing webhooks (spec 4.22, 6.1; facts 2.20): a real bot under uvicorn, real deliveries.

The bots are written with ``chatops.webhooks`` and served by uvicorn on 127.0.0.1; the
sandbox POSTs to them in the background and handles their replies.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
import uvicorn

import chatops
from chatops.sandbox import Sandbox, bots, users
from chatops.sandbox import outgoing_webhooks as ow
from chatops.sandbox.server import bind_socket
from chatops.webhooks import (
    ASGIApp,
    OutgoingWebhookPayload,
    make_app,
    no_reply,
    parse_payload,
    reply,
)


class BotServer:
    """An ASGI bot served by uvicorn in a thread on 127.0.0.1."""

    def __init__(self, app: ASGIApp) -> None:
        self.sock = bind_socket("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/"
        config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
        self.server = uvicorn.Server(config)
        self.server.config.install_signal_handlers = False  # type: ignore[attr-defined]
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "the bot did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)
        self.sock.close()


_bot_count = 0


def make_bot(sandbox: Sandbox, url: str, name: str | None = None) -> tuple[int, str, str]:
    """An outgoing-webhook bot owned by ``admin``: (bot id, full name, token)."""
    global _bot_count
    _bot_count += 1
    full_name = name or f"Hook Bot {_bot_count}"
    store = sandbox.store
    with store.atomic():
        bot_id = users.create_user(
            store,
            email=f"hook-bot-{_bot_count}-{time.monotonic_ns()}@demo.chatops.test",
            full_name=full_name,
            is_bot=True,
            bot_type=3,
            bot_owner_id=sandbox.accounts["admin"].user_id,
        )
        token = bots.register_outgoing_webhook(store, bot_id, url)
    return bot_id, full_name, token


def wait_for(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def topic_messages(client: chatops.Client, channel: str, topic: str) -> list[chatops.Message]:
    page = client.messages.get(
        anchor="newest",
        num_before=50,
        narrow=[
            {"operator": "channel", "operand": channel},
            {"operator": "topic", "operand": topic},
        ],
        apply_markdown=False,
    )
    return page.messages


def owner_notifications(sandbox: Sandbox, since: int) -> list[dict[str, Any]]:
    bot = users.notification_bot(sandbox.store)
    admin = sandbox.accounts["admin"].user_id
    return sandbox.store.query(
        "SELECT m.* FROM messages m JOIN recipients r ON r.id = m.recipient_id "
        "WHERE m.sender_id = ? AND m.id > ? AND r.user_set = ?",
        [bot["id"], since, f",{min(bot['id'], admin)},{max(bot['id'], admin)},"],
    )


@pytest.fixture
def quick_deliveries(sandbox: Sandbox) -> Iterator[None]:
    ow.configure(sandbox.store, timeout=0.5, retries=1)
    yield
    ow.configure(sandbox.store, timeout=ow.TIMEOUT_SECONDS, retries=ow.MAX_RETRIES)


def test_mention_gets_the_bots_reply_in_the_topic(sandbox: Sandbox, member: chatops.Client) -> None:
    seen: list[OutgoingWebhookPayload] = []
    token_box: list[str] = []

    def handle(payload: OutgoingWebhookPayload) -> Any:
        seen.append(payload)
        return reply(f"echo: {payload.query}")

    # the token is known only after registration; the app reads it through a closure
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await make_app(handle, token=token_box[0] if token_box else "")(scope, receive, send)

    bot = BotServer(app)
    try:
        bot_id, name, token = make_bot(sandbox, bot.url)
        token_box.append(token)
        sent = member.messages.send_to_channel("general", "bot talk", f"@**{name}** ping please")
        replies = wait_for(
            lambda: [
                m for m in topic_messages(member, "general", "bot talk") if m.sender_id == bot_id
            ]
        )
        assert replies[0].content == "echo: ping please"
        payload = seen[0]
        assert payload.trigger == "mention" and payload.query == "ping please"
        # as the real server sends it: the raw content, the mention of the bot included
        assert payload.data == f"@**{name}** ping please"
        assert payload.message.id == sent.id and payload.message.subject == "bot talk"
        assert payload.message.content == f"@**{name}** ping please"  # raw Markdown
        assert payload.bot_full_name == name
        assert payload.token == token
    finally:
        bot.stop()


def test_direct_message_trigger_and_reply(sandbox: Sandbox, member: chatops.Client) -> None:
    seen: list[str] = []
    box: list[str] = []

    async def handle(payload: OutgoingWebhookPayload) -> Any:
        seen.append(payload.trigger)
        return f"you wrote {payload.data!r}"

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await make_app(handle, token=box[0] if box else "")(scope, receive, send)

    bot = BotServer(app)
    try:
        bot_id, _name, token = make_bot(sandbox, bot.url)
        box.append(token)
        member.messages.send_direct([bot_id], "hello bot")
        page = wait_for(
            lambda: [
                m
                for m in member.messages.get(
                    anchor="newest",
                    num_before=5,
                    narrow=[{"operator": "dm", "operand": [bot_id]}],
                    apply_markdown=False,
                ).messages
                if m.sender_id == bot_id
            ]
        )
        assert page[0].content == "you wrote 'hello bot'"
        assert seen == ["direct_message"]
    finally:
        bot.stop()


def test_no_reply_posts_nothing(sandbox: Sandbox, member: chatops.Client) -> None:
    calls: list[int] = []
    box: list[str] = []

    def handle(payload: OutgoingWebhookPayload) -> Any:
        calls.append(payload.message.id)
        return no_reply()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await make_app(handle, token=box[0] if box else "")(scope, receive, send)

    bot = BotServer(app)
    try:
        bot_id, name, token = make_bot(sandbox, bot.url)
        box.append(token)
        before = sandbox.store.scalar("SELECT max(id) FROM messages")
        mid = member.messages.send_to_channel("general", "quiet bot", f"@**{name}** hush").id
        wait_for(lambda: calls == [mid])
        time.sleep(0.3)
        assert sandbox.store.scalar("SELECT max(id) FROM messages") == mid > before
        assert owner_notifications(sandbox, before) == []
    finally:
        bot.stop()


def _failing_bot_test(sandbox: Sandbox, member: chatops.Client, app: ASGIApp, reason: str) -> None:
    bot = BotServer(app)
    try:
        bot_id, name, _token = make_bot(sandbox, bot.url)
        before = int(sandbox.store.scalar("SELECT max(id) FROM messages"))
        t0 = time.monotonic()
        mid = member.messages.send_to_channel("general", "broken bot", f"@**{name}** help").id
        assert time.monotonic() - t0 < 1.0  # the slow bot never delays the message
        assert mid > before
        notes = wait_for(lambda: owner_notifications(sandbox, before))
        assert reason in notes[0]["content"]
        assert f"#narrow/near/{mid}" in notes[0]["content"]
        # the triggering message is delivered and unchanged
        assert [
            m.content for m in topic_messages(member, "general", "broken bot") if m.id == mid
        ] == [f"@**{name}** help"]
    finally:
        bot.stop()


def test_bot_answering_500_notifies_the_owner(
    sandbox: Sandbox, member: chatops.Client, quick_deliveries: None
) -> None:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 500, "headers": []})
        await send({"type": "http.response.body", "body": b"boom"})

    _failing_bot_test(sandbox, member, app, "Third party responded with 500")


def test_bot_timing_out_notifies_the_owner(
    sandbox: Sandbox, member: chatops.Client, quick_deliveries: None
) -> None:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await asyncio.sleep(3)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b'{"content": "too late"}'})

    _failing_bot_test(sandbox, member, app, "Request timed out after 0.5 seconds.")


def test_bot_answering_garbage_notifies_the_owner(
    sandbox: Sandbox, member: chatops.Client, quick_deliveries: None
) -> None:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"<html>not json</html>"})

    _failing_bot_test(sandbox, member, app, "Invalid JSON in response")


def test_unreachable_bot_notifies_the_owner(
    sandbox: Sandbox, member: chatops.Client, quick_deliveries: None
) -> None:
    sock = bind_socket("127.0.0.1", 0)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    sock.close()  # nothing listens there: connection refused
    bot_id, name, _ = make_bot(sandbox, url)
    before = int(sandbox.store.scalar("SELECT max(id) FROM messages"))
    mid = member.messages.send_to_channel("general", "down bot", f"@**{name}** anyone?").id
    notes = wait_for(lambda: owner_notifications(sandbox, before))
    assert "connection error" in notes[0]["content"]
    assert sandbox.store.one("SELECT 1 FROM messages WHERE id = ?", [mid])


def test_receiver_refuses_a_wrong_token(sandbox: Sandbox) -> None:
    calls: list[Any] = []
    bot = BotServer(make_app(lambda p: calls.append(p), token="the-right-token"))
    try:
        payload = {
            "bot_email": "b@x",
            "bot_full_name": "B",
            "data": "hi",
            "trigger": "mention",
            "token": "a-wrong-token",
            "message": {"id": 1, "type": "stream", "sender_id": 2},
        }
        r = httpx.post(bot.url, json=payload)
        assert r.status_code == 403
        assert "a-wrong-token" not in r.text and "the-right-token" not in r.text
        r = httpx.post(bot.url, content=b"not json")
        assert r.status_code == 400
        assert calls == []
        r = httpx.post(bot.url, json={**payload, "token": "the-right-token"})
        assert r.status_code == 200 and r.json() == {"response_not_required": True}
        assert len(calls) == 1
    finally:
        bot.stop()


def test_register_outgoing_webhook_rules(sandbox: Sandbox) -> None:
    store = sandbox.store
    member = sandbox.accounts["member"].user_id
    with api_error_plain("Invalid bot"):
        bots.register_outgoing_webhook(store, member, "http://127.0.0.1:1/")
    bot_id, _name, token = make_bot(sandbox, "http://127.0.0.1:1/a")
    with api_error_plain("Enter a valid URL."):
        bots.register_outgoing_webhook(store, bot_id, "ftp://nope")
    # the token is fixed per bot: re-registering changes the URL only
    assert bots.register_outgoing_webhook(store, bot_id, "http://127.0.0.1:1/b") == token
    service = bots.service(store, bot_id)
    assert service is not None and service["base_url"] == "http://127.0.0.1:1/b"


class api_error_plain:  # noqa: N801 - reads like api_error
    """Expect a domain ApiError with this message (rules called without HTTP)."""

    def __init__(self, msg: str) -> None:
        self.msg = msg

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        from chatops.sandbox.errors import ApiError

        assert isinstance(exc, ApiError), f"expected ApiError({self.msg!r}), got {exc!r}"
        assert exc.msg == self.msg and exc.status == 400
        return True


def test_demo_webhook_bot_has_a_service(sandbox: Sandbox) -> None:
    row = sandbox.store.one(
        "SELECT w.* FROM outgoing_webhooks w JOIN users u ON u.id = w.bot_id "
        "WHERE u.full_name = 'Webhook Bot'"
    )
    assert row is not None and row["token"]


def test_bot_created_over_http_with_payload_url(sandbox: Sandbox, member: chatops.Client) -> None:
    """``POST /bots`` with ``bot_type=3`` and ``payload_url``: the returned token authenticates."""
    box: list[str] = []

    def handle(payload: OutgoingWebhookPayload) -> Any:
        return reply(f"made over HTTP: {payload.query}")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await make_app(handle, token=box[0] if box else "")(scope, receive, send)

    bot = BotServer(app)
    try:
        created = member.bots.create(
            full_name="Http Made Bot", short_name="httpmade", bot_type=3, payload_url=bot.url
        )
        [service] = created.services
        assert service.base_url == bot.url and service.token
        assert service.token not in repr(created) and created.api_key not in repr(created)
        box.append(service.token)
        member.messages.send_to_channel("general", "http bot", "@**Http Made Bot** hello")
        replies = wait_for(
            lambda: [
                m
                for m in topic_messages(member, "general", "http bot")
                if m.sender_id == created.user_id
            ]
        )
        assert replies[0].content == "made over HTTP: hello"
    finally:
        bot.stop()


def test_outgoing_bot_needs_a_payload_url(sandbox: Sandbox, member: chatops.Client) -> None:
    from tests.conftest import unchanged

    with unchanged(sandbox.store), pytest.raises(chatops.ApiError) as info:
        member.bots.create(full_name="No Url Bot", short_name="nourl", bot_type=3)
    assert (info.value.code, info.value.status, info.value.var_name) == (
        "REQUEST_VARIABLE_MISSING",
        400,
        "payload_url",
    )


def recording_bot(bodies: list[dict[str, Any]]) -> ASGIApp:
    """A bot that records each raw JSON body it receives and asks for no reply."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        chunks = b""
        more = True
        while more:
            event = await receive()
            chunks += event.get("body", b"")
            more = event.get("more_body", False)
        bodies.append(json.loads(chunks))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": b'{"response_not_required": true}'})

    return app


def test_raw_payload_fields_and_trigger_name(sandbox: Sandbox, member: chatops.Client) -> None:
    """Spec 4.22: the body as sent, before the client library reads it (trigger names at 201)."""
    bodies: list[dict[str, Any]] = []
    app = recording_bot(bodies)
    bot = BotServer(app)
    try:
        bot_id, name, token = make_bot(sandbox, bot.url)
        member.messages.send_direct([bot_id], "raw hello")
        body = wait_for(lambda: bodies)[0]
        assert {"bot_email", "bot_full_name", "data", "trigger", "token", "message"} <= set(body)
        assert body["trigger"] == "direct_message"
        assert (body["bot_full_name"], body["token"], body["data"]) == (name, token, "raw hello")
        assert body["message"]["type"] == "private"
        assert body["message"]["sender_id"] == sandbox.accounts["member"].user_id
        assert body["message"]["subject"] == ""
    finally:
        bot.stop()


def test_trigger_is_private_message_before_level_201(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    bodies: list[dict[str, Any]] = []
    bot = BotServer(recording_bot(bodies))
    try:
        with Sandbox.start(tmp_path_factory.mktemp("fl200"), feature_level=200) as old:
            bot_id, _, _ = make_bot(old, bot.url)
            with chatops.Client.from_zuliprc(old.zuliprc("member")) as member:
                member.messages.send_direct([bot_id], "old server")
                body = wait_for(lambda: bodies)[0]
        assert body["trigger"] == "private_message"
        # the receiving side reads the old name as the new one
        assert parse_payload(json.dumps(body), token=body["token"]).trigger == "direct_message"
    finally:
        bot.stop()


def test_mention_payload_is_the_real_servers(sandbox: Sandbox, member: chatops.Client) -> None:
    """``data`` is the raw content, mention included; the message is rendered as for any
    reader without Markdown (``content`` raw, ``rendered_content`` kept, no ``flags``)."""
    bodies: list[dict[str, Any]] = []
    bot = BotServer(recording_bot(bodies))
    try:
        bot_id, name, _ = make_bot(sandbox, bot.url)
        content = f"@**{name}** what is the weather?"
        member.messages.send_to_channel("general", "raw mention payload", content)
        body = wait_for(lambda: bodies)[0]
        assert body["trigger"] == "mention"
        assert body["data"] == content
        message = body["message"]
        assert message["content"] == content and message["content_type"] == "text/x-markdown"
        assert (
            f'<span class="user-mention" data-user-id="{bot_id}">@{name}</span>'
            in message["rendered_content"]
        )
        assert "flags" not in message
        assert message["avatar_url"]  # client_gravatar is false for bots' payloads
        assert message["display_recipient"] == "general"
        assert message["subject"] == "raw mention payload"
    finally:
        bot.stop()


@pytest.mark.parametrize(
    ("trigger", "data", "query"),
    [
        ("mention", "@**Echo Bot** hello there", "hello there"),
        ("mention", "@**Echo Bot|42** hello", "hello"),
        ("mention", "well @**Echo Bot**, hello", "well , hello"),
        ("mention", "@**Other** hi", "@**Other** hi"),
        ("direct_message", "  @**Echo Bot** stays  ", "@**Echo Bot** stays"),
        ("private_message", "hi", "hi"),
    ],
)
def test_query_is_the_data_without_the_bots_mention(trigger: str, data: str, query: str) -> None:
    body = {
        "bot_email": "echo-bot@demo.chatops.test",
        "bot_full_name": "Echo Bot",
        "data": data,
        "trigger": trigger,
        "token": "t0ken",
        "message": {"id": 1, "type": "stream", "sender_id": 2},
    }
    payload = parse_payload(json.dumps(body), token="t0ken")
    assert payload.data == data and payload.query == query
