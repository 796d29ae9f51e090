"""Tables to Excel: one sheet a table, typed columns, and the coverage note.

openpyxl writes the workbook (pandas' own engine for ``.xlsx``, and the one that reads it back).
Cells keep their types: integers, floats, booleans and times are numbers, dates and booleans in
Excel, not text. Excel has no time zones, so aware times are written as the wall-clock time of
their own zone (the column's zone is named in the ``about`` sheet); categoricals become text.
Excel keeps one kind of number, so a float column whose values are all whole reads back as
integers (equal values); float columns are shown with two decimals. The first sheet, ``about``, holds the coverage note, the time zones and the result's numbers.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["to_excel"]

_BAD = re.compile(r"[\[\]\*\?/\\:]")


def _sheet_name(name: str, taken: set[str]) -> str:
    base = _BAD.sub("_", name)[:31] or "sheet"
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
        elif isinstance(s.dtype, pd.CategoricalDtype) or pd.api.types.is_string_dtype(s.dtype):
            out[col] = s.astype("object").where(s.notna(), None)
        elif isinstance(s.dtype, pd.PeriodDtype):
            out[col] = s.astype("string").astype("object")
        elif pd.api.types.is_timedelta64_dtype(s.dtype):
            out[col] = s.dt.total_seconds() / 3600.0
    return out, zones


def to_excel(
    frames: Mapping[str, pd.DataFrame],
    path: str | os.PathLike[str],
    *,
    note: str | None = None,
    summary: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``frames`` (sheet name -> table) to the ``.xlsx`` file ``path``; returns the path.

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
    with pd.ExcelWriter(out, engine="openpyxl") as writer:
        pd.DataFrame(about, columns=["item", "value"]).to_excel(
            writer, sheet_name="about", index=False
        )
        for sheet, cells in prepared:
            cells.to_excel(writer, sheet_name=sheet, index=False)
            ws = writer.sheets[sheet]
            ws.freeze_panes = "A2"
            for i, col in enumerate(cells.columns, start=1):
                width = min(60, max(10, len(str(col)) + 2))
                letter = ws.cell(row=1, column=i).column_letter
                ws.column_dimensions[letter].width = width
                if pd.api.types.is_float_dtype(cells[col].dtype):
                    for (cell,) in ws.iter_rows(min_row=2, min_col=i, max_col=i):
                        cell.number_format = "0.00"
    return out
