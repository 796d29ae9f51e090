"""The audit runner and the org_overview audit, against real sandboxes."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import nbformat
import pytest

import chatops
from chatops import audit as pipeline
from chatops.audit import AuditInputError
from chatops.audits import FINDING_COLUMNS, org_overview, write_summary
from chatops.sandbox import Sandbox


@pytest.fixture
def sandbox(fresh_sandbox: Sandbox) -> Sandbox:
    """Audits judge history by time: use an organization the rule tests have not aged."""
    return fresh_sandbox


def _secrets(sb: Sandbox) -> list[str]:
    return [a.api_key for a in sb.accounts.values() if a.api_key]


def _assert_no_secret(folder: Path, secrets: list[str]) -> None:
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for secret in secrets:
            assert secret not in text, f"API key found in {path}"


def test_org_overview_passes_on_the_demo_org(sandbox: Sandbox, tmp_path: Path) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        result = org_overview(client, days=30)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    counts = result.summary["counts"]
    assert counts["channels"] + counts["archived_channels"] == len(result.tables["channels"])
    assert counts["archived_channels"] == 1
    assert counts["channel_messages"] == result.tables["messages_per_channel"]["messages"].sum()
    assert counts["channel_messages"] == result.tables["messages_per_day"]["messages"].sum()
    by_role = result.tables["accounts_by_role"]
    assert by_role.loc["total", "total"] == counts["accounts"]
    path = write_summary(result, tmp_path / "out")
    assert path is not None
    assert json.loads(path.read_text())["passed"] is True
    assert write_summary(result, "") is None


def test_org_overview_thresholds_fail(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        # In a 1-day window far in the past, no channel has messages.
        quiet = org_overview(
            client,
            days=1,
            now=datetime(2000, 1, 1, tzinfo=UTC),
            max_inactive_channel_share=0.5,
            min_channel_messages=1,
        )
        guests = org_overview(client, max_guest_share=0)
    assert not quiet.passed
    assert set(quiet.summary["failed_checks"]) == {
        "max_inactive_channel_share",
        "min_channel_messages",
    }
    assert quiet.summary["counts"]["inactive_channels"] == quiet.summary["counts"]["channels"]
    critical = quiet.findings[quiet.findings["severity"] == "critical"]
    assert len(critical) == 2 and quiet.findings["severity"].iloc[0] == "critical"
    assert guests.summary["failed_checks"] == ["max_guest_share"]


@pytest.mark.parametrize(
    ("value", "kind", "expected"),
    [
        ("3", "int", 3),
        ("0.5", "float", 0.5),
        ("1", "float", 1.0),
        ("yes", "bool", True),
        ("False", "bool", False),
        ("x y", "str", "x y"),
        (2, "float", 2.0),
        (True, "bool", True),
    ],
)
def test_coerce_value(value: object, kind: str, expected: object) -> None:
    got = pipeline.coerce_value("p", value, kind)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ("abc", "int"),
        ("1.5", "int"),
        ("x", "float"),
        ("maybe", "bool"),
        ("3", "bool"),
        (1.5, "int"),
    ],
)
def test_coerce_value_rejects(value: object, kind: str) -> None:
    with pytest.raises(AuditInputError, match="parameter p must be"):
        pipeline.coerce_value("p", value, kind)


def test_bad_input_raises_before_running(tmp_path: Path) -> None:
    with pytest.raises(AuditInputError, match="unknown audit 'nope'; available: .*org_overview"):
        pipeline.run_audits(["nope"], report_dir=tmp_path)
    with pytest.raises(
        AuditInputError, match=r"unknown parameter bogus .*valid parameters: as_of, days"
    ):
        pipeline.run_audits(["org_overview"], report_dir=tmp_path, parameters={"bogus": "1"})
    with pytest.raises(AuditInputError, match="use --zuliprc"):
        pipeline.run_audits([], report_dir=tmp_path, parameters={"zuliprc": "x"})
    with pytest.raises(AuditInputError, match="does not exist"):
        pipeline.run_audits([], report_dir=tmp_path, zuliprc=str(tmp_path / "missing"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_run_audits_against_a_zuliprc(sandbox: Sandbox, tmp_path: Path) -> None:
    result = pipeline.run_audits(
        ["org_overview"],
        report_dir=tmp_path,
        parameters={"days": "30"},
        zuliprc=str(sandbox.zuliprc("admin")),
    )
    assert result.exit_code == 0, result.audits
    run = result.audits[0]
    assert run.notebook is not None and run.notebook.exists()
    assert run.html is not None and run.html.exists()
    summary = json.loads(result.summary_path.read_text())
    assert summary["audits"]["org_overview"]["passed"] is True
    assert (tmp_path / "latest" / "summary.json").read_text() == result.summary_path.read_text()
    _assert_no_secret(tmp_path, _secrets(sandbox))


@pytest.mark.slow
def test_audits_run_in_parallel_leave_the_working_folder_as_it_was(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    """Each kernel starts in the run's folder; this process's working folder is never changed
    (a chdir per audit, from threads, left it in a run folder)."""
    before = os.getcwd()
    for _ in range(2):
        pipeline.run_audits(
            ["linkifiers", "invitations", "bots", "stale_channels"],
            report_dir=tmp_path / "reports",
            zuliprc=str(sandbox.zuliprc("admin")),
            jobs=4,
        )
        assert os.getcwd() == before


@pytest.mark.slow
def test_run_audits_reports_a_notebook_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    broken = nbformat.read(pipeline.notebooks_dir() / "org_overview.ipynb", as_version=4)
    broken.cells.append(nbformat.v4.new_code_cell('raise RuntimeError("the notebook broke")'))
    nbformat.write(broken, notebooks / "org_overview.ipynb")
    monkeypatch.setattr(pipeline.notebooks, "notebooks_dir", lambda: notebooks)
    result = pipeline.run_audits(["org_overview"], report_dir=tmp_path / "reports")
    assert result.exit_code == 2
    assert "the notebook broke" in (result.audits[0].error or "")
    summary = json.loads(result.summary_path.read_text())
    assert summary["exit_code"] == 2 and summary["audits"]["org_overview"]["passed"] is None


def test_a_parameter_out_of_range_stops_the_run_before_any_kernel(tmp_path: Path) -> None:
    with pytest.raises(pipeline.AuditInputError, match="max_messages of org_overview"):
        pipeline.run_audits(["org_overview"], report_dir=tmp_path, parameters={"max_messages": 0})
    assert list(tmp_path.iterdir()) == []


def test_kernel_manager_uses_this_interpreter() -> None:
    import sys

    from jupyter_client.kernelspec import KernelSpec

    km = pipeline.runner._current_python_kernel_manager()(kernel_name="python3")
    km._kernel_spec = KernelSpec(
        argv=["/some/other/python", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        language="python",
    )
    assert km.format_kernel_cmd()[0] == sys.executable


def test_kernel_shutdown_sends_no_interrupt() -> None:
    """No SIGINT at shutdown: ipykernel would log a KeyboardInterrupt on the user's terminal."""
    import asyncio
    import signal

    base = pipeline.runner._current_python_kernel_manager()
    signals: list[int] = []

    class Recording(base):  # type: ignore[misc,valid-type]
        async def _async_signal_kernel(self, signum: int) -> None:
            signals.append(signum)
            await super()._async_signal_kernel(signum)

    async def run() -> bool:
        km = Recording(kernel_name="python3")
        await km.start_kernel()
        try:
            await km.interrupt_kernel()  # while it runs, an interrupt still goes through
            assert signals == [signal.SIGINT]
        finally:
            await km.shutdown_kernel()
        return bool(await km.is_alive())

    assert asyncio.run(run()) is False
    assert signals == [signal.SIGINT]


