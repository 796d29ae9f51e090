"""Resumable uploads (tus 1.0 core + creation, spec 4.23 and facts 2.22).

A client creates an upload with its total length and metadata, appends bytes at the offset the
server reports, and asks for that offset to resume after an interruption. When the last byte
arrives the file becomes an attachment like any other (:func:`uploads.save_upload`), subject to
``max_file_upload_size_mib``. Only the creator may see or append to an upload.

The bytes in flight live in ``<upload_dir>/.tus/<id>``; the table ``tus_uploads`` holds the
length, the committed offset and, once finished, the attachment's ``path_id``.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import secrets
from pathlib import Path
from typing import Any

from . import clock, uploads
from .errors import ApiError
from .files import private_folder, write_private
from .store import Row, Store

TUS_VERSION = "1.0.0"
EXTENSIONS = "creation"


def parse_metadata(header: str | None) -> dict[str, str]:
    """``Upload-Metadata``: comma-separated ``key base64value`` pairs (value optional)."""
    out: dict[str, str] = {}
    if not header:
        return out
    for pair in header.split(","):
        pair = pair.strip()
        if not pair:
            continue
        key, _, encoded = pair.partition(" ")
        try:
            value = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise ApiError("Invalid Upload-Metadata", status=400) from None
        out[key] = value
    return out


def storage_path(upload_dir: Path, upload_id: str) -> Path:
    return upload_dir / ".tus" / upload_id


def create(store: Store, user: Row, upload_dir: Path, length: int, metadata: dict[str, str]) -> str:
    """Create an upload of ``length`` bytes; returns its id (413 over the size limit)."""
    if length < 0:
        raise ApiError("Invalid Upload-Length", status=400)
    if length > uploads.max_upload_bytes():
        raise ApiError(
            "File is larger than this server's configured maximum upload size "
            f"({uploads.max_upload_bytes() // (1024 * 1024)} MiB).",
            status=413,
        )
    filename = metadata.get("filename") or metadata.get("name") or "uploaded-file"
    filetype = (
        metadata.get("filetype")
        or metadata.get("type")
        or mimetypes.guess_type(filename)[0]
        or "application/octet-stream"
    )
    upload_id = secrets.token_hex(16)
    path = storage_path(upload_dir, upload_id)
    private_folder(path.parent)
    write_private(path, b"")
    with store.atomic():
        store.insert(
            "tus_uploads",
            {
                "id": upload_id,
                "owner_id": user["id"],
                "length": length,
                "upload_offset": 0,
                "filename": filename,
                "filetype": filetype,
                "created": int(clock.now()),
            },
        )
    return upload_id


def get(store: Store, user: Row, upload_id: str) -> Row:
    """The user's upload, or 404 (someone else's upload does not exist for them)."""
    row = store.one("SELECT * FROM tus_uploads WHERE id = ?", [upload_id])
    if row is None or row["owner_id"] != user["id"]:
        raise ApiError("Upload not found", status=404)
    return row


def check_append(upload: Row, offset: int | None) -> None:
    """A PATCH must start exactly at the server's offset (409 otherwise)."""
    if offset is None or offset < 0:
        raise ApiError("Missing or invalid Upload-Offset", status=400)
    if offset != upload["upload_offset"]:
        raise ApiError(
            f"Upload-Offset {offset} does not match the server's offset {upload['upload_offset']}",
            status=409,
        )


def record_offset(store: Store, upload_id: str, offset: int) -> None:
    with store.atomic():
        store.execute("UPDATE tus_uploads SET upload_offset = ? WHERE id = ?", [offset, upload_id])


def finish(store: Store, user: Row, upload: Row, upload_dir: Path) -> dict[str, Any]:
    """Turn a complete upload into an attachment (once); returns ``url``/``uri``/``filename``."""
    if upload["path_id"] is not None:
        att = store.one("SELECT * FROM attachments WHERE path_id = ?", [upload["path_id"]])
        name = att["name"] if att is not None else upload["filename"]
        url = f"/user_uploads/{upload['path_id']}"
        return {"url": url, "uri": url, "filename": name}
    result = uploads.save_upload(
        store,
        user,
        upload_dir,
        upload["filename"],
        storage_path(upload_dir, upload["id"]),
        upload["filetype"],
    )
    with store.atomic():
        store.execute(
            "UPDATE tus_uploads SET path_id = ? WHERE id = ?",
            [str(result["url"]).removeprefix("/user_uploads/"), upload["id"]],
        )
    return result
