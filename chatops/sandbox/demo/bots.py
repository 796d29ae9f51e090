"""The demo's outgoing-webhook bots get a service."""

from __future__ import annotations

import random
import string

from ..bots import BOT_TYPE_OUTGOING_WEBHOOK, register_outgoing_webhook, service
from ..store import Store


def add_bots_demo(
    store: Store, rng: random.Random, *, url: str = "http://127.0.0.1:9/webhook"
) -> None:
    """Give the demo's outgoing-webhook bots a service (tokens drawn from ``rng``)."""
    alphabet = string.ascii_letters + string.digits
    for bot in store.query(
        "SELECT id FROM users WHERE is_bot = 1 AND bot_type = ? ORDER BY id",
        [BOT_TYPE_OUTGOING_WEBHOOK],
    ):
        if service(store, bot["id"]) is None:
            token = "".join(rng.choice(alphabet) for _ in range(32))
            register_outgoing_webhook(store, bot["id"], url, token=token)
