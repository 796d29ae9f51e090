"""Client overhead per call: chatops.Client against the official ``zulip`` client.

Both talk to an in-process transport that returns the same canned response, so what is
measured is each client's own work: building the request, auth, sending through its HTTP
stack, and decoding the JSON into what the caller gets.

    .venv/bin/python bench/bench_client.py
"""

from __future__ import annotations

import json
import os
import platform
import time
from typing import Any

import httpx
import requests
import zulip
from requests.adapters import BaseAdapter

import chatops

SITE = "https://chat.example.com"
KEY = "a" * 32


def canned_messages(n: int) -> bytes:
    msgs = [
        {
            "id": i,
            "type": "stream",
            "sender_id": 10 + i % 7,
            "sender_email": f"u{i % 7}@example.com",
            "sender_full_name": f"User {i % 7}",
            "sender_realm_str": "demo",
            "recipient_id": 3,
            "stream_id": 1,
            "subject": f"topic {i % 13}",
            "display_recipient": "general",
            "content": "<p>hello world, this is a message</p>",
            "content_type": "text/html",
            "client": "website",
            "timestamp": 1_700_000_000 + i,
            "is_me_message": False,
            "avatar_url": None,
            "reactions": [
                {
                    "emoji_name": "+1",
                    "emoji_code": "1f44d",
                    "reaction_type": "unicode_emoji",
                    "user_id": 12,
                }
            ],
            "submessages": [],
            "topic_links": [],
            "flags": ["read"],
        }
        for i in range(n)
    ]
    return json.dumps(
        {
            "result": "success",
            "msg": "",
            "messages": msgs,
            "anchor": n,
            "found_anchor": False,
            "found_oldest": False,
            "found_newest": True,
            "history_limited": False,
        }
    ).encode()


ME = json.dumps(
    {
        "result": "success",
        "msg": "",
        "user_id": 5,
        "email": "me@example.com",
        "delivery_email": "me@example.com",
        "full_name": "Me",
        "date_joined": "2024-01-01",
        "is_active": True,
        "is_owner": False,
        "is_admin": False,
        "is_guest": False,
        "is_bot": False,
        "bot_type": None,
        "bot_owner_id": None,
        "role": 400,
        "timezone": "UTC",
        "avatar_url": None,
        "avatar_version": 1,
        "profile_data": {},
        "max_message_id": 10,
    }
).encode()
REGISTER = json.dumps(
    {
        "result": "success",
        "msg": "",
        "zulip_feature_level": 416,
        "zulip_version": "11.0",
        "max_topic_length": 60,
        "max_message_length": 10000,
        "realm_empty_topic_display_name": "general chat",
        "max_file_upload_size_mib": 25,
        "queue_id": None,
    }
).encode()


SETTINGS = json.dumps(
    {
        "result": "success",
        "msg": "",
        "zulip_feature_level": 416,
        "zulip_version": "11.0",
        "realm_url": SITE,
    }
).encode()


class CannedAdapter(BaseAdapter):
    def __init__(self, body: bytes) -> None:
        super().__init__()
        self.body = body

    def send(self, request: Any, **kwargs: Any) -> requests.Response:
        r = requests.Response()
        r.status_code = 200
        r._content = SETTINGS if request.url.endswith("/server_settings") else self.body
        r.headers["Content-Type"] = "application/json"
        r.url = request.url
        r.request = request
        return r

    def close(self) -> None:
        pass


class CannedZulip(zulip.Client):  # type: ignore[misc]
    """The official client with its requests session routed to the canned adapter."""

    canned = b""

    def ensure_session(self) -> None:
        fresh = getattr(self, "session", None) is None
        super().ensure_session()
        if fresh:
            self.session.mount("https://", CannedAdapter(self.canned))


def official_client(body: bytes) -> zulip.Client:
    CannedZulip.canned = body
    return CannedZulip(email="me@example.com", api_key=KEY, site=SITE)


def our_client(body: bytes) -> chatops.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/register"):
            return httpx.Response(
                200, content=REGISTER, headers={"Content-Type": "application/json"}
            )
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    return chatops.Client(
        site=SITE, email="me@example.com", api_key=KEY, transport=httpx.MockTransport(handler)
    )


def per_call_pair(ours: Any, theirs: Any, rounds: int, batches: int = 9) -> tuple[float, float]:
    """Best batch time per call of each, batches interleaved so machine noise hits both alike."""
    ours()
    theirs()  # warm-up (and capability discovery for ours)
    best_ours = best_theirs = float("inf")
    for _ in range(batches):
        for fn, which in ((ours, "ours"), (theirs, "theirs")):
            t0 = time.perf_counter()
            for _ in range(rounds):
                fn()
            elapsed = (time.perf_counter() - t0) / rounds
            if which == "ours":
                best_ours = min(best_ours, elapsed)
            else:
                best_theirs = min(best_theirs, elapsed)
    return best_ours, best_theirs


def main() -> None:
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}"
    )
    cases = [
        ("GET /users/me", ME, lambda z: z.get_profile(), lambda c: c.users.me(), 2000),
        (
            "GET /messages, 100 messages",
            canned_messages(100),
            lambda z: z.get_messages({"anchor": "newest", "num_before": 100, "num_after": 0}),
            lambda c: c.messages.get(anchor="newest", num_before=100),
            300,
        ),
        (
            "GET /messages, 1000 messages",
            canned_messages(1000),
            lambda z: z.get_messages({"anchor": "newest", "num_before": 1000, "num_after": 0}),
            lambda c: c.messages.get(anchor="newest", num_before=1000),
            40,
        ),
    ]
    for label, body, theirs, ours, rounds in cases:
        z = official_client(body)
        c = our_client(body)
        t_ours, t_theirs = per_call_pair(
            lambda c=c, ours=ours: ours(c), lambda z=z, theirs=theirs: theirs(z), rounds
        )
        print(
            f"{label}: chatops {t_ours * 1e6:,.0f} us/call, official zulip {t_theirs * 1e6:,.0f} us/call, "
            f"ratio {t_ours / t_theirs:.2f}"
        )


if __name__ == "__main__":
    main()
