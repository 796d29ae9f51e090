"""Every tabular export over the hostile organization (tests/hostile.py): each view's Excel and
CSV files, the search results, the Explorer's Export Excel, the console's Export CSV and
``chatops data export --format csv``. Read back, none holds a formula cell; none failed on a
character a worksheet cannot hold; every file is its owner's only."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.analytics import Dataset, views
from chatops.analytics.text import search_messages
from chatops.sandbox import Sandbox
from chatops.widgets import Explorer, UserGroupsPanel
from chatops.widgets.explorer import VIEWS
from tests.hostile import (
    FORMULA,
    Planted,
    formula_cells_in_csv,
    formula_cells_in_workbook,
    plant,
)
from tests.test_cli import chatops as chatops_cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Sandbox, Planted]]:
    with Sandbox.start(tmp_path_factory.mktemp("hostile-org"), size="small", seed=5) as sb:
        yield sb, plant(sb)


@pytest.fixture(scope="module")
def ds(org: tuple[Sandbox, Planted], tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    folder = tmp_path_factory.mktemp("hostile-data") / "cache"
    return Dataset.sync(org[0].zuliprc("admin"), cache=folder, content=True, progress=False)


def _owner_only(path: Path) -> bool:
    return stat.S_IMODE(os.stat(path).st_mode) == 0o600


def _csv(path: Path) -> list[str]:
    return formula_cells_in_csv(path.read_bytes().decode("utf-8"))


def test_the_planted_names_are_in_the_dataset(ds: Dataset, org: tuple[Sandbox, Planted]) -> None:
    frames = ds.frames(content=True)
    names = set(frames.users["full_name"].astype(str))
    assert set(org[1].people.values()) <= names
    assert FORMULA[0] in set(frames.messages["topic"].astype(str))


@pytest.mark.parametrize("name", list(VIEWS))
def test_every_view_exports_to_excel_and_csv_without_a_formula(
    name: str, ds: Dataset, tmp_path: Path
) -> None:
    frames = ds.frames(content=True)
    result = getattr(views, name)(
        frames.messages,
        **{
            k: getattr(frames, k)
            for k in ("users", "channels", "subscriptions", "reactions", "user_groups", "topics")
            if k in _parameters(name)
        },
    )
    book = result.to_excel(tmp_path / f"{name}.xlsx")
    assert formula_cells_in_workbook(book) == [] and _owner_only(book)
    for path in result.to_csv(tmp_path / "csv"):
        assert _csv(path) == [], path
        assert _owner_only(path)


def _parameters(name: str) -> set[str]:
    import inspect

    return set(inspect.signature(getattr(views, name)).parameters)


def test_search_results_export_without_a_formula(ds: Dataset, tmp_path: Path) -> None:
    frames = ds.frames(content=True)
    found = search_messages(frames.messages, "img", users=frames.users)
    assert len(found.frame)
    book = found.to_excel(tmp_path / "search.xlsx")
    assert formula_cells_in_workbook(book) == []


def test_the_explorer_exports_every_view_and_the_search(ds: Dataset, tmp_path: Path) -> None:
    explorer = Explorer(ds, export_dir=tmp_path / "exports")
    explorer.render_all()
    for name in VIEWS:
        book = explorer.export_excel(name)
        assert formula_cells_in_workbook(book) == [], name
        assert _owner_only(book)
    assert len(explorer.search("img"))
    book = explorer.export_excel("search")
    assert formula_cells_in_workbook(book) == []
    assert not explorer.error.value
    assert stat.S_IMODE((tmp_path / "exports").stat().st_mode) == 0o700


def test_the_console_export_csv_holds_no_formula(
    org: tuple[Sandbox, Planted], tmp_path: Path
) -> None:
    with chatops.Client.from_zuliprc(org[0].zuliprc("admin")) as admin:
        panel = UserGroupsPanel(admin, background=False, export_dir=tmp_path / "exports").load()
        try:
            shown = set(panel.groups_table.frame["Group"].astype(str))
            assert set(org[1].groups) <= shown
            path = panel.groups_table.export()
        finally:
            panel.close()
    assert _csv(path) == [] and _owner_only(path)
    assert "'" + FORMULA[3] in path.read_bytes().decode("utf-8")
    # the download link carries the same text
    link = panel.groups_table.export_link.value
    assert "base64," in link


def test_data_export_csv_holds_no_formula(ds: Dataset, tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = chatops_cli(
        "data", "export", "--format", "csv", "--cache", str(ds.cache), "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    files = sorted(out.glob("*.csv"))
    assert {p.name for p in files} >= {"messages.csv", "users.csv", "channels.csv"}
    for path in files:
        assert _csv(path) == [], path
        assert _owner_only(path)
