"""Reading an organization file: YAML, checked against the file's JSON Schema, every mistake
named with its line and column before anything is compared or sent.

    document = load_document("org.yaml")   # a dict, or OrgFileError("org.yaml:12:5: ...")
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from .._exceptions import ConfigError
from .export import FORMAT_VERSION

__all__ = ["OrgFileError", "load_document", "schema", "schema_text"]


class OrgFileError(ConfigError):
    """An organization file that cannot be used, with where and why."""


def schema_text() -> str:
    """The organization file's JSON Schema, as shipped with the package."""
    return resources.files("chatops.org").joinpath("organization.schema.json").read_text("utf-8")


@cache
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded


def _loader() -> type:
    """YAML's safe loader, with dates left as text (``2024-01-01`` is a string in the file, as
    it is in JSON, never a date object)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in rules if tag != "tag:yaml.org,2002:timestamp"]
        for first, rules in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return Loader


def _where(root: Any, path: list[Any]) -> tuple[int, int] | None:
    """The line and column (from 1) of the YAML node at ``path`` (keys and indexes)."""
    import yaml

    node = root
    for step in path:
        if isinstance(node, yaml.MappingNode):
            found = next((v for k, v in node.value if k.value == step), None)
            if found is None:
                break
            node = found
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int):
            if step >= len(node.value):
                break
            node = node.value[step]
        else:
            break
    if node is None:
        return None
    return node.start_mark.line + 1, node.start_mark.column + 1


def load_document(path: str | Path) -> dict[str, Any]:
    """The organization file at ``path``, checked; an :class:`OrgFileError` naming the line
    and column of the first mistake otherwise."""
    import jsonschema
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OrgFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise OrgFileError(f"{path}: cannot be read ({exc})") from None
    try:
        loader = _loader()
        root = yaml.compose(text, Loader=loader)
        document = yaml.load(text, Loader=loader)  # noqa: S506 - the safe loader, dates as text
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        line = f"{mark.line + 1}:{mark.column + 1}" if mark is not None else "?"
        raise OrgFileError(f"{path}:{line}: not valid YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise OrgFileError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(document, dict):
        raise OrgFileError(f"{path}: an organization file is a mapping (version: 1, ...)")
    version = document.get("version")
    if isinstance(version, int) and version > FORMAT_VERSION:
        raise OrgFileError(
            f"{path}: the file's format is version {version}; this chatops reads version "
            f"{FORMAT_VERSION} (upgrade chatops)"
        )
    validator = jsonschema.Draft202012Validator(schema())
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        steps = list(error.absolute_path)
        where = _where(root, steps)
        at = f"{where[0]}:{where[1]}" if where else "?"
        field = ".".join(str(s) for s in steps) or "the file"
        raise OrgFileError(f"{path}:{at}: {field}: {error.message}")
    return document
