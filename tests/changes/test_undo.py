"""Apply then undo: the whole audit suite's plan on the small demo organization applied with no
call failing, then undone by an undo killed half way (SIGKILL) and run again, leaves the
organization as it was (through the API) with no inverse sent twice; a further undo sends
nothing. Last, the plan's calls that cannot be undone apply cleanly, and once."""

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

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

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
    plan: Path
    journal: Path
    made: list[dict[str, Any]]
    applied_at: int
    applied: str


def _results(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    return [line for line in lines if "status" in line]


def _cli(base: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatops.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=_env(base),
        stdin=subprocess.DEVNULL,
    )


def _env(base: Path) -> dict[str, str]:
    return {**os.environ, "CHATOPS_STATE_DIR": str(base / "state"), "PYTHONPATH": str(ROOT)}


def _state(sandbox: Sandbox) -> dict[str, Any]:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as admin:
        return organization_state(admin)


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Org]:
    """The small demo organization after ``audit run --all`` -> ``audit plan`` ->
    ``audit apply --yes``, with its state from before."""
    base = tmp_path_factory.mktemp("undo")
    requests = _Requests()
    access = logging.getLogger("uvicorn.access")
    with Sandbox.start(base / "org", size="small", seed=41, log_level="info") as sb:
        # after the start: uvicorn sets up its loggers when it starts serving
        access.addHandler(requests)
        try:
            before = _state(sb)
            assert requests.seen, "the sandbox's access log is not heard"
            rc = str(sb.zuliprc("admin"))
            reports = base / "reports"
            # a channel with fewer than 25 people is underused here: the plan archives some
            strict = ("-p", "min_subscribers", "25")
            run = _cli(
                base,
                "audit",
                "run",
                "--all",
                *strict,
                "--zuliprc",
                rc,
                "--report-dir",
                str(reports),
            )
            assert run.returncode in (0, 1), run.stderr
            plan = base / "plan.jsonl"
            planned = _cli(base, "audit", "plan", str(reports / "latest"), "-o", str(plan))
            assert planned.returncode == 0, planned.stderr
            applied = _cli(base, "audit", "apply", str(plan), "--yes", "--zuliprc", rc)
            assert applied.returncode == 0, applied.stdout + applied.stderr
            journal = results_path(plan)
            made = [r for r in _results(journal) if r["status"] == "done"]
            yield Org(
                sb,
                requests,
                base,
                before,
                plan,
                journal,
                made,
                len(requests.writes()),
                applied.stdout,
            )
        finally:
            access.removeHandler(requests)


def test_the_suites_plan_changes_settings_groups_channels_topics_and_people(org: Org) -> None:
    assert len(org.made) >= 40
    assert {r["change"]["kind"] for r in org.made} >= {
        "ArchiveChannel",
        "DeactivateBot",
        "DeactivateGroup",
        "MoveTopic",
        "Unsubscribe",
        "UpdateRealm",
    }
    assert differences(org.before, _state(org.sandbox))
    # every call of the whole suite's plan went through: none failed, none was refused
    statuses = {r["status"] for r in _results(org.journal)}
    assert statuses <= {"done", "already_done"}, org.applied
    # the apply sent one write per change (a re-created linkifier aside, none are here)
    assert org.applied_at >= len(org.made)


def test_an_undo_killed_half_way_then_run_again_restores_the_organization_once(org: Org) -> None:
    # undo in a process of its own, killed with SIGKILL once a few changes are put back
    process = subprocess.Popen(
        [sys.executable, "-m", "chatops.cli", "undo", str(org.journal), "--yes"],
        env=_env(org.base),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    undo_journal = undo_path(org.journal)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if undo_journal.is_file() and len(_results(undo_journal)) >= 15:
            break
        time.sleep(0.005)
    process.send_signal(signal.SIGKILL)
    process.wait()
    killed_at = len(_results(undo_journal))
    assert 0 < killed_at < len(org.made), "the undo was not killed half way"

    # run again from the index: no journal named, the credentials the apply used
    done = _cli(org.base, "undo", "--yes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert differences(org.before, _state(org.sandbox)) == []
    # every inverse was sent at most once: the server saw one write per change put back
    sent = org.requests.writes()[org.applied_at :]
    inverses = [r for r in _results(undo_journal) if r["status"] == "done"]
    assert len(inverses) == len(org.made)
    assert len(sent) == len(inverses) + sum(
        # a re-created linkifier is two calls (added, then put at its place)
        1
        for r in inverses
        if r["change"]["kind"] == "AddLinkifier"
    ), sent
    by_change = [r["id"] for r in _results(undo_journal) if r["status"] in ("done", "already_done")]
    assert len(by_change) == len(set(by_change))

    # a third undo sends nothing
    writes = len(org.requests.writes())
    again = _cli(org.base, "undo", "--yes")
    assert again.returncode == 0, again.stdout
    assert "Nothing to undo." in again.stdout
    assert org.requests.writes()[writes:] == []


def test_after_the_undo_the_calls_that_cannot_be_undone_apply_cleanly_and_once(org: Org) -> None:
    """The plan's irreversible calls, left out by ``--yes`` alone, go with ``--irreversible``:
    none fails, and applying again sends nothing."""
    rc = str(org.sandbox.zuliprc("admin"))
    assert "cannot be undone are not sent: give --irreversible" in org.applied
    left = _cli(
        org.base, "audit", "apply", str(org.plan), "--yes", "--irreversible", "--zuliprc", rc
    )
    assert left.returncode == 0, left.stdout + left.stderr
    statuses = [r["status"] for r in _results(org.journal)]
    assert len(statuses) > len(org.made)
    assert "failed" not in statuses and "refused" not in statuses, left.stdout
    writes = len(org.requests.writes())
    again = _cli(
        org.base, "audit", "apply", str(org.plan), "--yes", "--irreversible", "--zuliprc", rc
    )
    assert again.returncode == 0, again.stdout
    assert "0 to run" in again.stdout and "Nothing to do." in again.stdout
    assert len(_results(org.journal)) == len(statuses)
    assert org.requests.writes()[writes:] == []
