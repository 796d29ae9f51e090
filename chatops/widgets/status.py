"""The Status panel: set or clear the status of many users at once (spec 4.7).

The admin chooses users four ways that add up to one list: by user group (members of its
subgroups included), by role, from an uploaded CSV file of emails or user IDs, or by name. Bots
and deactivated users never get a status here; the panel says which ones it left out. The new
status is a text of at most 60 characters (counted as the admin types) and an emoji from the
organization's custom emoji or the Unicode emoji, checked before anything is sent. A preview
shows each user's current and new status; Apply and Clear then send one request per user (the
API has no bulk call), with a progress bar that can be cancelled between users and a result per
user.

Emoji names follow the server's three namespaces in its order: the organization's custom emoji
first, then the service's extra emoji (``zulip``), then Unicode emoji by name. A Unicode emoji's
code is the dash-separated lowercase hex of its codepoints without the variation selector
U+FE0F, as the server expects.
"""

from __future__ import annotations

import csv
import functools
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import emoji as emoji_pkg
import ipywidgets as w
import pandas as pd

from chatops import ApiError, ChatopsError, TransportError, User
from chatops.types import RealmEmoji, UserStatus

from ._base import ROLE_NAMES, Confirm, FieldError, Panel, describe_error, escape, frame

__all__ = ["MAX_STATUS_TEXT", "NewStatus", "StatusPanel", "unicode_emoji"]

#: Longest status text the server accepts, in characters, after stripping spaces (spec §8).
MAX_STATUS_TEXT = 60
#: Feature level that added ``POST /users/{user_id}/status``, and the one that lets bots use it.
STATUS_FEATURE_LEVEL = 407
BOT_STATUS_FEATURE_LEVEL = 473
#: An uploaded list of users larger than this is surely not a list of users.
MAX_CSV_BYTES = 5 * 1024 * 1024

UNICODE, REALM, EXTRA = "unicode_emoji", "realm_emoji", "service_extra_emoji"
#: The service's own emoji outside Unicode and the organization's custom emoji.
EXTRA_EMOJI = ("zulip",)

TARGET_COLUMNS = ["name", "email", "role", "current status"]
PREVIEW_COLUMNS = ["name", "email", "current status", "new status", "change"]
RESULT_COLUMNS = ["name", "email", "result", "detail"]
CSV_PROBLEM_COLUMNS = ["row", "value", "problem"]

CSV_HINT = "Emails or user IDs: a column named email or user_id, else the first column."
_EMAIL_HEADERS = {"email", "e_mail", "email_address", "delivery_email"}
_ID_HEADERS = {"user_id", "userid", "id"}


def _unicode_code(chars: str) -> str:
    return "-".join(f"{ord(c):x}" for c in chars if ord(c) != 0xFE0F)


@functools.cache
def unicode_emoji() -> dict[str, str]:
    """Unicode emoji names and their codes, named as the server names them.

    Each emoji's English name and aliases from the ``emoji`` package, without colons,
    lowercased, with ``-`` as ``_`` (``+1`` and ``-1`` kept); the first emoji to claim a name
    keeps it. Unqualified and minimally-qualified forms are left out, as the server does.
    """
    names: dict[str, str] = {}
    for chars, data in emoji_pkg.EMOJI_DATA.items():
        if data.get("status", 2) > 2:
            continue
        code = _unicode_code(chars)
        for raw in [data["en"], *data.get("alias", [])]:
            if raw in (":+1:", ":-1:"):
                name = raw.strip(":")
            else:
                name = raw.strip(":").lower().replace("-", "_")
            names.setdefault(name, code)
    return names


def _glyph(code: str) -> str:
    try:
        return "".join(chr(int(part, 16)) for part in code.split("-"))
    except ValueError:
        return ""


