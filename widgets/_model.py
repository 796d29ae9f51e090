"""What the panels know without any widget: the shared session (who acts, the server's limits,
the organization's settings and groups), errors in words, counts in English, frames, and the
plain status and progress a panel's logic reports to (the widgets show the same reports).

Every panel's logic is a class over a :class:`Session` (``FoldersModel``, ``LinkifiersModel``,
...) that a script or a test uses without a kernel; the widget classes lay it out and bind it.
"""

from __future__ import annotations

import contextlib
import html
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import msgspec
import pandas as pd

from chatops import ApiError, ChatopsError, Client, LimitError, TransportError, User
from chatops.changes.journal import Item
from chatops.changes.kinds import SetUserStatus
from chatops.changes.log import ChangeLog
from chatops.types import AnonymousGroup, Capabilities, UserGroup

__all__ = [
    "ROLE_NAMES",
    "Counter",
    "FieldError",
    "Preview",
    "PreviewSlot",
    "Reporter",
    "Said",
    "Session",
    "Tracker",
    "describe_error",
    "escape",
    "frame",
    "plural",
    "undo_counts",
    "undo_words",
]

#: Organization roles (spec §2) in the words an admin uses.
ROLE_NAMES: Mapping[int, str] = {
    100: "owner",
    200: "administrator",
    300: "moderator",
    400: "member",
    600: "guest",
}


def escape(value: object) -> str:
    return html.escape(str(value), quote=True)


def plural(count: int, noun: str, plural_form: str = "") -> str:
    """``1 use``, ``2 uses``, ``1,000 addresses`` (correct English for a count)."""
    if count == 1:
        return f"1 {noun}"
    if not plural_form:
        plural_form = noun + ("es" if noun.endswith(("s", "sh", "ch", "x", "z")) else "s")
    return f"{count:,} {plural_form}"


# -- errors ---------------------------------------------------------------------------------------
class FieldError(ValueError):
    """A value the admin typed is wrong; shown next to the field named ``field``."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def describe_error(exc: BaseException) -> str:
    """A sentence for the admin: the API's code and message, or what went wrong locally."""
    if isinstance(exc, LimitError):
        return f"{exc}."
    if isinstance(exc, ApiError):
        return f"The server refused: {exc.msg} ({exc.code}, HTTP {exc.status})"
    if isinstance(exc, TransportError):
        return f"Could not reach the server: {exc}"
    if isinstance(exc, FieldError):
        return exc.message
    if isinstance(exc, ChatopsError):
        return str(exc)
    return f"Unexpected error ({type(exc).__name__}): {exc}. Details are in the panel's log."


# -- previews bound to what they were made for ---------------------------------------------------
R = TypeVar("R")


@dataclass(frozen=True)
class Preview(Generic[R]):
    """What a preview found (``rows``) and what it was made for: its ``target`` (the group, the
    users chosen) and its ``inputs`` (the list pasted, add or remove, the new status)."""

    target: Any
    inputs: Any
    rows: R


class PreviewSlot(Generic[R]):
    """The current preview of one action of a model. An action sends only what a preview
    made for the same target and inputs showed: :meth:`require` refuses any other, so a
    preview left on screen can never act on what the screen no longer shows.

    Example::

        slot.made(group_id, ("text", pasted, False), rows)
        slot.require(group_id, ("text", pasted, False))  # the preview, or a FieldError
    """

    def __init__(self, field: str, target: str, inputs: str) -> None:
        self.field = field  # the field a refusal shows beside
        self.target_words = target  # in words: "the group", "the users chosen"
        self.inputs_words = inputs  # in words: "the list", "the new status"
        self._current: Preview[R] | None = None

    @property
    def current(self) -> Preview[R] | None:
        return self._current

    def made(self, target: Any, inputs: Any, rows: R) -> R:
        self._current = Preview(target, inputs, rows)
        return rows

    def clear(self) -> None:
        self._current = None

    def matches(self, target: Any, inputs: Any) -> bool:
        c = self._current
        return c is not None and c.target == target and c.inputs == inputs

    def require(self, target: Any, inputs: Any) -> Preview[R]:
        """The preview made for ``target`` and ``inputs``; a :class:`FieldError` (and the
        preview forgotten) when there is none or it was made for something else."""
        c = self._current
        if c is None:
            raise FieldError(self.field, "Preview first: nothing is sent without a preview.")
        if c.target != target:
            self._current = None
            raise FieldError(
                self.field,
                f"{self.target_words.capitalize()} changed since the preview: preview again.",
            )
        if c.inputs != inputs:
            self._current = None
            raise FieldError(
                self.field,
                f"{self.inputs_words.capitalize()} changed since the preview: preview again.",
            )
        return c


