"""Apply then undo: the whole audit suite's plan on a demo organization, applied and undone,
leaves the organization as it was (through the API), a second undo sends nothing, and an undo
killed half way (SIGKILL) and run again sends nothing twice."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.audit.plan import results_path
from chatops.changes.undo import undo_path
from chatops.sandbox import Sandbox
from tests.changes.org_state import differences, organization_state
from tests.test_cli import ROOT

pytestmark = pytest.mark.slow

WRITES = ("POST", "PATCH", "PUT", "DELETE")
#: writes that change nothing of an organization: reading its settings (an event queue made
#: and deleted)
NOT_CHANGES = ("POST /api/v1/register", "DELETE /api/v1/events")


class _Requests(logging.Handler):
    """The requests the sandbox served (uvicorn's access log), as ``METHOD /path``."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3:
            self.seen.append(f"{args[1]} {str(args[2]).split('?')[0]}")

    def writes(self) -> list[str]:
        return [r for r in self.seen if r.startswith(WRITES) and not r.startswith(NOT_CHANGES)]


@dataclass
class Org:
    sandbox: Sandbox
    requests: _Requests
    base: Path
    before: dict[str, Any]


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Org]:
    base = tmp_path_factory.mktemp("undo")
    requests = _Requests()
    access = logging.getLogger("uvicorn.access")
    with Sandbox.start(base / "org", size="small", seed=41, log_level="info") as sb:
        # after the start: uvicorn sets up its loggers when it starts serving
        access.addHandler(requests)
        try:
            with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin:
                before = organization_state(admin)
            assert requests.seen, "the sandbox's access log is not heard"
            yield Org(sb, requests, base, before)
        finally:
            access.removeHandler(requests)


def _state(org: Org) -> dict[str, Any]:
    with chatops.Client.from_zuliprc(org.sandbox.zuliprc("admin")) as admin:
        return organization_state(admin)


def _results(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return [line for line in lines if "status" in line]


def _env(org: Org) -> dict[str, str]:
    return {"CHATOPS_STATE_DIR": str(org.base / "state")}


def _cli(org: Org, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **_env(org), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "chatops.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_the_suites_plan_applied_then_undone_leaves_the_organization_as_it_was(org: Org) -> None:
    rc = str(org.sandbox.zuliprc("admin"))
    reports = org.base / "reports"
    # a channel with fewer than 12 people is underused here: the plan archives channels too
    strict = ("-p", "min_subscribers", "12")
    run = _cli(org, "audit", "run", "--all", *strict, "--zuliprc", rc, "--report-dir", str(reports))
    assert run.returncode in (0, 1), run.stderr
    plan = org.base / "plan.jsonl"
    assert _cli(org, "audit", "plan", str(reports / "latest"), "-o", str(plan)).returncode == 0
    applied = _cli(org, "audit", "apply", str(plan), "--yes", "--zuliprc", rc)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    made = [r for r in _results(results_path(plan)) if r["status"] == "done"]
    assert len(made) >= 10, applied.stdout
    # the plan changed settings, groups, channels, topics, people
    assert {r["change"]["kind"] for r in made} >= {
        "ArchiveChannel",
        "DeactivateBot",
        "DeactivateGroup",
        "MoveTopic",
        "Unsubscribe",
        "UpdateRealm",
    }
    changed = differences(org.before, _state(org))
    assert changed

    # undo from the index: no journal named, the credentials the apply used
    undone = _cli(org, "undo", "--yes")
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert f"{len(made)} put back" in undone.stdout
    assert differences(org.before, _state(org)) == []

    # a second undo sends nothing
    writes = len(org.requests.writes())
    again = _cli(org, "undo", "--yes")
    assert again.returncode == 0, again.stdout
    assert "Nothing to undo." in again.stdout
    assert org.requests.writes()[writes:] == []


def test_an_undo_killed_half_way_and_run_again_sends_nothing_twice(org: Org) -> None:
    rc = str(org.sandbox.zuliprc("admin"))
    plan = org.base / "plan-again.jsonl"
    run_dir = sorted((org.base / "reports").iterdir())[0]
    assert _cli(org, "audit", "plan", str(run_dir), "-o", str(plan)).returncode == 0
    applied = _cli(org, "audit", "apply", str(plan), "--yes", "--zuliprc", rc)
    assert applied.returncode == 0, applied.stdout
    journal = results_path(plan)
    made = [r for r in _results(journal) if r["status"] == "done"]
    first_writes = len(org.requests.writes())

    # undo in a process of its own, killed with SIGKILL once a few changes are put back
    process = subprocess.Popen(
        [sys.executable, "-m", "chatops.cli", "undo", str(journal), "--yes"],
        env={**os.environ, **_env(org), "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    undo_journal = undo_path(journal)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if undo_journal.is_file() and len(_results(undo_journal)) >= 3:
            break
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()
    killed_at = len(_results(undo_journal))
    assert killed_at < len(made), "the undo finished before it could be killed"

    done = _cli(org, "undo", str(journal), "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert differences(org.before, _state(org)) == []
    # every inverse was sent at most once: the server saw one write per change put back
    sent = org.requests.writes()[first_writes:]
    inverses = [r for r in _results(undo_journal) if r["status"] == "done"]
    assert len(sent) == len(inverses) + sum(
        # a re-created linkifier is two calls (added, then put at its place)
        1
        for r in inverses
        if r["change"]["kind"] == "AddLinkifier"
    ), sent
    by_change = [r["id"] for r in _results(undo_journal) if r["status"] in ("done", "already_done")]
    assert len(by_change) == len(set(by_change))
