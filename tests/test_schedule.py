"""Scheduled runs from inside JupyterLab: the scheduler (jupyter-scheduler) in the lab
``chatops lab`` starts, the audit-suite notebook run as a job through its REST API into the
report folder of ``chatops audit run`` (trends go on), a crossed threshold that fails the job and
is posted, ``chatops schedule add|list|remove|run``, and no key in anything the scheduler keeps.

One JupyterLab serves the module; the scheduled suite runs one audit (invitations)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import nbformat
import papermill
import pytest

import chatops
from chatops.audit import run_audits
from chatops.cli import main
from chatops.jupyter.lab import lab_arguments, lab_environment, prepare, scheduler_dir
from chatops.jupyter.schedule import definition_parameters
from chatops.jupyter.scheduled import (
    LAB_ZULIPRC_VARIABLE,
    SCHEDULED,
    SUITE_OWN_PARAMETERS,
    ScheduledRunFailed,
    lab_zuliprc,
    report_folder,
    run_analytics,
    run_suite,
    suite_parameters_source,
)
from chatops.org import export_document, to_yaml
from chatops.sandbox import Sandbox
from tests.browser.conftest import free_port

TOPIC = "scheduled audits"
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


@dataclass
class Lab:
    url: str
    token: str
    base: Path
    folder: Path
    runtime: Path
    org: Sandbox
    log: Path

    def api(self, method: str, path: str, body: Any = None) -> Any:
        answer = httpx.request(
            method,
            f"{self.url}/scheduler/{path}",
            headers={"Authorization": f"token {self.token}"},
            json=body,
            timeout=60,
        )
        assert answer.status_code < 400, answer.text
        return answer.json() if answer.content else None


def _credentials(sb: Sandbox) -> list[str]:
    found = [a.api_key for a in sb.accounts.values() if a.api_key]
    found += [a.password for a in sb.accounts.values() if a.password]
    assert found
    return found


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """JupyterLab as ``chatops lab --zuliprc`` starts it (without running the console first),
    on a notebook folder of its own, started in ``base``; the zuliprc's sandbox organization
    has a risky invitation to audit."""
    base = tmp_path_factory.mktemp("schedule")
    runtime = base / "runtime"
    with Sandbox.start(base / "org", size="small", seed=37) as org:
        with chatops.Client.from_zuliprc(org.zuliprc("admin")) as admin:
            admin.invitations.create_link(invite_as=200)  # risky: an administrator's link
        folder = base / "notebooks"
        prepare(folder)
        token = os.urandom(12).hex()
        port = free_port()
        with contextlib.chdir(base):  # chatops lab started in base: its reports are base/reports
            env = lab_environment(run_console=False, zuliprc=str(org.zuliprc("admin")))
        env.update(JUPYTER_RUNTIME_DIR=str(runtime), MPLBACKEND="agg")
        log = base / "lab.log"
        with log.open("w") as out:
            process = subprocess.Popen(
                lab_arguments(
                    folder,
                    port=port,
                    open_browser=False,
                    extra=[f"--IdentityProvider.token={token}"],
                ),
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=base,
                env=env,
            )
            url = f"http://127.0.0.1:{port}"
            try:
                deadline = time.monotonic() + 120
                while True:
                    assert process.poll() is None, log.read_text()[-2000:]
                    with contextlib.suppress(httpx.TransportError):
                        if httpx.get(f"{url}/api/status", params={"token": token}).is_success:
                            break
                    assert time.monotonic() < deadline, "JupyterLab did not start"
                    time.sleep(0.3)
                yield Lab(url, token, base, folder, runtime, org, log)
            finally:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    process.kill()


def _wait(lab: Lab, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 240
    while True:
        job: dict[str, Any] = lab.api("GET", f"jobs/{job_id}")
        # a job is STOPPED (the scheduler's first status) until its process starts
        if job["status"] in ("COMPLETED", "FAILED"):
            return job
        assert time.monotonic() < deadline, f"the job is still {job['status']}"
        time.sleep(1)


def _define_and_run(
    lab: Lab, name: str, parameters: dict[str, Any], *, run_with_cli: bool = False
) -> dict[str, Any]:
    """A job definition of the audit-suite notebook made through the REST API (as the Create
    a notebook job form makes it), and one run of it, started through the API or with
    ``chatops schedule run``; returns the finished job."""
    created = lab.api(
        "POST",
        "job_definitions",
        {
            "name": name,
            "input_uri": SCHEDULED["audit-suite"].path,
            "runtime_environment_name": "python",
            "output_formats": ["ipynb"],
            # the scheduler writes `name = value` into the notebook: values are Python source
            "parameters": {k: repr(v) for k, v in parameters.items()},
            "schedule": "0 7 * * 1",
            "timezone": "Europe/Berlin",
        },
    )
    if not run_with_cli:
        job = lab.api("POST", f"job_definitions/{created['job_definition_id']}/jobs", {})
        return _wait(lab, job["job_id"])
    said = io.StringIO()
    with _environment(JUPYTER_RUNTIME_DIR=str(lab.runtime)), contextlib.redirect_stdout(said):
        assert main(["schedule", "run", name]) == 0
    job_id = said.getvalue().strip().rsplit(" ", 1)[-1]
    assert job_id in {j["job_id"] for j in lab.api("GET", "jobs")["jobs"]}
    return _wait(lab, job_id)


@contextlib.contextmanager
def _environment(**values: str) -> Iterator[None]:
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@dataclass
class Runs:
    cron: Path
    scheduled: dict[str, Any]
    crossed: dict[str, Any]
    reports: Path


@pytest.fixture(scope="module")
def runs(lab: Lab) -> Runs:
    """A run the cron way (``chatops audit run``'s library call) into ``base/reports``, then a
    scheduled run that passes and one whose threshold is crossed, into the same folder (the
    notebook's default ``reports``, taken from where the lab was started)."""
    reports = lab.base / "reports"
    rc = str(lab.org.zuliprc("admin"))
    cron = run_audits(["invitations"], report_dir=reports, zuliprc=rc, jobs=1)
    assert cron.exit_code == 0
    common = {"audits": "invitations", "jobs": 1}
    # no zuliprc: the one the lab was started with (chatops lab --zuliprc)
    scheduled = _define_and_run(lab, "suite", common)
    crossed = _define_and_run(
        lab,
        "suite-strict",
        {**common, "zuliprc": rc, "max_risky_invitations": 0, "post_to": f"general:{TOPIC}"},
        run_with_cli=True,
    )
    return Runs(cron.run_dir, scheduled, crossed, reports)


def _summary(run_dir: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((run_dir / "summary.json").read_text())
    return found


def _run_dirs(reports: Path) -> list[Path]:
    return sorted(p for p in reports.iterdir() if p.is_dir() and not p.is_symlink())


def test_the_lab_has_the_scheduler_with_its_data_beside_the_notebooks(lab: Lab) -> None:
    config = lab.api("GET", "config")
    assert config["supported_features"]["job_name"] is True
    assert (scheduler_dir(lab.folder) / "scheduler.sqlite").is_file()
    # the runs' files hold what the audits found: the owner's only
    assert scheduler_dir(lab.folder).stat().st_mode & 0o777 == 0o700
    assert {(lab.folder / n.path).is_file() for n in SCHEDULED.values()} == {True}


def test_a_scheduled_run_writes_the_report_and_continues_the_trends(runs: Runs) -> None:
    assert runs.scheduled["status"] == "COMPLETED", runs.scheduled.get("status_message")
    first, second, third = _run_dirs(runs.reports)
    assert first == runs.cron
    after = _summary(second)
    assert after["previous_run"] == first.name  # compared with the cron run before it
    assert after["target"] == _summary(first)["target"]  # the lab's organization, not a demo
    assert after["audits"]["invitations"]["trend"]["compared"] is True
    assert after["exit_code"] == 0
    assert [h["run"] for h in _summary(third)["history"]] == [
        _summary(first)["run"],
        after["run"],
        _summary(third)["run"],
    ]
    assert (runs.reports / "latest").resolve() == third.resolve()


def test_a_crossed_threshold_fails_the_job_and_is_posted(lab: Lab, runs: Runs) -> None:
    assert runs.crossed["status"] == "FAILED"
    assert "threshold crossed" in runs.crossed["status_message"]
    latest = _summary(runs.reports / "latest")
    assert latest["exit_code"] == 1
    with chatops.Client.from_zuliprc(lab.org.zuliprc("member")) as member:
        page = member.messages.get(
            anchor="newest",
            num_before=5,
            num_after=0,
            narrow=[
                {"operator": "channel", "operand": "general"},
                {"operator": "topic", "operand": TOPIC},
            ],
            apply_markdown=False,
        )
    texts = [m.content for m in page.messages]
    assert len(texts) == 1  # the passing run posted nowhere: it was given no post_to
    assert "invitations" in texts[0] and "threshold crossed" in texts[0].lower()


def test_no_key_in_job_definitions_output_notebooks_or_logs(lab: Lab, runs: Runs) -> None:
    secrets = _credentials(lab.org)
    definitions = json.dumps(lab.api("GET", "job_definitions"))
    jobs = json.dumps(lab.api("GET", "jobs"))
    files = [p for p in scheduler_dir(lab.folder).rglob("*") if p.is_file()]
    # each run's folder: its input and its output notebook (with the run's printed lines)
    for job in (runs.scheduled, runs.crossed):
        run_files = [p for p in files if p.parent.name == job["job_id"]]
        assert len([p for p in run_files if p.suffix == ".ipynb"]) == 2, run_files
    texts = [definitions, jobs, lab.log.read_text()]
    texts += [p.read_bytes().decode("utf-8", "replace") for p in files]
    texts += [
        p.read_bytes().decode("utf-8", "replace") for p in runs.reports.rglob("*") if p.is_file()
    ]
    assert "invitations" in definitions and "zuliprc" in definitions
    for secret in secrets:
        leaks = [t[:80] for t in texts if secret in t]
        assert not leaks


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_chatops_schedule_add_list_remove(
    lab: Lab, runs: Runs, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(lab.runtime))
    code, out, err = _cli(
        [
            "schedule",
            "add",
            "audit-suite",
            "--cron",
            "0 7 * * 1",
            "--tz",
            "Europe/Berlin",
            "-p",
            "days",
            "30",
            "-p",
            "post_to",
            "admins:audits",
            "--name",
            "weekly",
        ],
        capsys,
    )
    assert code == 0, err
    defined = {d["name"]: d for d in lab.api("GET", "job_definitions")["job_definitions"]}
    weekly = defined["weekly"]
    assert (weekly["schedule"], weekly["timezone"], weekly["active"]) == (
        "0 7 * * 1",
        "Europe/Berlin",
        True,
    )
    assert weekly["parameters"]["days"] == "30"
    assert weekly["parameters"]["post_to"] == "'admins:audits'"
    assert weekly["parameters"]["report_dir"] == '"reports"'  # the notebook's defaults too
    assert weekly["job_definition_id"] in out

    code, out, err = _cli(
        ["schedule", "add", "audit-suite", "--cron", "0 8 * * *", "--name", "weekly"], capsys
    )
    assert (code, out) == (2, "") and err.count("\n") == 1 and "'weekly' exists" in err

    code, out, _ = _cli(["schedule", "list"], capsys)
    line = next(row for row in out.splitlines() if row.startswith("weekly  "))
    assert "audit_suite.ipynb  0 7 * * 1  Europe/Berlin  active" in line
    assert "days=30" in line

    code, out, err = _cli(
        ["schedule", "add", "org-drift", "--cron", "0 6 * * *", "--paused"], capsys
    )
    assert code == 0, err
    drift = {d["name"]: d for d in lab.api("GET", "job_definitions")["job_definitions"]}
    assert drift["org-drift"]["active"] is False and drift["org-drift"]["timezone"] == "UTC"
    assert drift["org-drift"]["input_filename"] == "org_drift.ipynb"
    assert _cli(["schedule", "remove", "org-drift"], capsys)[0] == 0

    code, out, err = _cli(["schedule", "remove", "weekly"], capsys)
    assert code == 0, err
    names = [d["name"] for d in lab.api("GET", "job_definitions")["job_definitions"]]
    assert "weekly" not in names and "suite" in names
    code, out, _ = _cli(["schedule", "list"], capsys)
    assert "weekly" not in out and "suite-strict" in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["add", "audit-suite", "--cron", "0 7 * *"], "is not a cron expression"),
        (["add", "audit-suite", "--cron", "61 7 * * 1"], "is not a cron expression"),
        (["add", "audit-suite", "--cron", "0 7 * * 1", "--tz", "Mars/Olympus"], "not a time zone"),
        (["add", "audit-suite", "--cron", "0 7 * * 1", "-p", "api_key", "x"], "unknown parameter"),
        (["add", "audit-suite", "--cron", "0 7 * * 1", "-p", "days", "many"], "must be an integer"),
        (["add", "audits", "--cron", "0 7 * * 1"], "unknown notebook 'audits'"),
        (
            ["add", "audit-suite", "--cron", "0 7 * * 1", "-p", "zuliprc", "/nowhere/zuliprc"],
            "zuliprc /nowhere/zuliprc does not exist",
        ),
        (["add", "audit-suite", "--cron", "0 7 * * 1"], "no running JupyterLab"),
        (["list"], "no running JupyterLab"),
        (["remove", "weekly"], "no running JupyterLab"),
    ],
)
def test_schedule_mistakes_are_one_line_and_exit_2(
    args: list[str],
    says: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path))  # no JupyterLab runs there
    code, out, err = _cli(["schedule", *args], capsys)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("chatops: error: ") and says in err, err