# -- the shared session ---------------------------------------------------------------------------
def wire(value: Any) -> Any:
    """A setting's value as the API takes it: an anonymous group as its JSON object."""
    return msgspec.to_builtins(value) if isinstance(value, msgspec.Struct) else value


class Session:
    """One connection shared by the panels of a console: the client, who it acts as, the
    server's limits, and the organization's settings and groups (fetched once, refreshable).

    Example::

        session = Session(chatops.Client.from_zuliprc("~/.zuliprc"))
        session.me.full_name, session.role_name, session.capabilities.feature_level
    """

    def __init__(self, client: Client) -> None:
        self.client = client
        #: every change the panels make goes through here: sent, and journalled with its
        #: inverse (``chatops undo`` reverts the session)
        self.changes = ChangeLog(client)
        self._me: User | None = None
        self._realm: dict[str, Any] | None = None
        self._groups: list[UserGroup] | None = None

    @property
    def me(self) -> User:
        """The account the panels act as."""
        if self._me is None:
            self._me = self.client.users.me()
        return self._me

    @property
    def capabilities(self) -> Capabilities:
        """Feature level and limits of the server."""
        return self.client.get_capabilities()

    @property
    def realm(self) -> dict[str, Any]:
        """The organization's settings as ``POST /register`` gives them (``realm_*`` keys)."""
        if self._realm is None:
            state = self.client.server.register(fetch_event_types=["realm"], event_types=["realm"])
            if queue := state.get("queue_id"):  # only the state is wanted: no queue left behind
                with contextlib.suppress(ChatopsError):
                    self.client.events.delete_queue(queue)
            self._realm = state
        return self._realm

    @property
    def groups(self) -> list[UserGroup]:
        """Every user group, deactivated ones included."""
        if self._groups is None:
            self._groups = msgspec.convert(self.raw_groups(), list[UserGroup])
        return self._groups

    def raw_groups(self) -> list[dict[str, Any]]:
        """Every user group as raw JSON, deactivated ones included.

        ``GET /user_groups`` refuses guests and bots (the real server's
        ``require_member_or_admin``); for them the same records come from the initial state
        (``realm_user_groups``), which every account receives.
        """
        if self.role < 600 and not self.me.is_bot:
            groups: list[dict[str, Any]] = self.client.get(
                "/user_groups", params={"include_deactivated_groups": True}
            )["user_groups"]
            return groups
        state = self.client.server.register(
            fetch_event_types=["realm_user_groups"],
            event_types=["realm_user_groups"],
            client_capabilities={"include_deactivated_groups": True},
        )
        if queue := state.get("queue_id"):  # only the state is wanted: no queue left behind
            with contextlib.suppress(ChatopsError):
                self.client.events.delete_queue(queue)
        registered: list[dict[str, Any]] = state["realm_user_groups"]
        return registered

    def refresh(self) -> None:
        """Forget what was fetched; the next use fetches it again."""
        self._me = None
        self._realm = None
        self._groups = None
        self.client.get_capabilities(refresh=True)

    @property
    def role(self) -> int:
        return int(self.me.role)

    @property
    def role_name(self) -> str:
        if self.me.is_bot:
            return f"bot ({ROLE_NAMES.get(self.role, str(self.role))})"
        return ROLE_NAMES.get(self.role, f"role {self.role}")

    @property
    def is_admin(self) -> bool:
        return self.role <= 200

    def group_members(self, value: Any) -> set[int]:
        """The users a group-setting value (a group ID, or direct members and subgroups) reaches,
        following subgroups; deactivated groups reach nobody."""
        by_id = {g.id: g for g in self.groups}
        members: set[int] = set()
        stack: list[int] = []
        if isinstance(value, bool):
            return members
        if isinstance(value, int):
            stack.append(value)
        elif isinstance(value, AnonymousGroup):  # typed records
            members.update(value.direct_members)
            stack.extend(value.direct_subgroups)
        elif isinstance(value, Mapping):  # raw JSON (POST /register)
            members.update(int(u) for u in value.get("direct_members", []) or [])
            stack.extend(int(g) for g in value.get("direct_subgroups", []) or [])
        seen: set[int] = set()
        while stack:
            gid = stack.pop()
            group = by_id.get(gid)
            if gid in seen or group is None or group.deactivated:
                continue
            seen.add(gid)
            members.update(group.members)
            stack.extend(group.direct_subgroup_ids)
        return members

    def permits(self, setting: str) -> bool:
        """Whether the organization setting ``setting`` (``can_invite_users_group``, ...) includes
        the acting user. A setting the server does not report permits nobody but administrators."""
        value = self.realm.get(f"realm_{setting}")
        if value is None:
            return self.is_admin
        return self.me.user_id in self.group_members(value)

    def identity_html(self) -> str:
        me = self.me
        return (
            '<div class="chatops-who">Acting as <b>'
            f"{escape(me.full_name)}</b> &lt;{escape(me.email)}&gt; · {escape(self.role_name)}"
            f" · {escape(self.client.site)} · feature level "
            f"{self.capabilities.feature_level}</div>"
        )


