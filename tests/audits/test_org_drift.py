"""The org_drift audit: a finding per drifted object in ``chatops org diff``'s words, with the
change that puts it back (applied by the change engine, the drift goes), ``chatops org apply``
for what must be created first, a critical finding for a file that cannot be applied, and the
threshold; with no file, nothing is compared."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.audits import org_drift
from chatops.changes.engine import apply_changes
from chatops.changes.journal import Item, Journal, state_dir
from chatops.changes.kinds import decode_change
from chatops.org import export_document, to_yaml
from chatops.org.diff import diff_documents
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.test_report_trends import chatops_cli


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("org-drift"), size="small", seed=38) as sb:
        yield sb


@pytest.fixture(scope="module")
def owner(org: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(org.zuliprc("owner")) as client:
        yield client


def test_with_no_file_nothing_is_compared(org: Sandbox, owner: chatops.Client) -> None:
    with unchanged(org.store):
        result = org_drift(owner)
    assert result.passed and result.findings.empty
    assert result.summary.details["compared"].startswith("no organization file given")


def test_each_drifted_object_is_a_finding_with_the_change_that_restores_it(
    org: Sandbox, owner: chatops.Client, tmp_path: Path
) -> None:
    doc = export_document(owner)
    channel = next(c for c in doc["channels"] if not c["archived"] and not c["private"])
    group = next(g for g in doc["user_groups"] if not g["deactivated"])
    # a new channel whose posting is for a new group: made in order by chatops org apply only
    doc["user_groups"].append({"name": "drift-group", "members": ["member@demo.chatops.test"]})
    doc["channels"].append(
        {"name": "drift-new", "permissions": {"can_send_message_group": "drift-group"}}
    )
    path = tmp_path / "org.yaml"
    path.write_text(to_yaml(doc), encoding="utf-8")
    mods = next(g.id for g in owner.user_groups.list() if g.name == "role:moderators")
    owner.channels.update(
        owner.channels.get_id(channel["name"]), group_settings={"can_send_message_group": mods}
    )
    gid = next(g.id for g in owner.user_groups.list() if g.name == group["name"])
    owner.user_groups.update(gid, description="Changed behind the file's back")
    with unchanged(org.store):
        result = org_drift(owner, file=str(path))
    assert not result.passed and result.summary.failed_checks == ["max_drifted_objects"]
    by_subject = {f.subject: f for f in result.typed}
    assert set(by_subject) == {
        f"#{channel['name']}",
        f"@{group['name']}",
        "@drift-group",
        "#drift-new",
    }
    words = by_subject[f"#{channel['name']}"].finding
    assert "“Who can post to this channel” is role:moderators; the file says" in words
    assert by_subject["@drift-group"].change["kind"] == "CreateGroup"
    assert by_subject["#drift-new"].change is None
    assert "chatops org apply" in by_subject["#drift-new"].recommended_action
    assert set(result.tables["plan"]["stage"]) >= {"channels"}
    # the findings' changes, applied as a plan is, put those objects back
    items = [Item(decode_change(f.change)) for f in result.typed if f.change is not None]
    assert len(items) == 3
    with Journal.open(state_dir() / "drift-test.jsonl", kind="apply", site=owner.site,
                      email=owner.email) as journal:  # fmt: skip
        tally = apply_changes(items, owner, journal, say=lambda _l: None, progress=False)
    assert tally.ok
    left = {d.name for d in diff_documents(doc, export_document(owner))}
    assert left == {"#drift-new"}


def test_a_file_that_cannot_be_applied_is_a_critical_finding(
    org: Sandbox, owner: chatops.Client, tmp_path: Path
) -> None:
    doc = export_document(owner)
    doc["user_groups"].append({"name": "drift-crew", "members": ["nobody@demo.chatops.tes"]})
    path = tmp_path / "org.yaml"
    path.write_text(to_yaml(doc), encoding="utf-8")
    with unchanged(org.store):
        result = org_drift(owner, file=str(path), max_drifted_objects=-1)
    assert result.passed  # the threshold is off; the finding still says why
    critical = [f for f in result.typed if f.severity.value == "critical"]
    assert len(critical) == 1
    assert "person nobody@demo.chatops.tes is not in the organization" in critical[0].finding


def test_audit_run_with_a_file_exits_1_on_drift(
    org: Sandbox, owner: chatops.Client, tmp_path: Path
) -> None:
    doc = export_document(owner)
    doc["organization"]["description"] = "What the file says"
    path = tmp_path / "org.yaml"
    path.write_text(to_yaml(doc), encoding="utf-8")
    with unchanged(org.store):
        done = chatops_cli(
            "audit", "run", "org_drift", "-p", "file", str(path),
            "--zuliprc", str(org.zuliprc("admin")), "--report-dir", str(tmp_path / "report"),
        )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert "org_drift" in done.stdout + done.stderr
