"""Uploaded files (spec 4.23): storage, access rules and the attachment records."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
import unicodedata
from pathlib import Path
from typing import Any

from . import messages as messages_mod
from . import realm as realm_mod
from .errors import ApiError
from .files import private_folder, write_private
from .store import Row, Store

SIGNED_URL_SECONDS = 60


#: Content types served inline, as the real server's list (zerver/lib/mime_types.py): media
#: a browser shows without running anything. Everything else (HTML, SVG, XML, JavaScript...)
#: is served as an attachment, so an upload can never run script on the server's origin.
INLINE_CONTENT_TYPES = frozenset(
    {
        "application/pdf",
        "audio/aac",
        "audio/flac",
        "audio/mp4",
        "audio/mpeg",
        "audio/ogg",
        "audio/wav",
        "audio/webm",
        "image/apng",
        "image/avif",
        "image/gif",
        "image/jpeg",
        "image/png",
        "image/webp",
        "text/plain",
        "video/mp4",
        "video/ogg",
        "video/quicktime",
        "video/webm",
    }
)


def served_inline(content_type: str) -> bool:
    """Whether a file of ``content_type`` is shown in the browser rather than downloaded."""
    return content_type.split(";", 1)[0].strip().lower() in INLINE_CONTENT_TYPES


def sanitize_name(name: str) -> str:
    """A safe stored file name: no path parts, only word characters, dots and dashes."""
    name = unicodedata.normalize("NFKC", name.replace("\\", "/").rsplit("/", 1)[-1])
    stem, dot, ext = name.rpartition(".")
    if not dot:
        stem, ext = name, ""
    stem = re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s.-]", "", stem).strip()).strip(".-")
    ext = re.sub(r"[^\w]", "", ext)
    stem = stem or "uploaded-file"
    return f"{stem}.{ext}" if ext else stem


def max_upload_bytes() -> int:
    return realm_mod.LIMITS["max_file_upload_size_mib"] * 1024 * 1024


def check_size(size: int) -> None:
    if size > max_upload_bytes():
        mib = realm_mod.LIMITS["max_file_upload_size_mib"]
        raise ApiError(
            f"File is larger than this server's configured maximum upload size ({mib} MiB)."
        )


def save_upload(
    store: Store,
    user: Row,
    upload_dir: Path,
    filename: str,
    data: bytes | Path,
    content_type: str = "application/octet-stream",
) -> dict[str, Any]:
    """Store an upload; ``data`` is the bytes, or a finished file to move in (tus)."""
    size = data.stat().st_size if isinstance(data, Path) else len(data)
    check_size(size)
    name = sanitize_name(filename)
    path_id = f"1/{secrets.randbelow(256):x}/{secrets.token_urlsafe(18)}/{name}"
    target = upload_dir / path_id
    private_folder(target.parent)
    if isinstance(data, Path):
        data.replace(target)
    else:
        write_private(target, data)
    try:
        with store.atomic():
            store.insert(
                "attachments",
                {
                    "owner_id": user["id"],
                    "path_id": path_id,
                    "name": name,
                    "size": size,
                    "content_type": content_type or "application/octet-stream",
                    "create_time": int(time.time() * 1000),
                },
            )
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    url = f"/user_uploads/{path_id}"
    return {"url": url, "uri": url, "filename": name}


def can_read(store: Store, user: Row, attachment: Row) -> bool:
    if attachment["owner_id"] == user["id"]:
        return True
    for row in store.query(
        "SELECT m.* FROM attachment_messages am JOIN messages m ON m.id = am.message_id "
        "WHERE am.attachment_id = ?",
        [attachment["id"]],
    ):
        if messages_mod.can_access(store, user, row):
            return True
    return False


def access_file(store: Store, user: Row, path_id: str) -> Row:
    att = store.one("SELECT * FROM attachments WHERE path_id = ?", [path_id])
    if att is None or not can_read(store, user, att):
        raise ApiError("You are not authorized to view this file.", status=403)
    return att


def sign(secret: bytes, path_id: str, expires: int) -> str:
    return hmac.new(secret, f"{path_id}:{expires}".encode(), hashlib.sha256).hexdigest()


def temporary_url(secret: bytes, path_id: str) -> str:
    expires = int(time.time()) + SIGNED_URL_SECONDS
    token = f"{expires}-{sign(secret, path_id, expires)}"
    return f"/user_uploads/temporary/{token}/{path_id}"


def check_temporary(secret: bytes, token: str, path_id: str) -> bool:
    expires_s, _, digest = token.partition("-")
    if not expires_s.isdigit() or int(expires_s) < time.time():
        return False
    return hmac.compare_digest(digest, sign(secret, path_id, int(expires_s)))


def temporary_file(store: Store, secret: bytes, token: str, path_id: str) -> Row:
    """The attachment a temporary link (``token``) opens, while the link is valid."""
    if not check_temporary(secret, token, path_id):
        raise ApiError("Invalid or expired file link", status=403)
    att = store.one("SELECT * FROM attachments WHERE path_id = ?", [path_id])
    if att is None:
        raise ApiError("File not found", status=404)
    return att


def attachment_records(store: Store, user: Row) -> dict[str, Any]:
    atts = store.query("SELECT * FROM attachments WHERE owner_id = ? ORDER BY id", [user["id"]])
    out = []
    for a in atts:
        linked = store.query(
            "SELECT m.id, m.timestamp FROM attachment_messages am JOIN messages m "
            "ON m.id = am.message_id WHERE am.attachment_id = ? ORDER BY m.id",
            [a["id"]],
        )
        out.append(
            {
                "id": a["id"],
                "name": a["name"],
                "path_id": a["path_id"],
                "size": a["size"],
                "create_time": a["create_time"],
                "messages": [{"id": r["id"], "date_sent": r["timestamp"] * 1000} for r in linked],
            }
        )
    return {"attachments": out, "upload_space_used": sum(a["size"] for a in atts)}


def delete_attachment(store: Store, user: Row, attachment_id: int, upload_dir: Path) -> None:
    att = store.one(
        "SELECT * FROM attachments WHERE id = ? AND owner_id = ?", [attachment_id, user["id"]]
    )
    if att is None:
        raise ApiError("Invalid attachment")
    with store.atomic():
        store.execute("DELETE FROM attachment_messages WHERE attachment_id = ?", [attachment_id])
        store.execute("DELETE FROM attachments WHERE id = ?", [attachment_id])
    (upload_dir / att["path_id"]).unlink(missing_ok=True)
