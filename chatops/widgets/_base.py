"""What every admin panel shares: who it acts as, fields with their errors, tables with refresh
and CSV export, a progress bar that can be cancelled, confirmations, and error display.

A panel is a plain class that owns its widgets and takes a client (or a shared
:class:`Session`). Its logic lives in public methods that tests call; button callbacks only read
the widgets, call those methods through :meth:`Panel.guard`, and show the outcome. Errors never
escape a callback: a mistake in a field shows next to that field (:class:`FieldError`), an API
refusal shows in the panel's status line with its code, and anything unexpected shows there too,
with the traceback in the panel's log instead of the notebook.
"""

from __future__ import annotations

import base64
import html
import threading
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import ipywidgets as w
import pandas as pd

from chatops import ApiError, ChatopsError, Client, LimitError, TransportError, User
from chatops.types import AnonymousGroup, Capabilities, UserGroup

__all__ = [
    "ROLE_NAMES",
    "Confirm",
    "Field",
    "FieldError",
    "Panel",
    "Progress",
    "Session",
    "StatusLine",
    "TableView",
    "describe_error",
    "in_kernel",
]

T = TypeVar("T")

#: Organization roles (spec §2) in the words an admin uses.
ROLE_NAMES: Mapping[int, str] = {
    100: "owner",
    200: "administrator",
    300: "moderator",
    400: "member",
    600: "guest",
}

#: The panels' look. Every colour is one of JupyterLab's theme variables (``--jp-*``), so the
#: panels follow the Light, Dark and high-contrast themes; text is always a font colour on a
#: layout colour, and the meaning of a line (success, error, warning) is carried by a coloured
#: bar and a mark beside it, never by coloured text alone.
STYLE = """
<style>
.chatops-console, .chatops-panel { font-family: var(--jp-ui-font-family);
  color: var(--jp-ui-font-color1); }
.chatops-panel { max-width: 1360px; }
.chatops-panel .chatops-who { padding: 6px 10px; background: var(--jp-layout-color2);
  border-left: 4px solid var(--jp-success-color1); border-radius: 3px; margin-bottom: 6px; }
.chatops-panel .chatops-readonly { padding: 6px 10px; background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color1); border-left: 4px solid var(--jp-warn-color1);
  border-radius: 3px; }
.chatops-outcome-ok, .chatops-outcome-error, .chatops-outcome-info, .chatops-outcome-warning {
  display: block; padding: 4px 10px; margin: 2px 0; border-radius: 3px;
  background: var(--jp-layout-color2); color: var(--jp-ui-font-color1); }
.chatops-outcome-ok { border-left: 4px solid var(--jp-success-color1); }
.chatops-outcome-error { border-left: 4px solid var(--jp-error-color1); font-weight: 600; }
.chatops-outcome-warning { border-left: 4px solid var(--jp-warn-color1); }
.chatops-outcome-info { border-left: 4px solid var(--jp-info-color1); }
.chatops-field-error { color: var(--jp-ui-font-color0); font-size: 12px; font-weight: 600;
  border-left: 3px solid var(--jp-error-color1); padding-left: 6px; }
.chatops-field-hint { color: var(--jp-ui-font-color2); font-size: 12px; }
table.chatops-table { border-collapse: collapse; font-size: 12.5px; margin: 4px 0;
  color: var(--jp-ui-font-color1); }
table.chatops-table th { background: var(--jp-layout-color2); text-align: left;
  padding: 3px 8px; border-bottom: 1px solid var(--jp-border-color1); }
table.chatops-table td { padding: 2px 8px; border-bottom: 1px solid var(--jp-border-color2);
  vertical-align: top; }
table.chatops-table tr.chatops-row-problem td:first-child {
  box-shadow: inset 3px 0 0 var(--jp-error-color1); }
.chatops-panel button.jupyter-button { width: auto; min-width: 120px; padding: 0 12px;
  align-self: flex-start; }
:is(.chatops-console, .chatops-panel) .jupyter-button:is(.mod-primary, .mod-success,
  .mod-danger, .mod-warning, .mod-info), :is(.chatops-console, .chatops-panel)
  .jupyter-button:is(.mod-primary, .mod-success, .mod-danger, .mod-warning, .mod-info):hover {
  background-color: var(--jp-layout-color2); color: var(--jp-ui-font-color1); }
:is(.chatops-console, .chatops-panel) .jupyter-button.mod-primary {
  box-shadow: inset 4px 0 0 var(--jp-brand-color1); }
:is(.chatops-console, .chatops-panel) .jupyter-button.mod-success {
  box-shadow: inset 4px 0 0 var(--jp-success-color1); }
:is(.chatops-console, .chatops-panel) .jupyter-button.mod-danger {
  box-shadow: inset 4px 0 0 var(--jp-error-color1); }
:is(.chatops-console, .chatops-panel) .jupyter-button.mod-warning {
  box-shadow: inset 4px 0 0 var(--jp-warn-color1); }
.chatops-muted { color: var(--jp-ui-font-color2); }
.chatops-section { font-weight: 600; margin-top: 8px; color: var(--jp-ui-font-color0); }
.chatops-check { padding: 1px 0 1px 8px; margin: 1px 0; color: var(--jp-ui-font-color1); }
.chatops-check-ok { border-left: 3px solid var(--jp-success-color1); }
.chatops-check-problem { border-left: 3px solid var(--jp-error-color1); font-weight: 600; }
.chatops-check-warning { border-left: 3px solid var(--jp-warn-color1); }
.chatops-check-info { border-left: 3px solid var(--jp-info-color1); }
.chatops-panel .widget-html-content, .chatops-panel .widget-label { color: inherit; }
.chatops-console-title { margin: 4px 0; color: var(--jp-ui-font-color0); }
.chatops-feedback { margin: 2px 0 6px 0; }
.chatops-panel details.chatops-details > summary { cursor: pointer; font-weight: 600; }
</style>
"""


