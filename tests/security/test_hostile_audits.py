"""The audits, their report, a plan and its apply over the hostile organization
(tests/hostile.py): what a member typed reaches every output and runs nowhere.

- the report's CSV files hold no formula cell; the report is its owner's only;
- a plan asks for input only where an audit wrote a placeholder, never for a name's braces;
- ``chatops audit apply`` in a terminal shows every line it will run, each name escaped, and
  a summary that nothing above can hide; the 60-character topic is resolved as the server
  makes it fit;
- every other command line output (``whoami``, ``audit run``'s lines) is escaped.
"""

from __future__ import annotations

import json
import logging
import os
import pty
import re
import select
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops import audit as pipeline
from chatops.sandbox import Sandbox
from tests.browser.conftest import chromium
from tests.changes.test_undo import NOT_CHANGES, WRITES, _Requests
from tests.hostile import (
    ESCAPE,
    FORMULA,
    LONG_TOPIC,
    PLACEHOLDER,
    Planted,
    clean,
    formula_cells_in_csv,
    plant,
    raw_terminal_characters,
    visit,
)
from tests.test_cli import _scan
from tests.test_cli import chatops as chatops_cli

pytestmark = pytest.mark.slow

#: the placeholders the audits' own templates use
TEMPLATE_HOLES = {
    "user_id",
    "user_ids",
    "group_id",
    "stream_id",
    "stream_id_to_archive",
    "bot_id",
    "invite_id",
    "filter_id",
    "attachment_id",
    "folder_id",
    "description",
    "new_name",
    "channel",
    "channels",
    "guest_ids",
    "new_pattern",
    "timestamp",
    "topic",
    "message_id",
}


@dataclass
class Hostile:
    sandbox: Sandbox
    planted: Planted
    run_dir: Path
    plan: Path
    base: Path
    #: what ``chatops audit run --all`` printed, and every request it made (``METHOD /path``)
    run: subprocess.CompletedProcess[str]
    requests: list[str]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hostile]:
    """The hostile organization after ``chatops audit run --all --zuliprc`` as cron runs it,
    with the sandbox's access log heard during the run, and the run's plan."""
    base = tmp_path_factory.mktemp("hostile")
    requests = _Requests()
    access = logging.getLogger("uvicorn.access")
    with Sandbox.start(base / "org", size="small", seed=5, log_level="info") as sb:
        planted = plant(sb)
        access.addHandler(requests)  # after the start: uvicorn sets up its loggers then
        try:
            run = chatops_cli(
                "audit", "run", "--all", "--zuliprc", str(sb.zuliprc("admin")),
                "--report-dir", str(base / "reports"),
            )  # fmt: skip
        finally:
            access.removeHandler(requests)
        assert run.returncode in (0, 1), run.stderr
        run_dir = Path(run.stdout.strip().splitlines()[-1]).parent
        plan = base / "plan.jsonl"
        made = chatops_cli("audit", "plan", str(run_dir), "-o", str(plan))
        assert made.returncode == 0, made.stderr
        yield Hostile(sb, planted, run_dir, plan, base, run, requests.seen)


def test_every_audit_notebook_only_reads_and_no_file_holds_a_key(hostile: Hostile) -> None:
    """One write path, at run time: every audit notebook, run by the command cron runs, makes
    only reads (more than a hundred), and no API key of the organization is in a file of the
    report or in what the command printed."""
    summary = json.loads((hostile.run_dir / "summary.json").read_text())
    assert set(summary["audits"]) == set(pipeline.available_audits())
    assert [a for a, s in summary["audits"].items() if s.get("error")] == []
    assert len(hostile.requests) > 100  # the audits read a lot
    writes = [r for r in hostile.requests if r.startswith(WRITES)]
    assert [r for r in writes if not r.startswith(NOT_CHANGES)] == []
    secrets = [a.api_key for a in hostile.sandbox.accounts.values() if a.api_key]
    files = _scan(hostile.run_dir, secrets)
    assert {p.name for p in files} >= {"org_overview.ipynb", "org_overview.html", "summary.json"}
    for secret in secrets:
        assert secret not in hostile.run.stdout + hostile.run.stderr