def test_parameters_are_python_literals_of_their_type() -> None:
    values = definition_parameters(
        "audit-suite", [("inactive_days", "30"), ("include_bots", "yes"), ("post_to", "a:b")]
    )
    assert (values["inactive_days"], values["include_bots"], values["post_to"]) == (
        "30",
        "True",
        "'a:b'",
    )
    assert "max_stale_channels" not in values  # None: the audit's own default, left out
    assert definition_parameters("org-drift", [])["max_drifted_objects"] == "0"


def test_suite_notebook_declares_every_audit_parameter() -> None:
    cell = next(
        c
        for c in nbformat.read(NOTEBOOKS / SCHEDULED["audit-suite"].path, as_version=4).cells
        if "parameters" in c.metadata.get("tags", [])
    )
    own = [line for line in cell.source.splitlines() if line.split(":")[0] in SUITE_OWN_PARAMETERS]
    assert [line.split(":")[0] for line in own] == list(SUITE_OWN_PARAMETERS)
    rest = "\n".join(line for line in cell.source.splitlines() if line not in own)
    assert rest == suite_parameters_source(), "python scripts/suite_parameters.py"


@pytest.mark.parametrize("name", sorted(SCHEDULED))
def test_scheduled_notebooks_take_credentials_by_path_and_default_to_the_demo(name: str) -> None:
    params = papermill.inspect_notebook(str(NOTEBOOKS / SCHEDULED[name].path))
    assert params["zuliprc"]["default"] == '""' and params["site"]["default"] == '""'
    assert params["report_dir"]["default"] == '"reports"'
    for pname, spec in params.items():
        assert spec["help"], pname
        assert not any(w in pname for w in ("key", "password", "token", "secret")), pname


