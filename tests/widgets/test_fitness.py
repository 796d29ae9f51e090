"""The shape the panels keep: views hold their models (no widget class inherits a model class),
models import no widget library, no TYPE_CHECKING stand-ins, and no module or function grows
past what a reader takes in.

The two kinds of module are told apart by their imports, which makes the rule exact: a *widget
module* of ``widgets/`` imports a widget library (ipywidgets, anywidget, itables) or another
widget module, at run time; every other module is a *model module*, and a *model class* is a
class defined in a model module. ``_model.py`` and every ``*_model.py`` must be model modules.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import warnings
from pathlib import Path

import pytest

import chatops
import chatops.widgets

WIDGETS = Path(chatops.widgets.__file__).parent
SOURCES = sorted(WIDGETS.glob("*.py"))
WIDGET_LIBRARIES = {"ipywidgets", "anywidget", "itables"}
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 120


def _name(path: Path) -> str:
    return "chatops.widgets" if path.stem == "__init__" else f"chatops.widgets.{path.stem}"


def _run_time_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement that runs (in functions too), not those under TYPE_CHECKING."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _imports(path: Path) -> tuple[set[str], set[str]]:
    """(top-level libraries, sibling modules of widgets/) that ``path`` imports at run time."""
    libraries: set[str] = set()
    siblings: set[str] = set()
    for node in _run_time_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            libraries |= {a.name.split(".")[0] for a in node.names}
        elif node.level == 1 and node.module:
            siblings.add(node.module.split(".")[0])
        elif node.level == 0 and node.module:
            libraries.add(node.module.split(".")[0])
            if node.module.startswith("chatops.widgets."):
                siblings.add(node.module.split(".")[2])
    return libraries, siblings


def widget_modules() -> set[str]:
    """The module names (``chatops.widgets.x``) of the widget side; the rest is the model side."""
    imports = {path.stem: _imports(path) for path in SOURCES}
    widget = {stem for stem, (libs, _s) in imports.items() if libs & WIDGET_LIBRARIES}
    while True:
        more = {stem for stem, (_l, sibs) in imports.items() if sibs & widget} - widget
        if not more:
            return {_name(WIDGETS / f"{stem}.py") for stem in widget}
        widget |= more


WIDGET_MODULES = widget_modules()
MODEL_MODULES = {_name(path) for path in SOURCES} - WIDGET_MODULES


def _classes(module_name: str) -> list[type]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # the old module names say so
        module = importlib.import_module(module_name)
    return [
        c for _n, c in inspect.getmembers(module, inspect.isclass) if c.__module__ == module_name
    ]


def test_the_rule_sorts_the_modules_as_meant() -> None:
    assert {"chatops.widgets._base", "chatops.widgets._controls"} <= WIDGET_MODULES
    assert {"chatops.widgets.console", "chatops.widgets.explorer"} <= WIDGET_MODULES
    assert {"chatops.widgets._model", "chatops.widgets._people"} <= MODEL_MODULES
    models = {_name(p) for p in SOURCES if p.stem == "_model" or p.stem.endswith("_model")}
    assert len(models) >= 6
    assert models <= MODEL_MODULES, "a *_model.py module imports widgets"


def test_no_widget_class_inherits_from_a_model_class() -> None:
    inherited = [
        f"{cls.__module__}.{cls.__qualname__} inherits {base.__module__}.{base.__qualname__}"
        for module in sorted(WIDGET_MODULES)
        for cls in _classes(module)
        for base in cls.__mro__[1:]
        if base.__module__ in MODEL_MODULES
    ]
    assert inherited == []


def test_every_panel_holds_its_model() -> None:
    from chatops.widgets import PANELS

    client = chatops.Client(site="http://127.0.0.1:9", email="a@example.org", api_key="k")
    try:
        for panel_class in PANELS:
            panel = panel_class(client, background=False)  # made without a request
            model = getattr(panel, "model", None)
            assert model is not None, panel_class.__name__
            assert type(model).__module__ in MODEL_MODULES, panel_class.__name__
            assert type(model).__module__.endswith("_model"), panel_class.__name__
    finally:
        client.close()


def test_no_type_checking_stand_ins() -> None:
    """Only the package's lazy __init__ names its panels for type checkers alone."""
    found = [
        path.name
        for path in SOURCES
        if path.stem != "__init__" and "TYPE_CHECKING" in path.read_text(encoding="utf-8")
    ]
    assert found == []


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_modules_and_functions_stay_short(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_MODULE_LINES
    long = [
        f"{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


def test_the_rules_catch_what_they_are_for(tmp_path: Path) -> None:
    """The import rule sees a widget library imported in a function, and the sizes count."""
    made = tmp_path / "made.py"
    made.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import ipywidgets\n"
        "def show():\n    import anywidget\n    from ._base import Panel\n"
    )
    libraries, siblings = _imports(made)
    assert libraries == {"typing", "anywidget"} and siblings == {"_base"}
