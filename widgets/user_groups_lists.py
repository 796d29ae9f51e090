"""The lists an admin gives to add or remove members and subgroups: pasted text or a CSV or
text file, split into entries, each classified in a :class:`MemberRow`; and what a preview was
made from (:func:`members_inputs`), so that Apply sends only the preview of the list on screen.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from ._people import MEMBERS, pasted_entries, read_list_file, split_pasted

__all__ = [
    "MEMBER_COLUMNS",
    "MemberRow",
    "entries_from_file",
    "lines_of",
    "lines_of_file",
    "members_inputs",
    "mention",
    "split_entries",
]

MEMBER_COLUMNS = ("line", "as typed", "kind", "who", "outcome", "detail")

#: Outcomes of a previewed entry; only the first two are sent.
WILL_ADD, WILL_REMOVE = "will be added", "will be removed"
ALREADY, NOT_MEMBER = "already in the group", "not in the group"
UNKNOWN, AMBIGUOUS, DUPLICATE, REFUSED = "unknown", "ambiguous", "duplicate", "cannot"


@dataclass(frozen=True)
class MemberRow:
    """One entry of a pasted list or file, as the preview classifies it."""

    row: int
    typed: str
    kind: str  # "user", "group" or "" when unknown
    id: int | None
    who: str
    outcome: str
    detail: str = ""

    @property
    def sent(self) -> bool:
        return self.outcome in (WILL_ADD, WILL_REMOVE)


def split_entries(text: str) -> list[str]:
    """Entries of pasted text: one per line, or separated by commas or semicolons."""
    return split_pasted(text, MEMBERS)


def lines_of(text: str) -> tuple[list[str], list[int]]:
    """The entries of pasted text and the line each is on (two on one line share it)."""
    found = pasted_entries(text, MEMBERS)
    return [e.text for e in found], [e.row for e in found]


def lines_of_file(content: bytes, name: str = "the file") -> tuple[list[str], list[int]]:
    """:func:`lines_of` for an uploaded file: its entries and their lines (rows of a CSV)."""
    found = [e for e in read_list_file(content, name, MEMBERS).entries if e.text]
    return [e.text for e in found], [e.row for e in found]


def entries_from_file(content: bytes, name: str = "the file") -> list[str]:
    """The entries of an uploaded CSV or text file: the column named email, member, user, name
    or group when the first row is a header, else every cell. Raises ``ValueError`` with a
    sentence for the admin when the file is unusable."""
    return read_list_file(content, name, MEMBERS).texts()


def mention(typed: str) -> tuple[str, str]:
    """``@**Ann Lee**`` -> ("user", "Ann Lee"); ``@*team*`` -> ("group", "team");
    ``Ann <ann@x.org>`` -> ("", "ann@x.org"); anything else as typed."""
    text = typed.strip()
    if m := re.fullmatch(r"@?\*\*(.+?)\*\*", text):
        return "user", m.group(1).split("|")[0].strip()  # @**Ann Lee|12** as Zulip writes it
    if m := re.fullmatch(r"@\*(.+?)\*", text):
        return "group", m.group(1).strip()
    if m := re.fullmatch(r".*<([^<>\s]+@[^<>\s]+)>", text):
        return "", m.group(1)
    if text.startswith("@") and "@" not in text[1:]:
        return "", text[1:]  # @name, not an address
    return "", text


def members_inputs(
    *, text: str | None = None, file: tuple[str, bytes] | None = None, remove: bool = False
) -> tuple[Any, ...]:
    """What a preview of members was made from, to compare with what Apply is given: the text
    pasted, or the file's name and a digest of its content; and add or remove."""
    if file is not None:
        name, content = file
        return ("file", name, hashlib.sha256(content).hexdigest(), remove)
    return ("text", text or "", remove)
