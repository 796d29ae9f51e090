"""What linkifier checks are made of, without requests or widgets: the server's limits, a check
line, a draft's problems, and which of several linkifiers takes overlapping text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from chatops.linkify import LinkifierMatch, Matcher

__all__ = ["RE2_NOTE", "Check", "Draft", "Ranked", "resolve", "short", "spelled"]

#: Length limits of the server's linkifier model.
MAX_PATTERN_LENGTH = 1000
MAX_URL_TEMPLATE_LENGTH = 1024
#: How many recent messages the preview scans unless told otherwise, and at most.
DEFAULT_SCAN = 100
MAX_SCAN = 1000
#: Preview rows shown at most, so that a pattern matching everything stays readable.
MAX_PREVIEW_ROWS = 200

SAMPLE_TEXT = (
    "Fixed in #1234, follow-up in #87 (see CVE-2024-3094).\n"
    "Deploy ticket OPS-42 is blocked on PR #99: https://example.org/notes"
)

LIST_COLUMNS = ["position", "pattern", "URL template", "id"]
PREVIEW_COLUMNS = ["where", "match", "groups", "URL", "applies"]
OVERLAP_COLUMNS = ["note", "winner", "winner pattern", "loser", "loser pattern", "text", "where"]


CheckKind = Literal["ok", "problem", "warning", "info"]

#: Said under the patterns: why a nested repeat such as ``(a+)+b`` is no danger here.
RE2_NOTE = (
    "The server runs linkifier patterns with RE2, which takes time linear in the length of the "
    "message whatever the pattern: nested repeats such as (a+)+b cannot make it hang, as they "
    "can in backtracking engines."
)
_MARKS: dict[str, str] = {"ok": "✓", "problem": "✗", "warning": "⚠", "info": "•"}


@dataclass(frozen=True)
class Check:
    """One line of the live check: ``kind`` is ok, problem, warning or info."""

    kind: CheckKind
    text: str

    @property
    def line(self) -> str:
        return f"{_MARKS[self.kind]} {self.text}"


@dataclass
class Draft:
    """What :meth:`LinkifiersPanel.analyse` found in a pattern and URL template."""

    pattern: str
    url_template: str
    pattern_problem: str = ""
    template_problem: str = ""
    groups: list[str] | None = None
    variables: list[str] | None = None
    unused_groups: list[str] = field(default_factory=list)
    unknown_variables: list[str] = field(default_factory=list)
    duplicate_of: int | None = None

    @property
    def mismatch(self) -> str:
        """The named groups and template variables that do not pair up, in words."""
        parts = []
        if self.unused_groups:
            parts.append(f"Groups missing from the URL template: {spelled(self.unused_groups)}.")
        if self.unknown_variables:
            parts.append(
                f"Template variables no group provides: {spelled(self.unknown_variables)}."
            )
        return " ".join(parts)

    @property
    def duplicate(self) -> str:
        if self.duplicate_of is None:
            return ""
        return f"Linkifier #{self.duplicate_of} already has this pattern and URL template."

    @property
    def previewable(self) -> bool:
        """Whether the pattern and template work together (a duplicate still previews)."""
        return not (self.pattern_problem or self.template_problem or self.mismatch)

    @property
    def problems(self) -> dict[str, str]:
        """What stops sending it, by the field to show it next to."""
        found: dict[str, str] = {}
        if self.pattern_problem or self.duplicate:
            found["pattern"] = self.pattern_problem or self.duplicate
        if self.template_problem or self.mismatch:
            found["url_template"] = self.template_problem or self.mismatch
        return found


@dataclass(frozen=True)
class Ranked:
    position: int
    pattern: str
    matcher: Matcher


@dataclass(frozen=True)
class Loss:
    winner: Ranked
    loser: Ranked
    winner_match: LinkifierMatch
    loser_match: LinkifierMatch


def resolve(
    text: str, ranked: Sequence[Ranked]
) -> tuple[list[tuple[Ranked, LinkifierMatch]], list[Loss]]:
    """What the server links in ``text``: earlier linkifiers take their matches first, and a
    later match overlapping a taken one is dropped. Returns the links and the dropped matches."""
    taken: list[tuple[Ranked, LinkifierMatch]] = []
    losses: list[Loss] = []
    for item in ranked:
        for m in item.matcher.find(text):
            winner = next(((r, t) for r, t in taken if m.start < t.end and t.start < m.end), None)
            if winner is None:
                taken.append((item, m))
            else:
                losses.append(Loss(winner[0], item, winner[1], m))
    return taken, losses


def short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def spelled(names: Iterable[str]) -> str:
    return ", ".join(names)
