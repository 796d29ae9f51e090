"""File uploads: upload, download, list and delete attachments."""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from .._base_client import FileTypes, check_length
from ..types import Attachment, AttachmentsResult, Capabilities, UploadResult
from ._base import AsyncResource, SyncResource

__all__ = ["AsyncUploads", "FileInput", "Uploads"]

#: a path, raw bytes or a binary file object
FileInput = str | os.PathLike[str] | bytes | IO[bytes]


def _file_part(
    file: FileInput, filename: str | None, content_type: str | None, caps: Capabilities
) -> dict[str, FileTypes]:
    if isinstance(file, bytes):
        data, name = file, filename or "upload.bin"
    elif isinstance(file, str | os.PathLike):
        path = Path(file)
        data, name = path.read_bytes(), filename or path.name
    else:
        data = file.read()
        raw_name = getattr(file, "name", None)
        name = filename or (Path(raw_name).name if isinstance(raw_name, str) else "upload.bin")
    if caps.max_file_upload_size_mib is not None:
        check_length("file", len(data), caps.max_file_upload_size_mib * 1024 * 1024, "bytes")
    ctype = content_type or mimetypes.guess_type(name)[0] or "application/octet-stream"
    return {"file": (name, data, ctype)}


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


class Uploads(SyncResource):
    """``client.uploads``."""

    def upload(
        self,
        file: FileInput,
        filename: str | None = None,
        *,
        content_type: str | None = None,
    ) -> UploadResult:
        """``POST /user_uploads``: upload one file (checked against the server's size limit).

        Args:
            file: a path, bytes or a binary file object.
            filename: the name to store; default the path's or file object's name.
            content_type: default guessed from the name.
        """
        caps = self._client.get_capabilities()
        files = _file_part(file, filename, content_type, caps)
        return self._client._request("POST", "/user_uploads", files=files, cast_to=UploadResult)

    def download(self, url: str) -> bytes:
        """The bytes of an uploaded file, from its ``/user_uploads/...`` URL or an absolute URL."""
        target, temporary = _api_file_path(self._client.site, url)
        if temporary:
            link: dict[str, Any] = self._client._request("GET", target, cast_to=dict[str, Any])
            target, _ = _api_file_path(self._client.site, str(link["url"]))
        return self._client._request("GET", target, cast_to=bytes)

    def attachments(self) -> list[Attachment]:
        """``GET /attachments``: the user's uploaded files."""
        return self._client._request("GET", "/attachments", cast_to=AttachmentsResult).attachments

    def delete_attachment(self, attachment_id: int) -> None:
        """``DELETE /attachments/{attachment_id}``."""
        self._client._request("DELETE", f"/attachments/{int(attachment_id)}")


class AsyncUploads(AsyncResource):
    """``client.uploads`` of an ``AsyncClient``."""

    async def upload(
        self,
        file: FileInput,
        filename: str | None = None,
        *,
        content_type: str | None = None,
    ) -> UploadResult:
        """``POST /user_uploads``: upload one file (checked against the server's size limit)."""
        caps = await self._client.get_capabilities()
        files = _file_part(file, filename, content_type, caps)
        return await self._client._request(
            "POST", "/user_uploads", files=files, cast_to=UploadResult
        )

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
