"""The two sinks that hostile text reaches first, each with every payload family: the tabular
writer (CSV and Excel) and the terminal printer."""

from __future__ import annotations

import csv
import io
import os
import stat
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

from chatops._tabular import csv_text, excel_text, neutralise, write_csv, write_excel
from chatops._terminal import printable, say
from tests.hostile import (
    ESCAPE,
    FORMULA,
    HTML,
    LONG_TEXT,
    formula_cells_in_csv,
    formula_cells_in_workbook,
    raw_terminal_characters,
    texts,
)

CELLS = [*texts(), "\t=1+1", "\r=1+1", "#N/A", "#DIV/0!", "nul\x00here", LONG_TEXT * 4]


def _frame() -> pd.DataFrame:
    n = len(CELLS)
    return pd.DataFrame(
        {
            "text": CELLS,
            "category": pd.Categorical(CELLS),
            "number": [(-1) ** i * i for i in range(n)],
            "ratio": [-0.25] * n,
            "when": pd.date_range("2026-01-01", periods=n, freq="D", tz="Europe/Berlin"),
            FORMULA[1]: ["x"] * n,  # a column named by a member (a channel, a person)
        }
    )


def test_csv_cells_never_start_a_formula_and_numbers_stay_numbers(tmp_path: Path) -> None:
    path = write_csv(_frame(), tmp_path / "t.csv")
    text = path.read_bytes().decode("utf-8")
    assert formula_cells_in_csv(text) == []
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0][-1] == "'" + FORMULA[1]
    by_name = dict(zip(rows[0], zip(*rows[1:], strict=True), strict=True))
    assert by_name["text"][0] == CELLS[0]  # markup is not a formula: written as it is
    assert "'" + FORMULA[0] in by_name["text"] and "'" + FORMULA[0] in by_name["category"]
    assert by_name["number"][1] == "-1" and by_name["ratio"][0] == "-0.25"
    assert csv_text(_frame()) == text
    # a line break inside a cell is quoted: it cannot begin a row (and a formula) of its own
    assert '"\'\r=1+1"' in text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_csv_keeps_a_named_index_as_columns(tmp_path: Path) -> None:
    table = pd.DataFrame({"n": [1, 2]}, index=pd.Index(["=a", "b"], name="channel"))
    written = write_csv(table, tmp_path / "i.csv", index=True)
    rows = list(csv.reader(io.StringIO(written.read_bytes().decode())))
    assert rows == [["channel", "n"], ["'=a", "1"], ["b", "2"]]


def test_neutralise_only_prefixes_formula_starts() -> None:
    assert [neutralise(t) for t in ("=1", "+1", "-1", "@a", "\t", "\r", "a=1", "")] == [
        "'=1",
        "'+1",
        "'-1",
        "'@a",
        "'\t",
        "'\r",
        "a=1",
        "",
    ]


def test_workbooks_hold_no_formula_and_every_payload_reads_back(tmp_path: Path) -> None:
    path = write_excel({"cells": _frame(), FORMULA[0]: _frame()}, tmp_path / "t", note=ESCAPE[0])
    assert path.suffix == ".xlsx" and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert formula_cells_in_workbook(path) == []
    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[1]
    values = [c.value for c in sheet["A"][1:]]
    # text reads back as it was written, controls shown as their pictures, cut past the limit
    assert values[: len(texts())] == [excel_text(t) for t in texts()]
    assert values[CELLS.index("nul\x00here")] == "nul\u2400here"
    assert len(values[-1]) == 32_767 and values[-1].endswith("…")
    assert "\u241b[2K" in book["about"]["B2"].value  # the note's ESC, visible
    assert [c.value for c in sheet[1]][-1] == FORMULA[1]  # the column name is text
    assert sheet.title != FORMULA[0]  # a sheet name holds no formula characters it cannot


def test_excel_text_shows_what_a_worksheet_cannot_hold() -> None:
    assert excel_text("a\x1bb\x00c\x07d\te\nf") == "a\u241bb\u2400c\u2407d\te\nf"


@pytest.mark.parametrize("payload", [*ESCAPE, "a\nforged line", "x\u202ey", "\x9b31m", "z\x7f"])
def test_the_terminal_shows_every_control_escaped(
    payload: str, capsys: pytest.CaptureFixture[str]
) -> None:
    say(f"will run  DELETE /users/6  ({payload})")
    out = capsys.readouterr().out
    assert raw_terminal_characters(out) == []
    assert out.count("\n") == 1  # one line: a line break in a name cannot forge another
    assert printable(payload) in out


def test_printable_writes_escapes_as_python_does() -> None:
    assert printable("a\x1b[2Kb\n\t\u202ec\u2066") == "a\\x1b[2Kb\\n\\t\\u202ec\\u2066"
    assert printable(HTML[0]) == HTML[0]  # markup is no danger to a terminal
