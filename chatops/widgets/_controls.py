"""The small widgets panels are made of: the status line, a field with its hint and error, a
table with Refresh and Export CSV (folded under a summary when it reports an outcome), a
progress bar with Cancel, and a confirmation."""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from ._model import escape, plural
from ._words import api_name, render_markdown

__all__ = [
    "COLUMN_LAYOUT",
    "FOLD_ABOVE",
    "MAX_SHOWN_ROWS",
    "SCROLL_INTO_VIEW",
    "Confirm",
    "Field",
    "Progress",
    "StatusLine",
    "TableView",
    "fold",
    "is_fold",
    "markdown_cell",
    "setting_cell",
]

# -- small widgets --------------------------------------------------------------------------------
_MARKS = {"ok": "✓ ", "error": "✗ ", "warning": "⚠ ", "info": ""}

#: Rendered with an outcome: the browser fails to load the empty image at once and its handler
#: scrolls the outcome's place (just under the control that started it) into view. An
#: ipywidgets HTML value is set as the element's inner HTML, where a script tag would not run.
SCROLL_INTO_VIEW = (
    '<img src="data:," alt="" hidden onerror="'
    "var p=this.closest('.chatops-feedback')||this.parentNode;"
    "p.scrollIntoView({block:'nearest',behavior:'instant'})\">"
)


class StatusLine:
    """One line of outcome: a success, an error with its code, or information."""

    def __init__(self) -> None:
        self.widget = w.HTML(value="")
        self.widget.add_class("chatops-outcome")
        self.kind = ""
        self.text = ""
        self.shown = 0  # a new count each time, so the browser renders (and scrolls) again

    def _show(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text
        self.shown += 1
        mark = _MARKS.get(kind, "")
        self.widget.value = (
            f'<span class="chatops-outcome-{kind}" data-shown="{self.shown}">{mark}'
            f"{escape(text)}</span>{SCROLL_INTO_VIEW}"
        )

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


#: Each column of a panel scrolls on its own past this height, so a list and a form both fit
#: a 1400x900 screen under the notebook's toolbar and the console's tabs.
COLUMN_LAYOUT: dict[str, str] = {"max_height": "600px", "overflow": "auto", "min_width": "0"}

#: Rows a table shows at most; Export CSV writes every row.
MAX_SHOWN_ROWS = 1000


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _cell(value: object) -> str:
    return "" if _missing(value) else escape(value)


def markdown_cell(value: object) -> str:
    """A cell of Markdown text (a description), rendered; raw HTML in it stays escaped."""
    if _missing(value) or not str(value):
        return ""
    return f'<div class="chatops-markdown">{render_markdown(str(value))}</div>'


def setting_cell(value: object) -> str:
    """A cell naming a group-valued setting by its label, with the API name as its tooltip."""
    if _missing(value):
        return ""
    api = api_name(str(value))
    if api is None:
        return escape(value)
    return f'<span title="API: {escape(api)}">{escape(value)}</span>'


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
        problem: Callable[[Mapping[str, Any]], bool] | None = None,
        cells: Mapping[str, Callable[[Any], str]] | None = None,
    ) -> None:
        self.title = title
        self._problem = problem
        #: how the cells of some columns are written (HTML), by column name
        self._cells = dict(cells or {})
        self.problems = 0
        self.on_show: list[Callable[[], None]] = []
        self._load = load
        self._export_dir = export_dir
        self._slug = slug
        self._guard = guard
        self._empty = empty
        self.frame = pd.DataFrame()
        self.html = w.HTML(value="")
        self.html.add_class("chatops-table-html")
        self.refresh_button = w.Button(description="Refresh", icon="refresh")
        self.export_button = w.Button(description="Export CSV", icon="download")
        self.export_link = w.HTML(value="")
        self.refresh_button.on_click(lambda _b: self._guard(self.refresh))
        self.export_button.on_click(lambda _b: self._guard(self.export))
        self.widget = w.VBox(
            [
                w.HTML(
                    value=f'<div class="chatops-section chatops-table-title">{escape(title)}</div>'
                ),
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
        self.frame = frame  # in its own order: what methods return and Export CSV writes
        flags: list[bool] = []
        if self._problem is not None and not frame.empty:
            records: list[dict[str, Any]] = [
                {str(k): v for k, v in r.items()} for r in frame.to_dict("records")
            ]
            flags = [bool(self._problem(row)) for row in records]
            if any(flags):  # shown with the rows that need attention first
                order = sorted(range(len(flags)), key=lambda i: not flags[i])
                frame = frame.iloc[order].reset_index(drop=True)
                flags = [flags[i] for i in order]
        self.problems = sum(flags)
        for listener in self.on_show:
            listener()
        if frame.empty:
            self.html.value = f'<span class="chatops-muted">{escape(self._empty)}</span>'
            return
        # Written directly: DataFrame.to_html costs about 0.1 ms a cell, more than the request
        # behind a long list.
        head = "".join(f"<th>{escape(c)}</th>" for c in frame.columns)
        writers = [self._cells.get(str(c), _cell) for c in frame.columns]
        body = "".join(
            ('<tr class="chatops-row-problem">' if i < len(flags) and flags[i] else "<tr>")
            + "".join(f"<td>{write(v)}</td>" for write, v in zip(writers, row, strict=True))
            + "</tr>"
            for i, row in enumerate(frame.head(MAX_SHOWN_ROWS).itertuples(index=False, name=None))
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

    def summary(self) -> str:
        """One line for the table folded under an outcome: problems first, in plain words."""
        rows = len(self.frame)
        if not rows:
            return self.title
        if self._problem is None:
            return f"{self.title}: {plural(rows, 'row')}"
        if not self.problems:
            return f"{self.title}: {plural(rows, 'row')}, none needs attention"
        return f"{self.title}: {self.problems:,} of {rows:,} need attention"

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


#: Result tables with more rows than this stay folded under their summary line.
FOLD_ABOVE = 10


def fold(view: TableView) -> w.Accordion:
    """A result table folded under its summary ("23 of 500 need attention")."""
    fold = w.Accordion(children=[view.widget], titles=(view.summary(),), selected_index=None)
    fold.add_class("chatops-fold")

    def retitle() -> None:
        fold.set_title(0, view.summary())
        # a short outcome shows whole; a long one stays folded under its summary
        fold.selected_index = 0 if 0 < len(view.frame) <= FOLD_ABOVE else None

    view.on_show.append(retitle)
    return fold


def is_fold(widget: w.Widget) -> bool:
    return isinstance(widget, w.Accordion) and "chatops-fold" in widget._dom_classes
