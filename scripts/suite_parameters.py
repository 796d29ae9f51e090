"""Write the audit parameters into the audit-suite notebook's parameters cell:
``python scripts/suite_parameters.py`` (``--check``: exit 1 when they differ).

The suite notebook (``notebooks/scheduled/audit_suite.ipynb``) declares its own parameters,
then each parameter any audit declares, ``None`` by default (each audit's own default), as
:func:`chatops.jupyter.scheduled.suite_parameters_source` writes them. Run it after adding or
changing an audit's parameter; tests/test_schedule.py checks that they agree.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

from chatops.jupyter.scheduled import SCHEDULED, SUITE_OWN_PARAMETERS, suite_parameters_source

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / SCHEDULED["audit-suite"].path


def main(argv: list[str]) -> int:
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    cell = next(c for c in notebook.cells if "parameters" in c.metadata.get("tags", []))
    own = [line for line in cell.source.splitlines() if line.split(":")[0] in SUITE_OWN_PARAMETERS]
    source = "\n".join([*own, suite_parameters_source()])
    if source == cell.source:
        return 0
    if "--check" in argv:
        print(f"{NOTEBOOK}: the audit parameters differ; run python scripts/suite_parameters.py")
        return 1
    cell.source = source
    nbformat.write(notebook, NOTEBOOK)
    print(f"wrote {NOTEBOOK}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
