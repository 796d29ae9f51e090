"""Two runs of the suite in one report folder, with changes between them: the trends."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.audit.report import finding_id, finding_kind
from chatops.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
AUDITS = ("bots", "invitations", "stale_channels")


def chatops_cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
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
    )


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("trends-org"), size="small", seed=21) as sb:
        yield sb


def test_finding_identity_ignores_numbers() -> None:
    assert finding_kind("no message in 93 days (more than 90)") == finding_kind(
        "no message in  94 days (more than 90)"
    )
    assert finding_kind("1,234.5 files") == "# files"
    one = finding_id("bots", "Helper Bot", finding_kind("no message in 93 days"))
    assert one == finding_id("bots", "Helper Bot", finding_kind("no message in 94 days"))
    assert one != finding_id("bots", "Other Bot", finding_kind("no message in 93 days"))
    assert one != finding_id("invitations", "Helper Bot", finding_kind("no message in 93 days"))


@pytest.mark.slow
def test_second_run_shows_new_resolved_and_still_open(org: Sandbox, tmp_path: Path) -> None:
    rc = str(org.zuliprc("admin"))
    first = chatops_cli("audit", "run", *AUDITS, "--zuliprc", rc, "--report-dir", str(tmp_path))
    assert first.returncode == 0, first.stderr
    before = json.loads(Path(first.stdout.strip()).read_text())
    assert before["schema_version"] == 2 and before["previous_run"] is None
    assert before["counts"]["new"] == before["counts"]["findings"] > 0
    assert all(f["trend"] == "new" for f in before["findings"])
    invites = {f["subject"]: f for f in before["findings"] if f["audit"] == "invitations"}
    revoked = next(s for s in invites if s.startswith("invite "))
    invite_id = int(revoked.split()[1])

    with chatops.Client.from_zuliprc(rc) as admin:
        admin.invitations.revoke(invite_id)  # its finding is gone with it (not resolved)
        admin.invitations.create_link(expires_in_minutes=None)  # a link that never expires: new

    second = chatops_cli("audit", "run", *AUDITS, "--zuliprc", rc, "--report-dir", str(tmp_path))
    assert second.returncode == 0, second.stderr
    run_dir = Path(second.stdout.strip()).parent
    after = json.loads((run_dir / "summary.json").read_text())
    assert after["previous_run"] == Path(first.stdout.strip()).parent.name

    new = [f for f in after["findings"] if f["trend"] == "new"]
    still = [f for f in after["findings"] if f["trend"] == "still_open"]
    assert [(f["audit"], f["finding"]) for f in new] == [("invitations", "never expires")]
    link = new[0]["subject"]
    assert link.startswith("link ") and link not in invites
    assert [(f["audit"], f["subject"]) for f in after["gone"]] == [("invitations", revoked)]
    assert after["resolved"] == [] and after["gone"][0]["trend"] == "gone"
    assert len(still) == before["counts"]["findings"] - 1
    assert {f["id"] for f in still} == {f["id"] for f in before["findings"]} - {
        invites[revoked]["id"]
    }
    assert after["counts"]["new"] == len(new)
    assert (after["counts"]["resolved"], after["counts"]["gone"]) == (0, 1)
    assert after["counts"]["still_open"] == len(still)
    assert after["audits"]["invitations"]["trend"] == {
        "compared": True,
        "previous_status": "passed",
        "new": 1,
        "resolved": 0,
        "gone": 1,
        "still_open": len(invites) - 1,
    }
    assert after["audits"]["bots"]["trend"]["new"] == 0
    assert [h["run"] for h in after["history"]] == [before["run"], after["run"]]
    assert after["history"][0]["findings"] == before["counts"]["findings"]

    index = (run_dir / "index.html").read_text()
    assert f"Since the previous run ({before['run']})" in index
    assert f"1 new,\n0 resolved, 1 gone, {len(still)} still open" in index
    assert "Resolved since the previous run (0)" in index
    assert "Gone since the previous run (1)" in index and revoked in index
    assert "New findings (1)" in index and link in index
    # the line of each audit: its change since the last run
    assert f"+1 new, 0 resolved, 1 gone, {len(invites) - 1} still open" in index
    bots = after["audits"]["bots"]["trend"]["still_open"]
    assert f"+0 new, 0 resolved, {bots} still open" in index
    assert "Findings over time" in index and "data:image/png;base64," in index
