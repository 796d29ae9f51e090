"""Where a linkifier matches, as the server decides it, with RE2 (the engine the server uses).

A match must start at the beginning of the text or after whitespace or one of ``' " ( , : <``,
must not be followed by a letter, digit or underscore, and where two linkifiers match
overlapping text the one earlier in the organization's order wins. The admin panel previews
with this, and the linkifiers audit counts hits with it.

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
    "OPENERS",
    "OPTIONS",
    "LinkifierMatch",
    "Matcher",
    "may_start_at",
    "re2_message",
]

OPTIONS = re2.Options()
OPTIONS.log_errors = False  # errors are reported to the caller; RE2 would also print them
#: The server's rule after a match: the end of the text or anything but a letter, digit or "_".
AFTER = r"(?:$|[^\pL\pN_])"
#: Characters after which a match may start (besides whitespace and the start of the text).
OPENERS = frozenset("'\"(,:<")


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


def may_start_at(text: str, index: int) -> bool:
    """Whether a linkifier match may start at ``index`` of ``text`` (the server's rule)."""
    return index == 0 or text[index - 1].isspace() or text[index - 1] in OPENERS


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
        # Group 1 is the match itself; the trailing context is matched, not kept, because RE2
        # has no look-ahead. Anchored at each candidate start this picks what the server does.
        self._anchored: Any = re2.compile(f"((?:{pattern})){AFTER}", OPTIONS)
        self._template = URITemplate(url_template) if url_template else None

    @property
    def group_names(self) -> list[str]:
        """The pattern's named groups, in the order they appear."""
        index: dict[str, int] = dict(self._search.groupindex)
        return sorted(index, key=index.__getitem__)

    def find(self, text: str) -> list[LinkifierMatch]:
        """Every non-empty match in ``text``, left to right, without overlaps."""
        found: list[LinkifierMatch] = []
        pos = 0
        while pos <= len(text):
            # The plain search finds the leftmost place where anything could match; places
            # before it cannot match with the server's context rules either.
            hit = self._search.search(text, pos)
            if hit is None:
                break
            start = int(hit.start())
            m = self._anchored.match(text, start) if may_start_at(text, start) else None
            end = int(m.end(1)) if m is not None else start
            if m is None or end == start:
                pos = start + 1
                continue
            groups: dict[str, Any] = {k: v for k, v in m.groupdict().items() if v is not None}
            url = str(self._template.expand(groups)) if self._template is not None else ""
            found.append(LinkifierMatch(start, end, text[start:end], groups, url))
            pos = end
        return found
