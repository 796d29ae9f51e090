"""A call's whole deadline and a bound on the size of its answer, below httpx.

httpx's timeouts bound each network operation, not a call: a server that sends two bytes a
second never trips a 30 s read timeout, and every retry starts a fresh 30 s. The clients set the
call's deadline in :data:`DEADLINE` while they send, and the network backend installed here cuts
every read, write and connect to the time left, so headers and bodies that drip, and servers
that never answer, end at the deadline whatever phase they are in.

:class:`BodyReader` reads an answer in bounded pieces: gzip and deflate are inflated here with a
cap on each step's output, so a small compressed answer that inflates to gigabytes is refused
after ``limit`` bytes instead of being held in memory.

Nothing here raises the client's own exceptions: the clients turn ``httpcore`` timeouts into
:class:`~chatops.Timeout` and :class:`BodyTooLarge` into :class:`~chatops.ResponseTooLarge`.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterable
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

__all__ = ["DEADLINE", "BodyReader", "BodyTooLarge", "install", "time_left"]

#: the monotonic time at which the call being sent must end (None: no deadline)
DEADLINE: ContextVar[float | None] = ContextVar("chatops_deadline", default=None)

#: the most bytes one inflation step may produce
_STEP = 256 * 1024

#: the most bytes one socket read asks for. httpcore asks for 64 KiB, so a 2.5 MB page took
#: 40 trips through every layer above the socket (anyio, httpcore, h11, httpx); the size of a
#: read bounds nothing here (``BodyReader`` bounds the answer).
_READ = 1024 * 1024


def time_left(timeout: float | None) -> float | None:
    """The shorter of ``timeout`` and the time left to the current call's deadline.

    Raises ``httpcore.TimeoutException`` when the deadline has passed, as a network timeout
    would, so httpx maps it to ``httpx.TimeoutException`` for the client to report.
    """
    deadline = DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the call's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max(max_bytes, _READ), time_left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, time_left(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _Stream(self._stream.start_tls(ssl_context, server_hostname, time_left(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _AsyncStream(httpcore.AsyncNetworkStream):
    def __init__(self, stream: httpcore.AsyncNetworkStream) -> None:
        self._stream = stream

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._stream.read(max(max_bytes, _READ), time_left(timeout))

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._stream.write(buffer, time_left(timeout))

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.AsyncNetworkStream:
        tls = await self._stream.start_tls(ssl_context, server_hostname, time_left(timeout))
        return _AsyncStream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        stream = self._backend.connect_tcp(
            host, port, time_left(timeout), local_address, socket_options
        )
        return _Stream(stream)

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        return _Stream(self._backend.connect_unix_socket(path, time_left(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class _AsyncBackend(httpcore.AsyncNetworkBackend):
    def __init__(self, backend: httpcore.AsyncNetworkBackend) -> None:
        self._backend = backend

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_tcp(
            host, port, time_left(timeout), local_address, socket_options
        )
        return _AsyncStream(stream)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        stream = await self._backend.connect_unix_socket(path, time_left(timeout), socket_options)
        return _AsyncStream(stream)

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


def install(transport: httpx.BaseTransport | httpx.AsyncBaseTransport) -> bool:
    """Make ``transport``'s connections keep the call's deadline; False if it cannot.

    Only httpx's own transports over httpcore's pool can (the pool takes its network backend
    as an attribute; httpx offers no public way to pass one). Any other transport, one the
    caller passed in, keeps httpx's per-operation timeouts, and the client still checks the
    deadline between the pieces of a body.
    """
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if isinstance(pool, httpcore.ConnectionPool) and isinstance(backend, httpcore.NetworkBackend):
        if not isinstance(backend, _Backend):
            pool._network_backend = _Backend(backend)
        return True
    if isinstance(pool, httpcore.AsyncConnectionPool) and isinstance(
        backend, httpcore.AsyncNetworkBackend
    ):
        if not isinstance(backend, _AsyncBackend):
            pool._network_backend = _AsyncBackend(backend)
        return True
    return False


class BodyTooLarge(Exception):
    """The answer's body passed the limit; ``size`` is how much had arrived (at least)."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


class BodyReader:
    """Collect a body from raw pieces, inflating gzip and deflate in bounded steps.

    ``decodes`` is False for an encoding this reader does not inflate: the client then reads
    httpx's decoded pieces and feeds them here unchanged.
    """

    def __init__(self, content_encoding: str | None, limit: int | None) -> None:
        encoding = (content_encoding or "identity").strip().lower()
        self.limit = limit
        self.size = 0
        self._parts: list[bytes] = []
        self._inflater: Any = None
        self._deflate = encoding == "deflate"
        if encoding in ("gzip", "x-gzip"):
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif self._deflate:
            self._inflater = zlib.decompressobj()
        self.decodes = encoding in ("identity", "gzip", "x-gzip", "deflate")

    def check_declared(self, content_length: str | None) -> None:
        """Refuse at once a body whose declared length is over the limit."""
        if self.limit is None or not content_length or not content_length.isdigit():
            return
        if int(content_length) > self.limit:
            raise BodyTooLarge(int(content_length))

    def feed(self, data: bytes) -> None:
        if self._inflater is None:
            self._keep(data)
            return
        try:
            self._inflate(data)
        except zlib.error:
            if not (self._deflate and not self._parts and self.size == 0):
                raise httpx.DecodingError("the answer's compressed body is damaged") from None
            # "deflate" is sent both as zlib data and as a raw deflate stream
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            self._deflate = False
            self._inflate(data)

    def _inflate(self, data: bytes) -> None:
        out = self._inflater.decompress(data, _STEP)
        self._keep(out)
        while self._inflater.unconsumed_tail:
            self._keep(self._inflater.decompress(self._inflater.unconsumed_tail, _STEP))

    def _keep(self, piece: bytes) -> None:
        if not piece:
            return
        self.size += len(piece)
        if self.limit is not None and self.size > self.limit:
            raise BodyTooLarge(self.size)
        self._parts.append(piece)

    def body(self) -> bytes:
        if self._inflater is not None:
            self._keep(self._inflater.flush())
        return b"".join(self._parts)
