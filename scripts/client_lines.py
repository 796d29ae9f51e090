"""Print how many lines of the client people write: ``python scripts/client_lines.py``.

Counted: ``chatops/_async/client.py``, ``chatops/_async/resources/*.py``, ``chatops/_client.py``
and ``chatops/resources/*.py`` (every line, blank and docstring lines included); not counted:
``chatops/_sync/``, which ``scripts/unasync.py`` writes.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "chatops"
PATTERNS = ("_async/client.py", "_async/resources/*.py", "_client.py", "resources/*.py")


def counts() -> dict[str, int]:
    """Lines per hand-written client file, by path relative to the package."""
    files = sorted({path for pattern in PATTERNS for path in PACKAGE.glob(pattern)})
    return {str(path.relative_to(PACKAGE)): len(path.read_text().splitlines()) for path in files}


if __name__ == "__main__":
    lines = counts()
    for name, n in lines.items():
        print(f"{n:6d}  chatops/{name}")
    print(f"{sum(lines.values()):6d}  hand-written client lines")
