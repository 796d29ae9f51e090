"""Files that hold people's data: owner-only by default, written whole or not at all.

Reports, exports, plans, journals and the dataset all name people and describe the
organization, so they are created readable by their owner only (folders 0700, files 0600),
whatever the process's umask. A report folder can be shared on purpose
(``chatops audit run --readable-by group``); nothing else widens a mode.

::

    private_dir(Path("reports/2026-11-28T06-00-00Z"))          # made (and kept) 0700
    atomic_write(Path("plan.jsonl"), lambda tmp: tmp.write_text(text))   # 0600, renamed in
    write_private_text(Path("out.csv"), text)                   # the same, for text
    share(Path("reports/latest/"), "group")                    # 0750 / 0640, recursively
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Literal, TextIO

__all__ = [
    "FILE_MODE",
    "FOLDER_MODE",
    "READERS",
    "Readers",
    "atomic_write",
    "new_dir",
    "open_private_log",
    "owner_only",
    "private_dir",
    "restrict_tree",
    "share",
    "share_folder",
    "write_private_text",
]

#: the modes of what chatops writes: the owner reads and writes, nobody else
FILE_MODE = 0o600
FOLDER_MODE = 0o700

#: who may read a report folder: its owner (the default), the owner's group, or every account
Readers = Literal["owner", "group", "everyone"]
READERS: tuple[Readers, ...] = ("owner", "group", "everyone")
_MODES: dict[Readers, tuple[int, int]] = {
    "owner": (FOLDER_MODE, FILE_MODE),
    "group": (0o750, 0o640),
    "everyone": (0o755, 0o644),
}


def private_dir(path: Path) -> Path:
    """``path`` as a folder only its owner can read (made with its parents when missing)."""
    path.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    os.chmod(path, FOLDER_MODE)
    return path


def new_dir(path: Path) -> Path:
    """``path`` as a folder: the levels that are missing are made owner-only; folders that
    already exist (``.``, a shared ``reports/``) keep their modes."""
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe.parent != probe:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        folder.mkdir(mode=FOLDER_MODE, exist_ok=True)
        os.chmod(folder, FOLDER_MODE)
    if not path.is_dir():
        raise NotADirectoryError(path)
    return path


def atomic_write(path: Path, write: Callable[[Path], None]) -> None:
    """Write through a temporary file in the same folder, made owner-only, then rename it
    into place: a reader sees the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        # created 0600 before anything is written, so no other account can open it meanwhile
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        write(tmp)
        os.chmod(tmp, FILE_MODE)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def write_private_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path``, owner-only and atomically; returns the path."""

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    atomic_write(path, write)
    return path


def open_private_log(path: Path) -> TextIO:
    """``path`` opened to append lines (UTF-8), created owner-only; a log made readable by
    others before is made owner-only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
    os.fchmod(fd, FILE_MODE)
    return os.fdopen(fd, "a", encoding="utf-8")


@contextlib.contextmanager
def owner_only() -> Iterator[None]:
    """Files and folders created inside the block (by this process and the processes it
    starts, such as kernels) are readable by their owner only: the umask is 077 meanwhile."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def _walk(root: Path) -> Iterator[tuple[Path, bool]]:
    yield root, True
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            yield Path(folder) / name, True
        for name in files:
            yield Path(folder) / name, False


def restrict_tree(root: Path) -> None:
    """Make ``root`` and everything in it owner-only (links are left as they are)."""
    share(root, "owner")


def share(root: Path, readers: Readers) -> None:
    """Give ``root`` and everything in it the modes for ``readers`` (links are not followed)."""
    folder_mode, file_mode = _MODES[readers]
    for path, is_dir in _walk(root):
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISLNK(path.lstat().st_mode):
                continue
            os.chmod(path, folder_mode if is_dir else file_mode)


def share_folder(folder: Path, readers: Readers) -> None:
    """Give the one folder ``folder`` (not what it holds) the folder mode for ``readers``."""
    os.chmod(folder, _MODES[readers][0])
