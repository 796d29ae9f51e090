"""Blocking handlers run off the event loop: a slow request never stalls a long-poll."""

from __future__ import annotations

import json
import threading
import time
import types
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.requests import Request
from starlette.routing import Route

from chatops.sandbox import Sandbox, SandboxState, create_app
from chatops.sandbox.routes import events, messages
from chatops.sandbox.routes._http import endpoint
from chatops.sandbox.server import bind_socket
from chatops.sandbox.store import Row

SLOW_SECONDS = 3.0
release = threading.Event()


@endpoint()
def slow(request: Request, state: SandboxState, user: Row | None, p: Any) -> dict[str, Any]:
    """A request that takes its time (a big export, a slow disk), without holding the store."""
    release.wait(SLOW_SECONDS)
    return {}


SLOW_ROUTES = types.SimpleNamespace(ROUTES=[Route("/api/v1/slow", slow, methods=["POST"])])


@pytest.fixture
def site(fresh_sandbox: Sandbox) -> Iterator[str]:
    """The messages and events areas plus a slow endpoint, served over the same store."""
    state = SandboxState(store=fresh_sandbox.store, upload_dir=fresh_sandbox.state.upload_dir)
    app = create_app(state, [messages, events, SLOW_ROUTES])  # type: ignore[list-item]
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    server.config.install_signal_handlers = False  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}/api/v1"
    release.set()
    server.should_exit = True
    thread.join(10)
    sock.close()


def test_a_slow_request_does_not_stall_a_long_poll(site: str, fresh_sandbox: Sandbox) -> None:
    release.clear()
    member, admin = fresh_sandbox.accounts["member"], fresh_sandbox.accounts["admin"]
    as_member = (member.email, member.api_key)
    as_admin = (admin.email, admin.api_key)
    queue = httpx.post(
        f"{site}/register", data={"event_types": json.dumps(["message"])}, auth=as_member
    ).json()
    got: dict[str, Any] = {}

    def long_poll() -> None:
        r = httpx.get(
            f"{site}/events",
            params={"queue_id": queue["queue_id"], "last_event_id": queue["last_event_id"]},
            auth=as_member,
            timeout=30,
        )
        got["events"] = r.json()["events"]
        got["at"] = time.monotonic()

    def slow_request() -> None:
        httpx.post(f"{site}/slow", auth=as_admin, timeout=30)
        got["slow_done"] = time.monotonic()

    poller = threading.Thread(target=long_poll)
    slowpoke = threading.Thread(target=slow_request)
    poller.start()
    slowpoke.start()
    time.sleep(0.3)  # both requests are in flight
    start = time.monotonic()
    sent = httpx.post(
        f"{site}/messages",
        data={"type": "direct", "to": json.dumps([member.user_id]), "content": "ping"},
        auth=as_admin,
        timeout=30,
    ).json()
    poller.join(SLOW_SECONDS)
    assert not poller.is_alive(), "the long-poll waited for the slow request"
    assert [e["message"]["id"] for e in got["events"]] == [sent["id"]]
    assert got["at"] - start < SLOW_SECONDS / 2
    assert "slow_done" not in got  # the slow request was still running all along
    release.set()
    slowpoke.join(10)
