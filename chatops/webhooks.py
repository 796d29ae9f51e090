"""Writing an outgoing-webhook bot: typed payloads, the token check, replies, an ASGI app.

The server POSTs a JSON payload (spec 4.22) to the bot's URL when a message mentions the bot
or is a direct message to it; the bot answers with JSON: ``{"content": ...}`` is posted by the
bot in the same conversation, ``{"response_not_required": true}`` posts nothing. A bot in a few
lines, served by uvicorn::

    # echo_bot.py
    import os
    from chatops.webhooks import make_app, reply

    def handle(payload):
        return reply(f"You said: {payload.query}")

    app = make_app(handle, token=os.environ["BOT_TOKEN"])

    # uvicorn echo_bot:app --host 127.0.0.1 --port 8000

A payload whose ``token`` is not the bot's is refused (HTTP 403) before the handler runs; the
comparison takes constant time. Servers before feature level 201 send the trigger
``private_message``; it is read as ``direct_message``.
"""

from __future__ import annotations

import asyncio
import hmac
import inspect
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from ._exceptions import ChatopsError
from .types import Message

__all__ = [
    "ASGIApp",
    "DIRECT_MESSAGE",
    "MENTION",
    "Handler",
    "InvalidPayload",
    "InvalidToken",
    "OutgoingWebhookPayload",
    "Reply",
    "WebhookError",
    "make_app",
    "no_reply",
    "parse_payload",
    "reply",
    "verify_token",
]

log = logging.getLogger("chatops.webhooks")

DIRECT_MESSAGE = "direct_message"
MENTION = "mention"
#: the trigger's name before feature level 201
_OLD_TRIGGER_NAMES = {"private_message": DIRECT_MESSAGE}


class WebhookError(ChatopsError):
    """A request to the bot that it must refuse."""

    status = 400


class InvalidPayload(WebhookError):
    """The body is not an outgoing-webhook payload."""


class InvalidToken(WebhookError):
    """The payload's token is not this bot's (the message never says what either was)."""

    status = 403


class OutgoingWebhookPayload(msgspec.Struct, kw_only=True, forbid_unknown_fields=False):
    """What the server sends (spec 4.22). ``trigger`` is ``direct_message`` or ``mention``."""

    bot_email: str
    bot_full_name: str
    data: str
    trigger: str
    token: str
    message: Message

    def __post_init__(self) -> None:
        self.trigger = _OLD_TRIGGER_NAMES.get(self.trigger, self.trigger)

    @property
    def is_direct_message(self) -> bool:
        return self.trigger == DIRECT_MESSAGE

    @property
    def query(self) -> str:
        """``data`` without the mention that triggered the bot: what the user asked it.

        The server sends the raw content, mention included (``@**Bot Name** help``);
        this is ``help``. A direct message is returned as it is.
        """
        if self.is_direct_message:
            return self.data.strip()
        mention = re.compile(r"@\*\*" + re.escape(self.bot_full_name) + r"(\|\d+)?\*\*")
        return mention.sub("", self.data, count=1).strip()

    def __repr__(self) -> str:  # the token stays out of logs and tracebacks
        return (
            f"OutgoingWebhookPayload(bot_email={self.bot_email!r}, trigger={self.trigger!r}, "
            f"message_id={self.message.id}, data={self.data!r})"
        )


class Reply(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The bot's answer: ``content`` to post, or ``response_not_required``."""

    content: str | None = None
    widget_content: str | None = None
    response_not_required: bool = False

    def to_json(self) -> bytes:
        return msgspec.json.encode(self)


def reply(content: str, *, widget_content: str | None = None) -> Reply:
    """A reply the bot posts in the conversation that triggered it."""
    return Reply(content=content, widget_content=widget_content)


def no_reply() -> Reply:
    """Tell the server nothing is to be posted."""
    return Reply(response_not_required=True)


def verify_token(received: str, expected: str) -> bool:
    """Whether ``received`` is the bot's token, compared in constant time."""
    return hmac.compare_digest(received.encode("utf-8"), expected.encode("utf-8"))


def parse_payload(body: bytes | str, *, token: str) -> OutgoingWebhookPayload:
    """Decode and validate a payload and check its token.

    Raises:
        InvalidPayload: the body is not JSON of the payload's shape.
        InvalidToken: the token is not ``token``.
    """
    try:
        payload = msgspec.json.decode(body, type=OutgoingWebhookPayload)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InvalidPayload(f"Invalid outgoing-webhook payload: {exc}") from None
    if not verify_token(payload.token, token):
        raise InvalidToken("The payload's token is not this bot's token")
    return payload


HandlerResult = Reply | str | dict[str, Any] | None
#: a bot's logic: payload in, reply out (``str``: content; ``None``: no reply); may be async
Handler = Callable[[OutgoingWebhookPayload], HandlerResult | Awaitable[HandlerResult]]


def _as_reply(result: HandlerResult) -> bytes:
    if result is None:
        return no_reply().to_json()
    if isinstance(result, str):
        return reply(result).to_json()
    if isinstance(result, Reply):
        return result.to_json()
    return msgspec.json.encode(result)


ASGIReceive = Callable[[], Awaitable[dict[str, Any]]]
ASGISend = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[dict[str, Any], ASGIReceive, ASGISend], Awaitable[None]]


def make_app(handler: Handler, *, token: str, path: str = "/") -> ASGIApp:
    """An ASGI app serving the bot at ``path``: ``uvicorn module:app`` runs it.

    Args:
        handler: called with each valid payload; sync handlers run in a worker thread.
        token: the bot's outgoing-webhook token; other tokens get HTTP 403.
        path: the URL path the server posts to.
    """

    async def respond(send: ASGISend, status: int, body: bytes) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def app(scope: dict[str, Any], receive: ASGIReceive, send: ASGISend) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        if scope.get("path") != path:
            await respond(send, 404, b'{"result":"error","msg":"Not found"}')
            return
        if scope.get("method") != "POST":
            await respond(send, 405, b'{"result":"error","msg":"Method not allowed"}')
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = bool(message.get("more_body"))
        try:
            payload = parse_payload(b"".join(chunks), token=token)
        except WebhookError as exc:
            log.warning("refused an outgoing-webhook request: %s", exc)
            await respond(
                send, exc.status, msgspec.json.encode({"result": "error", "msg": str(exc)})
            )
            return
        result: Any
        try:
            if inspect.iscoroutinefunction(handler):
                result = await handler(payload)
            else:
                result = await asyncio.to_thread(handler, payload)
                if inspect.isawaitable(result):
                    result = await result
        except Exception:
            log.exception("the bot's handler failed on %r", payload)
            await respond(send, 500, b'{"result":"error","msg":"The bot failed"}')
            return
        await respond(send, 200, _as_reply(result))

    return app
