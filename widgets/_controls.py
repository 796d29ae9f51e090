"""The small widgets panels are made of: the status line, a field with its hint and error, a
table with Refresh and Export CSV (folded under a summary when it reports an outcome); the
progress bar with Cancel and the confirmation are in :mod:`._asking` (and importable here)."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from .._files import new_dir, write_private_text
from .._tabular import csv_text
from ._asking import Confirm, Progress, Scroller
from ._model import escape, plural
from ._who import Pick
from ._words import api_name, render_markdown

__all__ = [
    "COLUMN_LAYOUT",
    "FOLD_ABOVE",
    "PAGE_LENGTH",
    "Scroller",
    "Confirm",
    "Field",
    "Progress",
    "StatusLine",
    "TableView",
    "WhoPicker",
    "fold",
    "grid",
    "is_fold",
    "code_cell",
    "markdown_cell",
    "NOBREAK",
    "nobreak_cell",
    "setting_cell",
]

# -- small widgets --------------------------------------------------------------------------------
_MARKS = {"ok": "✓ ", "error": "✗ ", "warning": "⚠ ", "info": ""}


class StatusLine:
    """One line of outcome: a success, an error with its code, or information."""

    def __init__(self) -> None:
        self.widget = w.HTML(value="")
        self.widget.add_class("chatops-outcome")
        #: moves with :attr:`widget` and scrolls it into view when an outcome is shown
        self.scroller = Scroller()
        self.scroller.add_class("chatops-scroller")
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
            f"{escape(text)}</span>"
        )
        self.scroller.count = self.shown

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
        #: run when the field's error is shown or cleared (the panel's "Check the fields
        #: marked." lasts only while a field is marked)
        self.on_error: list[Callable[[], None]] = []
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
        for callback in self.on_error:
            callback()

    def clear(self) -> None:
        if not self.error_text:
            return
        self.error_text = ""
        self._error.value = ""
        for callback in self.on_error:
            callback()


#: A panel's two columns grow with what they hold: the notebook (or the Voila page) is the one
#: scroll area, so a question or an outcome under a button is never inside a box of its own that
#: has to be scrolled too. A column may shrink below its content's width (its tables scroll
#: sideways on their own instead of pushing the form off the screen).
COLUMN_LAYOUT: dict[str, str] = {"min_width": "0"}

#: Rows per page of a grid at first; the admin may show more per page, and search, sort and
#: page through all of them (none is left out: the browser holds every row).
PAGE_LENGTH = 10
#: The page lengths offered. None shows every row at once: 10,000 rows drawn as one page would
#: hold the page for seconds, so the longest page is 500 rows.
PAGE_LENGTHS = [10, 25, 50, 100, 500]


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _cell(value: object) -> str:
    return "" if _missing(value) else escape(value)


def nobreak_cell(value: object) -> str:
    """A cell on one line (a date and its time): no line break inside it."""
    return "" if _missing(value) else f'<span class="chatops-nobreak">{escape(value)}</span>'


#: the ``attrs`` key of a frame given to :meth:`TableView.show` naming its columns whose cells
#: stay on one line
NOBREAK = "nobreak"


def address_cell(value: object) -> str:
    """An email address or a link as grid HTML: a line may break after ``@``, ``/`` or ``.``
    only (with :meth:`TableView.whole_words`, nowhere else)."""
    if _missing(value):
        return ""
    text = escape(value)
    for mark in ("@", "/", "."):
        text = text.replace(mark, f"{mark}<wbr>")
    return text


#: where a line may break inside a pattern or a URL template: after these marks only
CODE_BREAKS_AFTER = "/.?&|)"


def code_cell(value: object) -> str:
    """A pattern or a URL template as HTML in the code font: a line may break after ``/``,
    ``.``, ``?``, ``&``, ``|`` or ``)`` only, never inside ``[0-9]{4}``."""
    if _missing(value):
        return ""
    parts = re.split(f"(?<=[{re.escape(CODE_BREAKS_AFTER)}])", str(value))
    spans = (f'<span class="chatops-nobreak">{escape(p)}</span>' for p in parts if p)
    return f'<code class="chatops-code">{"<wbr>".join(spans)}</code>'


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


#: Put in the first cell of a row that needs attention: the stylesheet marks the whole row
#: (``tr:has(...)``) and writes "⚠" before it, so sorting and searching ignore the mark.
PROBLEM_MARK = '<span class="chatops-row-problem" title="Needs attention"></span>'


class _Rendered:
    """The rows a grid holds, as one HTML table (``.value``), for scripts and tests that read
    what a person sees without a browser."""

    def __init__(self, view: TableView) -> None:
        self._view = view

    @property
    def value(self) -> str:
        view = self._view
        if view.shown.empty:
            return f'<span class="chatops-muted">{escape(view.empty)}</span>'
        head = "".join(f"<th>{escape(c)}</th>" for c in view.shown.columns)
        body = "".join(
            ('<tr class="chatops-row-problem">' if flag else "<tr>")
            + "".join(f"<td>{cell}</td>" for cell in row)
            + "</tr>"
            for flag, row in zip(
                view.flags, view.shown.itertuples(index=False, name=None), strict=True
            )
        )
        return (
            f'<table class="chatops-table"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>"
        )


def grid(frame: pd.DataFrame, *, select: bool = False) -> Any:
    """An interactive grid of ``frame`` (cells already written as HTML): every column sorts on
    a click of its header, the search box filters across all columns, rows come in pages, and a
    table wider than its column scrolls sideways (the stylesheet's ``overflow-x``) instead of
    hiding columns. One HTML table, so a page (and a test) finds its rows in one place."""
    from itables.widget import ITable

    options: dict[str, Any] = {
        "allow_html": True,  # the cells are written (and escaped) by TableView's writers
        "maxBytes": 0,  # never down-sample: every row is searchable and sortable
        "maxColumns": 0,
        "showIndex": False,
        "classes": "display compact cell-border",
        "style": "width:100%;margin:0;caption-side:top",
        "pageLength": PAGE_LENGTH,
        "lengthMenu": PAGE_LENGTHS,
        "order": [],  # the frame's own order first (problems first); a header click sorts
        # a click anywhere on a header sorts (not only on its small arrows)
        "text_in_header_can_be_selected": False,
        "autoWidth": False,
        "layout": {
            "topStart": "pageLength",
            "topEnd": "search",
            "bottomStart": "info",
            # DataTables measures its page buttons after each draw and, when they wrap in a
            # narrow column, draws them again with fewer: a forced layout of the page each
            # time (20-60 ms on a busy machine). Five numbers and no first/last buttons fit
            # the panels' list column, so a sort or a search lays the page out once.
            "bottomEnd": {"paging": {"buttons": 5, "firstLast": False}},
        },
    }
    if len(frame) <= PAGE_LENGTH:  # one short page: the headers still sort it
        options["layout"] = dict.fromkeys(options["layout"])
    if select:
        options["select"] = {"style": "os", "items": "row"}
    # The cells are strings already: handing itables the frame would format each one again
    # through pandas (about 0.1 ms a row, more than the requests behind a 500-row outcome), so
    # the grid gets the header from an empty frame and its rows as the JSON DataTables reads.
    table = ITable(frame.head(0), **options)
    args = dict(table._dt_args)
    args["data_json"] = json.dumps(frame.to_numpy().tolist(), ensure_ascii=False)
    args["layout"] = options["layout"]  # itables drops the controls of a frame of one page
    table._dt_args = args
    table.add_class("chatops-grid")
    return table


class TableView:
    """A titled grid of a DataFrame with Refresh and Export CSV buttons.

    ``load`` returns the frame; Refresh calls it again. Export writes the frame shown to a CSV
    file under ``export_dir`` and offers it as a download link too. Every row is in the grid
    (sortable by any column, searchable, in pages); rows for which ``problem`` is true come
    first and are marked; ``cells`` writes the cells of some columns as HTML (Markdown rendered,
    a tooltip); ``display`` rewrites the frame for the grid (names for ids, rounded numbers;
    the columns its ``attrs["nobreak"]`` names stay on one line) while :attr:`frame` and
    Export CSV keep it as given. With ``select=True`` rows can be
    selected (click, shift- and Ctrl/⌘-click) and :meth:`selected` returns them.

    Example::

        view = TableView("Groups", load, export_dir=Path("exports"), slug="groups",
                         guard=lambda f: f(), problem=lambda row: row["members"] == 0)
        view.refresh()          # load and show every row
        view.summary()          # "Groups: 2 of 40 need attention"
        view.export()           # exports/groups-<UTC time>.csv
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
        select: bool = False,
        hidden: Sequence[str] = (),
        display: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
    ) -> None:
        self.title = title
        #: how the grid writes a frame for a person (same rows, in order); :attr:`frame` and
        #: Export CSV keep the frame as given
        self._display = display
        #: columns kept in :attr:`frame` (and Export CSV) but not drawn in the grid
        self.hidden = tuple(hidden)
        #: tooltips: a column's cells get the text of another column (often hidden) as title
        self.tips: dict[str, str] = {}
        self._problem = problem
        #: how the cells of some columns are written (HTML), by column name
        self._cells = dict(cells or {})
        self._select = select
        self.problems = 0
        self.on_show: list[Callable[[], None]] = []
        self._load = load
        self._export_dir = export_dir
        self._slug = slug
        self._guard = guard
        self.empty = empty
        self.frame = pd.DataFrame()
        #: the rows as the grid holds them: problems first, cells written as HTML
        self.shown = pd.DataFrame()
        #: whether each row of :attr:`shown` needs attention
        self.flags: list[bool] = []
        #: for each row of :attr:`shown`, its position in :attr:`frame`
        self.order: list[int] = []
        self.grid: Any = None
        self.note = w.HTML(value=f'<span class="chatops-muted">{escape(empty)}</span>')
        self.box = w.VBox([self.note])
        self.box.add_class("chatops-table-html")
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
                self.box,
            ]
        )

    @property
    def html(self) -> _Rendered:
        """The rows the grid holds as one HTML table (its ``value``), or the empty message."""
        return _Rendered(self)

    def refresh(self) -> pd.DataFrame:
        """Load the rows again and show them."""
        self.show(self._load())
        return self.frame

    def show(self, frame: pd.DataFrame) -> None:
        """Show every row of ``frame``, those that need attention first."""
        self.frame = frame  # in its own order: what methods return and Export CSV writes
        order = list(range(len(frame)))
        flags = [False] * len(frame)
        if self._problem is not None and not frame.empty:
            records: list[dict[str, Any]] = [
                {str(k): v for k, v in r.items()} for r in frame.to_dict("records")
            ]
            flags = [bool(self._problem(row)) for row in records]
            if any(flags):  # shown with the rows that need attention first
                order = sorted(order, key=lambda i: not flags[i])
                flags = [flags[i] for i in order]
        self.problems = sum(flags)
        self.order = order
        self.flags = flags
        seen = frame if self._display is None or frame.empty else self._display(frame)
        self.shown = self._written(seen.iloc[order] if order else seen, flags)
        for listener in self.on_show:
            listener()
        old = self.grid
        if frame.empty:
            self.grid = None
            self.note.value = f'<span class="chatops-muted">{escape(self.empty)}</span>'
            self.box.children = (self.note,)
        else:
            # A new grid each time: the grid reports selections from the table it drew first.
            self.grid = grid(self.shown, select=self._select)
            self.box.children = (self.grid,)
        if old is not None:
            old.close()

    def _written(self, frame: pd.DataFrame, flags: list[bool]) -> pd.DataFrame:
        """Each cell written as HTML (escaped), the problem mark in a flagged row's first cell.
        Written directly: DataFrame.to_html costs about 0.1 ms a cell."""
        if frame.empty:
            return pd.DataFrame(columns=[str(c) for c in frame.columns if c not in self.hidden])
        columns: dict[str, list[str]] = {}
        one_line = set(frame.attrs.get(NOBREAK, ()))
        for name in frame.columns:
            if str(name) in self.hidden:
                continue
            write = self._cells.get(str(name), nobreak_cell if str(name) in one_line else _cell)
            columns[str(name)] = [write(v) for v in frame[name].tolist()]
            if (tip := self.tips.get(str(name))) is not None:
                columns[str(name)] = [
                    cell
                    if _missing(t) or not str(t)
                    else f'<span title="{escape(t)}">{cell}</span>'
                    for cell, t in zip(columns[str(name)], frame[tip].tolist(), strict=True)
                ]
        first = next(iter(columns))
        columns[first] = [
            PROBLEM_MARK + cell if flag else cell
            for cell, flag in zip(columns[first], flags, strict=True)
        ]
        return pd.DataFrame(columns, columns=list(columns))

    def whole_words(self, *addresses: str) -> None:
        """Break the grid's lines between words only, the ``addresses`` columns (emails,
        links) after their ``@``, ``/`` and ``.``: no word is cut in two."""
        for column in addresses:
            self._cells[column] = address_cell
        self.widget.add_class("chatops-whole-words")

    def selected(self) -> pd.DataFrame:
        """The rows selected in the grid, as rows of :attr:`frame` (in the grid's order)."""
        if self.grid is None:
            return self.frame.iloc[0:0]
        rows = [self.order[i] for i in self.grid.selected_rows if 0 <= i < len(self.order)]
        return self.frame.iloc[rows]

    def select(self, positions: Sequence[int]) -> None:
        """Select rows of :attr:`frame` (by position) in the grid, as a click would."""
        if self.grid is None:
            return
        where = {p: i for i, p in enumerate(self.order)}
        self.grid.selected_rows = [where[p] for p in positions if p in where]

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
        new_dir(target.parent)
        data = csv_text(self.frame)
        write_private_text(target, data)
        encoded = base64.b64encode(data.encode("utf-8")).decode("ascii")
        self.export_link.value = (
            f"Saved {plural(len(self.frame), 'row')} to <code>{escape(target)}</code> · "
            f'<a download="{escape(target.name)}" href="data:text/csv;base64,{encoded}">'
            "download</a>"
        )
        return target


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


class WhoPicker:
    """A list to choose groups and people from (several with Ctrl or Shift), and the setting's
    current value in words under it."""

    def __init__(self) -> None:
        self.input = w.SelectMultiple(options=[], rows=8, layout=w.Layout(width="360px"))
        self.input.add_class("chatops-who-picker")

    @property
    def value(self) -> tuple[Pick, ...]:
        return tuple(self.input.value)

    @value.setter
    def value(self, picks: Sequence[Pick]) -> None:
        self.input.value = tuple(picks)

    def show(self, options: list[tuple[str, Pick]], current: Sequence[Pick]) -> None:
        """Offer ``options`` (:meth:`WhoChoices.options`, kept the current value), with
        ``current`` (the setting's value now) selected."""
        self.input.value = ()
        self.input.options = list(options)
        self.input.value = tuple(current)