@dataclass(frozen=True)
class NewStatus:
    """A status to set, checked: the text as the server stores it and the emoji's identity.

    ``emoji_name`` empty means no emoji; text and emoji both empty means no status (Clear).
    """

    status_text: str = ""
    emoji_name: str = ""
    emoji_code: str = ""
    reaction_type: str = ""

    @property
    def is_empty(self) -> bool:
        return not self.status_text and not self.emoji_name

    @property
    def params(self) -> dict[str, Any]:
        """The request's parameters; an empty ``emoji_name`` removes the emoji."""
        if not self.emoji_name:
            return {"status_text": self.status_text, "emoji_name": ""}
        return {
            "status_text": self.status_text,
            "emoji_name": self.emoji_name,
            "emoji_code": self.emoji_code,
            "reaction_type": self.reaction_type,
        }

    def describe(self) -> str:
        return _describe(self.status_text, self.emoji_name, self.emoji_code, self.reaction_type)


def _describe(text: str | None, name: str | None, code: str | None, kind: str | None) -> str:
    """A status in words: the emoji (its picture when Unicode) and the text."""
    parts = []
    if name:
        glyph = _glyph(code or "") if kind == UNICODE else ""
        parts.append(glyph or f":{name}:")
    if text:
        parts.append(text)
    return " ".join(parts) if parts else "(no status)"


def _describe_current(status: UserStatus | None) -> str:
    if status is None:
        return "(unknown)"
    return _describe(status.status_text, status.emoji_name, status.emoji_code, status.reaction_type)


def _same(status: UserStatus | None, new: NewStatus) -> bool:
    if status is None:
        return False
    return (status.status_text or "") == new.status_text and (
        status.emoji_name or ""
    ) == new.emoji_name


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _normalise_emoji(name: str) -> str:
    return name.strip().strip(":").strip().lower().replace(" ", "_")


def _header_key(cell: str) -> str:
    return cell.strip().lower().replace(" ", "_").replace("-", "_")