def test_relative_report_folders_are_taken_from_where_the_lab_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHATOPS_LAB_CWD", str(tmp_path))
    monkeypatch.chdir("/")
    assert report_folder("reports") == tmp_path / "reports"
    assert report_folder("") == tmp_path / "reports"
    assert report_folder(str(tmp_path / "x")) == tmp_path / "x"


def _posted(org: Sandbox, topic: str) -> list[str]:
    with chatops.Client.from_zuliprc(org.zuliprc("member")) as member:
        page = member.messages.get(
            anchor="newest",
            num_before=5,
            num_after=0,
            narrow=[
                {"operator": "channel", "operand": "general"},
                {"operator": "topic", "operand": topic},
            ],
            apply_markdown=False,
        )
    return [m.content for m in page.messages]


def test_the_drift_check_fails_on_drift_after_posting_it(lab: Lab, tmp_path: Path) -> None:
    with chatops.Client.from_zuliprc(lab.org.zuliprc("owner")) as owner:
        doc = export_document(owner)
    doc["organization"]["description"] = "What the file says"
    declared = tmp_path / "org.yaml"
    declared.write_text(to_yaml(doc), encoding="utf-8")
    lines: list[str] = []
    with pytest.raises(ScheduledRunFailed, match="org_drift: threshold crossed"):
        run_suite(
            zuliprc=str(lab.org.zuliprc("admin")),
            audits="org_drift",
            report_dir=str(tmp_path / "reports"),
            post_to="general:drift",
            parameters={"file": str(declared), "max_drifted_objects": 0},
            say=lines.append,
        )
    assert _summary(tmp_path / "reports" / "latest")["exit_code"] == 1  # written first
    assert "Posted the summary to #general > drift" in lines
    assert ["org_drift" in t for t in _posted(lab.org, "drift")] == [True]


