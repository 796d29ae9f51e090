"""Outgoing webhooks: a message to a bot is POSTed to its server, and its reply posted
(spec 4.22, 6.1; facts 2.20).

A message that mentions an outgoing-webhook bot, or a direct message to it, queues a delivery
once the message is committed (:func:`trigger`, a send hook the app adds); a background job
(:func:`run_deliveries`) POSTs the payload and handles the reply, so a slow or broken bot never
delays or loses the triggering message.

Replies (facts 2.20): a JSON object with ``content`` (or the old ``response_string``) is
posted by the bot in the same conversation; ``""``, ``response_not_required`` or an object
without content posts nothing. A failure (non-2xx, timeout, connection error, a body that is
not JSON or not an object) is posted by the bot as a failure notice and reported to the bot's
owner in a direct message from the notification bot.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import weakref
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from . import users
from .bots import BOT_TYPE_OUTGOING_WEBHOOK
from .errors import ApiError
from .messages import Formatter, send_message
from .store import Row, Store

log = logging.getLogger("chatops.sandbox")

TIMEOUT_SECONDS = 10.0
#: retries after a timeout or a connection error (the real server tries a few times)
MAX_RETRIES = 3


@dataclass
class Delivery:
    """One payload on its way to a bot."""

    bot_id: int
    message_id: int
    url: str
    payload: dict[str, Any]


@dataclass
class Runtime:
    """Per-store delivery settings and the outbox the background job drains."""

    timeout: float = TIMEOUT_SECONDS
    retries: int = MAX_RETRIES
    outbox: deque[Delivery] = field(default_factory=deque)


_runtimes: weakref.WeakKeyDictionary[Store, Runtime] = weakref.WeakKeyDictionary()


def runtime(store: Store) -> Runtime:
    rt = _runtimes.get(store)
    if rt is None:
        rt = _runtimes[store] = Runtime()
    return rt


def configure(store: Store, *, timeout: float | None = None, retries: int | None = None) -> None:
    """Change the delivery timeout (seconds) or retry count of this store's sandbox."""
    rt = runtime(store)
    if timeout is not None:
        rt.timeout = timeout
    if retries is not None:
        rt.retries = retries


# -- triggering ----------------------------------------------------------------------------------
def trigger(
    store: Store,
    sender: Row,
    message_id: int,
    mentioned_ids: set[int],
    direct_recipient_ids: set[int] | None,
) -> None:
    """Queue a delivery to each outgoing-webhook bot the message mentions or is sent to.

    ``direct_recipient_ids`` is the set of a direct message's participants (None for a
    channel message). Called inside the sending transaction; deliveries start on commit.
    """
    candidates = set(mentioned_ids) | (direct_recipient_ids or set())
    candidates.discard(sender["id"])
    if not candidates:
        return
    marks = ",".join("?" * len(candidates))
    bots = store.query(
        f"SELECT u.*, w.base_url, w.token FROM outgoing_webhooks w JOIN users u "
        f"ON u.id = w.bot_id WHERE u.is_active = 1 AND u.bot_type = ? AND w.bot_id IN ({marks}) "
        f"ORDER BY u.id",
        [BOT_TYPE_OUTGOING_WEBHOOK, *sorted(candidates)],
    )
    if not bots:
        return
    row = store.one("SELECT * FROM messages WHERE id = ?", [message_id])
    assert row is not None
    rt = runtime(store)
    for bot in bots:
        is_direct = direct_recipient_ids is not None and bot["id"] in direct_recipient_ids
        trigger_name = "direct_message" if is_direct else "mention"
        record = Formatter(
            store,
            bot,
            apply_markdown=False,
            client_gravatar=False,
            allow_empty_topic_name=True,
        ).format([row])[0]
        record["rendered_content"] = row["rendered_content"]
        payload = {
            "bot_email": users.api_email(store, bot),
            "bot_full_name": bot["full_name"],
            "data": row["content"],  # the raw content, a mention of the bot included
            "trigger": trigger_name,
            "token": bot["token"],
            "message": record,
        }
        delivery = Delivery(bot["id"], message_id, bot["base_url"], payload)
        store.after_commit(functools.partial(rt.outbox.append, delivery))


# -- delivery ------------------------------------------------------------------------------------
class DeliveryFailed(Exception):
    """The bot's server did not give a usable answer; the text says why."""


