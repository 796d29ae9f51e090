"""The one writer of tabular files: every CSV and Excel file chatops writes goes through here.

A cell holds what a member of the organization typed (a topic, a name, a status), and a
spreadsheet must never run it. Following OWASP's guidance on CSV injection:

- **CSV**: a text cell beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is
  written with a leading ``'``, so Excel, LibreOffice and Google Sheets show it as text.
  Numbers stay numbers (``-3`` is minus three, not a formula); column names are text cells too.
  Rows end in CRLF (RFC 4180), so a cell holding a line break is quoted and can never begin a
  row of its own.
- **Excel**: text cells are string cells, never formulas or error values (openpyxl would store
  ``=HYPERLINK(...)`` as a live formula and ``#N/A`` as an error), and those beginning with a
  formula character carry Excel's quote prefix, so editing one keeps it text. Characters a
  worksheet cannot hold (C0 controls other than tab and line breaks) are replaced by their
  visible Unicode control pictures (ESC becomes ``␛``), and text past Excel's 32,767
  characters a cell is cut with ``…``: a hostile name never makes an export fail.

Files are owner-only (:mod:`chatops._files`) and written atomically.

::

    write_csv(df, Path("out/findings.csv"))
    text = csv_text(df)                                   # the same bytes, for a download link
    write_excel({"topics": df}, Path("out/topics.xlsx"), note="coverage ...")
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ._files import atomic_write

__all__ = [
    "EXCEL_CELL_LIMIT",
    "EXCEL_ROW_LIMIT",
    "check_excel_rows",
    "FORMULA_START",
    "csv_frame",
    "csv_text",
    "excel_text",
    "neutralise",
    "write_csv",
    "write_excel",
]

#: the first characters that make a spreadsheet read a cell as a formula (OWASP)
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
#: rows end in CRLF (RFC 4180): then a cell holding a carriage return or a line feed is
#: quoted, so neither can start a row (and a formula) of its own in a spreadsheet
_CRLF = "\r\n"
#: the most characters an Excel cell holds
EXCEL_CELL_LIMIT = 32_767
#: the most rows an Excel sheet holds, its header row included
EXCEL_ROW_LIMIT = 1_048_576
#: the characters an Excel worksheet (XML 1.0) cannot hold: C0 controls but tab, LF and CR
_NOT_IN_EXCEL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
#: the text Excel reads as an error value rather than as text
_ERROR_VALUES = frozenset(
    ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA")
)
_SHEET_FORBIDDEN = re.compile(r"[\[\]\*\?/\\:\x00-\x1f]")


def neutralise(text: str) -> str:
    """``text`` as a CSV cell a spreadsheet shows as text: ``'`` before a formula start."""
    return "'" + text if text.startswith(FORMULA_START) else text


def _is_text_column(s: pd.Series) -> bool:
    return (
        s.dtype == object
        or isinstance(s.dtype, pd.CategoricalDtype)
        or pd.api.types.is_string_dtype(s.dtype)
    )


def _neutralise_value(value: Any) -> Any:
    return neutralise(value) if isinstance(value, str) else value


def _names(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        tuples = [tuple(_neutralise_value(v) for v in t) for t in index]
        multi: pd.Index = pd.MultiIndex.from_tuples(tuples, names=index.names)
        return multi
    flat: pd.Index = pd.Index([_neutralise_value(v) for v in index], name=index.name)
    return flat


def csv_frame(df: pd.DataFrame, *, index: bool = False) -> pd.DataFrame:
    """``df`` with every text cell (and column name) neutralised; the index, when kept,
    becomes columns first. Numbers, times and missing values are left as they are."""
    out = df.reset_index() if index else df.copy()
    for col in out.columns:
        s = out[col]
        if not _is_text_column(s):
            continue
        values = s.astype(object)
        starts = values.str.startswith(FORMULA_START, na=False)
        if bool(starts.any()):
            values = values.where(~starts.astype(bool), "'" + values.astype(str))
        out[col] = values
    out.columns = _names(out.columns)
    return out


def csv_text(df: pd.DataFrame, *, index: bool = False) -> str:
    """``df`` as CSV text, safe to open in a spreadsheet (see the module's notes)."""
    return str(csv_frame(df, index=index).to_csv(index=False, lineterminator=_CRLF))


def write_csv(df: pd.DataFrame, path: str | os.PathLike[str], *, index: bool = False) -> Path:
    """Write ``df`` as a CSV file at ``path`` (owner-only, atomically); returns the path.

    Args:
        df: the table.
        path: the file (its folder must exist).
        index: write the index as the first columns (named as the index is).
    """
    target = Path(path)
    frame = csv_frame(df, index=index)
    atomic_write(target, lambda tmp: frame.to_csv(tmp, index=False, lineterminator=_CRLF))
    return target


def excel_text(text: str) -> str:
    """``text`` as an Excel cell holds it: controls a worksheet refuses shown as their
    control pictures (ESC as ``␛``), cut with ``…`` past 32,767 characters."""
    cleaned = _NOT_IN_EXCEL.sub(lambda m: chr(0x2400 + ord(m.group())), text)
    if len(cleaned) > EXCEL_CELL_LIMIT:
        cleaned = cleaned[: EXCEL_CELL_LIMIT - 1] + "…"
    return cleaned


def check_excel_rows(frames: Mapping[str, pd.DataFrame]) -> None:
    """Refuse a table longer than an Excel sheet holds (ValueError naming it), before anything
    is written: a sheet cut short would pass for the whole table.

    Args:
        frames: sheet name -> table.
    """
    for name, df in frames.items():
        if len(df) >= EXCEL_ROW_LIMIT:
            raise ValueError(
                f"{name} has {len(df):,} rows, more than the {EXCEL_ROW_LIMIT - 1:,} an Excel "
                "sheet holds under its header: write it as CSV or Parquet instead"
            )


def _excel_value(value: Any) -> Any:
    return excel_text(value) if isinstance(value, str) else value


def _sheet_name(name: str, taken: set[str]) -> str:
    base = _SHEET_FORBIDDEN.sub("_", name).strip("'")[:31] or "sheet"
    out, i = base, 2
    while out.lower() in taken:
        out = f"{base[: 31 - len(str(i)) - 1]}_{i}"
        i += 1
    taken.add(out.lower())
    return out


def _excel_frame(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str]]:
    """``df`` with cells Excel can hold, and the time zone of each aware time column."""
    out = df.copy()
    zones: dict[str, str] = {}
    for col in out.columns:
        s = out[col]
        if isinstance(s.dtype, pd.DatetimeTZDtype):
            zones[str(col)] = str(s.dt.tz)
            out[col] = s.dt.tz_localize(None)
        elif _is_text_column(s):
            out[col] = s.astype("object").where(s.notna(), None).map(_excel_value)
        elif isinstance(s.dtype, pd.PeriodDtype):
            out[col] = s.astype("string").astype("object")
        elif pd.api.types.is_timedelta64_dtype(s.dtype):
            out[col] = s.dt.total_seconds() / 3600.0
    out.columns = pd.Index([_excel_value(c) for c in out.columns])
    return out, zones