def test_a_run_that_cannot_start_fails_and_says_why_where_it_posts(
    lab: Lab, tmp_path: Path
) -> None:
    with pytest.raises(ScheduledRunFailed, match="could not start: unknown audit 'nope'"):
        run_suite(
            zuliprc=str(lab.org.zuliprc("admin")),
            audits="nope",
            report_dir=str(tmp_path / "reports"),
            post_to="general:cannot start",
            say=lambda _line: None,
        )
    [text] = _posted(lab.org, "cannot start")
    assert "could not start" in text and "unknown audit 'nope'" in text


def test_a_zuliprc_parameter_is_the_files_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "audit.zuliprc").write_text("[api]\n")
    monkeypatch.chdir(tmp_path)
    values = definition_parameters("org-drift", [("zuliprc", "audit.zuliprc")])
    assert values["zuliprc"] == repr(str(tmp_path.resolve() / "audit.zuliprc"))


def test_the_analytics_report_refuses_an_unknown_period_and_says_so(
    lab: Lab, tmp_path: Path
) -> None:
    with pytest.raises(ScheduledRunFailed, match="no period 'yesterday'"):
        run_analytics(
            zuliprc=str(lab.org.zuliprc("admin")),
            period="yesterday",
            report_dir=str(tmp_path),
            post_to="general:analytics",
            say=lambda _line: None,
        )
    [text] = _posted(lab.org, "analytics")
    assert "no period 'yesterday'" in text
    assert not (tmp_path / "analytics").exists()


