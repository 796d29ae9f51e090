"""Every audit and explore notebook: one parameters cell, a ``# help`` per line, papermill help,
and the outputs of the pinned demo organization committed and fresh (``./run tests`` compares
them with a new execution through nbval)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import papermill
import pytest

from chatops import runner
from chatops.audits import AUDITS, parse_as_of
from tests.refresh_notebooks import refresh, sources_digest

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks" / "audits"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
REQUIRED = {"zuliprc", "site", "as_of", "report_dir"}
SANITIZE = NOTEBOOKS_DIR.parent / "nbval-sanitize.cfg"


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
    # the committed outputs are those of the demo generated for a pinned moment
    assert parse_as_of(params["as_of"]["default"].strip('"')) is not None


EXPLORE = sorted((NOTEBOOKS_DIR.parent / "explore").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS + EXPLORE, ids=lambda p: p.stem)
def test_committed_notebook_has_fresh_outputs(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    # made by `python -m tests.refresh_notebooks` from the sources as they are now
    assert nb.metadata.get("chatops", {}).get("sources_sha256") == sources_digest(nb), (
        f"{path.name} changed since its outputs were made: python -m tests.refresh_notebooks"
    )
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    for cell in code:
        kinds = [o.output_type for o in cell.outputs]
        assert "error" not in kinds, cell.source
        if "nbval-ignore-output" in cell.metadata.get("tags", []):
            assert "nbval-ignore-output" in cell.source, "say in the cell why it is not compared"
            continue  # e.g. a progress bar, on stderr
        assert not [o for o in cell.outputs if o.get("name") == "stderr"], cell.source
        if path in NOTEBOOKS and ("open_session(" in cell.source or cell is code[-1]):
            assert cell.outputs, f"no output committed for: {cell.source[:80]!r}"  # result, summary


def test_sanitize_file_has_patterns() -> None:
    from nbval.plugin import get_sanitize_patterns

    patterns = get_sanitize_patterns(SANITIZE.read_text(encoding="utf-8"))
    assert len(patterns) >= 4
    joined = "\n".join(r for r, _ in patterns)
    for probe in ("http://127.0.0.1:40123", "/tmp/chatops-sandbox-x1/a", "2026-06-01T12:00:00Z"):
        assert any(re.search(r, probe) for r, _ in patterns), (probe, joined)


def test_refreshing_a_notebook_twice_writes_the_same_bytes(tmp_path: Path) -> None:
    source = NOTEBOOKS_DIR / "invitations.ipynb"
    first, second = tmp_path / "first.ipynb", tmp_path / "second.ipynb"
    refresh(source, first)
    refresh(source, second)
    assert first.read_bytes() == second.read_bytes()
    executed = nbformat.read(first, as_version=4)
    assert [c for c in executed.cells if c.cell_type == "code"][1].outputs


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


@pytest.mark.parametrize("path", EXPLORE, ids=lambda p: p.stem)
def test_explore_notebook_parameters(path: Path) -> None:
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
    assert parse_as_of(params["as_of"]["default"].strip('"')) is not None
