"""What vanished between two runs says why: "resolved" when its subject is still there and the
problem is not, "gone" when the subject itself is (an archived channel's topics, a deactivated
group)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest

import chatops
from chatops.audit import AuditRun
from chatops.audit.report import summary_payload
from chatops.audits._common import finding
from chatops.sandbox import Sandbox
from tests.test_report_trends import chatops_cli


def _outcome(findings: list[Any], subjects: list[str] | None) -> AuditRun:
    return AuditRun(name="unresolved_topics", passed=True, findings=findings, subjects=subjects)


def _topic(subject: str) -> Any:
    return finding("warning", subject, "unresolved, last message 9 days ago", "Resolve it", None)


def test_vanished_findings_are_resolved_or_gone_by_their_subject(tmp_path: Path) -> None:
    first = tmp_path / "20260101T000000Z"
    second = tmp_path / "20260102T000000Z"
    topics = [
        msgspec.structs.replace(_topic(s), audit="unresolved_topics")
        for s in ("#a > open", "#a > answered", "#old > question")
    ]
    before = summary_payload(first, [_outcome(topics, None)], "x", None)
    # #a > answered was resolved (still there, as "✔ answered"); #old was archived
    after = summary_payload(
        second,
        [_outcome(topics[:1], ["#a > open", "#a > answered"])],
        "x",
        (first.name, before),
    )
    assert [f["subject"] for f in after["resolved"]] == ["#a > answered"]
    assert [(f["subject"], f["trend"]) for f in after["gone"]] == [("#old > question", "gone")]
    assert after["audits"]["unresolved_topics"]["trend"]["gone"] == 1
    assert (after["counts"]["resolved"], after["counts"]["gone"]) == (1, 1)
    # an audit that does not say what it looked at resolves, as before
    unknown = summary_payload(second, [_outcome(topics[:1], None)], "x", (first.name, before))
    assert len(unknown["resolved"]) == 2 and unknown["gone"] == []


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("gone-org"), size="small", seed=29) as sb:
        yield sb


def _run(rc: str, reports: Path) -> dict[str, Any]:
    audits = ("unresolved_topics", "user_groups")
    strict = ("-p", "max_unresolved_topics", "-1", "-p", "max_empty_groups", "-1")
    proc = chatops_cli(
        "audit", "run", *audits, *strict, "--zuliprc", rc, "--report-dir", str(reports)
    )
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(Path(proc.stdout.strip()).read_text()))


@pytest.mark.slow
def test_an_archived_channels_topics_and_a_deactivated_group_are_gone(
    org: Sandbox, tmp_path: Path
) -> None:
    rc = str(org.zuliprc("admin"))
    before = _run(rc, tmp_path)
    topics = [
        f for f in before["findings"] if f["audit"] == "unresolved_topics" and " > " in f["subject"]
    ]
    by_channel: dict[str, list[dict[str, Any]]] = {}
    for f in topics:
        by_channel.setdefault(f["subject"].split(" > ")[0].lstrip("#"), []).append(f)
    assert len(by_channel) >= 2, by_channel
    archived, other = sorted(by_channel, key=lambda c: -len(by_channel[c]))[:2]
    resolved = by_channel[other][0]
    groups = [
        f
        for f in before["findings"]
        if f["audit"] == "user_groups" and (f["call"] or {}).get("path", "").endswith("/deactivate")
    ]
    assert groups, "the demo organization has an unused group"
    with chatops.Client.from_zuliprc(rc) as admin:
        admin.channels.archive(admin.channels.get_id(archived))
        # the typed call says which message resolves the topic
        admin.messages.resolve_topic(int(resolved["call"]["path"].rsplit("/", 1)[1]))
        admin.post(groups[0]["call"]["path"])

    after = _run(rc, tmp_path)
    gone = {f["subject"] for f in after["gone"]}
    fixed = {f["subject"] for f in after["resolved"]}
    assert {f["subject"] for f in by_channel[archived]} <= gone
    assert groups[0]["subject"] in gone
    assert resolved["subject"] in fixed and resolved["subject"] not in gone
    assert not gone & fixed
    index = (tmp_path / after["run"] / "index.html").read_text()
    assert f"Gone since the previous run ({len(after['gone'])})" in index
    assert f"Resolved since the previous run ({len(after['resolved'])})" in index


@pytest.mark.slow
def test_a_renamed_channel_is_resolved_through_a_run(org: Sandbox, tmp_path: Path) -> None:
    """channel_hygiene's subjects name the channel; renaming it is the fix of a bad name, and its
    stable key (written to the audit's summary.json and kept on the finding) says it is still
    there."""
    rc = str(org.zuliprc("admin"))
    with chatops.Client.from_zuliprc(rc) as admin:
        admin.channels.subscribe(["Wrong_Case", "Also_Wrong"])
        renamed, archived = admin.channels.get_id("Wrong_Case"), admin.channels.get_id("Also_Wrong")
    params = ("-p", "name_regex", "[a-z-]+", "-p", "max_hygiene_findings", "-1")

    def run() -> dict[str, Any]:
        proc = chatops_cli(
            "audit", "run", "channel_hygiene", *params, "--zuliprc", rc,
            "--report-dir", str(tmp_path),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return dict(json.loads(Path(proc.stdout.strip()).read_text()))

    before = run()
    old = {f["subject"]: f for f in before["findings"]}
    assert old[f"#Wrong_Case ({renamed})"]["subject_key"] == f"stream {renamed}"
    with chatops.Client.from_zuliprc(rc) as admin:
        admin.patch(f"/streams/{renamed}", params={"new_name": "right-case"})
        admin.channels.archive(archived)
    after = run()
    resolved = {f["subject"] for f in after["resolved"]}
    gone = {f["subject"] for f in after["gone"]}
    assert f"#Wrong_Case ({renamed})" in resolved and f"#Wrong_Case ({renamed})" not in gone
    assert f"#Also_Wrong ({archived})" in gone and f"#Also_Wrong ({archived})" not in resolved
    audit_summary = json.loads(
        (tmp_path / after["run"] / "channel_hygiene" / "summary.json").read_text()
    )
    assert audit_summary["subject_keys"][f"#right-case ({renamed})"] == f"stream {renamed}"
