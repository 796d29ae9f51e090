"""The report a person reads, the summary posted to the organization, and no credential anywhere."""

from __future__ import annotations

import csv
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.audit.report import parse_post_target
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops_here
from tests.test_cli import chatops as chatops_cli

AUDITS = ("bots", "invitations", "stale_channels")
TOPIC = "audit report"


def _credentials(sb: Sandbox) -> list[str]:
    found = [a.api_key for a in sb.accounts.values() if a.api_key]
    found += [a.password for a in sb.accounts.values() if a.password]
    assert found
    return found


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("post-org"), size="small", seed=29) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin:
            admin.invitations.create_link(expires_in_minutes=None)
            admin.invitations.create_link(invite_as=200)
        yield sb


@pytest.fixture(scope="module")
def posted_run(
    org: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> tuple[subprocess.CompletedProcess[str], Path]:
    reports = tmp_path_factory.mktemp("post-reports")
    proc = chatops_cli(
        "audit",
        "run",
        *AUDITS,
        "-p",
        "max_risky_invitations",
        "0",
        "--zuliprc",
        str(org.zuliprc("admin")),
        "--report-dir",
        str(reports),
        "--post-to",
        f"general:{TOPIC}",
        "--jobs",
        "2",
    )
    return proc, reports


def _posted(org: Sandbox) -> list[Any]:
    with chatops.Client.from_zuliprc(org.zuliprc("member")) as member:
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
    return list(page.messages)


@pytest.mark.slow
def test_summary_is_posted_and_read_back(
    org: Sandbox, posted_run: tuple[subprocess.CompletedProcess[str], Path]
) -> None:
    proc, reports = posted_run
    assert proc.returncode == 1, proc.stderr  # the threshold of 0 is crossed; posting keeps it
    assert f"Posted the summary to #general > {TOPIC}" in proc.stderr
    messages = _posted(org)
    assert len(messages) == 1
    text = messages[0].content
    summary = json.loads((reports / "latest" / "summary.json").read_text())
    assert text.startswith("**Audit report: Threshold crossed in 1 of 3 audits: invitations**")
    for name in AUDITS:
        assert re.search(rf"^- .*{name}: ", text, re.M), name
    assert "max_risky_invitations" in text
    assert f"New findings: {summary['counts']['new']}" in text
    assert str((reports / "latest").resolve() / "index.html") in text
    for secret in _credentials(org):
        assert secret not in text
        assert secret not in proc.stdout + proc.stderr


@pytest.mark.slow
def test_no_credential_anywhere_in_the_report(
    org: Sandbox, posted_run: tuple[subprocess.CompletedProcess[str], Path]
) -> None:
    _, reports = posted_run
    files = [p for p in reports.rglob("*") if p.is_file()]
    assert len(files) > 10
    secrets = _credentials(org)
    for path in files:
        text = path.read_bytes().decode("utf-8", errors="replace")
        for secret in secrets:
            assert secret not in text, f"a credential is in {path}"


@pytest.mark.slow
def test_pages_read_as_a_report(
    org: Sandbox, posted_run: tuple[subprocess.CompletedProcess[str], Path]
) -> None:
    _, reports = posted_run
    run_dir = (reports / "latest").resolve()
    summary = json.loads((run_dir / "summary.json").read_text())
    index = (run_dir / "index.html").read_text()
    body = index[index.index("<body") :]
    assert body.index('class="verdict threshold_crossed"') < body.index("<h2>Audits</h2>")
    assert "Threshold crossed in 1 of 3 audits: invitations" in body
    pages = {name: (run_dir / a["html"]).read_text() for name, a in summary["audits"].items()}
    crossed = pages["invitations"]
    first_heading = re.search(r"<h2[^>]*>(.*?)</h2>", crossed, re.S)
    assert first_heading is not None and "Threshold crossed" in first_heading.group(1)
    assert "max_risky_invitations</b>: the limit is 0" in crossed
    assert re.search(r"\d+ risky invitations; the threshold is 0", crossed)
    assert (
        crossed.index("Threshold crossed") < crossed.index("What to do") < crossed.index("Findings")
    )
    passed = pages["bots"]
    first_heading = re.search(r"<h2[^>]*>(.*?)</h2>", passed, re.S)
    assert first_heading is not None and first_heading.group(1).startswith("Passed")
    assert "image/png" in passed  # the plot is there, inline
    for name, html in [("index", index), *pages.items()]:
        assert '<script src="http' not in html, name
        assert 'class="jp-CodeMirrorEditor' not in html, name  # no code cells
        assert "highlight hl-ipython3" not in html and "session.client" not in html, name
        assert "from chatops" not in html and "open_session(" not in html, name
        assert "AuditResult(" not in html and "&lt;Axes" not in html, name  # no object reprs
        assert "PosixPath" not in html and "dict_keys" not in html, name
        assert str(reports) not in html and str(org.data_dir) not in html, name  # no temp paths
        assert "/tmp/" not in html, name


@pytest.mark.slow
def test_every_findings_table_has_a_csv(
    posted_run: tuple[subprocess.CompletedProcess[str], Path],
) -> None:
    _, reports = posted_run
    run_dir = (reports / "latest").resolve()
    summary = json.loads((run_dir / "summary.json").read_text())
    for name, audit in summary["audits"].items():
        path = run_dir / audit["findings_csv"]
        with path.open(newline="") as handle:
            rows = list(csv.DictReader(handle))
        assert len(rows) == audit["findings"], name
        assert list(rows[0]) if rows else True
        page = (run_dir / audit["html"]).read_text()
        assert f'href="{name}/findings.csv"' in page
        assert f'href="{audit["findings_csv"]}"' in (run_dir / "index.html").read_text()
    assert (run_dir / "bots" / "tables" / "bots.csv").is_file()


@pytest.mark.slow
def test_a_failed_post_never_fails_the_run(org: Sandbox, tmp_path: Path) -> None:
    proc = chatops_cli(
        "audit",
        "run",
        "bots",
        "--zuliprc",
        str(org.zuliprc("admin")),
        "--report-dir",
        str(tmp_path),
        "--post-to",
        "no-such-channel:audits",
    )
    assert proc.returncode == 0, proc.stderr
    failures = [line for line in proc.stderr.splitlines() if "Could not post" in line]
    assert len(failures) == 1 and "no-such-channel" in failures[0]
    assert (tmp_path / "latest" / "index.html").is_file()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("general:audit report", ("general", "audit report", ())),
        ("dm:alice@x.org,bob@y.org", ("", "", ("alice@x.org", "bob@y.org"))),
    ],
)
def test_parse_post_target(text: str, expected: tuple[str, str, tuple[str, ...]]) -> None:
    target = parse_post_target(text)
    assert (target.channel, target.topic, target.recipients) == expected


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("--post-to", "general"), "--post-to 'general' must be"),
        (("--post-to", "dm:"), "must be"),
        (("--post-to", "dm:alice"), "email addresses"),
        (("--post-to", ":topic"), "must be"),
        (("--jobs", "0"), "--jobs must be at least 1"),
        (("--jobs", "many"), "invalid number of jobs 'many'"),
    ],
)
def test_bad_run_options(tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    reports = tmp_path / "reports"
    proc = chatops_here("audit", "run", "bots", "--report-dir", str(reports), *args)
    _one_line_error(proc, needle)
    assert not reports.exists()
