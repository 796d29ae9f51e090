"""The sandbox's data on disk is its owner's alone: files 0600, folders 0700.

The database holds every API key and every message, the zuliprc files a key each; another
local user must not read any of them, whatever the umask.
"""

from __future__ import annotations

import os
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def private_folder(path: Path) -> Path:
    """Create ``path`` if needed, and the parents it lacks, each 0700."""
    missing = [path, *(p for p in path.parents if not p.exists())] if not path.exists() else []
    for folder in reversed(missing):
        folder.mkdir(mode=FOLDER_MODE, exist_ok=True)
        folder.chmod(FOLDER_MODE)
    path.chmod(FOLDER_MODE)
    return path


def private_file(path: Path) -> Path:
    """Create ``path`` empty if missing, never readable by others even for an instant; 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    os.close(fd)
    path.chmod(FILE_MODE)
    return path


def write_private(path: Path, data: str | bytes) -> None:
    """Replace the content of ``path`` with ``data``; the file is 0600 before it holds any."""
    private_file(path)
    if isinstance(data, str):
        path.write_text(data)
    else:
        path.write_bytes(data)
