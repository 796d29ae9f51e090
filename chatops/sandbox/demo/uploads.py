"""The demo's files: most linked from the message that shared them, some orphaned."""

from __future__ import annotations

import random
import struct
import zlib
from pathlib import Path

from .. import realm_emoji
from ..files import private_folder, write_private
from ..rendering import render
from ..store import Store
from ..uploads import sanitize_name


def add_uploads(store: Store, upload_dir: Path, *, seed: int = 1) -> None:
    """Files in the upload store: most linked from the message that shared them, some orphaned."""
    rng = random.Random(seed + 1)
    candidates = store.query(
        "SELECT m.id, m.sender_id, m.content, m.timestamp FROM messages m "
        "JOIN users u ON u.id = m.sender_id WHERE m.stream_id IS NOT NULL AND u.is_bot = 0 "
        "AND m.id % 53 = 0 ORDER BY m.id"
    )
    kinds = [
        ("notes", "txt", "text/plain"),
        ("metrics", "csv", "text/csv"),
        ("agenda", "md", "text/markdown"),
    ]
    with store.atomic():
        for n, m in enumerate(candidates[:40]):
            stem, ext, ctype = kinds[n % len(kinds)]
            name = sanitize_name(f"{stem} {n + 1}.{ext}")
            data = f"{stem} {n + 1}\n" + "\n".join(
                f"line {i}, value {rng.randrange(1000)}" for i in range(rng.randrange(3, 40))
            )
            token = "".join(
                rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
                for _ in range(24)
            )
            path_id = f"1/{rng.randrange(256):x}/{token}/{name}"
            target = upload_dir / path_id
            private_folder(target.parent)
            write_private(target, data)
            att = store.insert(
                "attachments",
                {
                    "owner_id": m["sender_id"],
                    "path_id": path_id,
                    "name": name,
                    "size": len(data.encode()),
                    "content_type": ctype,
                    "create_time": m["timestamp"] * 1000,
                },
            )
            if n % 8 == 7:
                continue  # uploaded, never shared
            content = f"{m['content']} [{name}](/user_uploads/{path_id})"
            store.execute(
                "UPDATE messages SET content = ?, rendered_content = ? WHERE id = ?",
                [content, render(content), m["id"]],
            )
            store.execute(
                "INSERT INTO attachment_messages (attachment_id, message_id) VALUES (?, ?)",
                [att, m["id"]],
            )


def _png(rgb: tuple[int, int, int]) -> bytes:
    """A 1x1 PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes([0, *rgb])))
        + chunk(b"IEND", b"")
    )


def add_custom_emoji(store: Store, author_id: int) -> None:
    """The organization's custom emoji: one in use, one deactivated."""
    store.insert(
        "realm_emoji",
        {"name": "shipit", "author_id": author_id, "file_name": "shipit.png"},
    )
    store.insert(
        "realm_emoji",
        {
            "name": "old_logo",
            "author_id": author_id,
            "file_name": "old.png",
            "deactivated": 1,
        },
    )


def add_emoji_images(store: Store, upload_dir: Path) -> None:
    """An image for each of the demo's custom emoji, where its ``source_url`` serves it."""
    folder = private_folder(upload_dir / realm_emoji.FOLDER)
    for n, row in enumerate(store.query("SELECT file_name FROM realm_emoji ORDER BY id")):
        write_private(folder / row["file_name"], _png((40 * n % 256, 160, 90)))