class StatusPanel(Panel):
    """Set or clear the status of many users: choose users, type the status, preview, apply.

    Example::

        panel = StatusPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                   # in JupyterLab: the panel
        panel.roles.value = (600,)              # all guests ...
        panel.status_text.value = "Onboarding week"
        panel.emoji.value = "wave"
        panel.preview()                         # each guest's current and new status
        panel.apply()                           # one request per guest, with progress
    """

    title = "Status"
    slug = "status"

    # -- building ---------------------------------------------------------------------------------
    def build(self) -> w.Widget:
        self._users: dict[int, User] = {}
        self._statuses: dict[int, UserStatus] = {}
        self._custom: dict[str, RealmEmoji] = {}
        self._custom_deactivated: set[str] = set()
        self._quiet = False
        #: users read from the uploaded CSV file, in file order
        self.csv_user_ids: list[int] = []
        self.csv_name = ""
        #: what the line under the file chooser says about the file read
        self.csv_summary = ""
        self._csv_problems = frame([], CSV_PROBLEM_COLUMNS)
        #: (user, reason) of the users the choices reached but that get no status
        self.left_out: list[tuple[User, str]] = []
        self._results = frame([], RESULT_COLUMNS)

        # choosing users
        self.group = w.Dropdown(options=[("(no group)", None)], value=None)
        self.group.add_class("chatops-status-group")
        self.roles = w.SelectMultiple(
            options=[(name, role) for role, name in ROLE_NAMES.items()], rows=5
        )
        self.roles.add_class("chatops-status-roles")
        self.upload = w.FileUpload(accept=".csv,.txt", multiple=False, description="CSV file")
        self.upload.add_class("chatops-status-csv")
        self.forget_csv_button = w.Button(description="Forget file", icon="times")
        self.forget_csv_button.add_class("chatops-status-csv-forget")
        self.users = w.SelectMultiple(options=[], rows=8, layout=w.Layout(width="420px"))
        self.users.add_class("chatops-status-users")
        self.reset_choices_button = w.Button(description="Choose nobody", icon="eraser")
        self.reset_choices_button.add_class("chatops-status-reset-choices")
        group_field = self.field(
            "group", self.group, label="By user group", hint="Members of its subgroups too."
        )
        roles_field = self.field(
            "roles", self.roles, label="By role", hint="Ctrl/Cmd-click to choose several."
        )
        self.csv_field = self.field("csv", self.upload, label="From a CSV file", hint=CSV_HINT)
        users_field = self.field(
            "users", self.users, label="By name", hint="Ctrl/Cmd-click to choose several."
        )
        self.left_out_note = w.HTML(value="")
        self.left_out_note.add_class("chatops-status-left-out")
        self.targets_table = self.table(
            "Chosen users",
            self._load_targets,
            slug="users",
            empty="No users chosen yet: choose a group, roles, a CSV file or names above.",
        )
        self.targets_table.widget.add_class("chatops-status-targets")
        self.csv_table = self.table(
            "CSV rows not used",
            lambda: self._csv_problems,
            slug="csv-problems",
            empty="No CSV file rows left unused.",
        )
        self.csv_table.widget.add_class("chatops-status-csv-problems")

        # the new status
        self.status_text = w.Text(placeholder="e.g. On vacation", layout=w.Layout(width="420px"))
        self.status_text.add_class("chatops-status-text")
        self.text_count = w.HTML(value="")
        self.text_count.add_class("chatops-status-count")
        text_field = self.field(
            "status_text",
            self.status_text,
            label="Status text",
            hint=f"At most {MAX_STATUS_TEXT} characters; spaces at either end do not count.",
        )
        self.emoji = w.Combobox(
            options=[],
            placeholder="e.g. palm_tree, or empty for no emoji",
            ensure_option=False,
            layout=w.Layout(width="420px"),
        )
        self.emoji.add_class("chatops-status-emoji")
        self.emoji_field = self.field(
            "emoji", self.emoji, label="Emoji", hint="Custom or Unicode emoji name; empty: none."
        )
        self.preview_button = w.Button(description="Preview", icon="eye")
        self.preview_button.add_class("chatops-status-preview")
        self.apply_button = self.action_button("Apply status", icon="check", style="primary")
        self.apply_button.add_class("chatops-status-apply")
        self.clear_button = self.action_button("Clear status", icon="eraser", style="danger")
        self.clear_button.add_class("chatops-status-clear")
        self.confirm = Confirm()
        self.confirm.widget.add_class("chatops-status-confirm")
        self.actions.append(self.confirm.yes)
        self.preview_table = self.table(
            "Preview: current and new status",
            self._load_preview,
            slug="preview",
            empty="Click Preview (or Apply) to see each user's current and new status.",
        )
        self.preview_table.widget.add_class("chatops-status-preview-table")
        self.results_table = self.table(
            "Results",
            lambda: self._results,
            slug="results",
            empty="Nothing applied yet.",
        )
        self.results_table.widget.add_class("chatops-status-results")
        self._preview_clear = False
        #: what the line under the emoji says: the emoji picked, or why the name is unknown
        self.emoji_hint = ""

        # wiring: callbacks only read widgets and call public methods under guard
        for chooser in (self.group, self.roles, self.users):
            chooser.observe(self._on_choice, "value")
        self.upload.observe(self._on_upload, "value")
        self.forget_csv_button.on_click(lambda _b: self.guard(self.forget_csv))
        self.reset_choices_button.on_click(lambda _b: self.guard(self.choose_nobody))
        self.status_text.observe(self._on_status_input, "value")
        self.emoji.observe(self._on_status_input, "value")
        self.on_click(self.preview_button, self.preview)
        self.on_click(self.apply_button, self._ask_apply)
        self.on_click(self.clear_button, self._ask_clear)
        self._show_count()

        body = w.VBox(
            [
                w.HTML(value='<div class="chatops-section">1. Choose users</div>'),
                group_field.box,
                roles_field.box,
                w.HBox([self.csv_field.box, self.forget_csv_button]),
                users_field.box,
                w.HBox([self.reset_choices_button, self.left_out_note]),
                self.targets_table.widget,
                self.csv_table.widget,
                w.HTML(value='<div class="chatops-section">2. New status</div>'),
                w.HBox([text_field.box, self.text_count]),
                self.emoji_field.box,
                w.HBox([self.preview_button, self.apply_button, self.clear_button]),
                self.confirm.widget,
                self.preview_table.widget,
                self.results_table.widget,
            ]
        )
        body.add_class("chatops-status")
        return body

    def missing_permission(self) -> str | None:
        level = self.session.capabilities.feature_level
        if level < STATUS_FEATURE_LEVEL:
            return (
                "Setting another user's status needs a server at feature level "
                f"{STATUS_FEATURE_LEVEL} or later; this server is at feature level {level}."
            )
        if not self.session.is_admin:
            return (
                "Setting other users' status needs an organization administrator; "
                f"you are {self._article(self.session.role_name)}."
            )
        if self.session.me.is_bot and level < BOT_STATUS_FEATURE_LEVEL:
            return (
                "Bots may set other users' status only on servers at feature level "
                f"{BOT_STATUS_FEATURE_LEVEL} or later; this server is at feature level {level}."
            )
        return None

    @staticmethod
    def _article(role: str) -> str:
        return f"an {role}" if role[:1] in "aeiou" else f"a {role}"

    # -- refreshing -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fetch users, user groups and custom emoji again, and the chosen users' statuses."""
        self.session.refresh()
        self._users = {u.user_id: u for u in self.client.users.list()}
        self._statuses.clear()
        emoji = sorted(self.client.realm.emoji().values(), key=lambda e: int(e.id))
        self._custom = {e.name: e for e in emoji if not e.deactivated}
        self._custom_deactivated = {e.name for e in emoji if e.deactivated} - set(self._custom)
        self._quiet = True
        try:
            self._fill_choices()
        finally:
            self._quiet = False
        self.targets_table.refresh()
        self._show_emoji_hint()

    def _fill_choices(self) -> None:
        group, roles, picked = self.group.value, self.roles.value, self.users.value
        people = self._people()
        groups = [g for g in self.session.groups if not g.deactivated]
        groups.sort(key=lambda g: (g.is_system_group, g.name.casefold()))
        options: list[tuple[str, int | None]] = [("(no group)", None)]
        for g in groups:
            reached = len(self.session.group_members(g.id) & people)
            system = ", system group" if g.is_system_group else ""
            options.append((f"{g.name} ({_plural(reached, 'user')}{system})", g.id))
        self.group.options = options
        self.group.value = group if group in {gid for _, gid in options} else None
        humans = sorted(
            (self._users[uid] for uid in people),
            key=lambda u: (u.full_name.casefold(), self._email(u)),
        )
        self.users.options = [(f"{u.full_name} <{self._email(u)}>", u.user_id) for u in humans]
        self.users.value = tuple(uid for uid in picked if uid in people)
        self.roles.value = roles
        names = sorted(self._custom) + [n for n in EXTRA_EMOJI if n not in self._custom]
        self.emoji.options = names + sorted(n for n in unicode_emoji() if n not in self._custom)

    def _people(self) -> set[int]:
        return {u.user_id for u in self._users.values() if u.is_active and not u.is_bot}

    @staticmethod
    def _email(user: User) -> str:
        return user.delivery_email or user.email

    # -- choosing users ---------------------------------------------------------------------------
    def users_in_group(self, group_id: int) -> set[int]:
        """Everyone the user group reaches, members of its subgroups included."""
        return self.session.group_members(group_id)

    def users_with_roles(self, roles: Iterable[int]) -> set[int]:
        """Every user (bots and deactivated users too) whose role is one of ``roles``."""
        wanted = set(roles)
        return {u.user_id for u in self._users.values() if u.role in wanted}

    def chosen_user_ids(self) -> list[int]:
        """The users the four choices reach together, before bots and deactivated users are
        left out."""
        reached: set[int] = set()
        if self.group.value is not None:
            reached |= self.users_in_group(int(self.group.value))
        reached |= self.users_with_roles(self.roles.value)
        reached |= set(self.csv_user_ids)
        reached |= set(self.users.value)
        return sorted(reached)

    def targets(self) -> list[User]:
        """The users to act on, sorted by name; updates :attr:`left_out` with bots and
        deactivated users the choices reached."""
        chosen: list[User] = []
        left_out: list[tuple[User, str]] = []
        for uid in self.chosen_user_ids():
            user = self._users.get(uid)
            if user is None:
                continue  # a group may list internal system bots that GET /users hides
            if user.is_bot:
                left_out.append((user, "bot"))
            elif not user.is_active:
                left_out.append((user, "deactivated"))
            else:
                chosen.append(user)
        chosen.sort(key=lambda u: (u.full_name.casefold(), self._email(u)))
        left_out.sort(key=lambda item: (item[1], item[0].full_name.casefold()))
        self.left_out = left_out
        self._show_left_out(len(chosen))
        return chosen

    def target_ids(self) -> list[int]:
        """The IDs of :meth:`targets`."""
        return [u.user_id for u in self.targets()]

    def _show_left_out(self, count: int) -> None:
        bots = [u.full_name for u, why in self.left_out if why == "bot"]
        gone = [u.full_name for u, why in self.left_out if why == "deactivated"]
        parts = [f"<b>{_plural(count, 'user')} chosen.</b>"]
        if bots:
            parts.append(f"Left out {_plural(len(bots), 'bot')}: {escape(', '.join(bots))}.")
        if gone:
            names = escape(", ".join(gone))
            parts.append(f"Left out {_plural(len(gone), 'deactivated user')}: {names}.")
        parts.append(
            '<span class="chatops-muted">Bots and deactivated users never get a status here.</span>'
        )
        self.left_out_note.value = "&nbsp;" + " ".join(parts)

    def current_status(self, user_id: int) -> UserStatus:
        """A user's status, fetched once per refresh."""
        status = self._statuses.get(user_id)
        if status is None:
            status = self.client.users.get_status(user_id)
            self._statuses[user_id] = status
        return status

    def targets_frame(self) -> pd.DataFrame:
        """The chosen users with their role and current status."""
        rows = [
            {
                "name": u.full_name,
                "email": self._email(u),
                "role": ROLE_NAMES.get(u.role, f"role {u.role}"),
                "current status": _describe_current(self.current_status(u.user_id)),
            }
            for u in self.targets()
        ]
        return frame(rows, TARGET_COLUMNS)

    def _load_targets(self) -> pd.DataFrame:
        # Refresh fetches the statuses again: someone may have changed theirs meanwhile.
        self._statuses.clear()
        return self.targets_frame()

    def show_targets(self) -> None:
        """Show the chosen users (statuses already fetched are not fetched again)."""
        self.targets_table.show(self.targets_frame())

    def choose_nobody(self) -> None:
        """Reset the four choices."""
        self._quiet = True
        try:
            self.group.value = None
            self.roles.value = ()
            self.users.value = ()
            self._forget_csv()
        finally:
            self._quiet = False
        self._inputs_changed()
        self.show_targets()

    # -- CSV upload -------------------------------------------------------------------------------
    def read_csv(self, data: bytes, name: str = "the file") -> list[int]:
        """Choose the users an uploaded CSV file names (emails or user IDs); returns their IDs.

        Rows naming nobody, a bot or a deactivated user are listed in the "CSV rows not used"
        table. A file that is not CSV text raises :class:`FieldError` and chooses nobody.
        """
        self._forget_csv()
        rows = self._csv_rows(data, name)
        header = [_header_key(cell) for cell in rows[0]]
        column, start, column_name = 0, 1, ""
        id_cols = [i for i, h in enumerate(header) if h in _ID_HEADERS]
        email_cols = [i for i, h in enumerate(header) if h in _EMAIL_HEADERS]
        if id_cols or email_cols:
            column = (id_cols or email_cols)[0]
            column_name = rows[0][column].strip()
        else:
            first = rows[0][0].strip() if rows[0] else ""
            # A first row that is neither an email nor an ID is a header such as "Name".
            start = 0 if ("@" in first or first.isdigit()) else 1
        by_email = self._users_by_email()
        found: list[int] = []
        problems: list[dict[str, Any]] = []
        for number, row in enumerate(rows[start:], start=start + 1):
            value = row[column].strip() if column < len(row) else ""
            user, problem = self._match_csv_value(value, by_email)
            if user is None:
                problems.append({"row": number, "value": value, "problem": problem})
            elif user.is_bot:
                problems.append({"row": number, "value": value, "problem": "a bot: left out"})
            elif not user.is_active:
                problems.append(
                    {"row": number, "value": value, "problem": "deactivated user: left out"}
                )
            if user is not None and user.user_id not in found:
                found.append(user.user_id)
        self.csv_user_ids = found
        self.csv_name = name
        self._csv_problems = frame(problems, CSV_PROBLEM_COLUMNS)
        self.csv_table.show(self._csv_problems)
        source = f"column {column_name!r}" if column_name else "the first column"
        usable = len(set(found) & self._people())
        unused = f"; {_plural(len(problems), 'row')} not used (listed below)" if problems else ""
        self.csv_summary = f"{name}: {_plural(usable, 'user')} from {source}{unused}."
        self.csv_field.hint(self.csv_summary)
        self._inputs_changed()
        self.show_targets()
        return found

    def _csv_rows(self, data: bytes, name: str) -> list[list[str]]:
        if not data.strip():
            raise FieldError("csv", f"{name} is empty; no users taken from it.")
        if len(data) > MAX_CSV_BYTES:
            size = len(data) / 1024 / 1024
            raise FieldError("csv", f"{name} is {size:.1f} MiB; a list of users is at most 5 MiB.")
        if b"\x00" in data:
            raise FieldError("csv", f"{name} is not a CSV file (it holds binary data).")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise FieldError(
                "csv", f"{name} is not UTF-8 text; save it as CSV (UTF-8) and upload it again."
            ) from None
        try:
            dialect: Any = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
        except csv.Error:
            dialect = csv.excel  # one column, or commas everywhere: the default reads both
        try:
            rows = [
                row for row in csv.reader(io.StringIO(text), dialect) if any(c.strip() for c in row)
            ]
        except csv.Error as exc:
            raise FieldError("csv", f"{name} is not a readable CSV file: {exc}.") from None
        if not rows:
            raise FieldError("csv", f"{name} has no rows; no users taken from it.")
        return rows

    def _users_by_email(self) -> dict[str, User]:
        found: dict[str, User] = {}
        for user in self._users.values():
            for address in (user.email, user.delivery_email):
                if address:
                    found.setdefault(address.casefold(), user)
        return found

    def _match_csv_value(self, value: str, by_email: dict[str, User]) -> tuple[User | None, str]:
        if not value:
            return None, "empty: no email or user ID"
        if value.isdigit():
            user = self._users.get(int(value))
            return user, "" if user else "no user with this ID"
        if "@" in value:
            user = by_email.get(value.casefold())
            return user, "" if user else "no user with this email"
        return None, "neither an email nor a user ID"

    def forget_csv(self) -> None:
        """Stop choosing the users of the uploaded CSV file."""
        self._forget_csv()
        self._inputs_changed()
        self.show_targets()

    def _forget_csv(self) -> None:
        self.csv_user_ids = []
        self.csv_name = ""
        self._csv_problems = frame([], CSV_PROBLEM_COLUMNS)
        self.csv_table.show(self._csv_problems)
        self.csv_summary = ""
        self.csv_field.hint(CSV_HINT)
        self.csv_field.clear()

    # -- the new status ---------------------------------------------------------------------------
    @staticmethod
    def text_length(text: str) -> int:
        """The length the server measures: characters after stripping spaces at either end."""
        return len(text.strip())

    @property
    def text_count_text(self) -> str:
        """The live count shown beside the status text, e.g. ``23 / 60``."""
        return f"{self.text_length(self.status_text.value)} / {MAX_STATUS_TEXT}"

    @property
    def text_over_limit(self) -> bool:
        return self.text_length(self.status_text.value) > MAX_STATUS_TEXT

    def _show_count(self) -> None:
        over = self.text_over_limit
        css = "chatops-field-error" if over else "chatops-field-hint"
        extra = " characters: too long" if over else " characters"
        self.text_count.value = f'&nbsp;<span class="{css}">{self.text_count_text}{extra}</span>'

    def resolve_emoji(self, name: str) -> NewStatus:
        """The identity of an emoji name (custom, extra, then Unicode); ``FieldError`` if none.

        Returns a :class:`NewStatus` without text holding the emoji's name, code and type.
        """
        name = _normalise_emoji(name)
        if not name:
            return NewStatus()
        custom = self._custom.get(name)
        if custom is not None:
            return NewStatus(emoji_name=name, emoji_code=str(custom.id), reaction_type=REALM)
        if name in EXTRA_EMOJI:
            return NewStatus(emoji_name=name, emoji_code=name, reaction_type=EXTRA)
        code = unicode_emoji().get(name)
        if code is not None:
            return NewStatus(emoji_name=name, emoji_code=code, reaction_type=UNICODE)
        if name in self._custom_deactivated:
            raise FieldError("emoji", f"The custom emoji :{name}: is deactivated; pick another.")
        raise FieldError(
            "emoji",
            f"No emoji is named :{name}: in this organization's custom emoji or in Unicode; "
            "pick one from the suggestions.",
        )

    def new_status(self, status_text: str | None = None, emoji: str | None = None) -> NewStatus:
        """Check a status before sending it (the widgets' values when not given)."""
        text = self.status_text.value if status_text is None else status_text
        text = text.strip()
        if len(text) > MAX_STATUS_TEXT:
            raise FieldError(
                "status_text",
                f"The status text is {len(text)} characters; the server allows at most "
                f"{MAX_STATUS_TEXT} ({len(text) - MAX_STATUS_TEXT} too many).",
            )
        picked = self.resolve_emoji(self.emoji.value if emoji is None else emoji)
        new = NewStatus(text, picked.emoji_name, picked.emoji_code, picked.reaction_type)
        if new.is_empty:
            raise FieldError(
                "status_text",
                "Type a status text or choose an emoji; to remove statuses, use Clear status.",
            )
        return new

    def _show_emoji_hint(self) -> None:
        value = self.emoji.value
        if not _normalise_emoji(value):
            self.emoji_hint = "No emoji."
        else:
            try:
                picked = self.resolve_emoji(value)
            except FieldError as exc:
                self.emoji_hint = exc.message
            else:
                kinds = {REALM: "custom emoji", EXTRA: "extra emoji", UNICODE: "Unicode emoji"}
                self.emoji_hint = f"{picked.describe()} {kinds[picked.reaction_type]}"
        self.emoji_field.hint(self.emoji_hint)

    # -- preview ----------------------------------------------------------------------------------
    def preview(
        self,
        status_text: str | None = None,
        emoji: str | None = None,
        *,
        clear: bool = False,
        user_ids: Sequence[int] | None = None,
    ) -> pd.DataFrame:
        """Show each chosen user's current and new status, sending nothing; returns the rows.

        With ``clear`` the new status is no status (what Clear does).
        """
        new = NewStatus() if clear else self.new_status(status_text, emoji)
        ids = self._checked_targets(user_ids)
        rows = []
        for uid in ids:
            user = self._users[uid]
            current = self.current_status(uid)
            if clear:
                change = "already none" if _same(current, new) else "removed"
            elif _same(current, new):
                change = "unchanged"
            elif not (current.status_text or current.emoji_name):
                change = "new"
            else:
                change = "replaced"
            rows.append(
                {
                    "name": user.full_name,
                    "email": self._email(user),
                    "current status": _describe_current(current),
                    "new status": new.describe(),
                    "change": change,
                }
            )
        self._preview_clear = clear
        shown = frame(rows, PREVIEW_COLUMNS)
        self.preview_table.show(shown)
        return shown

    def _load_preview(self) -> pd.DataFrame:
        for uid in self.target_ids():
            self._statuses.pop(uid, None)
        return self.preview(clear=self._preview_clear)

    def _checked_targets(self, user_ids: Sequence[int] | None) -> list[int]:
        ids = self.target_ids() if user_ids is None else list(user_ids)
        if not ids:
            raise FieldError(
                "targets", "Choose at least one user: by group, role, CSV file or name."
            )
        unknown = [uid for uid in ids if uid not in self._users]
        if unknown:
            raise FieldError("targets", f"No user has the ID {unknown[0]}.")
        return ids

    # -- acting -----------------------------------------------------------------------------------
    def apply(
        self,
        status_text: str | None = None,
        emoji: str | None = None,
        *,
        user_ids: Sequence[int] | None = None,
    ) -> pd.DataFrame:
        """Set the status of each chosen user, one request each; returns a result per user."""
        new = self.new_status(status_text, emoji)
        return self._update(self._checked_targets(user_ids), new)

    def clear(self, *, user_ids: Sequence[int] | None = None) -> pd.DataFrame:
        """Remove the status (text and emoji) of each chosen user; returns a result per user."""
        return self._update(self._checked_targets(user_ids), NewStatus())

    def _update(self, ids: list[int], new: NewStatus) -> pd.DataFrame:
        if self.read_only_reason:
            raise ChatopsError(self.read_only_reason)
        done_word = "cleared" if new.is_empty else "set"
        self.progress.start(len(ids), "users")
        rows: list[dict[str, str]] = []
        stop = ""
        failed = 0
        for uid in ids:
            user = self._users[uid]
            row = {"name": user.full_name, "email": self._email(user)}
            if stop or self.progress.cancelled:
                rows.append({**row, "result": "not done", "detail": stop or "cancelled"})
                continue
            try:
                self.client.users.set_user_status(uid, **new.params)
            except ApiError as exc:
                rows.append({**row, "result": "failed", "detail": describe_error(exc)})
                failed += 1
                self.progress.advance(failed=1)
            except TransportError as exc:
                # The server is unreachable: the next users would fail the same way.
                rows.append({**row, "result": "failed", "detail": describe_error(exc)})
                failed += 1
                self.progress.advance(failed=1)
                stop = "stopped: the server could not be reached"
            else:
                rows.append({**row, "result": done_word, "detail": new.describe()})
                self.progress.advance()
            finally:
                self._statuses.pop(uid, None)
        self.progress.finish()
        self._results = frame(rows, RESULT_COLUMNS)
        self.results_table.show(self._results)
        self._summarise(rows, done_word, failed)
        self.guard(self.show_targets)
        return self._results

    def _summarise(self, rows: list[dict[str, str]], done_word: str, failed: int) -> None:
        done = sum(1 for r in rows if r["result"] == done_word)
        not_done = sum(1 for r in rows if r["result"] == "not done")
        text = f"Status {done_word} for {done} of {_plural(len(rows), 'user')}"
        if failed:
            text += f"; {failed} failed"
        if not_done:
            why = "cancelled" if self.progress.cancelled else "stopped"
            text += f"; {not_done} not done ({why})"
        text += "." if not (failed or not_done) else ". See the results below."
        if failed:
            self.status.error(text)
        elif not_done:
            self.status.info(text)
        else:
            self.status.ok(text)

    # -- callbacks --------------------------------------------------------------------------------
    def _on_choice(self, _change: dict[str, Any]) -> None:
        if self._quiet:
            return
        self._inputs_changed()
        self.guard(self.show_targets)

    def _on_upload(self, change: dict[str, Any]) -> None:
        files = change["new"]
        if not files:
            return
        upload = files[0]
        content = bytes(upload["content"])
        name = str(upload.get("name") or "the file")
        self.csv_field.clear()
        self.guard(lambda: self.read_csv(content, name))
        # Emptied so that choosing the same file again (after editing it) reads it again.
        self.upload.value = ()

    def _on_status_input(self, _change: dict[str, Any]) -> None:
        self._show_count()
        self._show_emoji_hint()
        self._inputs_changed()

    def _inputs_changed(self) -> None:
        # A pending question was about other users or another status: ask again.
        if self.confirm.pending:
            self.confirm.no.click()
        if not self.preview_table.frame.empty:
            self.preview_table.show(frame([], PREVIEW_COLUMNS))

    def _ask_apply(self) -> None:
        new = self.new_status()
        shown = self.preview()
        ids = self.target_ids()
        replaced = int((shown["change"] == "replaced").sum())
        note = f" ({replaced} of them have another status now)" if replaced else ""
        self.confirm.ask(
            f"Set the status “{new.describe()}” for {_plural(len(ids), 'user')}{note}?",
            lambda: self.run_long(lambda: self._update(ids, new)),
            yes="Apply status",
        )

    def _ask_clear(self) -> None:
        self.preview(clear=True)
        ids = self.target_ids()
        self.confirm.ask(
            f"Remove the status of {_plural(len(ids), 'user')}?",
            lambda: self.run_long(lambda: self._update(ids, NewStatus())),
            yes="Clear status",
        )
