"""File uploads: upload, download, list and delete attachments."""

from __future__ import annotations

import asyncio
import base64
import mimetypes
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any
from urllib.parse import urljoin, urlsplit

import httpx

from ..._base_client import (
    NOT_GIVEN,
    FileTypes,
    NotGiven,
    RequestOptions,
    _BaseClient,
    backoff,
    check_length,
    logger,
)
from ..._exceptions import ApiError, TransportError, UploadInterrupted
from ...resources._base import AsyncResource
from ...types import Attachment, AttachmentsResult, Capabilities, UploadResult

__all__ = ["FileInput", "AsyncUploads"]

#: a path, raw bytes or a binary file object
FileInput = str | os.PathLike[str] | bytes | IO[bytes]
#: ``(bytes sent so far, total)`` after each chunk of a resumable upload
ProgressCallback = Callable[[int, int], None]

TUS_FEATURE_LEVEL = 296
TUS_VERSION = "1.0.0"
#: files this large or larger go through tus when the server has it
TUS_THRESHOLD = 8 * 1024 * 1024
TUS_CHUNK_SIZE = 4 * 1024 * 1024


class _Source:
    """The bytes of an upload, read chunk by chunk at any offset."""

    def __init__(self, file: FileInput, filename: str | None, content_type: str | None) -> None:
        self._path: Path | None = None
        self._data: bytes | None = None
        if isinstance(file, bytes):
            self._data, name = file, filename or "upload.bin"
        elif isinstance(file, str | os.PathLike):
            self._path = Path(file)
            name = filename or self._path.name
        else:
            self._data = file.read()
            raw_name = getattr(file, "name", None)
            name = filename or (Path(raw_name).name if isinstance(raw_name, str) else "upload.bin")
        self.name = name
        self.content_type = (
            content_type or mimetypes.guess_type(name)[0] or "application/octet-stream"
        )
        self.size = self._path.stat().st_size if self._path is not None else len(self._data or b"")

    def read(self, offset: int = 0, size: int = -1) -> bytes:
        if self._data is not None:
            return self._data[offset:] if size < 0 else self._data[offset : offset + size]
        assert self._path is not None
        with self._path.open("rb") as f:
            f.seek(offset)
            return f.read(size)

    def metadata(self) -> str:
        pairs = {"filename": self.name, "filetype": self.content_type}
        return ",".join(
            f"{k} {base64.b64encode(v.encode()).decode('ascii')}" for k, v in pairs.items()
        )


def _use_tus(source: _Source, caps: Capabilities, resumable: bool | NotGiven) -> bool:
    if not caps.at_least(TUS_FEATURE_LEVEL) or source.size == 0:
        return False
    if isinstance(resumable, bool):
        return resumable
    return source.size >= TUS_THRESHOLD


def _check_size(source: _Source, caps: Capabilities) -> None:
    if caps.max_file_upload_size_mib is not None:
        check_length("file", source.size, caps.max_file_upload_size_mib * 1024 * 1024, "bytes")


def _file_part(source: _Source) -> dict[str, FileTypes]:
    return {"file": (source.name, source.read(), source.content_type)}


_TUS_OPTS = RequestOptions(method="PATCH", url="/api/v1/tus")


class _Conflict(Exception):
    """The server's offset is not ours (HTTP 409): ask it with HEAD."""


class _Tus:
    """The tus 1.0 conversation (creation, HEAD, PATCH) as requests and header reads; no I/O."""

    def __init__(self, client: _BaseClient) -> None:
        self._client = client

    def headers(self, url: str, **extra: str) -> dict[str, str]:
        headers = {"Tus-Resumable": TUS_VERSION, "User-Agent": self._client.user_agent, **extra}
        if self._client._same_origin(url):
            headers["Authorization"] = self._client._auth_header()
        return headers

    def create(self, source: _Source) -> httpx.Request:
        url = self._client._url("/tus")
        return httpx.Request(
            "POST",
            url,
            headers=self.headers(
                url, **{"Upload-Length": str(source.size), "Upload-Metadata": source.metadata()}
            ),
        )

    def location(self, response: httpx.Response) -> str:
        self.check(response, "POST /tus")
        return urljoin(str(response.request.url), response.headers["location"])

    def head(self, upload_url: str) -> httpx.Request:
        return httpx.Request("HEAD", upload_url, headers=self.headers(upload_url))

    def offset(self, response: httpx.Response) -> int:
        self.check(response, "HEAD /tus")
        return int(response.headers["upload-offset"])

    def patch(self, upload_url: str, offset: int, chunk: bytes) -> httpx.Request:
        return httpx.Request(
            "PATCH",
            upload_url,
            content=chunk,
            headers=self.headers(
                upload_url,
                **{
                    "Upload-Offset": str(offset),
                    "Content-Type": "application/offset+octet-stream",
                },
            ),
        )

    def check(self, response: httpx.Response, endpoint: str) -> None:
        if response.status_code >= 400:
            from ..._base_client import decode_response

            decode_response(
                response.status_code,
                response.headers,
                response.content,
                None,
                endpoint=endpoint,
                secret=self._client.credentials.api_key,
            )

    def finished(self, response: httpx.Response) -> UploadResult | None:
        """The attachment once the last byte is in, else None."""
        self.check(response, "PATCH /tus")
        if response.status_code == 200 and response.content:
            return self._client._decode(_TUS_OPTS, response, response.content, UploadResult)
        return None

    def interrupted(self, upload_url: str, offset: int, exc: BaseException) -> UploadInterrupted:
        return UploadInterrupted(
            f"resumable upload stopped at byte {offset}: {type(exc).__name__}; "
            "resume it with uploads.resume(upload_url, file)",
            upload_url=upload_url,
            offset=offset,
        )