def _not_plain_text(value: Any) -> bool:
    """Whether openpyxl or Excel would read the text ``value`` as something else than text."""
    return isinstance(value, str) and (value.startswith(FORMULA_START) or value in _ERROR_VALUES)


def _keep_as_text(ws: Any, cells: pd.DataFrame) -> None:
    """Text cells of the written sheet stay text: no formula, no error value, and a quote
    prefix on those a spreadsheet would otherwise read as a formula when edited."""
    found: list[tuple[int, int]] = [
        (1, i) for i, name in enumerate(cells.columns, start=1) if _not_plain_text(name)
    ]
    for number, col in enumerate(cells.columns, start=1):
        s = cells[col]
        if _is_text_column(s):
            rows = s.map(_not_plain_text).to_numpy().nonzero()[0]
            found.extend((int(row) + 2, number) for row in rows)
    for row, column in found:
        cell = ws.cell(row=row, column=column)
        cell.data_type = "s"
        cell.quotePrefix = True


def write_excel(
    frames: Mapping[str, pd.DataFrame],
    path: str | os.PathLike[str],
    *,
    note: str | None = None,
    summary: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``frames`` (sheet name -> table) to the ``.xlsx`` file ``path``; returns the path.

    The first sheet, ``about``, holds the coverage note, the time zones of time columns and the
    result's numbers. Cells keep their types (numbers, dates, booleans); text is always text.
    The file is owner-only and written atomically. A table longer than a sheet (1,048,575 rows
    under the header) is refused with ValueError before anything is written.

    Args:
        frames: the tables, in sheet order.
        path: where to write (the folder must exist); ``.xlsx`` is added when missing.
        note: the coverage note, first line of the ``about`` sheet.
        summary: numbers to list under the note (a view's ``summary()``).
    """
    out = Path(path).expanduser()
    if out.suffix.lower() != ".xlsx":
        out = out.with_name(out.name + ".xlsx")
    if not out.parent.is_dir():
        raise ValueError(f"cannot write {out}: the folder {out.parent} does not exist")
    if not frames:
        raise ValueError("nothing to write: no table given")
    check_excel_rows(frames)
    taken = {"about"}
    prepared = []
    about: list[tuple[str, str]] = [("coverage", note or "(not given)")]
    for name, df in frames.items():
        sheet = _sheet_name(name, taken)
        cells, zones = _excel_frame(df)
        prepared.append((sheet, cells))
        about.extend((f"{sheet}.{col}", f"times in {tz}") for col, tz in zones.items())
    for key, value in (summary or {}).items():
        if key != "coverage" and not isinstance(value, pd.DataFrame):
            about.append((key, str(value)))
    about_frame = pd.DataFrame(
        [(excel_text(k), excel_text(v)) for k, v in about], columns=["item", "value"]
    )

    def write(tmp: Path) -> None:
        with pd.ExcelWriter(tmp, engine="openpyxl") as writer:
            about_frame.to_excel(writer, sheet_name="about", index=False)
            _keep_as_text(writer.sheets["about"], about_frame)
            for sheet, cells in prepared:
                cells.to_excel(writer, sheet_name=sheet, index=False)
                ws = writer.sheets[sheet]
                _keep_as_text(ws, cells)
                ws.freeze_panes = "A2"
                for i, col in enumerate(cells.columns, start=1):
                    width = min(60, max(10, len(str(col)) + 2))
                    letter = ws.cell(row=1, column=i).column_letter
                    ws.column_dimensions[letter].width = width
                    if pd.api.types.is_float_dtype(cells[col].dtype):
                        for (cell,) in ws.iter_rows(min_row=2, min_col=i, max_col=i):
                            cell.number_format = "0.00"

    atomic_write(out, write)
    return out
