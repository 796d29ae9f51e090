"""Re-execute the audit, explore and report notebooks and rewrite their committed outputs.

::

    .venv/bin/python -m tests.refresh_notebooks            # notebooks/audits/, explore/, reports/
    .venv/bin/python -m tests.refresh_notebooks bots uploads organization

Each notebook runs as committed: its parameters cell pins ``as_of``, so the demo sandbox it
starts is generated for that moment and its clock starts there, and the outputs are those of
the seeded demo organization on any day. ``./run tests`` then compares every notebook's fresh
outputs with these (nbval, with ``notebooks/nbval-sanitize.cfg`` for what no seed fixes:
ports, temporary paths, wall-clock times and durations).

The file written depends only on the notebook and the organization: timing metadata is left
out and execution counts run from 1, so refreshing twice leaves ``git diff`` empty. Run it
after changing an audit, a notebook or the demo organization, and commit the notebooks.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from chatops import audit as pipeline
from chatops.audit import available_audits
from chatops.audits import AUDIT_FUNCTIONS
from chatops.audits._params import parameters_cell

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks" / "audits"
EXPLORE_DIR = NOTEBOOKS_DIR.parent / "explore"
REPORTS_DIR = NOTEBOOKS_DIR.parent / "reports"
#: seconds a cell may take (a demo sandbox starts in the first one)
CELL_TIMEOUT = 600


def write_parameters_cells(folder: str | None = None) -> list[str]:
    """Rewrite the parameters cell of every audit notebook from its function's signature;
    returns the names of the notebooks changed."""
    changed: list[str] = []
    notebooks = {p.stem: p for p in Path(folder).glob("*.ipynb")} if folder else available_audits()
    for name, path in notebooks.items():
        if name not in AUDIT_FUNCTIONS:
            continue
        nb = json.loads(path.read_text(encoding="utf-8"))
        source = parameters_cell(AUDIT_FUNCTIONS[name]).splitlines(keepends=True)
        for cell in nb["cells"]:
            if (
                "parameters" in cell.get("metadata", {}).get("tags", [])
                and cell["source"] != source
            ):
                cell["source"] = source
                path.write_text(
                    json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
                )
                changed.append(name)
    return changed


def sources_digest(nb: Any) -> str:
    """A digest of every cell's type and source: what the committed outputs were made from."""
    cells = [[cell.cell_type, cell.source] for cell in nb.cells]
    return hashlib.sha256(json.dumps(cells, ensure_ascii=False).encode()).hexdigest()


def refresh(path: Path, target: Path | None = None) -> None:
    """Execute ``path`` in a fresh kernel of this interpreter; write it, outputs and all, back
    (or to ``target``), with the digest of its sources in ``metadata.chatops``."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name=pipeline.runner.KERNEL_NAME,
        kernel_manager_class=pipeline.runner._current_python_kernel_manager(),
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,
    )
    client.execute()
    normalise(nb)
    nb.metadata["chatops"] = {"sources_sha256": sources_digest(nb)}
    (target or path).write_text(nbformat.writes(nb) + "\n", encoding="utf-8")


def normalise(nb: Any) -> None:
    """Drop what changes from one execution to the next but is not an output."""
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        for output in cell.outputs:
            output.get("metadata", {}).pop("execution", None)
    nb.metadata.pop("papermill", None)
    # widget state is not an output; an empty "widgets" entry makes nbconvert fail
    nb.metadata.pop("widgets", None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.refresh_notebooks", description=__doc__.splitlines()[0]
    )
    parser.add_argument("names", nargs="*", help="notebooks to refresh (default: all)")
    args = parser.parse_args(argv)
    every = {
        p.stem: p
        for p in [
            *sorted(NOTEBOOKS_DIR.glob("*.ipynb")),
            *sorted(EXPLORE_DIR.glob("*.ipynb")),
            *sorted(REPORTS_DIR.glob("*.ipynb")),
        ]
    }
    unknown = [n for n in args.names if n not in every]
    if unknown:
        parser.error(f"no notebook {', '.join(unknown)}; choose from {', '.join(every)}")
    # the parameters cells first: they are generated from the audit functions' signatures
    for name in write_parameters_cells():
        print(f"{name}: parameters cell rewritten from {name}()'s signature", file=sys.stderr)
    for name in args.names or list(every):
        started = time.monotonic()
        refresh(every[name])
        print(f"{name}: {time.monotonic() - started:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
