"""The one way chatops prints to a terminal: what people typed is shown, never obeyed.

A name, topic or status can hold escape sequences that move the cursor, erase lines, set the
window title or recolour text (``\\x1b[2K\\x1b[1A``), line breaks that forge lines of their own,
and bidirectional overrides that show text in another order than it is (``\\u202e``). Every
line the command line prints goes through :func:`say`, which shows each such character
escaped, the way Python writes it in a string (``\\x1b``, ``\\n``, ``\\u202e``), so a listing
such as ``chatops audit apply``'s shows every line it holds, in order.

::

    say(f"will run  DELETE /users/6  ({name})")          # stdout
    say("Interrupted.", err=True)                         # stderr
    printable("Guest\\x1b[2K")  ->  'Guest\\\\x1b[2K'
"""

from __future__ import annotations

import logging
import re
import sys
import warnings
from typing import TextIO

__all__ = ["install", "printable", "say"]

#: C0 and C1 controls (escape, line breaks and tabs among them), DEL, the line and paragraph
#: separators, and the characters that reorder text: marks, embeddings, overrides, isolates
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """``text`` with every control, line break and direction character shown escaped."""
    return _UNSAFE.sub(_escape, str(text))


def say(line: object = "", *, err: bool = False, file: TextIO | None = None) -> None:
    """Print one line (to stdout, or stderr with ``err``), every unsafe character escaped.

    Args:
        line: the line; a line break inside it is shown as ``\\n``, so a caller prints
            several lines with several calls.
        err: print to stderr.
        file: print there instead.
    """
    out = file if file is not None else (sys.stderr if err else sys.stdout)
    print(printable(line), file=out, flush=err)


class _Printable(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    say(f"{category.__name__}: {message}", file=file or sys.stderr)


def install() -> None:
    """Route the warnings and log records that reach a terminal through :func:`printable`:
    a warning can quote the server (``ignored_parameters_unsupported``), a log line a name."""
    warnings.showwarning = _show_warning
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setLevel(logging.WARNING)
        handler.setFormatter(_Printable("%(name)s: %(levelname)s: %(message)s"))
        root.addHandler(handler)
