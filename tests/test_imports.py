"""The import graph: no cycles in the library, and no hidden imports inside sandbox functions."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from pathlib import Path

import chatops

ROOT = Path(chatops.__file__).parent


def _sources(root: Path) -> list[Path]:
    """The package's files, through the link that makes the repository's widgets/ chatops/widgets."""
    return sorted(
        Path(folder) / name
        for folder, _dirs, files in os.walk(root, followlinks=True)
        for name in files
        if name.endswith(".py")
    )


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for path in _sources(ROOT):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> Iterator[tuple[str, ast.stmt, bool]]:
    """``(imported module, statement, inside a function)`` for each import of our modules.

    Imports under ``if TYPE_CHECKING:`` are left out: they never run.
    """
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def targets(node: ast.Import | ast.ImportFrom) -> Iterator[str]:
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name in MODULES)
            return
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*anchor, *([node.module] if node.module else [])])
        for alias in node.names:
            if f"{base}.{alias.name}" in MODULES:
                yield f"{base}.{alias.name}"
            elif base in MODULES:
                yield base

    def walk(body: list[ast.stmt], in_function: bool) -> Iterator[tuple[str, ast.stmt, bool]]:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                for target in targets(node):
                    yield target, node, in_function
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                yield from walk(node.orelse, in_function)
            else:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        inner = in_function or isinstance(
                            node, ast.FunctionDef | ast.AsyncFunctionDef
                        )
                        yield from walk([child], inner)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")).body, False)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles() -> None:
    """Counting imports inside functions too: a cycle hidden in a function is still a cycle."""
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for target, _node, _inner in _imports(name, path):
            if target != name and not name.startswith(target + "."):  # a package's own child
                graph[name].add(target)
    assert _cycles(graph) == []


def test_sandbox_imports_inside_functions_say_why() -> None:
    unexplained = []
    for name, path in MODULES.items():
        if not name.startswith("chatops.sandbox"):
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for _target, node, inner in _imports(name, path):
            before = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            if inner and "#" not in lines[node.lineno - 1] and not before.startswith("#"):
                unexplained.append(f"{path.relative_to(ROOT.parent)}:{node.lineno}")
    assert unexplained == []


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


#: the sandbox's HTTP side; everything else in the package is rules, store, bus or demo
HTTP_SIDE = ("app", "server", "params", "routes", "views")
HTTP_PACKAGES = ("starlette", "uvicorn", "httpx")


def test_sandbox_rules_import_nothing_of_http() -> None:
    """Rules know nothing of HTTP: no web framework, no handler, no request parser.

    The outgoing webhooks are the one exception for httpx: they POST to the bots' servers.
    """
    offenders = []
    for name, path in MODULES.items():
        parts = name.split(".")
        if parts[:2] != ["chatops", "sandbox"] or len(parts) < 3 or parts[2] in HTTP_SIDE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported = [node.module]
            else:
                imported = []
            for module in imported:
                top = module.split(".")[0]
                if top in HTTP_PACKAGES and not (
                    top == "httpx" and parts[2] == "outgoing_webhooks"
                ):
                    offenders.append(f"{name} imports {module}")
        for target, _node, _inner in _imports(name, path):
            if target.split(".")[2:3] and target.split(".")[2] in HTTP_SIDE:
                offenders.append(f"{name} imports {target}")
    assert offenders == []
