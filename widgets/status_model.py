"""Setting the status of many users, without widgets (spec 4.7): who the choices reach, the
checks of a new status, the preview, and one request per user with a result each.
:class:`~chatops.widgets.status.StatusPanel` lays it out.

    model = StatusModel(chatops.Client.from_zuliprc("~/.zuliprc"))
    model.fetch()
    model.chosen_roles = (600,)                                  # all guests
    model.apply("Onboarding week", "wave")                       # a result per user
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import emoji as emoji_pkg
import pandas as pd

from chatops import ApiError, ChatopsError, Client, TransportError, User
from chatops.changes.kinds import SetUserStatus
from chatops.types import RealmEmoji, UserStatus

from ._model import (
    ROLE_NAMES,
    Counter,
    FieldError,
    Reporter,
    Said,
    Session,
    Tracker,
    describe_error,
    frame,
)
from ._model import plural as _plural
from ._people import STATUS_USERS, ListFileError, read_list_file

__all__ = ["MAX_STATUS_TEXT", "NewStatus", "StatusModel", "unicode_emoji"]

#: Longest status text the server accepts, in characters, after stripping spaces (spec §8).
MAX_STATUS_TEXT = 60
#: Feature level that added ``POST /users/{user_id}/status``, and the one that lets bots use it.
STATUS_FEATURE_LEVEL = 407
BOT_STATUS_FEATURE_LEVEL = 473

UNICODE, REALM, EXTRA = "unicode_emoji", "realm_emoji", "service_extra_emoji"
#: The service's own emoji outside Unicode and the organization's custom emoji.
EXTRA_EMOJI = ("zulip",)

TARGET_COLUMNS = ["name", "email", "role", "current status"]
PREVIEW_COLUMNS = ["name", "email", "current status", "new status", "change"]
RESULT_COLUMNS = ["name", "email", "result", "detail"]
CSV_PROBLEM_COLUMNS = ["row", "value", "problem"]

CSV_HINT = "Emails or user IDs: a column named email or user_id, else the first column."


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


def _normalise_emoji(name: str) -> str:
    return name.strip().strip(":").strip().lower().replace(" ", "_")


class StatusModel:
    """The statuses of an organization's users as one account may set them.

    Scripts (and the panel, as its widgets change) set :attr:`chosen_group`,
    :attr:`chosen_roles`, :attr:`chosen_users`, :attr:`typed_text` and :attr:`typed_emoji`
    (and call :meth:`read_csv`). ``status`` and ``progress`` receive outcomes and counts; a
    panel hears what changed through ``targets_changed`` (the chosen users, with how many get a
    status), ``csv_changed`` (the users of the CSV file), ``previewed`` (a preview's rows) and
    ``applied`` (statuses were set or cleared, after the outcome is said).
    """

    def __init__(
        self,
        client: Client | Session,
        *,
        status: Reporter | None = None,
        progress: Tracker | None = None,
        targets_changed: Callable[[int], None] | None = None,
        csv_changed: Callable[[], None] | None = None,
        previewed: Callable[[pd.DataFrame], None] | None = None,
        applied: Callable[[], None] | None = None,
    ) -> None:
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.status: Reporter = status if status is not None else Said()
        self.progress: Tracker = progress if progress is not None else Counter()
        self._targets_changed: Callable[[int], None] = targets_changed or _nothing
        self._csv_changed: Callable[[], None] = csv_changed or _nothing
        self._previewed: Callable[[pd.DataFrame], None] = previewed or _nothing
        self._applied: Callable[[], None] = applied or _nothing
        self._users: dict[int, User] = {}
        self._statuses: dict[int, UserStatus] = {}
        self._custom: dict[str, RealmEmoji] = {}
        self._custom_deactivated: set[str] = set()
        #: users read from the uploaded CSV file, in file order
        self.csv_user_ids: list[int] = []
        self.csv_name = ""
        #: what the line under the file chooser says about the file read
        self.csv_summary = ""
        #: the rows of the CSV file that chose nobody, and why
        self.csv_problems = frame([], CSV_PROBLEM_COLUMNS)
        #: (user, reason) of the users the choices reached but that get no status
        self.left_out: list[tuple[User, str]] = []
        #: one row per user of the last Apply or Clear
        self.results = frame([], RESULT_COLUMNS)
        #: whether the last preview was of Clear status
        self.previewed_clear = False
        self._why_not: list[str | None] = []
        self.chosen_group: int | None = None
        self.chosen_roles: tuple[int, ...] = ()
        self.chosen_users: tuple[int, ...] = ()
        self.typed_text = ""
        self.typed_emoji = ""

    @property
    def users(self) -> dict[int, User]:
        """Every user by ID, as last fetched."""
        return self._users

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

    def why_not(self) -> str | None:
        """Why this account may not set statuses (asked once), or None."""
        if not self._why_not:
            self._why_not.append(self.missing_permission())
        return self._why_not[0]

    def fetch(self) -> None:
        """Fetch users and custom emoji again; statuses are fetched again when next needed."""
        self.session.refresh()
        self._users = {u.user_id: u for u in self.client.users.list()}
        self._statuses.clear()
        emoji = sorted(self.client.realm.emoji().values(), key=lambda e: int(e.id))
        self._custom = {e.name: e for e in emoji if not e.deactivated}
        self._custom_deactivated = {e.name for e in emoji if e.deactivated} - set(self._custom)

    def forget_statuses(self, user_ids: Iterable[int] | None = None) -> None:
        """Fetch the statuses of ``user_ids`` (default: everyone's) again when next needed:
        someone may have changed theirs meanwhile."""
        if user_ids is None:
            self._statuses.clear()
        for uid in user_ids or ():
            self._statuses.pop(uid, None)

    def people(self) -> set[int]:
        """The IDs of the users who can get a status: active, and not bots."""
        return {u.user_id for u in self._users.values() if u.is_active and not u.is_bot}

    @staticmethod
    def email_of(user: User) -> str:
        """The address to show for ``user``: the real one when the account may see it."""
        return user.delivery_email or user.email

    def emoji_names(self) -> list[str]:
        """Emoji names to suggest: custom, the service's extra emoji, then Unicode emoji."""
        names = sorted(self._custom) + [n for n in EXTRA_EMOJI if n not in self._custom]
        return names + sorted(n for n in unicode_emoji() if n not in self._custom)

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
        group, roles, users = self.chosen_group, self.chosen_roles, self.chosen_users
        reached: set[int] = set()
        if group is not None:
            reached |= self.users_in_group(int(group))
        reached |= self.users_with_roles(roles)
        reached |= set(self.csv_user_ids)
        reached |= set(users)
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
        chosen.sort(key=lambda u: (u.full_name.casefold(), self.email_of(u)))
        left_out.sort(key=lambda item: (item[1], item[0].full_name.casefold()))
        self.left_out = left_out
        self._targets_changed(len(chosen))
        return chosen

    def target_ids(self) -> list[int]:
        """The IDs of :meth:`targets`."""
        return [u.user_id for u in self.targets()]

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
                "email": self.email_of(u),
                "role": ROLE_NAMES.get(u.role, f"role {u.role}"),
                "current status": _describe_current(self.current_status(u.user_id)),
            }
            for u in self.targets()
        ]
        return frame(rows, TARGET_COLUMNS)

    # -- CSV upload -------------------------------------------------------------------------------
    def read_csv(self, data: bytes, name: str = "the file") -> list[int]:
        """Choose the users an uploaded CSV file names (emails or user IDs); returns their IDs.

        Rows naming nobody, a bot or a deactivated user are listed in the "CSV rows not used"
        table. A file that is not CSV text raises :class:`FieldError` and chooses nobody.
        """
        self.forget_csv()
        try:
            people = read_list_file(data, name, STATUS_USERS)
        except ListFileError as exc:
            raise FieldError("csv", str(exc)) from None
        by_email = self._users_by_email()
        found: list[int] = []
        problems: list[dict[str, Any]] = []
        for number, value in ((e.row, e.text) for e in people.entries):
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
        self.csv_problems = frame(problems, CSV_PROBLEM_COLUMNS)
        source = f"column {people.column!r}" if people.column else people.where
        usable = len(set(found) & self.people())
        unused = f"; {_plural(len(problems), 'row')} not used (listed below)" if problems else ""
        self.csv_summary = f"{name}: {_plural(usable, 'user')} from {source}{unused}."
        self._csv_changed()
        return found

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
        self.csv_user_ids = []
        self.csv_name = ""
        self.csv_problems = frame([], CSV_PROBLEM_COLUMNS)
        self.csv_summary = ""
        self._csv_changed()

    # -- the new status ---------------------------------------------------------------------------
    @staticmethod
    def text_length(text: str) -> int:
        """The length the server measures: characters after stripping spaces at either end."""
        return len(text.strip())

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
        typed_text, typed_emoji = self.typed_text, self.typed_emoji
        text = typed_text if status_text is None else status_text
        text = text.strip()
        if len(text) > MAX_STATUS_TEXT:
            raise FieldError(
                "status_text",
                f"The status text is {len(text)} characters; the server allows at most "
                f"{MAX_STATUS_TEXT} ({len(text) - MAX_STATUS_TEXT} too many).",
            )
        picked = self.resolve_emoji(typed_emoji if emoji is None else emoji)
        new = NewStatus(text, picked.emoji_name, picked.emoji_code, picked.reaction_type)
        if new.is_empty:
            raise FieldError(
                "status_text",
                "Type a status text or choose an emoji; to remove statuses, use Clear status.",
            )
        return new

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
                    "email": self.email_of(user),
                    "current status": _describe_current(current),
                    "new status": new.describe(),
                    "change": change,
                }
            )
        self.previewed_clear = clear
        shown = frame(rows, PREVIEW_COLUMNS)
        self._previewed(shown)
        changes = shown["change"].value_counts()
        counted = ", ".join(f"{n:,} {change}" for change, n in changes.items())
        self.status.info(
            f"Preview for {_plural(len(rows), 'user')}: {counted}. Nothing is sent until "
            f"{'Clear' if clear else 'Apply'} status."
        )
        return shown

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
        return self.update(self._checked_targets(user_ids), new)

    def clear(self, *, user_ids: Sequence[int] | None = None) -> pd.DataFrame:
        """Remove the status (text and emoji) of each chosen user; returns a result per user."""
        return self.update(self._checked_targets(user_ids), NewStatus())

    def update(self, ids: Sequence[int], new: NewStatus) -> pd.DataFrame:
        """Give each of the users ``ids`` the status ``new`` (``NewStatus()`` removes it), one
        request each, without the checks of :meth:`apply`; returns a result per user."""
        reason = self.why_not()
        if reason:
            raise ChatopsError(reason)
        done_word = "cleared" if new.is_empty else "set"
        self.progress.start(len(ids), "users")
        rows: list[dict[str, str]] = []
        stop = ""
        failed = 0
        for uid in ids:
            user = self._users[uid]
            row = {"name": user.full_name, "email": self.email_of(user)}
            if stop or self.progress.cancelled:
                rows.append({**row, "result": "not done", "detail": stop or "cancelled"})
                continue
            try:
                self.session.changes.make(
                    SetUserStatus(user_id=uid, status=dict(new.params)),
                    {"subject": user.full_name},
                )
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
        self.results = frame(rows, RESULT_COLUMNS)
        self._summarise(rows, done_word, failed)
        self._applied()
        return self.results

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


def _nothing(*_args: object) -> None:
    """What the model tells when no panel listens."""
