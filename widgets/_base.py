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

import threading
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Concatenate, Generic, ParamSpec, Protocol, Self, TypeVar, overload

import ipywidgets as w
import pandas as pd

from chatops import ChatopsError, Client, LimitError

from ._controls import (
    COLUMN_LAYOUT,
    Confirm,
    Field,
    Progress,
    StatusLine,
    TableView,
    fold,
    is_fold,
)
from ._model import (
    ROLE_NAMES,
    FieldError,
    Session,
    describe_error,
    escape,
    frame,
    plural,
)
from ._style import STYLE

__all__ = [
    "ROLE_NAMES",
    "STYLE",
    "Confirm",
    "Field",
    "FieldError",
    "Panel",
    "Progress",
    "Session",
    "StatusLine",
    "TableView",
    "describe_error",
    "escape",
    "forwarded",
    "from_model",
    "frame",
    "in_kernel",
    "plural",
]

T = TypeVar("T")
M = TypeVar("M")
M_co = TypeVar("M_co", covariant=True)
P = ParamSpec("P")
R = TypeVar("R")


class HoldsModel(Protocol[M_co]):
    """A panel that holds its logic as ``model``."""

    @property
    def model(self) -> M_co: ...


class forwarded(Generic[M, P, R]):
    """A panel's method that is its model's as it is. In the panel's class,
    ``retry_failed = forwarded(InvitationsModel.retry_failed)`` makes
    ``panel.retry_failed(...)`` call ``panel.model.retry_failed(...)``: the same arguments,
    result and docstring. A method that also shows something is written out instead."""

    def __init__(self, method: Callable[Concatenate[M, P], R]) -> None:
        self.method = method
        self.__doc__ = method.__doc__

    @overload
    def __get__(self, panel: None, owner: type[Any]) -> Self: ...

    @overload
    def __get__(self, panel: HoldsModel[M], owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, panel: HoldsModel[M] | None, owner: type[Any]) -> Self | Callable[P, R]:
        if panel is None:
            return self
        method, model = self.method, panel.model

        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            return method(model, *args, **kwargs)

        call.__name__ = method.__name__
        call.__doc__ = method.__doc__
        return call


V = TypeVar("V")


class from_model(Generic[V]):
    """A panel's read-only attribute that is its model's attribute of the same name. In the
    panel's class, ``results = from_model[list[Outcome]]()`` makes ``panel.results`` read
    ``panel.model.results``."""

    name = ""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.name = name

    @overload
    def __get__(self, panel: None, owner: type[Any]) -> Self: ...

    @overload
    def __get__(self, panel: HoldsModel[Any], owner: type[Any]) -> V: ...

    def __get__(self, panel: HoldsModel[Any] | None, owner: type[Any]) -> Self | V:
        if panel is None:
            return self
        value: V = getattr(panel.model, self.name)
        return value


def in_kernel() -> bool:
    """Whether this runs in a Jupyter kernel (then long work runs in a background thread)."""
    try:
        from IPython import get_ipython  # IPython is optional outside notebooks
    except ImportError:  # pragma: no cover - ipywidgets depends on IPython
        return False
    shell = get_ipython()  # type: ignore[no-untyped-call]
    return shell is not None and getattr(shell, "kernel", None) is not None