def frame(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """A DataFrame of ``rows`` with exactly ``columns`` (also when there are no rows)."""
    return pd.DataFrame(list(rows), columns=list(columns))


# -- what logic reports to ------------------------------------------------------------------------
class Reporter(Protocol):
    """Where an outcome goes: :class:`Said` in a script, the panel's status line in a notebook."""

    kind: str
    text: str

    def ok(self, text: str) -> None: ...

    def error(self, text: str) -> None: ...

    def info(self, text: str) -> None: ...

    def clear(self) -> None: ...


class Said:
    """The last outcome, kept as words (``kind`` is ok, error, info or empty)."""

    def __init__(self) -> None:
        self.kind = ""
        self.text = ""

    def ok(self, text: str) -> None:
        self.kind, self.text = "ok", text

    def error(self, text: str) -> None:
        self.kind, self.text = "error", text

    def info(self, text: str) -> None:
        self.kind, self.text = "info", text

    def clear(self) -> None:
        self.kind, self.text = "", ""


class Tracker(Protocol):
    """Progress of work done item by item, which can be cancelled between items."""

    total: int
    done: int
    failed: int

    @property
    def cancelled(self) -> bool: ...

    def cancel(self) -> None: ...

    def start(self, total: int, verb: str) -> None: ...

    def advance(self, count: int = 1, *, failed: int = 0) -> None: ...

    def finish(self) -> None: ...


class Counter:
    """Progress without a bar: counts, and a flag another thread sets to cancel."""

    def __init__(self) -> None:
        self._cancel = threading.Event()
        self.verb = ""
        self.total = 0
        self.done = 0
        self.failed = 0

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        self._cancel.set()

    def start(self, total: int, verb: str) -> None:
        self._cancel.clear()
        self.verb, self.total, self.done, self.failed = verb, total, 0, 0

    def advance(self, count: int = 1, *, failed: int = 0) -> None:
        self.done += count
        self.failed += failed

    def finish(self) -> None:
        pass


def undo_counts(tally: Any) -> tuple[int, int]:
    """What an undo did, as (put back, left as it is): a change done or found already done is
    put back; one changed since, refused, failed or skipped is left."""
    put_back = tally["done"] + tally["already_done"]
    left = tally["changed_since"] + tally["refused"] + tally["failed"] + tally["skipped"]
    return int(put_back), int(left)


def undo_words(item: Item) -> str:
    """What putting one change back does, for the admin: who or what, and how it will be (a
    status in words; other changes as their call)."""
    change, subject = item.change, str(item.about.get("subject") or "")
    if isinstance(change, SetUserStatus):
        text, emoji = change.status.get("status_text"), change.status.get("emoji_name")
        shown = " ".join(p for p in (f":{emoji}:" if emoji else "", text or "") if p)
        what = f"back to “{shown}”" if shown else "back to no status"
    else:
        what = change.describe()
    return f"{subject}: {what}" if subject else what
