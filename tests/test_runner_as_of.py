"""``chatops audit run --as-of``: one reference time for every audit, and a demo dated for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import chatops
from chatops import audit as pipeline
from chatops.audits import invitations, parse_as_of
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops_here
from tests.test_cli import chatops as run_cli

AS_OF = "2026-06-01T12:00:00Z"


def test_as_of_reaches_every_notebook_and_is_empty_by_default() -> None:
    notebooks = pipeline.resolve_notebooks(["invitations", "bots"])
    given = pipeline.validate_parameters(notebooks, {}, {"as_of": ""})
    assert {a: p["as_of"] for a, p in given.items()} == {"invitations": "", "bots": ""}
    pinned = pipeline.validate_parameters(notebooks, {}, {"as_of": AS_OF})
    assert {p["as_of"] for p in pinned.values()} == {AS_OF}
    # a -p value wins over the runner's default
    mixed = pipeline.validate_parameters(notebooks, {"as_of": "2025-01-01"}, {"as_of": ""})
    assert {p["as_of"] for p in mixed.values()} == {"2025-01-01"}


@pytest.mark.parametrize("text", ["yesterday", "2026-13-01", "12:00"])
def test_bad_as_of_is_one_line_and_exit_2(text: str, tmp_path: Path) -> None:
    proc = chatops_here("audit", "run", "bots", "--as-of", text, "--report-dir", str(tmp_path))
    _one_line_error(proc, "as_of must be an ISO 8601 date-time", repr(text))
    assert not any(tmp_path.iterdir())  # refused before a run folder was made


def test_as_of_and_p_as_of_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(pipeline.AuditInputError, match="--as-of or -p as_of"):
        pipeline.run_audits(["bots"], report_dir=tmp_path, parameters={"as_of": AS_OF}, as_of=AS_OF)


def test_parse_as_of() -> None:
    assert parse_as_of("") is None
    assert parse_as_of("  ") is None
    assert parse_as_of("2026-06-01").isoformat() == "2026-06-01T00:00:00+00:00"  # type: ignore[union-attr]
    moment = parse_as_of("2026-06-01T14:00:00+02:00")
    assert moment is not None and moment.isoformat() == "2026-06-01T12:00:00+00:00"


@pytest.mark.slow
def test_as_of_dates_the_run_and_its_demo_sandbox(tmp_path: Path) -> None:
    proc = run_cli(
        "audit", "run", "invitations", "--as-of", AS_OF, "--report-dir", str(tmp_path / "r")
    )
    assert proc.returncode == 0, proc.stderr
    run_dir = Path(proc.stdout.strip()).parent
    summary = json.loads((run_dir / "invitations" / "summary.json").read_text())
    moment = parse_as_of(AS_OF)
    assert moment is not None
    assert summary["generated_at"] == moment.isoformat()
    # the same audit on a sandbox dated for the same moment, in this process, agrees
    with Sandbox.start(tmp_path / "pinned", now=int(moment.timestamp())) as sandbox:
        with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as admin:
            here = invitations(admin, now=moment)
    assert summary["counts"] == here.summary["counts"]
    assert summary["counts"]["invitations"] > 0
