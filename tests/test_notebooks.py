"""Every audit and explore notebook: one parameters cell, a ``# help`` per line, papermill help,
and the outputs of the pinned demo organization committed and fresh (``./run tests`` compares
them with a new execution through nbval)."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import nbformat
import papermill
import pytest
from click.testing import CliRunner
from papermill.cli import papermill as papermill_command

from chatops import audit as pipeline
from chatops.audits import AUDITS, PLAN_COLUMNS, parse_as_of
from tests.refresh_notebooks import refresh, sources_digest

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks" / "audits"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
REQUIRED = {"zuliprc", "site", "as_of", "report_dir"}
SANITIZE = NOTEBOOKS_DIR.parent / "nbval-sanitize.cfg"


def test_there_are_audit_notebooks_and_each_has_an_audit() -> None:
    assert NOTEBOOKS
    assert {p.stem for p in NOTEBOOKS} == set(AUDITS)
    assert pipeline.available_audits() == {p.stem: p for p in NOTEBOOKS}


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
#: the report notebooks (``chatops report analytics --notebook``), held to the same rules
REPORTS = sorted((NOTEBOOKS_DIR.parent / "reports").glob("*.ipynb"))


def test_there_is_a_report_notebook() -> None:
    assert [p.stem for p in REPORTS] == ["analytics"]


@pytest.mark.parametrize("path", NOTEBOOKS + EXPLORE + REPORTS, ids=lambda p: p.stem)
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


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_after_its_findings_a_notebook_shows_what_a_plan_would_do(path: Path) -> None:
    """Audits only read: a notebook offers no ``dry_run``; it shows the calls a plan of its
    findings would hold, and says that ``chatops audit plan`` / ``apply`` carry them out."""
    nb = nbformat.read(path, as_version=4)
    sources = [c.source for c in nb.cells]
    assert not [s for s in sources if "dry_run" in s or "dry run" in s]
    findings = sources.index("result.findings")
    words, table = sources[findings + 1], sources[findings + 2]
    assert "`chatops audit plan`" in words and "`chatops audit apply`" in words
    assert table == "plan_calls(result)"
    (shown,) = [o for o in nb.cells[findings + 2].outputs if o.output_type == "execute_result"]
    assert all(f"<th>{c}</th>" in shown.data["text/html"] for c in PLAN_COLUMNS)


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
    # papermill's own command, run in this process (a new one would spend its time importing)
    answer = CliRunner().invoke(papermill_command, ["--help-notebook", str(path)])
    assert answer.exit_code == 0, answer.output
    out = answer.output
    for name, spec in papermill.inspect_notebook(str(path)).items():
        assert f"  {name}:" in out
        assert spec["help"] in " ".join(out.split())


@pytest.mark.parametrize("path", EXPLORE + REPORTS, ids=lambda p: p.stem)
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


# -- figures: every view cell shows one -------------------------------------------------------

#: the tag of a cell that shows one of the ten analytics views (its output must hold a figure)
VIEW_TAG = "view"
PNG = b"\x89PNG\r\n\x1a\n"


def view_cells_without_image(nb: Any) -> list[str]:
    """The first line of every cell tagged ``view`` whose outputs hold no PNG image."""
    missing = []
    for cell in nb.cells:
        if VIEW_TAG not in cell.metadata.get("tags", []):
            continue
        images = [
            o.data["image/png"] for o in cell.get("outputs", []) if "image/png" in o.get("data", {})
        ]
        if not any(base64.b64decode(img).startswith(PNG) for img in images):
            missing.append(cell.source.splitlines()[0])
    return missing


def view_calls(nb: Any) -> list[str]:
    """The analytics view each ``view`` cell calls, in order."""
    calls = []
    for cell in nb.cells:
        if VIEW_TAG in cell.metadata.get("tags", []):
            calls += re.findall(r"analytics\.(\w+)\(", cell.source)
    return calls


def test_view_cells_are_found_and_an_imageless_one_is_caught() -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("r = analytics.active_users(m)\nr"),
        nbformat.v4.new_code_cell("print(1)"),
    ]
    nb.cells[0].metadata["tags"] = [VIEW_TAG]
    nb.cells[0].outputs = [
        nbformat.v4.new_output("execute_result", data={"text/plain": "ActiveUsers (...)"})
    ]
    assert view_cells_without_image(nb) == ["r = analytics.active_users(m)"]
    png = base64.b64encode(PNG + b"rest").decode()
    nb.cells[0].outputs = [nbformat.v4.new_output("display_data", data={"image/png": png})]
    assert view_cells_without_image(nb) == []
    assert view_calls(nb) == ["active_users"]


@pytest.mark.parametrize("path", NOTEBOOKS + EXPLORE + REPORTS, ids=lambda p: p.stem)
def test_committed_view_cells_show_a_figure(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    assert view_cells_without_image(nb) == []
    if path in EXPLORE:  # the ten views, each in its own cell, in order
        assert view_calls(nb) == list(ANALYTICS_VIEWS)


@pytest.mark.parametrize("path", EXPLORE, ids=lambda p: p.stem)
def test_freshly_executed_view_cells_show_a_figure(path: Path, tmp_path: Path) -> None:
    target = tmp_path / path.name
    refresh(path, target)
    nb = nbformat.read(target, as_version=4)
    assert view_calls(nb) == list(ANALYTICS_VIEWS)
    assert view_cells_without_image(nb) == []
    # the sync's bar is saved as its last line (a saved notebook keeps no widget state)
    (sync,) = [c for c in nb.cells if "Dataset.sync(" in c.source]
    shown = [o.data["text/plain"] for o in sync.outputs if "text/plain" in o.get("data", {})]
    assert len(shown) == 1 and not any("widget-view" in str(o) for o in sync.outputs), shown
    done = re.fullmatch(r"sync: 100%\|.*\| (\d+)/(\d+) \[.*msg/s\]", shown[0])
    assert done and done[1] == done[2] and int(done[1]) > 0, shown


ANALYTICS_VIEWS = (
    "messages_over_time",
    "active_users",
    "channel_scorecard",
    "topic_lifecycle",
    "participation_distribution",
    "activity_heatmap",
    "newcomer_cohorts",
    "reactions_and_engagement",
    "client_and_dm_mix",
    "interaction_graph",
)


@pytest.mark.parametrize("path", NOTEBOOKS + EXPLORE + REPORTS, ids=lambda p: p.stem)
def test_a_committed_notebook_renders_to_html(path: Path) -> None:
    """An analyst's ``jupyter nbconvert --to html`` works on the notebook as committed."""
    from nbconvert import HTMLExporter

    html, _ = HTMLExporter().from_notebook_node(nbformat.read(path, as_version=4))
    assert "<html" in html and len(html) > 10_000
