"""What invitations are made of, without widgets or requests: the limits, reading addresses
(pasted or from a CSV file), the classification of a row, the options of an invitation and the
outcome of sending one."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from chatops import ApiError, ChatopsError

from ._people import INVITEES, read_list_file, split_pasted

__all__ = [
    "Candidate",
    "InviteOptions",
    "NotAllowed",
    "Outcome",
    "address_problem",
    "addresses_from_file",
    "split_addresses",
]

#: Server limit for ``welcome_message_custom_text`` (spec §8).
MAX_WELCOME_TEXT = 8000
#: The server's default validity, ``INVITATION_LINK_VALIDITY_MINUTES`` (14,400 minutes).
DEFAULT_EXPIRY_DAYS = 10
#: The panel's own upper bound, so that a slip of the finger cannot make a near-eternal invitation
#: (an invitation that should never expire has its own checkbox).
MAX_EXPIRY_DAYS = 3650
MINUTES_PER_DAY = 1440
DEFAULT_BATCH_SIZE = 100
#: When ``X-RateLimit-Remaining`` falls below this, wait ``PACE_SECONDS`` before the next batch.
LOW_RATE_LIMIT = 2
PACE_SECONDS = 0.5
#: Longest address Zulip stores (its email fields are 254 characters).
MAX_EMAIL_LENGTH = 254

# Classifications of a row of the preview.
VALID = "valid"
INVALID = "invalid address"
DUPLICATE = "duplicate"
ALREADY_USER = "already a user"
ALREADY_INVITED = "already invited"
CLASSIFICATIONS = (VALID, INVALID, DUPLICATE, ALREADY_USER, ALREADY_INVITED)

# Results of a row after Send.
INVITED = "invited"
REFUSED = "refused"
NOT_SENT = "not sent"
FAILED = "failed"
SKIPPED = "skipped"
RESULTS = (INVITED, REFUSED, NOT_SENT, FAILED, SKIPPED)

PREVIEW_COLUMNS = ["row", "as typed", "address", "classification", "detail"]
RESULT_COLUMNS = ["row", "address", "result", "detail", "code"]
INVITATION_COLUMNS = [
    "kind",
    "email or link",
    "role",
    "invited by",
    "invited (UTC)",
    "expires (UTC)",
    "invitation ID",
]

# The sandbox's rule (chatops/sandbox/invitations.py EMAIL); the stricter checks below follow
# the real server's (Django's) validator, so that the panel never sends an address either would
# refuse: one invalid address makes the server refuse its whole batch.
_SERVER_EMAIL = re.compile(r"^[^@\s,<>]+@[^@\s,<>]+\.[^@\s,<>]+$")
_LOCAL_PART = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$")
_DOMAIN_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
_TOP_LEVEL = re.compile(r"^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$")
_ANGLE = re.compile(r"<([^>]*)>")


# -- addresses ----------------------------------------------------------------------------------
def split_addresses(raw: str) -> list[tuple[str, str]]:
    """``(as typed, address)`` for every non-empty part of ``raw``, as the server splits
    ``invitee_emails``: at commas and line breaks, ``Name <addr>`` giving ``addr``.

    Unlike the server this keeps duplicates, so that the preview can point them out.
    """
    out: list[tuple[str, str]] = []
    for typed in split_pasted(raw, INVITEES):
        m = _ANGLE.search(typed)
        out.append((typed, (m.group(1) if m else typed).strip()))
    return out


def address_problem(email: str) -> str | None:
    """Why ``email`` is not an address the server accepts, in words; None when it is."""
    if not email:
        return "No address between the angle brackets."
    if len(email) > MAX_EMAIL_LENGTH:
        return f"Longer than {MAX_EMAIL_LENGTH} characters."
    if any(ch.isspace() for ch in email):
        return "An address cannot contain spaces."
    if email.count("@") != 1:
        return "An address needs exactly one @." if "@" in email else "No @ in the address."
    local, domain = email.split("@")
    if not domain:
        return "Nothing after the @."
    if not local or not _LOCAL_PART.match(local) or len(local) > 64:
        return "The part before the @ is not valid."
    try:
        ascii_domain = domain.encode("idna").decode("ascii")
    except UnicodeError:
        return f"“{domain}” is not a valid domain."
    labels = ascii_domain.split(".")
    if (
        len(labels) < 2
        or not all(_DOMAIN_LABEL.match(label) for label in labels)
        or not _TOP_LEVEL.match(labels[-1])
    ):
        return f"“{domain}” is not a valid domain."
    if not _SERVER_EMAIL.match(email):
        return "Not a valid address."
    return None


def addresses_from_file(content: bytes, name: str = "the file") -> tuple[list[str], str]:
    """The addresses of an uploaded CSV or text file and where they were found, in words.

    A ``.txt`` file is read like pasted text. A CSV file's column named email, e-mail or address
    is used when the first row is a header; without a header, the first column holding an
    address. Raises ``ValueError`` with a sentence for the admin when the file is unusable.
    """
    people = read_list_file(content, name, INVITEES)
    return people.texts(), people.where


# -- records ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Candidate:
    """One row of the address list and its classification (see ``CLASSIFICATIONS``)."""

    row: int
    typed: str
    email: str
    classification: str
    detail: str = ""

    @property
    def valid(self) -> bool:
        return self.classification == VALID


@dataclass(frozen=True)
class Outcome:
    """What happened to one row on Send: ``result`` is one of ``RESULTS``."""

    row: int
    email: str
    result: str
    detail: str = ""
    code: str = ""


@dataclass(frozen=True)
class InviteOptions:
    """What the new users get; ``expires_in_days`` None means the invitation never expires."""

    invite_as: int = 400
    stream_ids: tuple[int, ...] = ()
    group_ids: tuple[int, ...] = ()
    expires_in_days: int | None = DEFAULT_EXPIRY_DAYS
    welcome_message_custom_text: str | None = None
    include_realm_default_subscriptions: bool = True

    @property
    def expires_in_minutes(self) -> int | None:
        return None if self.expires_in_days is None else self.expires_in_days * MINUTES_PER_DAY

    def request(self) -> dict[str, Any]:
        """The keyword arguments of ``client.invitations.send`` and ``create_link``."""
        return {
            "invite_as": self.invite_as,
            "stream_ids": list(self.stream_ids),
            "group_ids": list(self.group_ids),
            "expires_in_minutes": self.expires_in_minutes,
            "include_realm_default_subscriptions": self.include_realm_default_subscriptions,
            "welcome_message_custom_text": self.welcome_message_custom_text,
        }


class NotAllowed(ChatopsError):
    """The acting account may not do this (it is in the panel's notice too)."""


class Stop(Exception):
    """A batch failed in a way every later batch would too (wrong options, limits)."""

    def __init__(self, error: ChatopsError) -> None:
        super().__init__(str(error))
        self.error = error


def when(ts: int | None, *, none: str = "never") -> str:
    if ts is None:
        return none
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


def error_code(exc: BaseException) -> str:
    if isinstance(exc, ApiError):
        return f"{exc.code} (HTTP {exc.status})"
    return type(exc).__name__
