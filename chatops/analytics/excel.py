"""Tables to Excel: one sheet a table, typed columns, and the coverage note.

The workbook is written by :func:`chatops._tabular.write_excel`, the one writer of tabular
files: text a member typed is always text (never a formula), characters a worksheet cannot
hold are shown as control pictures, and the file is owner-only. Cells keep their types:
integers, floats, booleans and times are numbers, dates and booleans in Excel, not text. Excel
has no time zones, so aware times are written as the wall-clock time of their own zone (the
column's zone is named in the ``about`` sheet); categoricals become text. Excel keeps one kind
of number, so a float column whose values are all whole reads back as integers (equal
values); float columns are shown with two decimals. The first sheet, ``about``, holds the
coverage note, the time zones and the result's numbers.
"""

from __future__ import annotations

from .._tabular import write_excel as to_excel

__all__ = ["to_excel"]