def test_audits_run_when_the_jupyter_runtime_folder_is_too_deep_for_a_socket(
    sandbox: Sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel's Unix sockets are named from a path of at most 100 bytes (a socket's path holds
    107): under a deep runtime folder (a scheduled run's, a test's) they go to a short folder
    that only this user can enter, and the audit runs."""
    from chatops.jupyter.kernels import kernel_socket_base

    deep = tmp_path / ("r" * 80) / "runtime"
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(deep))
    base = Path(kernel_socket_base())
    assert len(os.fsencode(f"{base}-5")) <= 102 and base.parent != deep
    assert base.parent.stat().st_mode & 0o777 == 0o700 and base.parent.stat().st_uid == os.getuid()
    result = pipeline.run_audits(
        ["org_overview"], report_dir=tmp_path / "reports", zuliprc=str(sandbox.zuliprc("admin"))
    )
    assert result.exit_code == 0, result.audits[0].error
    # a folder open to others is not used: a new one of this user's own is
    shared = tmp_path / "tmp"
    shared.mkdir()
    (shared / f"chatops-{os.getuid()}").mkdir(mode=0o777)
    (shared / f"chatops-{os.getuid()}").chmod(0o777)
    monkeypatch.setattr("tempfile.tempdir", str(shared))
    other = Path(kernel_socket_base()).parent
    assert other.parent == shared and other.name != f"chatops-{os.getuid()}"
    assert other.stat().st_mode & 0o777 == 0o700