def in_kernel() -> bool:
    """Whether this runs in a Jupyter kernel (then long work runs in a background thread)."""
    try:
        from IPython import get_ipython  # IPython is optional outside notebooks
    except ImportError:  # pragma: no cover - ipywidgets depends on IPython
        return False
    shell = get_ipython()  # type: ignore[no-untyped-call]
    return shell is not None and getattr(shell, "kernel", None) is not None


def escape(value: object) -> str:
    return html.escape(str(value), quote=True)


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


# -- the shared session ---------------------------------------------------------------------------
class Session:
    """One connection shared by the panels of a console: the client, who it acts as, the
    server's limits, and the organization's settings and groups (fetched once, refreshable).

    Example::

        session = Session(chatops.Client.from_zuliprc("~/.zuliprc"))
        session.me.full_name, session.role_name, session.capabilities.feature_level
    """

    def __init__(self, client: Client) -> None:
        self.client = client
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
            self._realm = self.client.server.register(
                fetch_event_types=["realm"], event_types=["realm"]
            )
        return self._realm

    @property
    def groups(self) -> list[UserGroup]:
        """Every user group, deactivated ones included."""
        if self._groups is None:
            self._groups = list(self.client.user_groups.list(include_deactivated_groups=True))
        return self._groups

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


# -- small widgets --------------------------------------------------------------------------------
class StatusLine:
    """One line of outcome: a success, an error with its code, or information."""

    def __init__(self) -> None:
        self.widget = w.HTML(value="")
        self.widget.add_class("chatops-outcome")
        self.kind = ""
        self.text = ""

    def _show(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text
        self.widget.value = f'<span class="chatops-outcome-{kind}">{escape(text)}</span>'

    def ok(self, text: str) -> None:
        self._show("ok", text)

    def error(self, text: str) -> None:
        self._show("error", text)

    def info(self, text: str) -> None:
        self._show("info", text)

    def clear(self) -> None:
        self.kind = ""
        self.text = ""
        self.widget.value = ""


class Field:
    """An input with its label, an optional hint (limits, counts) and its error line."""

    def __init__(self, name: str, widget: w.ValueWidget, *, label: str, hint: str = "") -> None:
        self.name = name
        self.input = widget
        self._hint = w.HTML(value=self._hint_html(hint))
        self._error = w.HTML(value="")
        self.error_text = ""
        label_widget = w.HTML(value=f"<b>{escape(label)}</b>", layout=w.Layout(width="150px"))
        self.box = w.VBox(
            [
                w.HBox([label_widget, widget]),
                w.HBox([w.HTML(layout=w.Layout(width="150px")), w.VBox([self._hint, self._error])]),
            ]
        )

    @staticmethod
    def _hint_html(text: str) -> str:
        return f'<span class="chatops-field-hint">{escape(text)}</span>' if text else ""

    @property
    def value(self) -> Any:
        return self.input.value

    @value.setter
    def value(self, new: Any) -> None:
        self.input.value = new

    def hint(self, text: str) -> None:
        self._hint.value = self._hint_html(text)

    def error(self, message: str) -> None:
        self.error_text = message
        self._error.value = f'<span class="chatops-field-error">{escape(message)}</span>'

    def clear(self) -> None:
        self.error_text = ""
        self._error.value = ""


#: Rows a table shows at most; Export CSV writes every row.
MAX_SHOWN_ROWS = 1000


def _cell(value: object) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and value != value):
        return ""
    return escape(value)