def test_the_report_csv_files_hold_no_formula_and_do_hold_the_planted_text(
    hostile: Hostile,
) -> None:
    files = sorted(hostile.run_dir.rglob("*.csv"))
    assert len(files) > 14
    texts = {p: p.read_bytes().decode("utf-8") for p in files}
    found = {str(p.relative_to(hostile.run_dir)): formula_cells_in_csv(t) for p, t in texts.items()}
    assert {k: v for k, v in found.items() if v} == {}
    # the payloads did reach the files, neutralised
    everything = "\n".join(texts.values())
    assert "'" + FORMULA[1] in everything and "'" + FORMULA[2] in everything


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as instance:
        yield instance


def test_the_report_pages_run_nothing_a_member_typed(hostile: Hostile, browser: Any) -> None:
    """The index and every audit's page, in Chromium: no dialog, no element a payload would
    make, no request leaving 127.0.0.1; the payloads are on the pages, as text."""
    pages = [hostile.run_dir / "index.html", *sorted(hostile.run_dir.glob("*.html"))]
    assert len(pages) >= 15
    shown = ""
    for page in pages:
        seen = visit(browser, page.as_uri(), shot=f"hostile-report-{page.stem}")
        clean(seen, page.name)
        shown += seen.text
    assert "<img src=x id=chatops-pwn" in shown
    assert "=cmd|' /C calc'!A0" in shown


def test_the_report_is_readable_by_its_owner_only(hostile: Hostile) -> None:
    modes = {
        str(p.relative_to(hostile.run_dir)): stat.S_IMODE(p.lstat().st_mode)
        for p in [hostile.run_dir, *hostile.run_dir.rglob("*")]
    }
    wrong = {p: oct(m) for p, m in modes.items() if m not in (0o700, 0o600)}
    assert wrong == {}
    assert stat.S_IMODE((hostile.base / "reports").stat().st_mode) == 0o700
    assert stat.S_IMODE(hostile.plan.stat().st_mode) == 0o600


def test_a_report_is_shared_only_when_asked(hostile: Hostile, tmp_path: Path) -> None:
    result = pipeline.run_audits(
        ["linkifiers"],
        report_dir=tmp_path / "shared",
        zuliprc=str(hostile.sandbox.zuliprc("admin")),
        readable_by="group",
    )
    modes = {stat.S_IMODE(p.stat().st_mode) for p in [result.run_dir, *result.run_dir.rglob("*")]}
    assert modes == {0o750, 0o640}
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o750
    with pytest.raises(pipeline.AuditInputError, match="readable_by"):
        pipeline.run_audits(["linkifiers"], report_dir=tmp_path / "x", readable_by="world")  # type: ignore[arg-type]


def _plan_lines(hostile: Hostile) -> list[dict[str, object]]:
    return [json.loads(line) for line in hostile.plan.read_text().splitlines() if line.strip()]


def test_a_plan_asks_for_input_only_where_an_audit_put_a_placeholder(hostile: Hostile) -> None:
    lines = _plan_lines(hostile)
    holes = {
        name
        for line in lines
        if line["needs_input"]
        for name in re.findall(r"\{(\w+)\}", str(line["reason"]))
    }
    assert holes <= TEMPLATE_HOLES, holes - TEMPLATE_HOLES
    planted = [p for p in PLACEHOLDER]
    for line in lines:
        subject = str(line["finding"]["subject"])  # type: ignore[index]
        if any(p in subject for p in planted):
            assert not line["needs_input"], line
    # the empty group named "{user_ids}" is deactivated as any other
    group = next(
        line
        for line in lines
        if "{user_ids}" in str(line["finding"]["subject"])  # type: ignore[index]
    )
    assert re.fullmatch(r"/user_groups/\d+/deactivate", str(group["path"])), group
    # the unresolved topic at the limit is resolved with its whole name: the server cuts it
    resolve = next(line for line in lines if line["params"].get("topic") == "✔ " + LONG_TOPIC)  # type: ignore[union-attr]
    assert not resolve["needs_input"]


