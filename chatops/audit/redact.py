"""Reports never hold a secret: notebooks get the *path* of a zuliprc, and every text and file a
run writes is scrubbed of the API keys (and of this machine's paths) as a last line of defence."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["REDACTED", "redact_file", "scrub", "scrubber"]

REDACTED = "***REDACTED***"


def scrubber(secrets: Sequence[str], run_dir: Path, zuliprc: str) -> Callable[[str], str]:
    """Text for the reader: no secrets, no paths of this machine's run folder or zuliprc."""
    paths = [p for p in (str(run_dir) + os.sep, str(run_dir), zuliprc) if p]
    replacements = {str(run_dir) + os.sep: "", str(run_dir): ".", zuliprc: "zuliprc"}

    def clean(text: str) -> str:
        text = scrub(text, secrets)
        for path in paths:
            text = text.replace(path, replacements[path])
        return text

    return clean


def scrub(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    return text


def redact_file(path: Path, secrets: Sequence[str]) -> None:
    """Scrub the secrets out of a file the run wrote (in place)."""
    text = path.read_text(encoding="utf-8")
    clean = scrub(text, secrets)
    if clean != text:
        path.write_text(clean, encoding="utf-8")
