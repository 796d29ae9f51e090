"""Lists of people as an admin gives them to a panel: pasted text, or an uploaded CSV or text
file. One reader serves every panel that takes such a list (user groups, invitations, status),
so a file is checked, decoded, split into rows and refused in the same words everywhere; what
differs is what a panel's list holds, its :class:`ListKind`.

    people = read_list_file(upload_bytes, "team.csv", INVITEES)
    people.where                       # "column “E-Mail”"
    [e.text for e in people.entries]   # each address as written, with its row in e.row
    split_pasted("ann@x.org, Bo Li\\n@*ops*", MEMBERS)   # ["ann@x.org", "Bo Li", "@*ops*"]
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "INVITEES",
    "MAX_FILE_BYTES",
    "MEMBERS",
    "STATUS_USERS",
    "Entry",
    "ListFileError",
    "ListKind",
    "PeopleList",
    "header_key",
    "pasted_entries",
    "read_list_file",
    "split_pasted",
]

#: An uploaded list larger than this is surely not a list of people.
MAX_FILE_BYTES = 5 * 1024 * 1024


class ListFileError(ValueError):
    """An uploaded file holds no usable list; the message says why, in a sentence for the admin."""


def header_key(cell: str) -> str:
    """A header cell as compared: lowercase, ``_`` and ``-`` as spaces, spaces collapsed
    (``E-Mail`` and ``e_mail`` are ``e mail``)."""
    return " ".join(cell.strip().lower().replace("_", " ").replace("-", " ").split())


@dataclass(frozen=True)
class ListKind:
    """What the lists of one panel hold.

    ``columns``: header names (as :func:`header_key` gives them) of the columns that hold the
    list, in sets; the first set that names a column of the file wins. ``is_entry``: how an
    entry looks, for a file without such a header, whose first column holding an entry in its
    first row is then the list; ``None`` when any text can be an entry (a name), and such a
    file is then read cell by cell. ``separators``: what separates the entries of pasted text
    and of a ``.txt`` file. ``named`` and ``entries``: the columns and the entries in words.
    """

    columns: tuple[frozenset[str], ...]
    separators: str
    named: str
    entries: str
    is_entry: Callable[[str], bool] | None = None


def _has_at(text: str) -> bool:
    return "@" in text


def _email_or_id(text: str) -> bool:
    return "@" in text or text.strip().isdigit()


#: Members of a user group: emails, full names, group names or mentions (an email column beats
#: a name column: addresses are unique).
MEMBERS = ListKind(
    columns=(
        frozenset({"email", "e mail"}),
        frozenset({"member", "members", "user", "name", "full name", "group"}),
    ),
    separators="\n,;",
    named="email, member, user, name or group",
    entries="entries",
)
#: People to invite: email addresses, ``Name <address>`` allowed (split as the server splits
#: ``invitee_emails``: at commas and line breaks).
INVITEES = ListKind(
    columns=(
        frozenset({"email", "e mail", "emails", "address", "email address", "e mail address"}),
    ),
    separators="\n,",
    named="email, e-mail or address",
    entries="addresses",
    is_entry=_has_at,
)
#: Users whose status to set: emails or user IDs (an ID column beats an email column).
STATUS_USERS = ListKind(
    columns=(
        frozenset({"user id", "userid", "id"}),
        frozenset({"email", "e mail", "email address", "delivery email"}),
    ),
    separators="\n,;",
    named="email or user_id",
    entries="emails or user IDs",
    is_entry=_email_or_id,
)


@dataclass(frozen=True)
class Entry:
    """One entry as written (spaces at either end removed; empty when its cell is). ``row``
    counts the rows of a CSV file that hold any text, from 1; in pasted text and text files it
    is the line the entry is on."""

    row: int
    text: str


@dataclass(frozen=True)
class PeopleList:
    """What an uploaded file gave: its entries, where they were found in words (``column
    “email”``, ``the first column``, ``the lines of the file``), and the header of their
    column as written ("" without one)."""

    entries: list[Entry]
    where: str
    column: str = ""

    def texts(self) -> list[str]:
        """The entries that are not empty."""
        return [e.text for e in self.entries if e.text]


def split_pasted(text: str, kind: ListKind) -> list[str]:
    """The entries of pasted text: parts between ``kind``'s separators, spaces removed."""
    parts = re.split(f"[{re.escape(kind.separators)}]", text)
    return [part.strip() for part in parts if part.strip()]


