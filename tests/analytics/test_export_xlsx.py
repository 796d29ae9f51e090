"""``chatops data export --format xlsx``: one workbook, typed cells, members' text never a formula."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import openpyxl
import pandas as pd
import pytest

import chatops
from chatops import _tabular
from chatops._tabular import EXCEL_ROW_LIMIT, write_excel
from chatops.analytics import Dataset
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error
from tests.test_cli import chatops as run_chatops

#: text a spreadsheet would run as a formula if it were written as one (OWASP's starts)
HOSTILE = ['=HYPERLINK("http://x","y")', "+1", "-2", "@SUM(A1)", "=1+1"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dataset]:
    """A dataset of an organization whose topics and messages hold formula-like text."""
    folder = tmp_path_factory.mktemp("xlsx")
    with Sandbox.start(folder / "sandbox", size="small", seed=5) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("member")) as client:
            for text in HOSTILE:
                client.messages.send_to_channel("general", text, text)
        yield Dataset.sync(
            sb.zuliprc("admin"), cache=folder / "dataset", progress=False, content=True
        )


def _sheet(wb: openpyxl.Workbook, name: str) -> tuple[dict[str, int], list[tuple[object, ...]]]:
    ws = wb[name]
    header = [c.value for c in ws[1]]
    return {str(h): i for i, h in enumerate(header)}, list(ws.iter_rows(min_row=2))


def test_the_workbook_keeps_members_text_as_text_and_cells_typed(
    hostile: Dataset, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    proc = run_chatops(
        "data", "export", "--cache", str(hostile.cache), "--format", "xlsx", "--out", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out / "dataset.xlsx")
    wb = openpyxl.load_workbook(out / "dataset.xlsx")
    frames = hostile.frames(content=True)
    assert wb.sheetnames[0] == "about"
    assert all(len(s) <= 31 for s in wb.sheetnames)
    assert {"messages", "reactions", "edits", "topics", "users", "channels"} <= set(wb.sheetnames)
    about = {row[0]: row[1] for row in wb["about"].iter_rows(min_row=2, values_only=True)}
    assert about["messages.timestamp"] == "times in UTC"
    cols, rows = _sheet(wb, "messages")
    assert len(rows) == len(frames.messages)
    found = {}
    for row in rows:
        topic, content = row[cols["topic"]], row[cols["content"]]
        if topic.value in HOSTILE:
            # a string cell holding the text as typed, never a formula
            assert topic.data_type == "s" and content.data_type == "s", topic.value
            assert content.value == topic.value
            found[topic.value] = row
    assert set(found) == set(HOSTILE)
    # the quote prefix keeps a cell text when someone edits it in Excel
    assert all(r[cols["topic"]].quotePrefix for r in found.values())  # type: ignore[attr-defined]
    by_id = frames.messages.set_index("id")
    for row in found.values():
        mid = row[cols["id"]].value
        assert isinstance(mid, int)
        stamp = row[cols["timestamp"]].value
        assert isinstance(stamp, datetime) and stamp.tzinfo is None
        # the wall-clock time in UTC, to the second
        assert pd.Timestamp(stamp).tz_localize("UTC") == by_id.loc[mid, "timestamp"].floor("s")
        assert isinstance(row[cols["content_length"]].value, int)
        assert isinstance(row[cols["is_edited"]].value, bool)
        assert row[cols["sender"]].data_type == "s"
    tcols, trows = _sheet(wb, "topics")
    topics = {r[tcols["topic"]].value: r for r in trows}
    for text in HOSTILE:
        assert topics[text][tcols["topic"]].data_type == "s"
        assert isinstance(topics[text][tcols["messages"]].value, int)
        assert isinstance(topics[text][tcols["resolved"]].value, bool)
    ucols, urows = _sheet(wb, "users")
    assert all(isinstance(r[ucols["date_joined"]].value, datetime) for r in urows)


def test_a_pseudonymised_workbook(
    hostile: Dataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATOPS_PSEUDONYM_KEY", "k" * 40)
    out = hostile.export(tmp_path / "shared", format="xlsx", pseudonymise=True)
    wb = openpyxl.load_workbook(out[0])
    cols, rows = _sheet(wb, "messages")
    assert "content" not in cols and "sender" not in cols
    assert all(str(r[cols["sender_id"]].value).startswith("u-") for r in rows)
    about = [row[1] for row in wb["about"].iter_rows(min_row=2, values_only=True)]
    assert about[0].startswith("pseudonymised copy of http://127.0.0.1:")  # no account named


def test_a_table_longer_than_a_sheet_is_refused_before_anything_is_written(
    hostile: Dataset, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = pd.DataFrame({"n": pd.Series(range(EXCEL_ROW_LIMIT), dtype="int32")})
    with pytest.raises(ValueError, match=r"big has 1,048,576 rows.*1,048,575.*CSV or Parquet"):
        write_excel({"big": big}, tmp_path / "big.xlsx")
    assert list(tmp_path.iterdir()) == []
    # one row fewer fits under the header row (checked as write_excel checks it, first: writing
    # a million rows would only time openpyxl)
    assert _tabular.check_excel_rows({"fits": big.iloc[1:]}) is None
    # the dataset's export checks every frame before it makes the folder
    monkeypatch.setattr(_tabular, "EXCEL_ROW_LIMIT", len(hostile.frames().messages))
    with pytest.raises(ValueError, match="^messages has"):
        hostile.export(tmp_path / "out", format="xlsx")
    assert not (tmp_path / "out").exists()


def test_bad_export_arguments(hostile: Dataset, tmp_path: Path) -> None:
    _one_line_error(
        run_chatops(
            "data", "export", "--cache", str(hostile.cache), "--format", "xls", "--out", "x"
        ),
        "--format",
        "xlsx",
    )