def kernel_loop() -> Any:
    """The kernel's event loop (to run work after the current message), or None."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - ipywidgets depends on IPython
        return None
    kernel = getattr(get_ipython(), "kernel", None)  # type: ignore[no-untyped-call]
    return getattr(kernel, "io_loop", None)


# -- the panel ------------------------------------------------------------------------------------
@dataclass
class _Task:
    thread: threading.Thread


#: the outcome of an action refused for a value typed: it lasts while a field is marked
CHECK_FIELDS = "Check the fields marked."


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
        self._bound: dict[int, w.Widget] = {}
        self._outcomes: dict[int, list[w.Widget]] = {}
        self._slots: dict[int, w.VBox] = {}
        self.read_only_reason: str | None = None
        self.loaded = False
        self._loading = threading.Lock()
        # Nothing is asked of the server here: the panel loads when it is first shown (or
        # asked for with load()), and says so meanwhile.
        self.loading = w.HTML(
            value=STYLE
            + f'<div class="chatops-loading chatops-outcome-info">Loading {escape(self.title)}…'
            "</div>"
        )
        self.root = w.VBox([self.loading])
        self.root.add_class("chatops-panel")
        self.root.add_class(f"chatops-panel-{self.slug}")

    def load(self) -> Self:
        """Ask the server who acts and for the panel's lists, and build it (once); returns the
        panel. Showing the panel loads it too."""
        with self._loading:
            if self.loaded:
                return self
            self.header = w.HTML(value=STYLE + self.session.identity_html())
            self.notice = w.HTML(value="")
            body = self.build()
            self.read_only_reason = self.missing_permission()
            if self.read_only_reason:
                self._make_read_only(self.read_only_reason)
            # Outcomes of the panel as a whole (the first load) show under the header; an
            # action's outcome shows right under the control that started it.
            self.general_feedback = self._slot()
            self.feedback = self.general_feedback
            self._place_feedback(body)
            self._focus(self.general_feedback, ())
            self.loaded = True
            self.after_load()
            self.guard(self.refresh)
            self.update_controls()
            self.root.children = (self.header, self.notice, self.general_feedback, body, self.log)
        return self

    def load_soon(self) -> None:
        """Load the panel: inside a kernel, just after the current message (the display of
        the panel, or the click on its tab) so that its loading line shows meanwhile; inline
        otherwise. A failure shows in place of the panel."""
        if self.loaded:
            return

        def work() -> None:
            try:
                self.load()
            except Exception as exc:
                self.loading.value = (
                    STYLE + f'<div class="chatops-outcome-error">{escape(self.title)} could not '
                    f"load: {escape(describe_error(exc))}</div>"
                )
                self.log.append_stdout(traceback.format_exc())
                self.root.children = (self.loading, self.log)

        loop = kernel_loop() if self.background else None
        if loop is not None:
            # on the kernel's own thread: widget updates made from another thread can be lost
            # (a Dropdown's options never reached the page when loaded from a thread)
            loop.add_callback(work)
        else:
            work()

    # -- what subclasses provide
    def build(self) -> w.Widget:
        """Make the panel's widgets; returns the body."""
        raise NotImplementedError

    def missing_permission(self) -> str | None:
        """Why the acting account may not use this panel's actions, or None when it may."""
        return None

    def after_load(self) -> None:
        """Anything to set once the widgets exist and the permission is known."""

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
            if isinstance(widget, w.Button):
                widget.tooltip = f"Read-only: {reason}"

    def field(self, name: str, widget: w.ValueWidget, *, label: str, hint: str = "") -> Field:
        """Make and remember a field, so that a :class:`FieldError` naming it shows beside it."""
        made = Field(name, widget, label=label, hint=hint)
        made.on_error.append(self._marks_changed)
        self.fields[name] = made
        return made

    def _marks_changed(self) -> None:
        """ "Check the fields marked." lasts as long as a field is marked."""
        if self.status.text == CHECK_FIELDS and not any(f.error_text for f in self.fields.values()):
            self.status.clear()

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
            self.status.error(exc.message if target is None else CHECK_FIELDS)
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
        """Run ``action`` under :meth:`guard` when ``button`` is clicked, clearing old errors.

        The action's progress, outcome and result tables show right under the button."""

        def handler(_button: w.Button) -> None:
            # what this click changes (now, or once confirmed) is undone as one action
            self.session.changes.begin(f"{self.title}: {button.description}")
            self.clear_errors()
            if not self.busy:
                self.progress.hide()  # its counts were of the action before
            self.focus_on(button)
            self.guard(action)
            self.update_controls()

        button.on_click(handler)
        self._bound[id(button)] = button

    def expire_on(
        self, control: w.Widget, *inputs: w.ValueWidget, forget: Callable[[], None] | None = None
    ) -> None:
        """An outcome of ``control`` is true of what it was given: when one of ``inputs``
        changes, its outcome line and progress go (and ``forget`` runs: a preview made from
        the old inputs is dropped)."""

        def changed(_change: Any) -> None:
            if self.busy:
                return
            if self._slots.get(id(control)) is self.feedback:
                self.status.clear()
                self.progress.hide()
            if forget is not None:
                forget()

        for widget in inputs:
            widget.observe(changed, "value")

    def control_reasons(self) -> list[tuple[w.DOMWidget, str]]:
        """Each action control with why it cannot act now ("" when it can). Panels override."""
        return []

    def update_controls(self) -> None:
        """Enable each control that can act now; disable the others, the reason as tooltip."""
        if not self.loaded or self.read_only or self.busy:
            return  # still being built, read-only (all disabled) or working (all disabled)
        for control, reason in self.control_reasons():
            control.disabled = bool(reason)  # type: ignore[attr-defined]
            control.tooltip = reason or None  # type: ignore[attr-defined]

    def watch(self, *inputs: w.ValueWidget) -> None:
        """Re-check which controls can act whenever one of ``inputs`` changes."""
        for widget in inputs:
            widget.observe(lambda _change: self.update_controls(), "value")

    @staticmethod
    def columns(lists: Sequence[w.Widget], forms: Sequence[w.Widget]) -> w.HBox:
        """The layout every panel uses: its lists on the left, its forms on the right, side by
        side on a laptop screen (1400x900); the page around them is the one scroll area."""
        left = w.VBox(list(lists), layout=w.Layout(**COLUMN_LAYOUT, flex="1 1 52%"))
        right = w.VBox(list(forms), layout=w.Layout(**COLUMN_LAYOUT, flex="1 1 48%"))
        left.add_class("chatops-list-column")
        right.add_class("chatops-form-column")
        both = w.HBox([left, right], layout=w.Layout(width="100%", grid_gap="16px"))
        both.add_class("chatops-columns")
        return both

    def outcome_of(self, control: w.Widget, *views: TableView | w.Widget) -> None:
        """Show ``views`` (result tables, a confirmation) under ``control`` once it is used,
        tables folded under a one-line summary, problems first."""
        made: list[w.Widget] = []
        for view in views:
            if isinstance(view, TableView):
                made.append(fold(view))
            else:
                made.append(view)
        self._outcomes.setdefault(id(control), []).extend(made)

    def focus_on(self, control: w.Widget) -> None:
        """Move the progress bar, the status line and ``control``'s result views under it."""
        slot = self._slots.get(id(control))
        if slot is None:
            return
        self._focus(slot, self._outcomes.get(id(control), ()))

    def _focus(self, slot: w.VBox, extra: Sequence[w.Widget]) -> None:
        moving = [self.progress.widget, self.status.widget, self.status.scroller, *extra]
        if slot is not self.feedback:
            self.feedback.children = tuple(
                c for c in self.feedback.children if all(c is not m for m in moving)
            )
        for other in self._slots.values():  # a view shared by two controls leaves the other
            if other is not slot and any(c is m for c in other.children for m in moving):
                other.children = tuple(c for c in other.children if all(c is not m for m in moving))
        slot.children = tuple(moving)
        self.feedback = slot

    @staticmethod
    def _slot() -> w.VBox:
        slot = w.VBox([])
        slot.add_class("chatops-feedback")
        return slot

    def _place_feedback(self, body: w.Widget) -> None:
        """Give each control bound with :meth:`on_click` a place right under it (under its row
        when it sits in a row), and take its result views out of the layout until it is used."""
        shown_later = {id(v) for views in self._outcomes.values() for v in views}
        shown_later |= {
            id(v.children[0]) for views in self._outcomes.values() for v in views if is_fold(v)
        }

        def visit(box: w.Box) -> list[w.Widget]:
            vertical = not isinstance(box, w.HBox)
            placed: list[w.Widget] = []
            left: list[w.Widget] = []
            changed = False
            for child in box.children:
                if id(child) in shown_later:
                    changed = True
                    continue
                placed.append(child)
                found: list[w.Widget] = []
                if isinstance(child, (w.Tab, w.Accordion, w.Stack)):
                    continue
                if isinstance(child, w.Box):
                    found = visit(child)
                elif id(child) in self._bound:
                    found = [child]
                if not found:
                    continue
                if vertical:
                    slot = self._slot()
                    for control in found:
                        self._slots[id(control)] = slot
                    placed.append(slot)
                    changed = True
                else:
                    left.extend(found)
            if changed:
                box.children = tuple(placed)
            return left

        if isinstance(body, w.Box):
            for control in visit(body):  # a row at the top of the body: its place follows it
                self._slots[id(control)] = self._slot()
                body.children = (*body.children, self._slots[id(control)])

    def action_button(self, description: str, *, icon: str = "", style: str = "") -> w.Button:
        """A button that changes the organization (disabled when the panel is read-only)."""
        button = w.Button(description=description, icon=icon, button_style=style)
        self.actions.append(button)
        return button

    def table(
        self,
        title: str,
        load: Callable[[], pd.DataFrame],
        *,
        slug: str,
        empty: str = "",
        problem: Callable[[Mapping[str, Any]], bool] | None = None,
        cells: Mapping[str, Callable[[Any], str]] | None = None,
        select: bool = False,
    ) -> TableView:
        return TableView(
            title,
            load,
            export_dir=self.export_dir,
            slug=f"{self.slug}-{slug}",
            guard=self.guard,
            empty=empty or "Nothing to show.",
            problem=problem,
            cells=cells,
            select=select,
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
                    self._task = None
                    self.update_controls()

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
        self.load_soon()
        return bundle
