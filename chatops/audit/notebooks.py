"""The audit notebooks and their parameters: which audits there are, and ``-p`` values
checked against each notebook's parameters cell (papermill reads it) and converted to its
types, before anything runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._resources import notebooks_root
from .outcome import AuditInputError

__all__ = [
    "RESERVED_PARAMETERS",
    "available_audits",
    "coerce_value",
    "notebook_parameters",
    "notebooks_dir",
    "resolve_notebooks",
    "validate_parameters",
]

#: Parameters the runner sets itself; ``-p`` may not give them.
RESERVED_PARAMETERS = {"zuliprc": "--zuliprc", "site": "--site", "report_dir": "--report-dir"}


def notebooks_dir() -> Path:
    """The audit notebooks (``audits/`` of the chatops notebooks)."""
    return notebooks_root() / "audits"


def available_audits() -> dict[str, Path]:
    """Audit name -> notebook path, sorted by name."""
    folder = notebooks_dir()
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.ipynb")) if not p.stem.startswith(".")}


def resolve_notebooks(names: Sequence[str]) -> dict[str, Path]:
    """The notebook of each audit name, in the order given; all audits when ``names`` is empty."""
    known = available_audits()
    if not known:
        raise AuditInputError(f"no audit notebooks found in {notebooks_dir()}")
    if not names:
        return known
    unknown = [n for n in names if n not in known]
    if unknown:
        raise AuditInputError(
            f"unknown audit {', '.join(map(repr, unknown))}; available: {', '.join(known)}"
        )
    return {n: known[n] for n in dict.fromkeys(names)}


def notebook_parameters(path: Path) -> dict[str, dict[str, Any]]:
    """The parameters cell of a notebook as papermill reads it (name, type, default, help)."""
    import papermill

    params: dict[str, dict[str, Any]] = papermill.inspect_notebook(str(path))
    return params


_TRUE = {"true", "yes", "on", "1"}

_FALSE = {"false", "no", "off", "0"}


def coerce_value(name: str, value: Any, type_name: str) -> Any:
    """Convert a ``-p`` value (a string from the command line) to the parameter's type.

    Args:
        name: the parameter, for the error message.
        value: the value; strings are converted, other values are checked.
        type_name: papermill's ``inferred_type_name`` (``int``, ``float``, ``bool``, ``str``).
    """
    kind = type_name.split("|")[0].strip().lower() or "none"
    if not isinstance(value, str):
        ok = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, int | float) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
            "str": False,
        }.get(kind, True)
        if not ok:
            raise AuditInputError(f"parameter {name} must be {_a(kind)}, not {value!r}")
        return float(value) if kind == "float" else value
    text = value.strip()
    try:
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(text)
    except ValueError:
        raise AuditInputError(f"parameter {name} must be {_a(kind)}, not {value!r}") from None
    if kind == "bool":
        if text.lower() in _TRUE:
            return True
        if text.lower() in _FALSE:
            return False
        raise AuditInputError(f"parameter {name} must be true or false, not {value!r}")
    return value


def _a(kind: str) -> str:
    return {"int": "an integer", "float": "a number", "bool": "true or false"}.get(kind, kind)


def validate_parameters(
    notebooks: Mapping[str, Path],
    parameters: Mapping[str, Any],
    defaults: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """Check ``parameters`` against the notebooks' parameters cells and convert their types.

    A parameter goes to every notebook that declares it; one that no notebook declares is an
    error naming the valid ones. ``defaults`` go to every notebook that declares them and was
    not given them (the runner's own values, overriding the notebooks' committed defaults).
    """
    for name, option in RESERVED_PARAMETERS.items():
        if name in parameters:
            raise AuditInputError(f"parameter {name} is set by the runner; use {option} instead")
    specs = {audit: notebook_parameters(path) for audit, path in notebooks.items()}
    valid = sorted({p for spec in specs.values() for p in spec} - set(RESERVED_PARAMETERS))
    unknown = [p for p in parameters if not any(p in spec for spec in specs.values())]
    if unknown:
        raise AuditInputError(
            f"unknown parameter {', '.join(unknown)} for {', '.join(notebooks)}; "
            f"valid parameters: {', '.join(valid)}"
        )
    per_audit: dict[str, dict[str, Any]] = {}
    for audit, spec in specs.items():
        per_audit[audit] = {
            name: coerce_value(name, value, str(spec[name].get("inferred_type_name") or "None"))
            for name, value in {**(defaults or {}), **parameters}.items()
            if name in spec
        }
    return per_audit