class TableView:
    """A titled table of a DataFrame with Refresh and Export CSV buttons.

    ``load`` returns the frame; Refresh calls it again. Export writes the frame shown to a CSV
    file under ``export_dir`` and offers it as a download link too.
    """

    def __init__(
        self,
        title: str,
        load: Callable[[], pd.DataFrame],
        *,
        export_dir: Path,
        slug: str,
        guard: Callable[[Callable[[], Any]], Any],
        empty: str = "Nothing to show.",
    ) -> None:
        self.title = title
        self._load = load
        self._export_dir = export_dir
        self._slug = slug
        self._guard = guard
        self._empty = empty
        self.frame = pd.DataFrame()
        self.html = w.HTML(value="")
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.export_button = w.Button(description="Export CSV", icon="download")
        self.export_link = w.HTML(value="")
        self.refresh_button.on_click(lambda _b: self._guard(self.refresh))
        self.export_button.on_click(lambda _b: self._guard(self.export))
        self.widget = w.VBox(
            [
                w.HTML(value=f'<div class="chatops-section">{escape(title)}</div>'),
                w.HBox([self.refresh_button, self.export_button, self.export_link]),
                self.html,
            ]
        )

    def refresh(self) -> pd.DataFrame:
        """Load the rows again and show them."""
        self.show(self._load())
        return self.frame

    def show(self, frame: pd.DataFrame) -> None:
        """Show ``frame`` (the first :data:`MAX_SHOWN_ROWS` rows; the export keeps them all)."""
        self.frame = frame
        if frame.empty:
            self.html.value = f'<span class="chatops-muted">{escape(self._empty)}</span>'
            return
        # Written directly: DataFrame.to_html costs about 0.1 ms a cell, more than the request
        # behind a long list.
        head = "".join(f"<th>{escape(c)}</th>" for c in frame.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>"
            for row in frame.head(MAX_SHOWN_ROWS).itertuples(index=False, name=None)
        )
        more = ""
        if len(frame) > MAX_SHOWN_ROWS:
            more = (
                f'<div class="chatops-muted">Showing the first {MAX_SHOWN_ROWS:,} of '
                f"{len(frame):,} rows; Export CSV writes them all.</div>"
            )
        self.html.value = (
            f'<table class="chatops-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>{more}"
        )

    def export(self, path: str | Path | None = None) -> Path:
        """Write the rows shown to CSV; returns the file's path."""
        if path is None:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            path = self._export_dir / f"{self._slug}-{stamp}.csv"
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = self.frame.to_csv(index=False)
        tmp = target.with_name(target.name + ".part")
        tmp.write_text(data, encoding="utf-8")
        tmp.replace(target)
        encoded = base64.b64encode(data.encode("utf-8")).decode("ascii")
        self.export_link.value = (
            f"Saved {len(self.frame)} rows to <code>{escape(target)}</code> · "
            f'<a download="{escape(target.name)}" href="data:text/csv;base64,{encoded}">'
            "download</a>"
        )
        return target


