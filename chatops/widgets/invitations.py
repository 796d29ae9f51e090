"""The Invitations panel: invite many people by email at once, and make reusable invitation links
(spec 4.8).

Addresses come pasted (one per line or comma separated, ``Name <addr>`` allowed) or from a CSV
upload. Preview classifies every row before anything is sent: valid, invalid address, duplicate
of an earlier row, already a user (active or deactivated), already invited. Send invites only the
valid rows, several addresses per ``POST /invites`` request (``batch_size``), counts addresses on
the progress bar, can be cancelled between batches, and gives one result per address: invited,
refused (with the server's reason), not sent (cancelled) or failed (with the error's code).
"""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from chatops import ApiError, ChatopsError, Client, InvitationFailed, RateLimited, ServerError
from chatops.types import Invite, User, UserGroup

from ._base import (
    ROLE_NAMES,
    FieldError,
    Panel,
    Session,
    describe_error,
    escape,
    frame,
)

__all__ = [
    "Candidate",
    "InvitationsPanel",
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

HEADER_NAMES = frozenset(
    {"email", "e-mail", "emails", "address", "email address", "e-mail address"}
)

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
    for part in re.split(r"[,\n]", raw):
        typed = part.strip()
        if not typed:
            continue
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
    if not content.strip():
        raise ValueError(f"{name} is empty.")
    if b"\x00" in content:
        raise ValueError(f"{name} is not a text file; upload a CSV or TXT file.")
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError(
            f"{name} is not UTF-8 text; save it as “CSV UTF-8” and upload it again."
        ) from None
    if name.lower().endswith(".txt"):
        typed = [part for part, _email in split_addresses(text)]
        if not typed:
            raise ValueError(f"{name} has no addresses.")
        return typed, "the lines of the file"
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(
            text[:4096], delimiters=",;\t"
        )
    except csv.Error:
        dialect = csv.excel  # a single column has no delimiter to find
    try:
        rows = [r for r in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise ValueError(f"{name} is not a valid CSV file: {exc}.") from None
    if not rows:
        raise ValueError(f"{name} is empty.")
    header = [" ".join(c.strip().lower().replace("_", " ").split()) for c in rows[0]]
    column = next((i for i, h in enumerate(header) if h in HEADER_NAMES), None)
    if column is not None:
        body, where = rows[1:], f"column “{rows[0][column].strip()}”"
    else:
        column = next((i for i, c in enumerate(rows[0]) if "@" in c), None)
        if column is None:
            shown = ", ".join(c.strip() for c in rows[0][:5])
            raise ValueError(
                f"{name} has a header row ({shown}) but no column named email, e-mail or "
                "address, and no addresses in its first row."
            )
        body, where = rows, "the first column" if column == 0 else f"column {column + 1}"
    found = [r[column].strip() for r in body if len(r) > column and r[column].strip()]
    if not found:
        raise ValueError(f"{name} has no addresses in {where}.")
    return found, where


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
        """The keyword arguments of ``client.invites.send`` and ``create_link``."""
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


class _Stop(Exception):
    """A batch failed in a way every later batch would too (wrong options, limits)."""

    def __init__(self, error: ChatopsError) -> None:
        super().__init__(str(error))
        self.error = error


def _when(ts: int | None, *, none: str = "never") -> str:
    if ts is None:
        return none
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M")


def _plural(n: int, word: str, plural: str = "") -> str:
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def _code(exc: BaseException) -> str:
    if isinstance(exc, ApiError):
        return f"{exc.code} (HTTP {exc.status})"
    return type(exc).__name__


class InvitationsPanel(Panel):
    """Bulk email invitations with a preview, batched sending and per-address results, and
    reusable invitation links with the same choices.

    Example::

        panel = InvitationsPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                   # in JupyterLab: shows the panel
        panel.addresses.value = "Ann <ann@example.org>, bob@example.org"
        panel.role.value = 400                  # member
        panel.classify()                        # the preview, one Candidate per row
        panel.send()                            # one Outcome per row
        panel.create_link()                     # a reusable link with the same choices

    Email invitations need the organization's ``can_invite_users_group``, links its
    ``create_multiuse_invite_group``; guests may do neither. Without either, the panel is
    read-only (the preview still works).
    """

    title = "Invitations"
    slug = "invitations"

    def __init__(
        self,
        client: Client | Session,
        *,
        background: bool | None = None,
        export_dir: str | Path = "exports",
        batch_size: int = DEFAULT_BATCH_SIZE,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.batch_size = batch_size
        #: how the panel waits when pacing itself by the rate limit (tests count the calls)
        self.sleep = sleep
        super().__init__(client, background=background, export_dir=export_dir)
        self.root.add_class("chatops-invitations")
        if self.read_only:
            for widget in self._option_inputs:
                widget.disabled = True

    # -- building ------------------------------------------------------------------------------
    def build(self) -> w.Widget:
        self.candidates: list[Candidate] = []
        self.outcomes: dict[int, Outcome] = {}
        self.requests_sent = 0
        self.sent_options: InviteOptions | None = None
        self.channel_names: dict[int, str] = {}
        self.group_names: dict[int, str] = {}
        self._user_names: dict[int, str] = {}
        self._refreshed = False

        session = self.session
        is_guest = session.role >= 600
        self.may_send = not is_guest and session.permits("can_invite_users_group")
        self.may_create_links = not is_guest and session.permits("create_multiuse_invite_group")

        self.addresses = self.field(
            "addresses",
            w.Textarea(
                placeholder="ann@example.org\nBob Smith <bob@example.org>, carol@example.org",
                layout=w.Layout(width="640px", height="140px"),
            ),
            label="Addresses",
            hint="One per line or separated by commas; “Name <address>” is fine.",
        )
        self.upload = self.field(
            "upload",
            w.FileUpload(accept=".csv,.txt", multiple=False, description="Upload CSV"),
            label="Or a file",
            hint=(
                "A CSV file with a column named email, e-mail or address (or addresses in the "
                "first column), or a text file. It replaces the addresses above."
            ),
        )
        self.preview_button = w.Button(description="Preview", icon="search")

        self.role = self.field(
            "invite_as",
            w.Dropdown(options=self._role_options(), value=self._default_role()),
            label="Role",
            hint="Roles you may give: none more powerful than your own.",
        )
        self.channels = self.field(
            "stream_ids",
            w.SelectMultiple(options=[], rows=6, layout=w.Layout(width="320px")),
            label="Channels",
            hint="",
        )
        self.groups = self.field(
            "group_ids",
            w.SelectMultiple(options=[], rows=4, layout=w.Layout(width="320px")),
            label="User groups",
            hint="",
        )
        self.expires_in_days = self.field(
            "expires_in_days",
            w.IntText(value=DEFAULT_EXPIRY_DAYS, layout=w.Layout(width="90px")),
            label="Expires after",
            hint=f"Days, 1 to {MAX_EXPIRY_DAYS:,} (the server's default is 10 days).",
        )
        self.never_expires = w.Checkbox(value=False, description="never", indent=False)
        self.never_expires.observe(self._on_never, "value")
        self.welcome = self.field(
            "welcome_message_custom_text",
            w.Textarea(
                placeholder="Leave empty for the organization's usual welcome.",
                layout=w.Layout(width="640px", height="90px"),
            ),
            label="Welcome message",
            hint=self._welcome_count(""),
        )
        self.welcome.input.observe(self._on_welcome, "value")
        self.welcome_note = w.HTML(value="")
        if not session.is_admin:
            # Only administrators may set it; the server ignores it from anyone else.
            self.welcome.box.layout.display = "none"
            self.welcome_note.value = (
                '<span class="chatops-muted">Only organization administrators can write a '
                "custom welcome message; new users get the organization's usual welcome.</span>"
            )
        self.include_defaults = self.field(
            "include_realm_default_subscriptions",
            w.Checkbox(value=True, description="also join the default channels", indent=False),
            label="Default channels",
        )

        self.send_button = w.Button(
            description="Send invitations", icon="paper-plane", button_style="primary"
        )
        self.retry_button = w.Button(description="Retry failed", icon="redo")
        self.link_button = w.Button(description="Create invitation link", icon="link")
        self.link = self.field(
            "link",
            w.Text(
                value="",
                placeholder="The link appears here; select it and copy.",
                layout=w.Layout(width="640px"),
            ),
            label="Invitation link",
            hint="Anyone with the link can join with the choices above until it expires.",
        )
        self.send_note = w.HTML(value="")
        self.link_note = w.HTML(value="")
        # Buttons the account may not use stay disabled for good: they are not in
        # ``self.actions``, which the base re-enables after each long operation.
        if self.may_send:
            self.actions += [self.send_button, self.retry_button]
        else:
            self.send_button.disabled = self.retry_button.disabled = True
            if not is_guest:  # for guests the read-only notice says why
                self.send_note.value = self._note(self._missing("can_invite_users_group", "email"))
        if self.may_create_links:
            self.actions.append(self.link_button)
        else:
            self.link_button.disabled = True
            if not is_guest:
                self.link_note.value = self._note(
                    self._missing("create_multiuse_invite_group", "link")
                )
        self._option_inputs: list[w.DOMWidget] = [
            self.addresses.input,
            self.upload.input,
            self.role.input,
            self.channels.input,
            self.groups.input,
            self.expires_in_days.input,
            self.never_expires,
            self.welcome.input,
            self.include_defaults.input,
        ]

        self.preview_table = self.table(
            "Preview: every row and whether it will be sent",
            self.load_preview,
            slug="preview",
            empty="Paste or upload addresses, then click Preview.",
        )
        self.results_table = self.table(
            "Results: what happened to each address",
            self.load_results,
            slug="results",
            empty="Nothing sent yet.",
        )
        self.invitations_table = self.table(
            "Active invitations, newest first"
            + ("" if session.is_admin else " (yours; administrators see everyone's)"),
            self.load_invitations,
            slug="active",
            empty="No active invitations.",
        )

        self.upload.input.observe(self._on_upload, "value")
        self.on_click(self.preview_button, self.classify)
        self.on_click(self.send_button, lambda: self.run_long(self.send))
        self.on_click(self.retry_button, lambda: self.run_long(self.retry_failed))
        self.on_click(self.link_button, self.create_link)

        for part, name in [
            (self.addresses.input, "addresses"),
            (self.upload.input, "upload"),
            (self.preview_button, "preview"),
            (self.role.input, "role"),
            (self.channels.input, "channels"),
            (self.groups.input, "groups"),
            (self.expires_in_days.input, "expiry-days"),
            (self.never_expires, "never-expires"),
            (self.welcome.input, "welcome"),
            (self.welcome_note, "welcome-note"),
            (self.include_defaults.input, "include-defaults"),
            (self.send_button, "send"),
            (self.retry_button, "retry"),
            (self.link_button, "create-link"),
            (self.link.input, "link"),
            (self.preview_table.widget, "preview-table"),
            (self.results_table.widget, "results-table"),
            (self.invitations_table.widget, "invitations-table"),
        ]:
            part.add_class(f"chatops-invitations-{name}")

        def section(text: str) -> w.HTML:
            return w.HTML(value=f'<div class="chatops-section">{escape(text)}</div>')

        return w.VBox(
            [
                section("Who to invite"),
                self.addresses.box,
                self.upload.box,
                self.preview_button,
                section("What they get"),
                self.role.box,
                self.channels.box,
                self.groups.box,
                w.HBox([self.expires_in_days.box, self.never_expires]),
                self.welcome.box,
                self.welcome_note,
                self.include_defaults.box,
                section("Email invitations"),
                w.HBox([self.send_button, self.retry_button]),
                self.send_note,
                section("Or a reusable invitation link"),
                self.link_button,
                self.link_note,
                self.link.box,
                self.preview_table.widget,
                self.results_table.widget,
                self.invitations_table.widget,
            ]
        )

    def missing_permission(self) -> str | None:
        if self.session.role >= 600:
            return "Guests cannot invite anyone to the organization; you are a guest."
        if self.may_send or self.may_create_links:
            return None
        return (
            f"{self._missing('can_invite_users_group', 'email')} "
            f"{self._missing('create_multiuse_invite_group', 'link')}"
        )

    # -- permissions in words ------------------------------------------------------------------
    def _setting_holders(self, setting: str) -> str:
        value = self.session.realm.get(f"realm_{setting}")
        if isinstance(value, int):
            group = next((g for g in self.session.groups if g.id == value), None)
            if group is None:
                return "a user group"
            name = group.name.removeprefix("role:")
            return {"fullmembers": "full members", "everyone": "everyone"}.get(name, name)
        return "selected users and groups"

    def _missing(self, setting: str, kind: str) -> str:
        what = "Sending email invitations" if kind == "email" else "Creating invitation links"
        role = self.session.role_name
        article = "an" if role[:1] in "aeiou" else "a"
        return (
            f"{what} is allowed to {self._setting_holders(setting)} "
            f"(organization setting {setting}); you are {article} {role} and not among them."
        )

    @staticmethod
    def _note(text: str) -> str:
        return f'<span class="chatops-muted">{escape(text)}</span>'

    # -- options -------------------------------------------------------------------------------
    def allowed_roles(self) -> list[int]:
        """Roles the acting account may give: its own and less powerful ones (as the server)."""
        return [role for role in ROLE_NAMES if role >= self.session.role]

    def _role_options(self) -> list[tuple[str, int]]:
        return [(ROLE_NAMES[r].capitalize(), r) for r in self.allowed_roles()]

    def _default_role(self) -> int:
        roles = self.allowed_roles()
        return 400 if 400 in roles else roles[-1]

    def allowed_channels(self) -> dict[int, str]:
        """Channels the acting account may subscribe new users to, by ID, with their names.

        The server's rule: the channel must be readable (subscribed, or public for a
        non-guest); when the account may not subscribe others at all, none; otherwise a
        default channel, or one where the account is an administrator, in the channel's
        ``can_add_subscribers_group`` or ``can_administer_channel_group``, or (not being a
        private channel it is not subscribed to) in the organization's setting.
        """
        session = self.session
        me = session.me.user_id
        if not (session.is_admin or session.permits("can_add_subscribers_group")):
            return {}
        subscribed = {s.stream_id for s in self.client.channels.subscriptions()}
        allowed: dict[int, str] = {}
        for ch in self.client.channels.list():
            member = ch.stream_id in subscribed
            if ch.is_archived or not (member or not ch.invite_only):
                continue
            if (
                ch.is_default
                or session.is_admin
                or me in session.group_members(ch.can_add_subscribers_group)
                or me in session.group_members(ch.can_administer_channel_group)
                or not (ch.invite_only and not member)
            ):
                label = ch.name + (" (default)" if ch.is_default else "")
                allowed[ch.stream_id] = label + (" (private)" if ch.invite_only else "")
        return dict(sorted(allowed.items(), key=lambda kv: kv[1].casefold()))

    def allowed_groups(self) -> dict[int, str]:
        """User groups the acting account may add new users to, by ID, with their names."""
        session = self.session
        if session.role >= 600:
            return {}
        me = session.me.user_id
        manage_all = session.permits("can_manage_all_groups")
        allowed: dict[int, str] = {}
        group: UserGroup
        for group in session.groups:
            if group.is_system_group or group.deactivated:
                continue
            if (
                manage_all
                or me in session.group_members(group.can_manage_group)
                or me in session.group_members(group.can_add_members_group)
            ):
                allowed[group.id] = group.name
        return dict(sorted(allowed.items(), key=lambda kv: kv[1].casefold()))

    def load_options(self) -> None:
        """Fetch the channels and groups the account may choose and fill the selectors."""
        self.channel_names = self.allowed_channels()
        self.group_names = self.allowed_groups()
        for fld, names in ((self.channels, self.channel_names), (self.groups, self.group_names)):
            chosen = [v for v in fld.input.value if v in names]
            fld.input.options = [(label, sid) for sid, label in names.items()]
            fld.input.value = tuple(chosen)
        if self.channel_names:
            self.channels.hint("Ctrl/⌘-click to pick several. Only channels you may add people to.")
        else:
            self.channels.hint(
                "You may not subscribe others to channels (organization setting "
                "can_add_subscribers_group); new users join the default channels only."
            )
        if self.group_names:
            self.groups.hint("Ctrl/⌘-click to pick several. Only groups you may add people to.")
        else:
            self.groups.hint("There are no user groups you may add people to.")

    def options(self) -> InviteOptions:
        """The choices in the form, checked against the server's rules and limits."""
        never = bool(self.never_expires.value)
        text = str(self.welcome.value) if self.session.is_admin else ""
        return self.check_options(
            InviteOptions(
                invite_as=int(self.role.value),
                stream_ids=tuple(int(v) for v in self.channels.value),
                group_ids=tuple(int(v) for v in self.groups.value),
                expires_in_days=None if never else int(self.expires_in_days.value),
                welcome_message_custom_text=text or None,
                include_realm_default_subscriptions=bool(self.include_defaults.value),
            )
        )

    def check_options(self, options: InviteOptions) -> InviteOptions:
        """Refuse, before sending, choices the server would refuse; returns ``options``."""
        roles = self.allowed_roles()
        if options.invite_as not in roles:
            mine = self.session.role_name
            names = ", ".join(ROLE_NAMES[r] + "s" for r in roles)
            raise FieldError(
                "invite_as",
                f"As {'an' if mine[:1] in 'aeiou' else 'a'} {mine} you can invite {names} only.",
            )
        if not self.channel_names and options.stream_ids:
            self.channel_names = self.allowed_channels()
        for sid in options.stream_ids:
            if sid not in self.channel_names:
                raise FieldError(
                    "stream_ids", f"You may not add new users to channel #{sid}; pick another."
                )
        if not self.group_names and options.group_ids:
            self.group_names = self.allowed_groups()
        for gid in options.group_ids:
            if gid not in self.group_names:
                raise FieldError(
                    "group_ids", f"You may not add people to user group #{gid}; pick another."
                )
        days = options.expires_in_days
        if days is not None and not 1 <= days <= MAX_EXPIRY_DAYS:
            raise FieldError(
                "expires_in_days",
                f"Enter 1 to {MAX_EXPIRY_DAYS:,} days, or tick “never”.",
            )
        text = options.welcome_message_custom_text
        if text is not None:
            if not self.session.is_admin:
                raise FieldError(
                    "welcome_message_custom_text",
                    "Only organization administrators can write a custom welcome message.",
                )
            if len(text) > MAX_WELCOME_TEXT:
                raise FieldError(
                    "welcome_message_custom_text",
                    f"The welcome message is {len(text):,} characters long; at most "
                    f"{MAX_WELCOME_TEXT:,} are allowed.",
                )
        return options

    @staticmethod
    def _welcome_count(text: str) -> str:
        return f"{len(text):,} of {MAX_WELCOME_TEXT:,} characters (Markdown)."

    def _on_welcome(self, change: Mapping[str, Any]) -> None:
        text = str(change["new"])
        self.welcome.hint(self._welcome_count(text))
        if len(text) > MAX_WELCOME_TEXT:
            self.welcome.error(
                f"{_plural(len(text) - MAX_WELCOME_TEXT, 'character')} too many; the server allows "
                f"{MAX_WELCOME_TEXT:,}."
            )
        else:
            self.welcome.clear()

    def _on_never(self, change: Mapping[str, Any]) -> None:
        self.expires_in_days.input.disabled = bool(change["new"]) or self.read_only

    # -- lists ---------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fetch the choosable channels and groups and the active invitations again."""
        if self._refreshed:
            self.session.refresh()  # groups and settings may have changed since
        self._refreshed = True
        self.load_options()
        self.invitations_table.refresh()

    def load_preview(self) -> pd.DataFrame:
        """The preview table: classify the addresses in the form again."""
        self.classify()
        return self.preview_table.frame

    def load_results(self) -> pd.DataFrame:
        """The results table of the last Send (or Retry)."""
        return frame(
            (
                {
                    "row": o.row,
                    "address": o.email,
                    "result": o.result,
                    "detail": o.detail,
                    "code": o.code,
                }
                for o in self.results
            ),
            RESULT_COLUMNS,
        )

    def load_invitations(self) -> pd.DataFrame:
        """Active invitations (all for administrators, else the account's own), newest first."""
        invites = sorted(self.client.invites.list(), key=lambda i: (-i.invited, -i.id))
        names = self._names([i.invited_by_user_id for i in invites])
        return frame(
            (
                {
                    "kind": "link" if i.is_multiuse else "email",
                    "email or link": i.link_url if i.is_multiuse else i.email,
                    "role": ROLE_NAMES.get(i.invited_as, str(i.invited_as)),
                    "invited by": names.get(i.invited_by_user_id, f"user {i.invited_by_user_id}"),
                    "invited (UTC)": _when(i.invited),
                    "expires (UTC)": _when(i.expiry_date),
                    "invitation ID": i.id,
                }
                for i in invites
            ),
            INVITATION_COLUMNS,
        )

    def _names(self, user_ids: Iterable[int]) -> dict[int, str]:
        """Full names by user ID, fetched again only when one is not known yet."""
        if not set(user_ids) <= self._user_names.keys():
            self._user_names = {u.user_id: u.full_name for u in self.client.users.list()}
        return self._user_names

    @property
    def results(self) -> list[Outcome]:
        """One outcome per row of the last Send, in row order."""
        return [self.outcomes[k] for k in sorted(self.outcomes)]

    # -- upload --------------------------------------------------------------------------------
    def _on_upload(self, change: Mapping[str, Any]) -> None:
        if change["new"]:
            self.clear_errors()
            self.guard(self.load_upload)

    def load_upload(self) -> list[str]:
        """Put the addresses of the uploaded file into the address box; returns them."""
        files = tuple(self.upload.value)
        if not files:
            raise FieldError("upload", "Choose a CSV or TXT file first.")
        upload = files[0]
        name = str(upload.get("name") or "the file")
        try:
            found, where = addresses_from_file(bytes(upload["content"]), name)
        except ValueError as exc:
            raise FieldError("upload", str(exc)) from None
        self.addresses.value = "\n".join(found)
        self.candidates = []
        self.preview_table.show(frame([], PREVIEW_COLUMNS))
        self.status.ok(
            f"Read {_plural(len(found), 'address', 'addresses')} from {name} ({where}). "
            "Click Preview to check them."
        )
        return found

    # -- preview -------------------------------------------------------------------------------
    def classify(self, text: str | None = None) -> list[Candidate]:
        """Classify every row of ``text`` (default: the address box) and show the preview.

        A row is an invalid address, a duplicate of an earlier row (ignoring case), already a
        user (active or deactivated), already invited (an active email invitation), or valid.
        """
        raw = str(self.addresses.value) if text is None else text
        parsed = split_addresses(raw)
        if not parsed:
            raise FieldError("addresses", "Paste at least one address, or upload a file.")
        users = self.client.users.list()
        known: dict[str, User] = {}
        hidden = 0
        for u in users:
            if u.delivery_email:
                known[u.delivery_email.lower()] = u
            elif not u.is_bot:
                hidden += 1
        invites: dict[str, Invite] = {
            i.email.lower(): i for i in self.client.invites.list() if i.email and not i.is_multiuse
        }
        names = self._user_names = {u.user_id: u.full_name for u in users}
        seen: dict[str, int] = {}
        found: list[Candidate] = []
        for row, (typed, email) in enumerate(parsed, start=1):
            key = email.lower()
            problem = address_problem(email)
            if problem is not None:
                kind, detail = INVALID, problem
            elif key in seen:
                kind, detail = DUPLICATE, f"Same address as row {seen[key]}."
            elif key in known:
                user = known[key]
                state = "an active" if user.is_active else "a deactivated"
                kind = ALREADY_USER
                detail = f"{user.full_name} has {state} account" + (
                    "." if user.is_active else "; reactivate it instead of inviting."
                )
            elif key in invites:
                inv = invites[key]
                by = names.get(inv.invited_by_user_id, f"user {inv.invited_by_user_id}")
                kind = ALREADY_INVITED
                detail = (
                    f"Invited {_when(inv.invited)} UTC by {by} as "
                    f"{ROLE_NAMES.get(inv.invited_as, str(inv.invited_as))}; expires "
                    f"{_when(inv.expiry_date)}{'' if inv.expiry_date is None else ' UTC'}."
                )
            else:
                kind, detail = VALID, ""
            if problem is None:
                seen.setdefault(key, row)
            found.append(Candidate(row, typed, email, kind, detail))
        self.candidates = found
        self.preview_table.show(
            frame(
                (
                    {
                        "row": c.row,
                        "as typed": c.typed,
                        "address": c.email,
                        "classification": c.classification,
                        "detail": c.detail,
                    }
                    for c in found
                ),
                PREVIEW_COLUMNS,
            )
        )
        counts = {k: sum(c.classification == k for c in found) for k in CLASSIFICATIONS}
        summary = ", ".join(f"{n:,} {k}" for k, n in counts.items() if n)
        extra = ""
        if hidden:
            extra = (
                f" {_plural(hidden, 'account')} hide their email address from you; the server "
                "refuses any of those when sending."
            )
        if not self.session.is_admin:
            extra += " You see only your own invitations."
        self.status.info(f"{_plural(len(found), 'row')}: {summary}.{extra}")
        return found

    # -- sending -------------------------------------------------------------------------------
    def send(self, text: str | None = None, options: InviteOptions | None = None) -> list[Outcome]:
        """Invite the valid rows of ``text`` (default: the address box), batched; one outcome
        per row. Rows that are not valid are ``skipped`` with their classification."""
        if not self.may_send:
            raise NotAllowed(self._missing("can_invite_users_group", "email"))
        opts = self.check_options(options) if options is not None else self.options()
        candidates = self.classify(text)
        self.outcomes = {
            c.row: Outcome(c.row, c.email, SKIPPED, f"{c.classification}: {c.detail}".strip(" :"))
            for c in candidates
            if not c.valid
        }
        self.sent_options = opts
        valid = [c for c in candidates if c.valid]
        if not valid:
            self.results_table.refresh()
            self.status.info("Nothing to send: no row is a valid new address. See the preview.")
            return self.results
        self._deliver(valid, opts)
        return self.results

    def retry_failed(self) -> list[Outcome]:
        """Send again only the rows that failed, with the options of the first Send."""
        if not self.may_send:
            raise NotAllowed(self._missing("can_invite_users_group", "email"))
        failed = [o for o in self.results if o.result == FAILED]
        if not failed or self.sent_options is None:
            self.status.info("Nothing failed, so there is nothing to retry.")
            return self.results
        # A request that failed on the way back may have invited its addresses after all.
        invited = {
            i.email.lower() for i in self.client.invites.list() if i.email and not i.is_multiuse
        }
        users = {u.delivery_email.lower() for u in self.client.users.list() if u.delivery_email}
        again: list[Candidate] = []
        for o in failed:
            key = o.email.lower()
            if key in invited:
                self.outcomes[o.row] = Outcome(
                    o.row, o.email, INVITED, "Found among the active invitations on retry."
                )
            elif key in users:
                self.outcomes[o.row] = Outcome(
                    o.row, o.email, SKIPPED, "already a user: has an account now."
                )
            else:
                again.append(Candidate(o.row, o.email, o.email, VALID))
        if again:
            self._deliver(again, self.sent_options)
        else:
            self.results_table.refresh()
            self.status.ok("Every failed address turned out to be invited or a user already.")
        return self.results

    def _deliver(self, candidates: Sequence[Candidate], opts: InviteOptions) -> None:
        """Send ``candidates`` in batches, recording an outcome for each; shows the results."""
        batches = [
            list(candidates[i : i + self.batch_size])
            for i in range(0, len(candidates), self.batch_size)
        ]
        self.requests_sent = 0
        self.progress.start(len(candidates), "addresses sent")
        stop: _Stop | None = None
        for index, batch in enumerate(batches):
            if stop is not None:
                for c in batch:
                    self._record(
                        c, FAILED, f"Not sent after an earlier batch failed: {stop}", stop.error
                    )
                continue
            if self.progress.cancelled:
                for c in batch:
                    self._record(c, NOT_SENT, "cancelled")
                continue
            if index:
                self._pace()
            try:
                self._send_batch(batch, opts)
            except _Stop as exc:
                stop = exc
            not_invited = sum(self.outcomes[c.row].result != INVITED for c in batch)
            self.progress.advance(len(batch), failed=not_invited)
        self.results_table.refresh()
        self._summarise(candidates)
        self.invitations_table.refresh()

    def _pace(self) -> None:
        """Slow down when the server's rate limit is nearly used up (429s are the client's)."""
        left = self.client.rate_limit_remaining
        if left is not None and left < LOW_RATE_LIMIT:
            self.sleep(PACE_SECONDS)

    def _record(
        self, c: Candidate, result: str, detail: str = "", error: BaseException | None = None
    ) -> None:
        code = _code(error) if error is not None else ""
        self.outcomes[c.row] = Outcome(c.row, c.email, result, detail, code)

    def _send_batch(self, batch: list[Candidate], opts: InviteOptions) -> None:
        """One ``POST /invites`` for the batch (again for the rest when the server refused only
        some addresses and invited none); raises ``_Stop`` when later batches would fail too."""
        pending = batch
        while pending:
            self.requests_sent += 1
            try:
                self.client.invites.send([c.email for c in pending], **opts.request())
            except InvitationFailed as exc:
                refused = {
                    str(e[0]).lower(): str(e[1]) for e in (getattr(exc, "errors", None) or [])
                }
                sent = bool(getattr(exc, "sent_invitations", False))
                for c in pending:
                    reason = refused.get(c.email.lower())
                    if reason is not None:
                        self._record(c, REFUSED, reason, exc)
                    elif sent:
                        self._record(c, INVITED)
                rest = [c for c in pending if c.row not in self.outcomes]
                limited = bool(getattr(exc, "daily_limit_reached", False)) or bool(
                    getattr(exc, "license_limit_reached", False)
                )
                if rest and (limited or len(rest) == len(pending)):
                    for c in rest:
                        self._record(c, FAILED, describe_error(exc), exc)
                    if limited:
                        raise _Stop(exc) from None
                    return
                # The server refused some addresses and so invited nobody: send the others.
                pending = rest
            except (RateLimited, ServerError) as exc:
                for c in pending:
                    self._record(c, FAILED, describe_error(exc), exc)
                if isinstance(exc, RateLimited):
                    raise _Stop(exc) from None
                return
            except ApiError as exc:
                # Refused as a whole (permission, a channel, a group): so would every batch be.
                for c in pending:
                    self._record(c, FAILED, describe_error(exc), exc)
                raise _Stop(exc) from None
            except ChatopsError as exc:
                for c in pending:
                    self._record(c, FAILED, describe_error(exc), exc)
                return
            else:
                for c in pending:
                    self._record(c, INVITED)
                return

    def _summarise(self, candidates: Sequence[Candidate]) -> None:
        rows = [self.outcomes[c.row] for c in candidates]
        n = {k: sum(o.result == k for o in rows) for k in RESULTS}
        skipped = sum(o.result == SKIPPED for o in self.outcomes.values())
        text = (
            f"Invited {n[INVITED]:,} of {_plural(len(rows), 'address', 'addresses')} in "
            f"{_plural(self.requests_sent, 'request')}"
        )
        parts = [f"{n[k]:,} {k}" for k in (REFUSED, FAILED, NOT_SENT) if n[k]]
        if skipped:
            parts.append(f"{skipped:,} skipped after the preview")
        text += ("; " + ", ".join(parts) if parts else "") + "."
        if self.progress.cancelled:
            text += " Cancelled: the rest were not sent."
        if n[FAILED]:
            self.status.error(text + " Use “Retry failed” to send the failed ones again.")
        elif n[REFUSED] or n[NOT_SENT]:
            self.status.info(text)
        else:
            self.status.ok(text)

    # -- links ---------------------------------------------------------------------------------
    def create_link(self, options: InviteOptions | None = None) -> str:
        """Create a reusable invitation link with the form's choices and show it."""
        if not self.may_create_links:
            raise NotAllowed(self._missing("create_multiuse_invite_group", "link"))
        opts = self.check_options(options) if options is not None else self.options()
        url = self.client.invites.create_link(**opts.request())
        self.link.value = url
        role = ROLE_NAMES.get(opts.invite_as, str(opts.invite_as))
        expiry = (
            "never expires"
            if opts.expires_in_days is None
            else f"expires in {_plural(opts.expires_in_days, 'day')}"
        )
        self.status.ok(f"Created a reusable invitation link for new {role}s; it {expiry}.")
        self.invitations_table.refresh()
        return url