def pasted_entries(text: str, kind: ListKind) -> list[Entry]:
    """The entries of pasted text with the line each was typed on (from 1): two entries on one
    line, separated by a comma, share its number, so an error names the line the admin sees."""
    found: list[Entry] = []
    inline = kind.separators.replace("\n", "")
    for line_no, line in enumerate(text.splitlines(), start=1):
        parts = re.split(f"[{re.escape(inline)}]", line) if inline else [line]
        found += [Entry(line_no, part.strip()) for part in parts if part.strip()]
    return found


def read_list_file(content: bytes, name: str, kind: ListKind) -> PeopleList:
    """The list in an uploaded file called ``name``.

    A ``.txt`` file is read as pasted text. A CSV file (comma, semicolon or tab, found from its
    first lines) gives the column its header names (see :class:`ListKind`); without one, the
    first column holding an entry in the first row, or every cell. Raises
    :class:`ListFileError` when the file is unusable or holds no entry.
    """
    text = _decoded(content, name)
    if name.lower().endswith(".txt"):
        people = PeopleList(pasted_entries(text, kind), "the lines of the file")
    else:
        people = _column(_rows(text, name), name, kind)
    if not people.texts():
        raise ListFileError(f"{name} has no {kind.entries} in {people.where}.")
    return people


def _decoded(content: bytes, name: str) -> str:
    if not content.strip():
        raise ListFileError(f"{name} is empty.")
    if len(content) > MAX_FILE_BYTES:
        size = len(content) / 1024 / 1024
        limit = MAX_FILE_BYTES // 1024 // 1024
        raise ListFileError(f"{name} is {size:.1f} MiB; a list of people is at most {limit} MiB.")
    if b"\x00" in content:
        raise ListFileError(f"{name} is not a text file; upload a CSV or TXT file.")
    try:
        return content.decode("utf-8-sig")  # Excel's "CSV UTF-8" starts with a byte-order mark
    except UnicodeDecodeError:
        raise ListFileError(
            f"{name} is not UTF-8 text; save it as “CSV UTF-8” and upload it again."
        ) from None


def _rows(text: str, name: str) -> list[list[str]]:
    """The rows that hold any text."""
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(
            text[:4096], delimiters=",;\t"
        )
    except csv.Error:
        dialect = csv.excel  # a single column has no delimiter to find
    try:
        rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise ListFileError(f"{name} is not a valid CSV file: {exc}.") from None
    if not rows:
        raise ListFileError(f"{name} is empty.")
    return rows


def _column(rows: list[list[str]], name: str, kind: ListKind) -> PeopleList:
    header = [header_key(cell) for cell in rows[0]]
    for names in kind.columns:
        column = next((i for i, h in enumerate(header) if h in names), None)
        if column is not None:
            written = rows[0][column].strip()
            return PeopleList(_cells(rows, column, start=1), f"column “{written}”", written)
    if kind.is_entry is None:
        found = [Entry(n, c.strip()) for n, r in enumerate(rows, start=1) for c in r if c.strip()]
        return PeopleList(found, "every cell")
    is_entry = kind.is_entry
    column = next((i for i, cell in enumerate(rows[0]) if is_entry(cell)), None)
    if column is None:
        shown = ", ".join(c.strip() for c in rows[0][:5])
        raise ListFileError(
            f"{name} has a header row ({shown}) but no column named {kind.named}, and no "
            f"{kind.entries} in its first row."
        )
    where = "the first column" if column == 0 else f"column {column + 1}"
    return PeopleList(_cells(rows, column, start=0), where)


def _cells(rows: list[list[str]], column: int, *, start: int) -> list[Entry]:
    return [
        Entry(n, r[column].strip() if column < len(r) else "")
        for n, r in enumerate(rows[start:], start=start + 1)
    ]