async def post_payload(client: httpx.AsyncClient, delivery: Delivery, rt: Runtime) -> Any:
    """POST the payload and return the decoded reply (None when nothing is to be posted)."""
    attempt = 0
    while True:
        try:
            response = await client.post(delivery.url, json=delivery.payload, timeout=rt.timeout)
            break
        except httpx.TimeoutException:
            if attempt >= rt.retries:
                raise DeliveryFailed(f"Request timed out after {rt.timeout:g} seconds.") from None
        except httpx.TransportError:
            if attempt >= rt.retries:
                raise DeliveryFailed(
                    "A connection error occurred. Is my bot server down?"
                ) from None
        attempt += 1
        await asyncio.sleep(min(0.2 * attempt, 1.0))
    if not 200 <= response.status_code < 300:
        raise DeliveryFailed(f"Failure! Third party responded with {response.status_code}")
    if response.content.strip() == b"":
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        raise DeliveryFailed("Invalid JSON in response") from None
    if body == "":
        return None
    if not isinstance(body, dict):
        raise DeliveryFailed("Invalid response format")
    return body


def handle_reply(store: Store, delivery: Delivery, body: Any) -> None:
    """Post the bot's ``content`` reply in the triggering conversation, if it has one."""
    if not isinstance(body, dict) or body.get("response_not_required"):
        return
    content = body.get("content", body.get("response_string"))
    if not isinstance(content, str) or not content.strip():
        return
    try:
        _post_as_bot(store, delivery, content)
    except ApiError as exc:
        notify_owner(store, delivery, f"The bot's reply could not be posted: {exc.msg}")


def _post_as_bot(store: Store, delivery: Delivery, content: str) -> int | None:
    bot = users.get_user(store, delivery.bot_id)
    message = store.one("SELECT * FROM messages WHERE id = ?", [delivery.message_id])
    if bot is None or message is None or not bot["is_active"]:
        return None
    if message["stream_id"] is not None:
        return send_message(
            store,
            bot,
            message_type="stream",
            to=json.dumps(message["stream_id"]),
            topic=message["topic"],
            content=content,
            client="OutgoingWebhookResponse",
        )
    key = str(
        store.scalar("SELECT user_set FROM recipients WHERE id = ?", [message["recipient_id"]])
    )
    others = [int(x) for x in key.strip(",").split(",") if x and int(x) != bot["id"]]
    return send_message(
        store,
        bot,
        message_type="direct",
        to=json.dumps(others or [bot["id"]]),
        content=content,
        client="OutgoingWebhookResponse",
    )


def notify_owner(store: Store, delivery: Delivery, reason: str) -> None:
    """A direct message from the notification bot telling the bot's owner what failed."""
    bot = users.get_user(store, delivery.bot_id)
    if bot is None or bot["bot_owner_id"] is None:
        return
    owner = users.get_user(store, bot["bot_owner_id"])
    if owner is None or not owner["is_active"]:
        return
    text = (
        f"[A message](#narrow/near/{delivery.message_id}) to your bot "
        f"@_**{bot['full_name']}|{bot['id']}** triggered an outgoing webhook.\n"
        f"The webhook failed: {reason}"
    )
    send_message(
        store,
        users.notification_bot(store),
        message_type="direct",
        to=json.dumps([owner["id"]]),
        content=text,
        client="Internal",
    )


async def deliver(store: Store, client: httpx.AsyncClient, delivery: Delivery) -> None:
    """Send one payload and act on the outcome; never raises."""
    rt = runtime(store)
    try:
        body = await post_payload(client, delivery, rt)
    except DeliveryFailed as exc:
        reason = str(exc)
        log.info("outgoing webhook of bot %d failed: %s", delivery.bot_id, reason)
        try:
            _post_as_bot(store, delivery, reason)
        except ApiError:
            pass
        try:
            notify_owner(store, delivery, reason)
        except ApiError:
            log.exception("could not notify the owner of bot %d", delivery.bot_id)
        return
    except Exception:  # the job must survive anything one bot does
        log.exception("outgoing webhook of bot %d crashed", delivery.bot_id)
        return
    try:
        handle_reply(store, delivery, body)
    except Exception:
        log.exception("reply of bot %d could not be handled", delivery.bot_id)


def as_of_level(delivery: Delivery, feature_level: int) -> Delivery:
    """The payload as a server at ``feature_level`` sends it (``private_message`` before 201)."""
    if feature_level < 201 and delivery.payload.get("trigger") == "direct_message":
        return replace(delivery, payload={**delivery.payload, "trigger": "private_message"})
    return delivery


async def run_deliveries(
    store: Store, *, poll_seconds: float = 0.02, feature_level: int = 10_000
) -> None:
    """The background job: drain the outbox, one task per delivery, until cancelled."""
    rt = runtime(store)
    tasks: set[asyncio.Task[None]] = set()
    async with httpx.AsyncClient(headers={"User-Agent": "ZulipOutgoingWebhook/chatops"}) as client:
        try:
            while True:
                while rt.outbox:
                    delivery = as_of_level(rt.outbox.popleft(), feature_level)
                    task = asyncio.create_task(deliver(store, client, delivery))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
                await asyncio.sleep(poll_seconds)
        finally:
            for task in list(tasks):
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
