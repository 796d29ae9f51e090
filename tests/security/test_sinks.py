"""Output encoding belongs to the sink: one tabular writer, one terminal printer. These tests
fail when code elsewhere in the package writes CSV or Excel itself, or prints."""

from __future__ import annotations

import ast
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "chatops"
TABULAR = PACKAGE / "_tabular.py"
TERMINAL = PACKAGE / "_terminal.py"


def _calls(skip: Path) -> list[tuple[Path, ast.Call]]:
    found = []
    # followlinks: chatops/widgets is a link to the repository's widgets/
    every = (Path(d) / n for d, _s, ns in os.walk(PACKAGE, followlinks=True) for n in ns)
    for path in sorted(p for p in every if p.suffix == ".py"):
        if path == skip:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        found += [(path, node) for node in ast.walk(tree) if isinstance(node, ast.Call)]
    return found


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}"


def test_only_the_tabular_writer_writes_csv_or_excel() -> None:
    writers = {"to_csv", "to_excel", "ExcelWriter", "writer", "DictWriter"}
    offending = []
    for path, call in _calls(TABULAR):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        owner = func.value if isinstance(func, ast.Attribute) else None
        if name not in writers:
            continue
        # a view's own to_csv / to_excel (they call the writer) are fine when called on a
        # result, not on a pandas frame: what matters is who makes the file's bytes
        if name in ("writer", "DictWriter") and not (
            isinstance(owner, ast.Name) and owner.id == "csv"
        ):
            continue
        offending.append(_where(path, call))
    allowed = {
        # ViewResult.to_excel delegates to the writer; Explorer.export_excel calls a result's
        "chatops/widgets/explorer.py",
    }
    assert [o for o in offending if o.split(":")[0] not in allowed] == []


def test_only_the_terminal_printer_prints() -> None:
    offending = [
        _where(path, call)
        for path, call in _calls(TERMINAL)
        if isinstance(call.func, ast.Name) and call.func.id == "print"
    ]
    assert offending == []
