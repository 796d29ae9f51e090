"""``uploads.upload``: one request for small files, resumable tus for large ones (spec 4.23)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox


class DropsMidUpload(httpx.HTTPTransport):
    """A real transport that loses the connection once the server has ``cut_at`` bytes.

    The PATCH that crosses the mark reaches the server with only the bytes before it (as when
    a connection dies mid-body); the client then sees a dropped connection. Every later PATCH
    fails too, until the test gives up on this client.
    """

    def __init__(self, cut_at: int) -> None:
        super().__init__()
        self.cut_at = cut_at
        self.cut = False
        self.patched_bytes = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "PATCH":
            if self.cut:
                raise httpx.WriteError("connection lost")
            offset = int(request.headers["upload-offset"])
            body = request.read()
            if offset + len(body) > self.cut_at:
                self.cut = True
                keep = body[: self.cut_at - offset]
                partial = httpx.Request(
                    "PATCH",
                    request.url,
                    headers={k: v for k, v in request.headers.items() if k != "content-length"},
                    content=keep,
                )
                super().handle_request(partial).read()
                raise httpx.ReadError("connection reset by peer")
            self.patched_bytes += len(body)
        return super().handle_request(request)


class CountsPatches(httpx.HTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.first_offset: int | None = None
        self.patched_bytes = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "PATCH":
            if self.first_offset is None:
                self.first_offset = int(request.headers["upload-offset"])
            self.patched_bytes += len(request.read())
        return super().handle_request(request)


def test_small_file_goes_in_one_request(member: chatops.Client, tmp_path: Path) -> None:
    transport = CountsPatches()
    with chatops.Client(credentials=member.credentials, transport=transport) as client:
        path = tmp_path / "small.txt"
        path.write_bytes(b"small")
        result = client.uploads.upload(path)
        assert transport.patched_bytes == 0
        assert client.uploads.download(result.url) == b"small"


def test_forced_resumable_upload_of_a_small_file(member: chatops.Client) -> None:
    result = member.uploads.upload(b"tiny but resumable", "tiny.txt", resumable=True, chunk_size=5)
    assert result.filename == "tiny.txt"
    assert member.uploads.download(result.url) == b"tiny but resumable"


def test_async_resumable_upload(sandbox: Sandbox) -> None:
    async def main() -> bytes:
        async with chatops.AsyncClient.from_zuliprc(sandbox.zuliprc("member")) as client:
            result = await client.uploads.upload(
                b"0123456789" * 100, "async.bin", resumable=True, chunk_size=300
            )
            return await client.uploads.download(result.url)

    assert asyncio.run(main()) == b"0123456789" * 100


@pytest.mark.slow
def test_30mb_upload_interrupted_resumed_and_shared(
    sandbox: Sandbox, member: chatops.Client, client_for: object, tmp_path: Path
) -> None:
    data = os.urandom(30 * 1000 * 1000)
    path = tmp_path / "big.bin"
    path.write_bytes(data)
    half = len(data) // 2 + 12345  # not on a chunk boundary

    dropping = DropsMidUpload(cut_at=half)
    with chatops.Client(credentials=member.credentials, transport=dropping, max_retries=1) as flaky:
        flaky._sleep_jitter = None
        with pytest.raises(chatops.UploadInterrupted) as info:
            flaky.uploads.upload(path)  # 30 MB: above the threshold, so tus
    upload_url = info.value.upload_url
    assert member.uploads.upload_offset(upload_url) == half  # the server kept what arrived
    assert str(path) not in str(info.value) and member.credentials.api_key not in str(info.value)

    counting = CountsPatches()
    with chatops.Client(credentials=member.credentials, transport=counting) as client:
        result = client.uploads.resume(upload_url, path)
    assert counting.first_offset == half  # resumed from the server's offset
    assert counting.patched_bytes == len(data) - half
    assert result.filename == "big.bin"
    assert member.uploads.download(result.url) == data

    # another user cannot read it until it is linked from a message they can see
    moderator = chatops.Client.from_zuliprc(sandbox.zuliprc("moderator"))
    try:
        with pytest.raises(chatops.ApiError) as denied:
            moderator.uploads.download(result.url)
        assert denied.value.status == 403
        member.messages.send_to_channel("general", "big file", result.markdown)
        assert moderator.uploads.download(result.url) == data
    finally:
        moderator.close()
