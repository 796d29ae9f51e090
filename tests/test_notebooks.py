"""Every audit notebook: one parameters cell, a ``# help`` per line, no outputs, papermill help."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import papermill
import pytest

from chatops import runner
from chatops.audits import AUDITS

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks" / "audits"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
REQUIRED = {"zuliprc", "site", "report_dir"}


def test_there_are_audit_notebooks_and_each_has_an_audit() -> None:
    assert NOTEBOOKS
    assert {p.stem for p in NOTEBOOKS} == set(AUDITS)
    assert runner.available_audits() == {p.stem: p for p in NOTEBOOKS}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_one_parameters_cell_with_help_on_every_line(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1
    lines = [line for line in cells[0].source.splitlines() if line.strip()]
    for line in lines:
        code, sep, help_text = line.partition("#")
        assert "=" in code and sep and help_text.strip(), f"no '# help' on: {line!r}"
    params = papermill.inspect_notebook(str(path))
    assert REQUIRED <= set(params)
    assert len(params) == len(lines)
    for name, spec in params.items():
        assert spec["help"], name
        assert spec["inferred_type_name"] in {"str", "int", "float", "bool"}, name
        assert "key" not in name.lower(), "a notebook must never take an API key parameter"
    # sandbox-safe defaults: no server, no credentials, no report folder
    assert params["zuliprc"]["default"] == '""'
    assert params["site"]["default"] == '""'


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_has_no_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_papermill_help_lists_every_parameter_with_its_help(path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "papermill", "--help-notebook", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    for name, spec in papermill.inspect_notebook(str(path)).items():
        assert f"  {name}:" in out
        assert spec["help"] in " ".join(out.split())


EXPLORE = sorted((NOTEBOOKS_DIR.parent / "explore").glob("*.ipynb"))


@pytest.mark.parametrize("path", EXPLORE, ids=lambda p: p.stem)
def test_explore_notebook_parameters_and_no_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1
    lines = [line for line in cells[0].source.splitlines() if line.strip()]
    for line in lines:
        code, sep, help_text = line.partition("#")
        assert "=" in code and sep and help_text.strip(), f"no '# help' on: {line!r}"
    params = papermill.inspect_notebook(str(path))
    assert {"zuliprc", "site", "cache"} <= set(params)
    assert len(params) == len(lines)
    for name, spec in params.items():
        assert spec["help"], name
        assert "key" not in name.lower(), "a notebook must never take an API key parameter"
    # the sandbox demo organization by default: no server, no credentials
    assert params["zuliprc"]["default"] == '""' and params["site"]["default"] == '""'
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
