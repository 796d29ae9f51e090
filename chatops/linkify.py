"""Where a linkifier matches, as the server decides it, with RE2 (the engine the server uses).

A match must start at the beginning of the text or after whitespace (any Unicode space) or one
of ``' " ( , :`` and ``<``, and must be followed by the end of the text or by anything but a
letter or a digit; where two linkifiers match overlapping text the one earlier in the
organization's order wins. The sandbox renders with this, the admin panel previews with it,
and the linkifiers audit counts hits with it. Matching takes time linear in the text whatever
the pattern.

    >>> m = Matcher(r"#(?P<id>[0-9]+)", "https://example.org/issues/{id}")
    >>> [x.url for x in m.find("see #12")]
    ['https://example.org/issues/12']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import re2
from uritemplate import URITemplate

__all__ = [
    "AFTER",
    "OPTIONS",
    "BEFORE",
    "LinkifierMatch",
    "Matcher",
    "re2_message",
]

OPTIONS = re2.Options()
OPTIONS.log_errors = False  # errors are reported to the caller; RE2 would also print them
#: The server's rule before a match: the start of the text, whitespace, or an opener.
BEFORE = "(?:^|\\s|\u0085|\\pZ|['\"(,:<])"
#: The server's rule after a match: the end of the text or anything but a letter or a digit.
AFTER = r"(?:$|[^\pL\pN])"


@dataclass(frozen=True)
class LinkifierMatch:
    """A match of a linkifier in a text and the URL it becomes."""

    start: int
    end: int
    text: str
    groups: dict[str, str]
    url: str


def re2_message(exc: Exception) -> str:
    """RE2's own words for why a pattern does not compile."""
    arg = exc.args[0] if exc.args else exc
    return arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)


class Matcher:
    """A linkifier compiled with RE2 that matches where the server would.

    Example::

        m = Matcher(r"#(?P<id>[0-9]+)", "https://example.org/issues/{id}")
        [x.url for x in m.find("see #12")]   # ["https://example.org/issues/12"]

    Raises ``re2.error`` when the pattern does not compile.
    """

    def __init__(self, pattern: str, url_template: str = "") -> None:
        self.pattern = pattern
        self.url_template = url_template
        self._search: Any = re2.compile(pattern, OPTIONS)
        # Group 1 is the match itself; the context on either side is matched, not kept, because
        # RE2 has no look-around (the server's own pattern is built the same way). It runs on
        # UTF-8 bytes: the str interface re-encodes the whole text at every search.
        self._context: Any = re2.compile(f"{BEFORE}((?:{pattern})){AFTER}".encode(), OPTIONS)
        self._template = URITemplate(url_template) if url_template else None

    @property
    def group_names(self) -> list[str]:
        """The pattern's named groups, in the order they appear."""
        index: dict[str, int] = dict(self._search.groupindex)
        return sorted(index, key=index.__getitem__)

    def find(self, text: str) -> list[LinkifierMatch]:
        """Every non-empty match in ``text``, left to right, without overlaps."""
        found: list[LinkifierMatch] = []
        data = text.encode()
        # character index of each byte offset, needed only when some character is not ASCII
        index = None if len(data) == len(text) else _char_index(text)
        # The context before a match is searched for too: after a match the next one needs a
        # context character of its own (as on the server, where the first match is already
        # replaced); ``^`` only matches at the start of the text, not at ``search_from``.
        search_from = 0
        while search_from <= len(data):
            m = self._context.search(data, search_from)
            if m is None:
                break
            start, end = int(m.start(1)), int(m.end(1))
            if end == start:  # an empty match links nothing; look again one character on
                search_from = max(start, int(m.start()) + 1)
                continue
            search_from = end
            groups = {k.decode(): v.decode() for k, v in m.groupdict().items() if v is not None}
            url = str(self._template.expand(groups)) if self._template is not None else ""
            if index is not None:
                start, end = index[start], index[end]
            found.append(LinkifierMatch(start, end, text[start:end], groups, url))
        return found


def _char_index(text: str) -> list[int]:
    """For each UTF-8 byte offset of ``text`` (and its end), the index of its character."""
    index = [i for i, ch in enumerate(text) for _ in range(len(ch.encode()))]
    index.append(len(text))
    return index
