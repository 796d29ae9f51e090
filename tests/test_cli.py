"""``chatops`` end to end, as a subprocess: exit status, stderr, reports without API keys."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from chatops.sandbox import Sandbox


@pytest.fixture
def sandbox(fresh_sandbox: Sandbox) -> Sandbox:
    """Audits judge history by time: use an organization the rule tests have not aged."""
    return fresh_sandbox


ROOT = Path(__file__).resolve().parent.parent


def chatops(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    return subprocess.run(
        [sys.executable, "-m", "chatops.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,  # no terminal: commands that would ask must refuse instead
    )


def chatops_here(*args: str) -> subprocess.CompletedProcess[str]:
    """The command run in this process, as :func:`chatops` reports it: for refusals of bad
    input, which come before any work (a new interpreter would spend its time importing). The
    subprocess tests above keep the whole process's behaviour checked."""
    from chatops.cli import main

    out, err = io.StringIO(), io.StringIO()
    shown = warnings.showwarning
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse's refusals
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        warnings.showwarning = shown
    return subprocess.CompletedProcess(["chatops", *args], code, out.getvalue(), err.getvalue())


def _one_line_error(proc: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for needle in needles:
        assert needle in lines[0]


def _scan(folder: Path, secrets: list[str]) -> list[Path]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        for secret in secrets:
            assert secret not in text, f"API key found in {path}"
    return files


@pytest.mark.slow
def test_audit_run_end_to_end_on_a_sandbox_of_its_own(tmp_path: Path) -> None:
    proc = chatops("audit", "run", "org_overview", "--report-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "without encryption" not in proc.stderr  # kernels listen on Unix sockets, not TCP
    run_dir = Path(proc.stdout.strip()).parent
    assert run_dir.parent == tmp_path.resolve()
    for name in (
        "org_overview.ipynb",
        "org_overview.html",
        "summary.json",
        "org_overview/summary.json",
    ):
        assert (run_dir / name).is_file(), name
    assert (tmp_path / "latest").resolve() == run_dir
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["exit_code"] == 0
    assert summary["audits"]["org_overview"]["counts"]["channels"] > 0
    html = (run_dir / "org_overview.html").read_text()
    assert "Accounts by role" in html and "image/png" in html
    # The sandbox is gone with its keys; what a key looks like is still checkable: the
    # zuliprc path is in the notebook, the key never is.
    nb = (run_dir / "org_overview.ipynb").read_text()
    assert "key=" not in nb and "api_key" not in nb


@pytest.mark.slow
def test_audit_run_exits_1_when_a_threshold_is_crossed(sandbox: Sandbox, tmp_path: Path) -> None:
    proc = chatops(
        "audit",
        "run",
        "org_overview",
        "--zuliprc",
        str(sandbox.zuliprc("admin")),
        "-p",
        "max_guest_share",
        "0",
        "-p",
        "max_inactive_channel_share",
        "0",
        "--report-dir",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    summary = json.loads((tmp_path / "latest" / "summary.json").read_text())
    assert summary["audits"]["org_overview"]["failed_checks"] == ["max_guest_share"]
    assert "threshold crossed: max_guest_share" in proc.stderr


def test_unknown_audit(tmp_path: Path) -> None:
    _one_line_error(
        chatops_here("audit", "run", "nope", "--report-dir", str(tmp_path)),
        "unknown audit 'nope'",
        "org_overview",
    )


def test_unknown_parameter(tmp_path: Path) -> None:
    _one_line_error(
        chatops_here(
            "audit", "run", "org_overview", "-p", "colour", "red", "--report-dir", str(tmp_path)
        ),
        "unknown parameter colour",
        "valid parameters:",
        "max_inactive_channel_share",
    )


def test_bad_parameter_value(tmp_path: Path) -> None:
    _one_line_error(
        chatops_here(
            "audit", "run", "org_overview", "-p", "days", "thirty", "--report-dir", str(tmp_path)
        ),
        "parameter days must be an integer, not 'thirty'",
    )


def test_missing_zuliprc(tmp_path: Path) -> None:
    missing = tmp_path / "nope.zuliprc"
    _one_line_error(
        chatops_here("audit", "run", "--all", "--zuliprc", str(missing)),
        f"zuliprc {missing} does not exist",
    )
    _one_line_error(chatops("whoami", "--zuliprc", str(missing)), "does not exist")


def test_names_or_all(tmp_path: Path) -> None:
    _one_line_error(chatops_here("audit", "run"), "--all")
    _one_line_error(chatops_here("audit", "run", "org_overview", "--all"), "not both")


def test_bad_sandbox_arguments(tmp_path: Path) -> None:
    _one_line_error(
        chatops_here("sandbox", "serve", "--data", str(tmp_path), "--port", "70000"), "port 70000"
    )
    _one_line_error(
        chatops_here("sandbox", "demo", "--data", str(tmp_path), "--size", "huge"),
        "invalid choice: 'huge'",
    )
    _one_line_error(chatops_here("sandbox", "serve"), "--data")


def test_audit_list() -> None:
    proc = chatops("audit", "list")
    assert proc.returncode == 0
    assert "org_overview" in proc.stdout.splitlines()  # one unindented line per audit, sorted
    assert "max_inactive_channel_share (float, default 0.5)" in proc.stdout
    # set by --zuliprc, --site and --report-dir, not -p
    parameters = {line.split()[0] for line in proc.stdout.splitlines() if line.startswith("  ")}
    assert not parameters & {"zuliprc", "site", "report_dir"}
    assert "zuliprcs" in parameters  # an audit's own parameter may still name zuliprc files


def test_whoami_prints_who_but_never_the_key(sandbox: Sandbox) -> None:
    proc = chatops("whoami", "--zuliprc", str(sandbox.zuliprc("admin")))
    assert proc.returncode == 0, proc.stderr
    assert "Adam Admin" in proc.stdout and "admin@demo.chatops.test" in proc.stdout
    assert "administrator" in proc.stdout and sandbox.site in proc.stdout
    assert sandbox.accounts["admin"].api_key not in proc.stdout + proc.stderr


def test_sandbox_demo_generates_credentials(tmp_path: Path) -> None:
    data = tmp_path / "org"
    proc = chatops("sandbox", "demo", "--data", str(data), "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    assert (data / "sandbox.sqlite3").is_file()


@pytest.mark.slow
def test_sandbox_serve_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    import signal
    import time

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chatops.cli",
            "sandbox",
            "serve",
            "--data",
            str(tmp_path),
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        rc = tmp_path / "zuliprc" / "admin.zuliprc"
        while not rc.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "Serving http://127.0.0.1:" in out


def test_audit_run_checks_parameters_and_server_before_any_kernel(tmp_path: Path) -> None:
    reports = tmp_path / "reports"
    _one_line_error(
        chatops_here(
            "audit", "run", "bots", "-p", "stale_days", "-5", "--report-dir", str(reports)
        ),
        "stale_days",
        "at least 1",
    )
    unreachable = tmp_path / "far.zuliprc"
    unreachable.write_text(
        "[api]\nemail=admin@example.org\nkey=abcdefghij\nsite=http://127.0.0.1:9\n"
    )
    _one_line_error(
        chatops_here(
            "audit", "run", "--all", "--zuliprc", str(unreachable), "--report-dir", str(reports)
        ),
        "unreachable",
    )
    assert not reports.exists()  # no report folder for a run that could not start
