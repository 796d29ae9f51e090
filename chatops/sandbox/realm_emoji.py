"""Custom emoji of the organization: upload, deactivate, list.

An uploaded image is kept under the upload folder (``emoji/<id>.<ext>``) and served from
its ``source_url``; a deactivated emoji keeps its image (old reactions still show it) but can
no longer be used. Every change announces the whole set (``realm_emoji`` ``update``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from . import realm as realm_mod
from .bus import event_bus
from .emoji_data import tables
from .errors import ApiError
from .files import private_folder, write_private
from .store import Row, Store

#: the server setting MAX_EMOJI_FILE_SIZE_MIB
MAX_EMOJI_FILE_SIZE_MIB = 5
NAME = re.compile(r"^[0-9a-z\-_]+(?<![\-_])$")
LOOSE_NAME = re.compile(r"^[0-9a-z\-_]+$")
#: image formats by their first bytes, and the extension a stored image gets
IMAGE_FORMATS: tuple[tuple[bytes, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "png", "image/png"),
    (b"GIF87a", "gif", "image/gif"),
    (b"GIF89a", "gif", "image/gif"),
    (b"\xff\xd8\xff", "jpeg", "image/jpeg"),
)
FOLDER = "emoji"


def source_url(file_name: str) -> str:
    return f"/user_avatars/1/emoji/images/{file_name}"


def emoji_record(row: Row) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "source_url": source_url(row["file_name"] or f"{row['id']}.png"),
        "deactivated": bool(row["deactivated"]),
        "author_id": row["author_id"],
    }


def all_emoji(store: Store) -> dict[str, dict[str, Any]]:
    """``GET /realm/emoji`` and register's ``realm_emoji``: by id, deactivated ones included."""
    return {
        str(r["id"]): emoji_record(r) for r in store.query("SELECT * FROM realm_emoji ORDER BY id")
    }


def _announce(store: Store) -> None:
    ids = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
    event_bus(store).publish(
        {"type": "realm_emoji", "op": "update", "realm_emoji": all_emoji(store)}, ids
    )


def check_name(name: str) -> str:
    """The name as stored (spaces become underscores), or the real server's error."""
    name = name.strip().replace(" ", "_")
    if not name:
        raise ApiError("Emoji name is missing")
    if NAME.match(name):
        return name
    if LOOSE_NAME.match(name):
        raise ApiError("Emoji names must end with either a letter or digit.")
    raise ApiError(
        "Emoji names must contain only lowercase alphanumeric characters, dashes, and underscores."
    )


def image_format(data: bytes) -> tuple[str, str]:
    """``(extension, content type)`` of an image the sandbox serves, else BAD_REQUEST."""
    for magic, extension, content_type in IMAGE_FORMATS:
        if data.startswith(magic):
            return extension, content_type
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp", "image/webp"
    raise ApiError("Invalid image format")


def upload(
    store: Store, user: Row, name: str, files: list[bytes], upload_dir: Path
) -> dict[str, Any]:
    """``POST /realm/emoji/{emoji_name}``: one image file, checked as the real server does."""
    if int(user["role"]) == realm_mod.ROLE_GUEST:
        raise ApiError("Not allowed for guest users")
    name = check_name(name)
    if not realm_mod.realm_permits(store, user, "can_add_custom_emoji_group"):
        raise ApiError("Insufficient permission")
    with store.atomic():
        if store.one("SELECT 1 FROM realm_emoji WHERE name = ? AND deactivated = 0", [name]):
            raise ApiError("A custom emoji with this name already exists.")
        if len(files) != 1:
            raise ApiError("You must upload exactly one file.")
        if name in tables()[0] and not realm_mod.is_admin(user):
            raise ApiError("Only administrators can override built-in emoji.")
        data = files[0]
        if len(data) > MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024:
            raise ApiError(
                f"Uploaded file is larger than the allowed limit of {MAX_EMOJI_FILE_SIZE_MIB} MiB"
            )
        extension, content_type = image_format(data)
        emoji_id = store.insert(
            "realm_emoji",
            {"name": name, "author_id": user["id"], "content_type": content_type},
        )
        file_name = f"{emoji_id}.{extension}"
        store.execute("UPDATE realm_emoji SET file_name = ? WHERE id = ?", [file_name, emoji_id])
        folder = private_folder(upload_dir / FOLDER)
        store.after_commit(lambda: write_private(folder / file_name, data))
        _announce(store)
    return {}


def deactivate(
    store: Store, user: Row, name: str, *, feature_level: int = realm_mod.FEATURE_LEVEL
) -> None:
    """``DELETE /realm/emoji/{emoji_name}``: its author or an administrator.

    An unknown name is HTTP 404 since feature level 190 (400 before).
    """
    with store.atomic():
        row = store.one(
            "SELECT * FROM realm_emoji WHERE name = ? AND deactivated = 0 ORDER BY id DESC",
            [name],
        )
        if row is None:
            raise ApiError(
                f"Emoji '{name}' does not exist", status=404 if feature_level >= 190 else 400
            )
        if not realm_mod.is_admin(user) and row["author_id"] != user["id"]:
            raise ApiError("Must be an organization administrator or emoji author")
        store.execute("UPDATE realm_emoji SET deactivated = 1 WHERE id = ?", [row["id"]])
        _announce(store)


def image(store: Store, upload_dir: Path, file_name: str) -> tuple[Path, str]:
    """The stored image of a ``source_url`` and its content type; 404 when there is none."""
    row = store.one("SELECT * FROM realm_emoji WHERE file_name = ?", [file_name])
    path = upload_dir / FOLDER / file_name
    if row is None or not path.is_file():
        raise ApiError("Not Found", status=404)
    return path, str(row["content_type"])