class Progress:
    """A progress bar with counts and a Cancel button, for work done item by item.

    The work checks :attr:`cancelled` between items; an item in flight always finishes, so
    nothing is left half-done.
    """

    def __init__(self) -> None:
        self.bar = w.IntProgress(value=0, min=0, max=1, layout=w.Layout(width="320px"))
        self.label = w.HTML(value="")
        self.cancel_button = w.Button(description="Cancel", icon="stop", button_style="warning")
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.widget = w.HBox([self.bar, self.label, self.cancel_button])
        self.widget.layout.display = "none"
        self._cancel = threading.Event()
        self.verb = ""
        self.total = 0
        self.done = 0
        self.failed = 0

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Ask the running work to stop after the item in flight."""
        self._cancel.set()
        self.cancel_button.disabled = True

    def start(self, total: int, verb: str) -> None:
        self._cancel.clear()
        self.verb = verb
        self.total = total
        self.done = 0
        self.failed = 0
        self.bar.max = max(total, 1)
        self.bar.value = 0
        self.bar.bar_style = "info"
        self.cancel_button.disabled = False
        self.cancel_button.layout.display = None
        self.widget.layout.display = "flex"
        self._label()

    def advance(self, count: int = 1, *, failed: int = 0) -> None:
        """``count`` more items finished, ``failed`` of them unsuccessfully."""
        self.done += count
        self.failed += failed
        self._label()
        self.bar.value = min(self.done, self.bar.max)

    def finish(self) -> None:
        self.cancel_button.disabled = True
        self.cancel_button.layout.display = "none"  # nothing left to cancel
        self.bar.bar_style = "danger" if self.failed else "success"
        if self.cancelled:
            self.bar.bar_style = "warning"
        self._label()

    def _label(self) -> None:
        failed = f" · {self.failed} failed" if self.failed else ""
        state = " · cancelled" if self.cancelled else ""
        self.label.value = f"&nbsp;{self.done} of {self.total} {escape(self.verb)}{failed}{state}"


class Confirm:
    """A question under an action: the action runs only when the admin clicks Yes."""

    def __init__(self) -> None:
        self.message = w.HTML(value="")
        self.yes = w.Button(description="Yes", button_style="danger")
        self.no = w.Button(description="Cancel")
        self.widget = w.HBox([self.message, self.yes, self.no])
        self.widget.layout.display = "none"
        self._action: Callable[[], Any] | None = None
        self.yes.on_click(lambda _b: self._answer(True))
        self.no.on_click(lambda _b: self._answer(False))

    @property
    def pending(self) -> bool:
        return self._action is not None

    def ask(self, question: str, action: Callable[[], Any], *, yes: str = "Yes") -> None:
        self.message.value = f"<b>{escape(question)}</b>&nbsp;"
        self.yes.description = yes
        self._action = action
        self.widget.layout.display = "flex"

    def _answer(self, yes: bool) -> None:
        action, self._action = self._action, None
        self.widget.layout.display = "none"
        if yes and action is not None:
            action()


# -- the panel ------------------------------------------------------------------------------------
@dataclass
class _Task:
    thread: threading.Thread


class Panel:
    """Base of the admin panels: the header saying who acts, a read-only notice when the account
    lacks the permission, the body, a status line and a log.

    Subclasses set :attr:`title`, implement :meth:`build` (returning the body) and, when the
    panel needs a permission, :meth:`missing_permission` (the reason in words, or None). Widgets
    that change the organization go in :attr:`actions` so a read-only panel disables them.
    """

    title: ClassVar[str] = "Panel"
    slug: ClassVar[str] = "panel"

    def __init__(
        self,
        client: Client | Session,
        *,
        background: bool | None = None,
        export_dir: str | Path = "exports",
    ) -> None:
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.background = in_kernel() if background is None else background
        self.export_dir = Path(export_dir)
        self.status = StatusLine()
        self.progress = Progress()
        self.log = w.Output(layout=w.Layout(max_height="160px", overflow="auto"))
        self.actions: list[w.DOMWidget] = []
        self.fields: dict[str, Field] = {}
        self._task: _Task | None = None
        self.header = w.HTML(value=STYLE + self.session.identity_html())
        self.notice = w.HTML(value="")
        body = self.build()
        self.read_only_reason = self.missing_permission()
        if self.read_only_reason:
            self._make_read_only(self.read_only_reason)
        self.root = w.VBox(
            [self.header, self.notice, body, self.progress.widget, self.status.widget, self.log]
        )
        self.root.add_class("chatops-panel")
        self.root.add_class(f"chatops-panel-{self.slug}")
        self.guard(self.refresh)

    # -- what subclasses provide
    def build(self) -> w.Widget:
        """Make the panel's widgets; returns the body."""
        raise NotImplementedError

    def missing_permission(self) -> str | None:
        """Why the acting account may not use this panel's actions, or None when it may."""
        return None

    def refresh(self) -> None:
        """Fetch and show the panel's lists again."""

    # -- shared behaviour
    @property
    def read_only(self) -> bool:
        return bool(self.read_only_reason)

    def _make_read_only(self, reason: str) -> None:
        self.notice.value = (
            f'<div class="chatops-readonly"><b>Read-only.</b> {escape(reason)}</div>'
        )
        for widget in self.actions:
            widget.disabled = True  # type: ignore[attr-defined]

    def field(self, name: str, widget: w.ValueWidget, *, label: str, hint: str = "") -> Field:
        """Make and remember a field, so that a :class:`FieldError` naming it shows beside it."""
        made = Field(name, widget, label=label, hint=hint)
        self.fields[name] = made
        return made

    def clear_errors(self) -> None:
        for f in self.fields.values():
            f.clear()
        self.status.clear()

    def guard(self, action: Callable[[], T]) -> T | None:
        """Run ``action`` and show any error in the panel instead of raising it.

        A :class:`FieldError` shows next to its field; API and limit errors show in the status
        line with their code; anything else also writes its traceback to the panel's log.
        """
        try:
            return action()
        except FieldError as exc:
            target = self.fields.get(exc.field)
            if target is not None:
                target.error(exc.message)
            self.status.error(exc.message if target is None else "Check the fields marked.")
        except LimitError as exc:
            target = self.fields.get(exc.param)
            if target is not None:
                target.error(describe_error(exc))
            self.status.error(describe_error(exc))
        except ChatopsError as exc:
            self.status.error(describe_error(exc))
        except Exception as exc:
            self.status.error(describe_error(exc))
            self.log.append_stdout(traceback.format_exc())
        return None

    def on_click(self, button: w.Button, action: Callable[[], Any]) -> None:
        """Run ``action`` under :meth:`guard` when ``button`` is clicked, clearing old errors."""

        def handler(_button: w.Button) -> None:
            self.clear_errors()
            self.guard(action)

        button.on_click(handler)

    def action_button(self, description: str, *, icon: str = "", style: str = "") -> w.Button:
        """A button that changes the organization (disabled when the panel is read-only)."""
        button = w.Button(description=description, icon=icon, button_style=style)
        self.actions.append(button)
        return button

    def table(
        self, title: str, load: Callable[[], pd.DataFrame], *, slug: str, empty: str = ""
    ) -> TableView:
        return TableView(
            title,
            load,
            export_dir=self.export_dir,
            slug=f"{self.slug}-{slug}",
            guard=self.guard,
            empty=empty or "Nothing to show.",
        )

    @property
    def busy(self) -> bool:
        return self._task is not None and self._task.thread.is_alive()

    def run_long(self, work: Callable[[], Any]) -> None:
        """Run long work: in a background thread inside a kernel (so Cancel can be clicked),
        inline otherwise. The panel's action buttons are disabled while it runs."""
        if self.busy:
            self.status.error("Another operation is still running; wait for it or cancel it.")
            return

        def body() -> None:
            for widget in self.actions:
                widget.disabled = True  # type: ignore[attr-defined]
            try:
                self.guard(work)
            finally:
                self.progress.finish()
                if not self.read_only:
                    for widget in self.actions:
                        widget.disabled = False  # type: ignore[attr-defined]

        if self.background:
            thread = threading.Thread(target=body, name=f"chatops-{self.slug}", daemon=True)
            self._task = _Task(thread)
            thread.start()
        else:
            body()

    def wait(self, timeout: float | None = None) -> None:
        """Wait for background work to end (tests and scripts)."""
        if self._task is not None:
            self._task.thread.join(timeout)

    def close(self) -> None:
        """Stop background work after its current item and close the widgets."""
        self.progress.cancel()
        self.wait(5)
        self.root.close()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle: dict[str, Any] | None = self.root._repr_mimebundle_(**kwargs)
        return bundle


def frame(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """A DataFrame of ``rows`` with exactly ``columns`` (also when there are no rows)."""
    return pd.DataFrame(list(rows), columns=list(columns))