@pytest.mark.parametrize(
    ("name", "function", "expected"),
    [
        ("audit-suite", "run_suite", {"audits": "", "report_dir": "reports", "parameters": {}}),
        (
            "org-drift",
            "run_suite",
            {
                "audits": "org_drift",
                "parameters": {"file": "", "prune": False, "max_drifted_objects": 0},
            },
        ),
        ("analytics-report", "run_analytics", {"period": "last-30-days", "report_dir": "reports"}),
    ],
)
def test_each_scheduled_notebook_runs_what_its_parameters_say(
    name: str, function: str, expected: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The notebook's cells with the scheduler's injected parameters (here ``zuliprc`` and, for
    the suite, one audit's threshold), the run itself stood in for."""
    from chatops.jupyter import scheduled

    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(scheduled, function, lambda **kw: calls.append(kw) or Path("."))
    notebook = nbformat.read(NOTEBOOKS / SCHEDULED[name].path, as_version=4)
    injected = "zuliprc = '/etc/chatops/audit.zuliprc'"
    if name == "audit-suite":
        injected += "\nmax_stale_channels = 3"
        expected = {**expected, "parameters": {"max_stale_channels": 3}}
    namespace: dict[str, Any] = {}
    for cell in notebook.cells:
        if cell.cell_type == "code":
            exec(cell.source, namespace)
            if "parameters" in cell.metadata.get("tags", []):
                exec(injected, namespace)  # as the scheduler puts it after the parameters cell
    [call] = calls
    assert call["zuliprc"] == "/etc/chatops/audit.zuliprc" and call["site"] == ""
    assert {k: call[k] for k in expected} == expected


def test_with_no_credentials_a_run_acts_with_the_labs_zuliprc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rc = tmp_path / "lab.zuliprc"
    rc.write_text("[api]\n")
    monkeypatch.chdir(tmp_path)
    env = lab_environment(zuliprc="lab.zuliprc")
    assert env[LAB_ZULIPRC_VARIABLE] == str(rc.resolve())
    assert LAB_ZULIPRC_VARIABLE not in lab_environment()
    monkeypatch.setenv(LAB_ZULIPRC_VARIABLE, str(rc))
    assert lab_zuliprc("", "") == str(rc)
    assert lab_zuliprc("/other.zuliprc", "") == "/other.zuliprc"
    assert lab_zuliprc("", "https://chat.example.org") == ""  # site: ZULIP_* credentials
