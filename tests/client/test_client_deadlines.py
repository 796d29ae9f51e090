"""A call's timeout bounds the whole call, and an answer's size is bounded.

Each test runs a small misbehaving HTTP server on 127.0.0.1 (raw sockets in a thread: the
sandbox cannot drip bytes or stay silent on purpose) against both clients.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest

import chatops

Behaviour = Callable[[socket.socket, threading.Event], None]


@contextmanager
def misbehaving_server(behaviour: Behaviour) -> Iterator[str]:
    """Serve every connection with ``behaviour`` until the block ends; yields the site URL."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()
    threads: list[threading.Thread] = []

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)  # the request (small: a GET with headers)
                behaviour(conn, stop)
            except OSError:
                pass

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            t = threading.Thread(target=serve, args=(conn,), daemon=True)
            t.start()
            threads.append(t)

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        acceptor.join(5)
        listener.close()
        for t in threads:
            t.join(5)


def drip_headers(conn: socket.socket, stop: threading.Event) -> None:
    """Two bytes a second, forever: the status line never ends."""
    for byte in b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" * 100:
        if stop.wait(0.5):
            return
        conn.sendall(bytes([byte]))


def drip_body(conn: socket.socket, stop: threading.Event) -> None:
    """Headers at once, then a 1,000-byte body two bytes a second."""
    body = b'{"result": "success", "msg": "", "pad": "' + b"x" * 1000 + b'"}'
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body))
    for i in range(0, len(body), 2):
        if stop.wait(1.0):
            return
        conn.sendall(body[i : i + 2])


def silent(conn: socket.socket, stop: threading.Event) -> None:
    """Read the request and never answer."""
    stop.wait(60)


def gzip_bomb(size: int) -> Behaviour:
    """A gzip body that inflates to ``size`` bytes of JSON-ish padding."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    head = b'{"result": "success", "msg": "", "pad": "'
    parts = [compressor.compress(head)]
    block = b"0" * (1024 * 1024)
    for _ in range(size // len(block)):
        parts.append(compressor.compress(block))
    parts.append(compressor.compress(b'"}'))
    parts.append(compressor.flush())
    body = b"".join(parts)

    def behaviour(conn: socket.socket, stop: threading.Event) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            b"Content-Length: %d\r\n\r\n" % len(body)
        )
        conn.sendall(body)

    return behaviour


def declared_huge(conn: socket.socket, stop: threading.Event) -> None:
    """Announces 10 GB and sends a few bytes."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
    conn.sendall(b"Content-Length: 10000000000\r\n\r\n{}")
    stop.wait(30)


def _sync_me(site: str, **kwargs: object) -> None:
    with chatops.Client(site, "a@example.com", "k" * 32, **kwargs) as client:  # type: ignore[arg-type]
        client.users.me()


def _async_me(site: str, **kwargs: object) -> None:
    async def go() -> None:
        async with chatops.AsyncClient(site, "a@example.com", "k" * 32, **kwargs) as client:  # type: ignore[arg-type]
            await client.users.me()

    asyncio.run(go())


CLIENTS = [pytest.param(_sync_me, id="sync"), pytest.param(_async_me, id="async")]


@pytest.mark.parametrize("call", CLIENTS)
@pytest.mark.parametrize("behaviour", [drip_headers, drip_body, silent])
def test_timeout_bounds_the_whole_call(call: Callable[..., None], behaviour: Behaviour) -> None:
    with misbehaving_server(behaviour) as site:
        started = time.monotonic()
        with pytest.raises(chatops.Timeout) as info:
            call(site, timeout=3)
        took = time.monotonic() - started
    # GET retries on timeouts, but every try shares the one deadline
    assert took < 10, f"timeout=3 took {took:.1f} s"
    assert took >= 2.5
    assert "GET /api/v1/users/me" in str(info.value)
    assert "timeout of 3 s" in str(info.value)
    assert isinstance(info.value, chatops.TransportError)


@pytest.mark.parametrize("call", CLIENTS)
def test_a_huge_compressed_answer_is_refused_before_memory_grows(
    call: Callable[..., None],
) -> None:
    with misbehaving_server(gzip_bomb(200 * 1024 * 1024)) as site:
        tracemalloc.start()
        try:
            with pytest.raises(chatops.ResponseTooLarge) as info:
                call(site, max_response_size=8 * 1024 * 1024)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert info.value.limit == 8 * 1024 * 1024
    assert info.value.size > info.value.limit
    assert "max_response_size" in str(info.value)
    # what was read before refusing, not the 200 MiB it inflates to
    assert peak < 32 * 1024 * 1024, f"peak {peak / 2**20:.0f} MiB"


def test_the_default_limit_refuses_200_mib() -> None:
    assert chatops.Client("http://127.0.0.1:9", "a@b.c", "k" * 32).max_response_size == (
        128 * 1024 * 1024
    )
    with misbehaving_server(gzip_bomb(200 * 1024 * 1024)) as site:
        with pytest.raises(chatops.ResponseTooLarge):
            _sync_me(site)


@pytest.mark.parametrize("call", CLIENTS)
def test_an_announced_length_over_the_limit_is_refused_at_once(call: Callable[..., None]) -> None:
    with misbehaving_server(declared_huge) as site:
        started = time.monotonic()
        with pytest.raises(chatops.ResponseTooLarge) as info:
            call(site, timeout=20)
        assert time.monotonic() - started < 5
    assert info.value.size == 10_000_000_000


def test_a_compressed_answer_under_the_limit_is_read_whole() -> None:
    with misbehaving_server(gzip_bomb(3 * 1024 * 1024)) as site:
        with chatops.Client(site, "a@example.com", "k" * 32) as client:
            body = client.get("/users/me")
    assert body["result"] == "success"
    assert len(body["pad"]) == 3 * 1024 * 1024