def _in_a_terminal(args: list[str], answer: str, timeout: float = 120) -> bytes:
    """Run ``chatops ARGS`` on a pseudo-terminal, answer its question; all it wrote."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "chatops.cli", *args],
        stdin=follower,
        stdout=follower,
        stderr=follower,
        close_fds=True,
        env={**os.environ, "TERM": "xterm"},
    )
    os.close(follower)
    out = b""
    answered = False
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the other end closed: the command ended
                    break
                if not chunk:
                    break
                out += chunk
                if not answered and b"[y/N]" in out:
                    os.write(leader, answer.encode() + b"\n")
                    answered = True
            elif process.poll() is not None:
                break
        process.wait(30)
    finally:
        os.close(leader)
        if process.poll() is None:
            process.kill()
    return out


def test_apply_in_a_terminal_shows_every_call_escaped_and_a_summary_above_the_question(
    hostile: Hostile,
) -> None:
    out = _in_a_terminal(
        ["audit", "apply", str(hostile.plan), "--zuliprc", str(hostile.sandbox.zuliprc("admin"))],
        "n",
    )
    text = out.decode("utf-8")
    assert raw_terminal_characters(text) == [], text[-2000:]
    lines = text.replace("\r\n", "\n").splitlines()
    will_run = [line for line in lines if line.startswith("  will run  ")]
    to_run = sum(1 for line in _plan_lines(hostile) if not line["needs_input"])
    assert len(will_run) == to_run > 0
    # the planted names are there, escaped
    assert any("\\x1b[2K" in line for line in will_run), will_run
    question = next(i for i, line in enumerate(lines) if "[y/N]" in line)
    # right above the question: what the calls change, and how many cannot be undone
    summary, cannot = lines[question - 2], lines[question - 1]
    assert summary.startswith(f"Will run {to_run} calls: ")
    assert re.match(r"\d+ of them cannot be undone \(", cannot), cannot
    assert "DELETE /users/{id}" in summary and "POST /user_groups/{id}/deactivate" in summary
    assert lines[question + 1 :] and "Nothing applied." in text
    assert not (hostile.plan.with_name("plan.results.jsonl")).exists()


def test_apply_resolves_the_topic_at_the_limit_as_the_server_makes_it_fit(
    hostile: Hostile,
) -> None:
    done = chatops_cli(
        "audit",
        "apply",
        str(hostile.plan),
        "--yes",
        "--zuliprc",
        str(hostile.sandbox.zuliprc("admin")),
    )
    assert raw_terminal_characters(done.stdout + done.stderr) == []
    lines = hostile.plan.with_name("plan.results.jsonl").read_text().splitlines()
    results = [r for r in map(json.loads, lines) if "status" in r]
    resolve = next(r for r in results if r["params"].get("topic") == "✔ " + LONG_TOPIC)
    assert resolve["status"] == "done", resolve
    assert stat.S_IMODE(hostile.plan.with_name("plan.results.jsonl").stat().st_mode) == 0o600
    with chatops.Client.from_zuliprc(hostile.sandbox.zuliprc("admin")) as admin:
        general = next(c for c in admin.channels.list() if c.name == "general")
        topics = {t.name for t in admin.messages.topics(general.stream_id)}
    assert "✔ " + "q" * 55 + "..." in topics and LONG_TOPIC not in topics


def test_other_command_line_output_is_escaped(hostile: Hostile) -> None:
    whoami = chatops_cli("whoami", "--zuliprc", str(hostile.sandbox.zuliprc("guest")))
    assert whoami.returncode == 0, whoami.stderr
    assert raw_terminal_characters(whoami.stdout) == []
    assert "Guest\\x1b[2K" in whoami.stdout
    assert ESCAPE[0] not in whoami.stdout
