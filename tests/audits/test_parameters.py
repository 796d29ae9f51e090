"""An audit's parameters are declared once, in its function's signature: the notebook's
parameters cell, the pre-check's ranges and README's list of audits agree with it."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import sys
from pathlib import Path

import pytest

from chatops.audit import AuditInputError, available_audits, validate_parameters
from chatops.audits import AUDIT_FUNCTIONS, AUDITS
from chatops.audits._params import audit_parameters, parameters_cell
from chatops.audits.precheck import PrecheckError, check_parameters

ROOT = Path(__file__).resolve().parents[2]


def _committed_cell(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    (cell,) = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    return "".join(cell["source"]).rstrip("\n")


def test_every_audit_has_a_function_a_notebook_and_a_description() -> None:
    assert sorted(AUDIT_FUNCTIONS) == sorted(available_audits()) == sorted(AUDITS)


@pytest.mark.parametrize("name", sorted(AUDIT_FUNCTIONS))
def test_the_notebooks_parameters_cell_is_generated_from_the_signature(name: str) -> None:
    notebook = available_audits()[name]
    expected = parameters_cell(AUDIT_FUNCTIONS[name])
    assert _committed_cell(notebook) == expected, (
        f"{notebook.name}: parameters cell differs from {name}()'s signature; regenerate it with "
        "tests.refresh_notebooks.write_parameters_cells()"
    )


def test_a_parameter_without_a_declaration_is_refused() -> None:
    def sloppy(client: object, *, days: int = 3) -> None:
        pass

    with pytest.raises(TypeError, match="parameter days of sloppy is not declared with Param"):
        audit_parameters(sloppy)


@pytest.mark.parametrize("name", sorted(AUDIT_FUNCTIONS))
def test_the_precheck_holds_each_declared_range(name: str) -> None:
    for p in audit_parameters(AUDIT_FUNCTIONS[name]).values():
        rule = p.param
        if rule.low is None or p.kind not in ("int", "float"):
            continue
        check_parameters({name: {p.name: p.default}})  # the default is always in range
        below = rule.low if rule.low_open else rule.low - 1
        if below == rule.off:
            below -= 1
        with pytest.raises(PrecheckError, match=f"parameter {p.name} of {name} must be "):
            check_parameters({name: {p.name: below}})


def _readme_lines() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^- `(\w+)`: (.+)$", text, re.M))


@pytest.mark.parametrize("name", sorted(AUDIT_FUNCTIONS))
def test_readme_names_only_real_parameters_with_their_defaults(name: str) -> None:
    line = _readme_lines()[name]
    declared = audit_parameters(AUDIT_FUNCTIONS[name])
    every = {p for f in AUDIT_FUNCTIONS.values() for p in audit_parameters(f)}
    named = [w for w in re.findall(r"`(\w+)`", line) if w in every or w.startswith("max_")]
    assert set(named) <= set(declared), f"README's {name} names parameters it does not take"
    thresholds = [p for p in declared if p.startswith("max_") and p != "max_messages"]
    assert set(thresholds) <= set(named), f"README's {name} leaves out {thresholds}"
    # "`stale_days` (90)", "fail above `max_orphaned_bots`, 0)", "`similarity` 0.85"
    for word, number in re.findall(r"`(\w+)`(?: \(|, | )(-?\d+(?:\.\d+)?)\b", line):
        if word in declared:
            assert float(number) == float(declared[word].default), (name, word, number)


@pytest.mark.parametrize("name", sorted(AUDIT_FUNCTIONS))
def test_each_audit_is_fetch_judge_conclude_with_the_signatures_defaults(name: str) -> None:
    """Every audit module has the three steps, and its ``Options`` default to the function's
    own defaults (a hand-built judgement means the same as a run)."""
    function = AUDIT_FUNCTIONS[name]
    module = sys.modules[function.__module__]
    for step in ("Options", "Read", "Judged", "fetch", "judge", "findings", "conclude"):
        assert step in module.__all__, f"{module.__name__} has no {step}"
    options = {f.name: f.default for f in dataclasses.fields(module.Options)}
    declared = {n: p.default for n, p in audit_parameters(function).items()}
    assert options == declared


@pytest.mark.parametrize("name", sorted(AUDIT_FUNCTIONS))
def test_no_audit_writes_nor_takes_dry_run(name: str) -> None:
    """Audits only read: none takes ``dry_run``, and a run that asks for it is refused."""
    assert "dry_run" not in inspect.signature(AUDIT_FUNCTIONS[name]).parameters
    with pytest.raises(AuditInputError, match="unknown parameter dry_run"):
        validate_parameters({name: available_audits()[name]}, {"dry_run": "False"})
