"""Faults a real server cannot easily produce, through httpx.MockTransport."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import time
import types
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from chatops import (
    AsyncClient,
    Client,
    Credentials,
    LimitError,
    RateLimited,
    ServerError,
    TransportError,
)

CREDS = Credentials("https://chat.example.com", "bot@example.com", "SECRET-API-KEY-123")
CAPS = {
    "result": "success",
    "msg": "",
    "zulip_feature_level": 400,
    "zulip_version": "11.0",
    "max_topic_length": 60,
    "max_message_length": 10000,
    "max_file_upload_size_mib": 1,
    "realm_empty_topic_display_name": "general chat",
}
OK = {"result": "success", "msg": ""}

Handler = Callable[[httpx.Request], httpx.Response]


class Recorder:
    """A scripted server: per (method, path) a list of responses or exceptions, in order."""

    def __init__(self, script: dict[tuple[str, str], list[Any]]) -> None:
        self.script = script
        self.calls: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls.append(request)
        key = (request.method, request.url.path.removeprefix("/api/v1"))
        if key == ("POST", "/register") and key not in self.script:
            return httpx.Response(200, json=CAPS)
        steps = self.script[key]
        step = steps.pop(0) if len(steps) > 1 else steps[0]
        if isinstance(step, Exception):
            raise step
        if isinstance(step, httpx.Response):
            return step
        return httpx.Response(200, json={**OK, **step})

    def paths(self) -> list[str]:
        return [f"{r.method} {r.url.path.removeprefix('/api/v1')}" for r in self.calls]


def _client(rec: Recorder, **kwargs: Any) -> Client:
    client = Client(credentials=CREDS, transport=httpx.MockTransport(rec), **kwargs)
    client._sleep_jitter = None
    return client


def _form(request: httpx.Request) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(request.content.decode(), keep_blank_values=True).items()}


@pytest.fixture(autouse=True)
def _no_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    slept: list[float] = []
    # Replace the client's own view of the two modules: patching time.sleep or asyncio.sleep
    # themselves would reach every thread and event loop of the session, sandbox included.
    fake_time = types.SimpleNamespace(sleep=slept.append, monotonic=time.monotonic)
    monkeypatch.setattr("chatops._sync_client.client.time", fake_time)

    async def fake_async_sleep(delay: float) -> None:
        slept.append(delay)

    monkeypatch.setattr(
        "chatops._async_client.client.asyncio", types.SimpleNamespace(sleep=fake_async_sleep)
    )
    return slept


def test_constructor_makes_no_request() -> None:
    rec = Recorder({})
    client = _client(rec)
    assert rec.calls == []
    assert "SECRET" not in repr(client) and "chat.example.com" in repr(client)
    client.close()


def test_basic_auth_and_user_agent() -> None:
    rec = Recorder(
        {("GET", "/users/me"): [{"user_id": 1, "email": "bot@example.com", "full_name": "B"}]}
    )
    with _client(rec) as client:
        assert client.users.me().user_id == 1
    request = rec.calls[0]
    token = base64.b64encode(b"bot@example.com:SECRET-API-KEY-123").decode()
    assert request.headers["authorization"] == f"Basic {token}"
    assert request.headers["user-agent"].startswith("chatops/")


def test_dropped_connection_then_success_get_retried(_no_sleep: list[float]) -> None:
    dropped = httpx.RemoteProtocolError("Server disconnected without sending a response.")
    rec = Recorder(
        {("GET", "/users/me"): [dropped, {"user_id": 1, "email": "e", "full_name": "n"}]}
    )
    with _client(rec) as client:
        assert client.users.me().user_id == 1
    assert rec.paths() == ["GET /users/me", "GET /users/me"]
    assert _no_sleep == [0.5]


def test_post_messages_not_retried_on_connection_error(_no_sleep: list[float]) -> None:
    dropped = httpx.RemoteProtocolError("Server disconnected without sending a response.")
    rec = Recorder({("POST", "/messages"): [dropped, {"id": 1}]})
    with _client(rec) as client, pytest.raises(TransportError) as info:
        client.messages.send_to_channel("general", "t", "hello")
    assert rec.paths() == ["POST /register", "POST /messages"]
    assert "SECRET" not in str(info.value)
    assert _no_sleep == []


def test_post_messages_not_retried_on_503() -> None:
    rec = Recorder({("POST", "/messages"): [httpx.Response(503, text="busy"), {"id": 1}]})
    with _client(rec) as client, pytest.raises(ServerError):
        client.messages.send("channel", 3, "hello", topic="t")
    assert rec.paths().count("POST /messages") == 1


def test_503_burst_on_get_retried_with_backoff(_no_sleep: list[float]) -> None:
    busy = httpx.Response(503, text="<html>Service Unavailable</html>")
    rec = Recorder(
        {("GET", "/users/me"): [busy, busy, busy, {"user_id": 2, "email": "e", "full_name": "n"}]}
    )
    with _client(rec) as client:
        assert client.users.me().user_id == 2
    assert _no_sleep == [0.5, 1.0, 2.0]


def test_503_gives_up_after_max_retries(_no_sleep: list[float]) -> None:
    busy = httpx.Response(503, json={"result": "error", "code": "SERVER_NOT_READY", "msg": "later"})
    rec = Recorder({("GET", "/users/me"): [busy]})
    with _client(rec, max_retries=2) as client, pytest.raises(ServerError, match="later"):
        client.users.me()
    assert len(rec.calls) == 3 and _no_sleep == [0.5, 1.0]


def test_connection_refused_exhausts_into_transport_error(_no_sleep: list[float]) -> None:
    rec = Recorder({("GET", "/users/me"): [httpx.ConnectError("refused")]})
    with _client(rec) as client, pytest.raises(TransportError, match="ConnectError"):
        client.users.me()
    assert len(rec.calls) == 4


def _limited(**kwargs: Any) -> httpx.Response:
    return httpx.Response(
        429,
        json={
            "result": "error",
            "code": "RATE_LIMIT_HIT",
            "msg": "API usage exceeded rate limit",
            **kwargs.pop("body", {}),
        },
        **kwargs,
    )


def test_429_retry_after_header_even_for_post(_no_sleep: list[float]) -> None:
    rec = Recorder({("POST", "/messages"): [_limited(headers={"Retry-After": "1.5"}), {"id": 9}]})
    with _client(rec) as client:
        assert client.messages.send_direct(5, "hi").id == 9
    assert _no_sleep == [1.5]


def test_429_retry_after_body_field(_no_sleep: list[float]) -> None:
    rec = Recorder(
        {
            ("GET", "/users/me"): [
                _limited(body={"retry-after": 0.75}),
                {"user_id": 2, "email": "e", "full_name": "n"},
            ]
        }
    )
    with _client(rec) as client:
        client.users.me()
    assert _no_sleep == [0.75]


def test_429_too_long_raises_rate_limited(_no_sleep: list[float]) -> None:
    rec = Recorder({("GET", "/users/me"): [_limited(headers={"Retry-After": "600"})]})
    with _client(rec) as client, pytest.raises(RateLimited) as info:
        client.users.me()
    assert info.value.retry_after == 600 and _no_sleep == []


def test_logs_never_contain_key_or_auth(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="chatops")
    busy = httpx.Response(503, text="busy")
    rec = Recorder({("GET", "/users/me"): [busy, {"user_id": 2, "email": "e", "full_name": "n"}]})
    with _client(rec) as client:
        client.users.me()
    assert "retry 1 of 3" in caplog.text
    assert "SECRET" not in caplog.text and "Basic" not in caplog.text


def test_limits_checked_before_sending() -> None:
    rec = Recorder({})
    with _client(rec) as client:
        with pytest.raises(LimitError, match="topic.*60"):
            client.messages.send_to_channel("general", "t" * 61, "hi")
        with pytest.raises(LimitError, match="content.*10000"):
            client.messages.edit(1, content="x" * 10001)
        with pytest.raises(LimitError, match="num_before \\+ num_after.*5000"):
            client.messages.get(anchor="newest", num_before=4000, num_after=1001)
        with pytest.raises(LimitError, match="file.*1048576"):
            client.uploads.upload(b"x" * (1024 * 1024 + 1), "big.bin")
    assert rec.paths() == ["POST /register"]  # capabilities once, nothing else sent


def test_wire_encoding_of_edit_and_get() -> None:
    rec = Recorder(
        {
            ("PATCH", "/messages/7"): [{"detached_uploads": []}],
            ("GET", "/messages"): [{"messages": [], "found_oldest": True}],
        }
    )
    with _client(rec) as client:
        client.messages.edit(
            7,
            topic="general chat",
            propagate_mode="change_all",
            send_notification_to_old_thread=False,
            prev_content="old ✔",
        )
        client.messages.get(anchor="newest", num_before=10, narrow=[("channel", "general")])
    edit, get = rec.calls[1], rec.calls[2]
    assert edit.headers["content-type"] == "application/x-www-form-urlencoded"
    import hashlib

    assert _form(edit) == {
        "topic": "",  # the empty-topic display name means the empty topic
        "propagate_mode": "change_all",
        "send_notification_to_old_thread": "false",
        "prev_content_sha256": hashlib.sha256("old ✔".encode()).hexdigest(),
    }
    query = dict(get.url.params)
    assert json.loads(query["narrow"]) == [{"operator": "channel", "operand": "general"}]
    assert query["num_before"] == "10" and query["allow_empty_topic_name"] == "true"
    assert get.content == b""


def test_mark_all_as_read_repeats_partial_results() -> None:
    partial = httpx.Response(
        200, json={"result": "partially_completed", "msg": "", "code": "REQUEST_TIMEOUT"}
    )
    rec = Recorder(
        {("POST", "/mark_all_as_read"): [partial, {"complete": False}, {"complete": True}]}
    )
    with _client(rec) as client:
        client.messages.mark_all_as_read()
    assert rec.paths().count("POST /mark_all_as_read") == 3


def test_move_topic_partial_ok_retries_from_allowed_id() -> None:
    refused = httpx.Response(
        400,
        json={
            "result": "error",
            "code": "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
            "msg": "limit",
            "first_message_id_allowed_to_move": 42,
            "total_messages_allowed_to_move": 3,
            "total_messages_in_topic": 9,
        },
    )
    rec = Recorder(
        {
            ("PATCH", "/messages/10"): [refused],
            ("PATCH", "/messages/42"): [{"detached_uploads": []}],
        }
    )
    with _client(rec) as client:
        client.messages.move_topic(10, topic="new", partial_ok=True)
    assert _form(rec.calls[-1])["propagate_mode"] == "change_later"


def test_iter_history_pages_without_duplicates() -> None:
    ids = list(range(1, 26))

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/register"):
            return httpx.Response(200, json=CAPS)
        q = request.url.params
        before = int(q["num_before"])
        anchor = q["anchor"]
        top = max(ids) if anchor == "newest" else int(anchor)
        include = q.get("include_anchor", "true") == "true"
        # Like the server: an anchor at an end may be included; overlap the page by one.
        chosen = [i for i in ids if i <= top][-(before + (0 if include else 1)) :]
        messages = [{"id": i, "type": "stream", "sender_id": 1, "subject": "t"} for i in chosen]
        return httpx.Response(
            200,
            json={
                **OK,
                "messages": messages,
                "anchor": top,
                "found_oldest": chosen[0] == 1,
                "found_newest": True,
            },
        )

    with Client(credentials=CREDS, transport=httpx.MockTransport(handler)) as client:
        seen = [m.id for m in client.messages.iter_history(page_size=10)]
    assert seen == sorted(ids, reverse=True)


def test_download_fetches_temporary_url_and_keeps_key_off_other_hosts() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/user_uploads/2/ab/cd/f.txt":
            return httpx.Response(
                200, json={**OK, "url": "/user_uploads/temporary/tok/2/ab/cd/f.txt"}
            )
        if request.url.host == "cdn.example.net":
            assert "authorization" not in request.headers
            return httpx.Response(200, content=b"cdn bytes")
        assert request.url.path == "/user_uploads/temporary/tok/2/ab/cd/f.txt"
        return httpx.Response(200, content=b"\x00file bytes")

    with Client(credentials=CREDS, transport=httpx.MockTransport(handler)) as client:
        assert client.uploads.download("/user_uploads/2/ab/cd/f.txt") == b"\x00file bytes"
        assert (
            client.uploads.download("https://chat.example.com/user_uploads/2/ab/cd/f.txt")
            == b"\x00file bytes"
        )
        assert client.uploads.download("https://cdn.example.net/x") == b"cdn bytes"


# -- async twins --------------------------------------------------------------------------------


def _async_client(rec: Recorder, **kwargs: Any) -> AsyncClient:
    client = AsyncClient(credentials=CREDS, transport=httpx.MockTransport(rec), **kwargs)
    client._sleep_jitter = None
    return client


def test_async_dropped_connection_then_success(_no_sleep: list[float]) -> None:
    dropped = httpx.RemoteProtocolError("dropped")
    rec = Recorder(
        {("GET", "/users/me"): [dropped, {"user_id": 1, "email": "e", "full_name": "n"}]}
    )

    async def main() -> int:
        async with _async_client(rec) as client:
            return (await client.users.me()).user_id

    assert asyncio.run(main()) == 1
    assert _no_sleep == [0.5]


def test_async_post_messages_not_retried(_no_sleep: list[float]) -> None:
    rec = Recorder({("POST", "/messages"): [httpx.RemoteProtocolError("dropped"), {"id": 1}]})

    async def main() -> None:
        async with _async_client(rec) as client:
            await client.messages.send_to_channel("general", "t", "hi")

    with pytest.raises(TransportError):
        asyncio.run(main())
    assert rec.paths().count("POST /messages") == 1


def test_async_429_then_503_burst(_no_sleep: list[float]) -> None:
    busy = httpx.Response(503, text="busy")
    rec = Recorder(
        {
            ("GET", "/users/me"): [
                _limited(headers={"Retry-After": "2"}),
                busy,
                {"user_id": 3, "email": "e", "full_name": "n"},
            ]
        }
    )

    async def main() -> int:
        async with _async_client(rec) as client:
            caps = await client.get_capabilities()
            assert client.capabilities is caps and caps.feature_level == 400
            return (await client.users.me()).user_id

    assert asyncio.run(main()) == 3
    assert _no_sleep == [2.0, 1.0]


def test_async_iter_history_and_limits() -> None:
    rec = Recorder(
        {
            ("GET", "/messages"): [
                {
                    "messages": [
                        {"id": 5, "type": "stream", "sender_id": 1},
                        {"id": 4, "type": "stream", "sender_id": 1},
                    ],
                    "found_oldest": True,
                }
            ]
        }
    )

    async def main() -> list[int]:
        async with _async_client(rec) as client:
            with pytest.raises(LimitError):
                await client.messages.send_to_channel("c", "t", "x" * 10001)
            return [m.id async for m in client.messages.iter_history()]

    assert asyncio.run(main()) == [5, 4]