def _api_file_path(site: str, url: str) -> tuple[str, bool]:
    """Where to GET ``url``: (path or URL, whether it first yields a temporary URL)."""
    parts = urlsplit(url)
    if parts.scheme:
        site_parts = urlsplit(site)
        if (parts.scheme, parts.netloc) != (site_parts.scheme, site_parts.netloc):
            return url, False
        path = parts.path + (f"?{parts.query}" if parts.query else "")
    else:
        path = url if url.startswith("/") else "/" + url
    if path.startswith("/user_uploads/") and not path.startswith("/user_uploads/temporary/"):
        # API-key clients ask /api/v1/user_uploads/... for a short-lived link to the bytes.
        return path, True
    return site + path, False


class AsyncUploads(AsyncResource):
    """``client.uploads``."""

    async def upload(
        self,
        file: FileInput,
        filename: str | None = None,
        *,
        content_type: str | None = None,
        resumable: bool | NotGiven = NOT_GIVEN,
        chunk_size: int = TUS_CHUNK_SIZE,
        on_progress: ProgressCallback | None = None,
    ) -> UploadResult:
        """Upload one file (checked against the server's size limit).

        Small files go in one ``POST /user_uploads``; files of ``TUS_THRESHOLD`` bytes or more
        go through the resumable tus endpoint (feature level 296), in ``chunk_size`` pieces,
        resuming from the server's offset after a dropped connection. When the retries run
        out, ``UploadInterrupted`` carries the ``upload_url`` for :meth:`resume`.

        Args:
            file: a path, bytes or a binary file object.
            filename: the name to store; default the path's or file object's name.
            content_type: default guessed from the name.
            resumable: force (True) or forbid (False) tus; default by size.
            chunk_size: bytes per tus PATCH.
            on_progress: called with (bytes the server has, total) after each chunk.
        """
        caps = await self._client.get_capabilities()
        source = _Source(file, filename, content_type)
        _check_size(source, caps)
        if not _use_tus(source, caps, resumable):
            return await self._client._request(
                "POST", "/user_uploads", files=_file_part(source), cast_to=UploadResult
            )
        tus = _Tus(self._client)
        upload_url = tus.location(await self._send(tus.create(source)))
        return await self._tus_send(tus, upload_url, source, 0, chunk_size, on_progress)

    async def resume(
        self,
        upload_url: str,
        file: FileInput,
        filename: str | None = None,
        *,
        content_type: str | None = None,
        chunk_size: int = TUS_CHUNK_SIZE,
        on_progress: ProgressCallback | None = None,
    ) -> UploadResult:
        """Continue an interrupted resumable upload from the offset the server reports.

        Args:
            upload_url: ``UploadInterrupted.upload_url`` of the interrupted upload.
            file: the same file as before.
        """
        source = _Source(file, filename, content_type)
        tus = _Tus(self._client)
        offset = tus.offset(await self._send(tus.head(upload_url)))
        return await self._tus_send(tus, upload_url, source, offset, chunk_size, on_progress)

    async def upload_offset(self, upload_url: str) -> int:
        """``HEAD`` a resumable upload: how many of its bytes the server has."""
        tus = _Tus(self._client)
        return tus.offset(await self._send(tus.head(upload_url)))

    async def _send(self, request: httpx.Request) -> httpx.Response:
        try:
            return await self._client._http.send(request)
        except httpx.TransportError as exc:
            raise TransportError(f"{request.method} /tus failed: {type(exc).__name__}") from None

    async def _tus_send(
        self,
        tus: _Tus,
        upload_url: str,
        source: _Source,
        offset: int,
        chunk_size: int,
        on_progress: ProgressCallback | None,
    ) -> UploadResult:
        attempt = 0
        while True:
            chunk = source.read(offset, chunk_size)
            try:
                response = await self._client._http.send(tus.patch(upload_url, offset, chunk))
                if response.status_code == 409:
                    raise _Conflict
                result = tus.finished(response)
            except (httpx.TransportError, _Conflict) as exc:
                if attempt >= self._client.max_retries:
                    raise tus.interrupted(upload_url, offset, exc) from None
                await asyncio.sleep(backoff(attempt))
                attempt += 1
                try:
                    offset = tus.offset(await self._client._http.send(tus.head(upload_url)))
                except httpx.TransportError:
                    pass
                logger.info("resumable upload: resuming at byte %d", offset)
                continue
            attempt = 0
            offset = int(response.headers["upload-offset"])
            if on_progress is not None:
                on_progress(offset, source.size)
            if result is not None:
                return result
            if offset >= source.size and not chunk:
                raise ApiError("INVALID_RESPONSE", "the finished upload did not say its URL", 200)

    async def download(self, url: str) -> bytes:
        """The bytes of an uploaded file, from its ``/user_uploads/...`` URL or an absolute URL."""
        target, temporary = _api_file_path(self._client.site, url)
        if temporary:
            link: dict[str, Any] = await self._client._request(
                "GET", target, cast_to=dict[str, Any]
            )
            target, _ = _api_file_path(self._client.site, str(link["url"]))
        return await self._client._request("GET", target, cast_to=bytes)

    async def attachments(self) -> list[Attachment]:
        """``GET /attachments``: the user's uploaded files."""
        result = await self._client._request("GET", "/attachments", cast_to=AttachmentsResult)
        return result.attachments

    async def delete_attachment(self, attachment_id: int) -> None:
        """``DELETE /attachments/{attachment_id}``."""
        await self._client._request("DELETE", f"/attachments/{int(attachment_id)}")
