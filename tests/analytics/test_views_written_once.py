"""Each view's aggregation is written once: one SQL definition (its ``_sql``, in DuckDB's
dialect), which DuckDB runs as it is (over frames in memory and over a dataset's folder) and
Spark runs as sqlglot translates it; the engines hold no view's logic and the views hold no
engine's.

These checks read the source, so a second body for one engine fails here however it is added:
a view function that computes its result (a pandas body beside its SQL), a branch on the
engine's name in a view, a view reaching past :class:`Kept` into DuckDB or Spark, a keyword for
another engine's path in ``register``, or a view's SQL in an engine's module.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from chatops.analytics import engines
from chatops.analytics.engines import ENGINES
from chatops.analytics.schema import empty
from chatops.analytics.views import REGISTRY, _registry

ANALYTICS = Path(engines.__file__).resolve().parents[1]
VIEWS = ANALYTICS / "views"
ENGINE_MODULES = sorted((ANALYTICS / "engines").glob("*.py"))
#: what only the engines may import
ENGINE_LIBRARIES = ("duckdb", "pyspark", "sqlglot")
#: what a view may reach on the kept messages: Kept's own methods and attributes
KEPT = {name for name in dir(engines.Kept) if not name.startswith("_")} | {
    "params",
    "where",
    "bots",
    "attrs",
}


def _view_modules() -> list[Path]:
    return sorted(p for p in VIEWS.rglob("*.py") if "__pycache__" not in p.parts)


def _analytics_modules() -> list[Path]:
    """chatops' modules outside the engines (the panels, the views, the audits, the CLI)."""
    package = ANALYTICS.parent
    return sorted(
        p
        for p in package.rglob("*.py")
        if "__pycache__" not in p.parts and "engines" not in p.relative_to(package).parts
    )


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of ``tree``."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def test_no_code_outside_the_engines_names_an_engine_or_imports_one() -> None:
    """chatops imports DuckDB, Spark and sqlglot in its engines only; no code outside them, a
    docstring aside, names an engine over the dataset (as a branch on ``engine`` would)."""
    for path in _analytics_modules():
        _no_engine_in(path)


def _no_engine_in(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            for name in names:
                assert not name.startswith(ENGINE_LIBRARIES), (path, node.lineno, name)
                assert not re.search(r"engines\._(duck|spark|source)", name), (path, node.lineno)
        if isinstance(node, ast.Constant) and node.value in ENGINES[1:] and id(node) not in docs:
            raise AssertionError(f"{path}:{node.lineno} names the engine {node.value!r}")


@pytest.mark.parametrize("path", _view_modules(), ids=lambda p: str(p.relative_to(VIEWS)))
def test_a_view_reaches_its_engine_only_through_kept(path: Path) -> None:
    """A view's SQL functions take ``k: Kept`` and use what Kept offers: never its source (the
    DuckDB connection, the Spark session), where one engine's body could hide."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef):
            continue
        kept = {
            a.arg
            for a in fn.args.args
            if isinstance(a.annotation, ast.Name | ast.Constant)
            and "Kept" in ast.unparse(a.annotation)
        }
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in kept
            ):
                assert node.attr in KEPT, f"{path}:{node.lineno} reaches k.{node.attr}"


def test_every_view_registers_one_sql_definition_that_every_sql_engine_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # register takes no path for one engine: the SQL (or none) is the view's only definition
    assert list(inspect.signature(_registry.register).parameters) == [
        "number",
        "title",
        "result",
        "plot",
        "sentence",
        "sql",
    ]
    with_sql = {name: v for name, v in REGISTRY.items() if v.sql is not None}
    assert len(with_sql) >= 10
    for name, view in with_sql.items():
        assert view.sql.__name__ == "_sql", name
        module = inspect.getmodule(view.sql)
        assert module is not None and module.__name__.startswith(
            f"chatops.analytics.views.{name}"
        ), name
        # one definition per view module
        source = inspect.getsource(module)
        assert len(re.findall(r"^def _sql\(", source, re.M)) == 1, name
    # every engine hands the view's ``sql``, and no other, to its runner: the frames in memory
    # to DuckDB in process, a dataset to the runner over the dataset
    handed: list[tuple[str, Any]] = []

    def runner(params: dict[str, Any], view: Any, sql: Any, open_source: Any, engine: str) -> Any:
        handed.append((engine, sql))
        return SimpleNamespace(coverage=None)

    def in_memory(params: dict[str, Any], sql: Any) -> Any:
        handed.append(("pandas", sql))
        return SimpleNamespace(coverage=None)

    monkeypatch.setattr(engines, "run_sql", runner)
    monkeypatch.setattr(engines, "in_memory", in_memory)
    frames = {"users": empty("users"), "reactions": empty("reactions")}
    for name, view in with_sql.items():
        handed.clear()
        takes = inspect.signature(view.function).parameters
        view.function(empty("messages"), **{n: f for n, f in frames.items() if n in takes})
        for engine in ENGINES[1:]:
            view.function("a-dataset-folder", engine=engine)
        assert handed == [(engine, view.sql) for engine in ENGINES], name


@pytest.mark.parametrize("name", [n for n, v in REGISTRY.items() if v.sql is not None])
def test_a_view_with_sql_has_no_other_body(name: str) -> None:
    """The function of a view with SQL checks its arguments and returns nothing: its result
    comes from its SQL on every engine, frames in memory included, so no pandas body of the
    same counting can sit beside the SQL."""
    fn = inspect.unwrap(REGISTRY[name].function)
    tree = ast.parse(inspect.getsource(fn).strip())
    (node,) = tree.body
    assert isinstance(node, ast.FunctionDef) and node.name == name
    assert node.returns is not None and ast.unparse(node.returns) == "None", name
    for inner in ast.walk(node):
        if isinstance(inner, ast.Return):
            assert inner.value is None, f"{name} returns a value at line {inner.lineno}"


def test_the_engine_modules_hold_no_view() -> None:
    """No view's name, and none of the tables a view's SQL makes, in an engine's module: the
    translation to Spark is of SQL forms, never of one view's statements."""
    made = set()
    for path in _view_modules():
        made |= set(re.findall(r"TEMP (?:TABLE|VIEW) (\w+)", path.read_text(encoding="utf-8")))
        made |= set(re.findall(r'numbered\(\s*"(\w+)"', path.read_text(encoding="utf-8")))
    assert {"tl_d", "tl_t", "kl", "kr", "kg", "ig_d", "ig_p", "kp"} <= made
    for path in ENGINE_MODULES:
        text = path.read_text(encoding="utf-8")
        words = set(re.findall(r"\w+", text))
        assert not (words & set(REGISTRY)), (path.name, words & set(REGISTRY))
        assert not (words & made), (path.name, words & made)
