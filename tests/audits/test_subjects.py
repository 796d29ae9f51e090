"""Every audit lists the subjects it looked at, so that a finding that vanished between two runs
reads "resolved" when its subject is still there and "gone" when the subject itself is."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.audit import AuditRun
from chatops.audit.report import summary_payload
from chatops.audits import AUDIT_FUNCTIONS, AuditResult
from chatops.audits._result import Status
from chatops.sandbox import Sandbox

#: per audit: parameters that make it find as much as it can on the small organization; the
#: same with its thresholds off must list the same subjects
STRICT: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "bots": ({"stale_days": 1, "max_orphaned_bots": 0}, {"max_orphaned_bots": -1}),
    "channel_hygiene": (
        {"require_folder": True, "name_regex": "[a-z]+", "max_hygiene_findings": 0},
        {"max_hygiene_findings": -1},
    ),
    "guest_access": ({"max_channels": 0, "max_flagged_guests": 0}, {"max_flagged_guests": -1}),
    "inactive_users": (
        {"max_inactive_share": 0, "max_messages": 10, "seat_cost": 1.0, "include_bots": True},
        {"max_inactive_share": -1},
    ),
    "invitations": (
        {"max_expiry_days": 1, "max_risky_invitations": 0},
        {"max_risky_invitations": -1},
    ),
    "linkifiers": ({"max_broken_linkifiers": 0}, {"max_broken_linkifiers": -1}),
    "org_drift": ({"max_drifted_objects": 0}, {"max_drifted_objects": -1}),
    "moderation_activity": ({"days": 3650, "max_moves_per_user": 0}, {"max_moves_per_user": -1}),
    "org_overview": (
        {
            "days": 1,
            "max_messages": 10,
            "max_inactive_channel_share": 0,
            "max_guest_share": 0,
            "min_channel_messages": 10**9,
        },
        {"max_inactive_channel_share": -1, "max_guest_share": -1, "min_channel_messages": 0},
    ),
    "permission_posture": (
        {"max_group_size_ratio": 0, "max_exposed_sensitive": 0},
        {"max_exposed_sensitive": -1},
    ),
    "scheduled_and_reminders": ({"max_undeliverable": 0}, {"max_undeliverable": -1}),
    "stale_channels": (
        {"inactive_days": 1, "min_subscribers": 100, "max_stale_channels": 0},
        {"max_stale_channels": -1},
    ),
    "unresolved_topics": (
        {"older_than_days": 1, "max_unresolved_topics": 0},
        {"max_unresolved_topics": -1},
    ),
    "uploads": (
        {"unlinked_days": 1, "min_size_mb": 0.0001, "max_unlinked_files": 0},
        {"max_unlinked_files": -1},
    ),
    "user_groups": (
        {"min_members": 100, "max_messages": 10, "max_group_size_ratio": 0, "max_empty_groups": 0},
        {"max_empty_groups": -1},
    ),
}


#: the subjects of each audit's threshold findings (a mover's threshold is per account)
THRESHOLD_WORDS: dict[str, set[str]] = {
    "bots": {"bots"},
    "channel_hygiene": {"channels"},
    "guest_access": {"guests"},
    "inactive_users": {"accounts"},
    "invitations": {"invitations"},
    "linkifiers": {"linkifiers"},
    "moderation_activity": set(),
    "org_drift": set(),
    "org_overview": {"channels", "guests", "messages"},
    "permission_posture": {"settings"},
    "scheduled_and_reminders": {"scheduled messages and reminders"},
    "stale_channels": {"channels"},
    "unresolved_topics": {"topics"},
    "uploads": {"uploads"},
    "user_groups": {"groups"},
}


def test_every_audit_has_strict_parameters_here() -> None:
    assert set(STRICT) == set(AUDIT_FUNCTIONS) == set(THRESHOLD_WORDS)


@pytest.mark.parametrize("name", sorted(STRICT))
def test_an_audit_lists_every_subject_of_its_findings_whatever_its_thresholds(
    name: str, admin: chatops.Client
) -> None:
    strict, off = STRICT[name]
    now = datetime.now(UTC) + timedelta(days=400)  # everything idle, unlinked, overdue
    found = AUDIT_FUNCTIONS[name](admin, now=now, **strict)
    loose = AUDIT_FUNCTIONS[name](admin, now=now, **{**strict, **off})
    assert found.summary.subjects is not None
    assert not loose.summary.failed_checks
    missing = {f.subject for f in found.typed} - set(found.summary.subjects)
    assert not missing, f"{name} does not list the subjects of its findings: {missing}"
    # a threshold's word is listed whether or not the threshold is crossed: a crossed threshold
    # that holds again is resolved, not gone
    assert found.summary.subjects == loose.summary.subjects
    words = THRESHOLD_WORDS[name]
    assert words <= set(loose.summary.subjects)
    critical = {f.subject for f in found.typed if f.severity.value == "critical"}
    if words:
        assert critical <= words


# -- a finding fixed is resolved, its subject removed is gone ----------------------------------


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("subjects-org"), size="small", seed=7) as sb:
        yield sb


@pytest.fixture(scope="module")
def boss(org: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as client:
        yield client


@dataclass
class Case:
    """Parameters of the audit, the subject of a finding to fix and of one to remove, and the
    change that does both (run between the two audits)."""

    params: dict[str, Any]
    fixed: str
    removed: str
    change: Callable[[], None]
    #: the fix changes the words of the subject (a rename): its stable key stays
    renamed: bool = False


def _user(client: chatops.Client, full_name: str) -> Any:
    return next(u for u in client.users.list() if u.full_name == full_name)


def _channel(org: Sandbox, admin: chatops.Client) -> Case:
    admin.channels.subscribe(
        [{"name": "no-words", "description": ""}, {"name": "soon-archived", "description": ""}]
    )
    fix, gone = admin.channels.get_id("no-words"), admin.channels.get_id("soon-archived")

    def change() -> None:
        admin.patch(f"/streams/{fix}", params={"description": "What this channel is for"})
        admin.channels.archive(gone)

    params = {"require_description": True, "max_hygiene_findings": -1}
    return Case(params, f"#no-words ({fix})", f"#soon-archived ({gone})", change)


def _guest(org: Sandbox, admin: chatops.Client) -> Case:
    fix, gone = _user(admin, "Gus Guest"), _user(admin, "Uma Sato")
    admin.channels.subscribe(["general"], principals=[gone.user_id])  # a default channel

    def change() -> None:
        admin.channels.unsubscribe(["general"], principals=[fix.user_id])
        admin.users.deactivate(gone.user_id)

    return Case(
        {"max_flagged_guests": -1},
        f"{fix.full_name} ({fix.email})",
        f"{gone.full_name} ({gone.email})",
        change,
    )


def _bot(org: Sandbox, admin: chatops.Client) -> Case:
    fix, gone = _user(admin, "Helper Bot"), _user(admin, "Webhook Bot")

    def change() -> None:
        with chatops.Client.from_zuliprc(org.zuliprc("bot")) as bot:  # the Helper Bot
            bot.messages.send_to_channel("general", "status", "still here")
        admin.users.deactivate(gone.user_id)

    return Case(
        {"include_bots": True, "max_inactive_share": -1},
        f"{fix.full_name} <{fix.email}>",
        f"{gone.full_name} <{gone.email}>",
        change,
    )


def _linkifier(org: Sandbox, admin: chatops.Client) -> Case:
    first = admin.realm.linkifiers()[0]  # #(?P<id>[0-9]+)
    fix = admin.realm.add_linkifier("#(?P<num>[0-9]{2,})", "https://b.example.org/{num}")
    gone = admin.realm.add_linkifier("#(?P<n>[0-9]+)z?", "https://c.example.org/{n}")
    admin.messages.send_to_channel("general", "issues", "see #4242 and #17")
    patterns = {lk.id: lk.pattern for lk in admin.realm.linkifiers()}

    def change() -> None:  # the one that lost wins now; the other is deleted
        order = [i for i in patterns if i != fix]
        order.insert(order.index(first.id), fix)
        admin.realm.reorder_linkifiers(order)
        admin.realm.remove_linkifier(gone)

    return Case(
        {"max_broken_linkifiers": -1},
        f"linkifier {fix} {patterns[fix]}",
        f"linkifier {gone} {patterns[gone]}",
        change,
    )


def _upload(org: Sandbox, admin: chatops.Client) -> Case:
    fix = admin.uploads.upload(b"to be linked\n", "to-link.txt")
    admin.uploads.upload(b"to be deleted\n", "to-delete.txt")
    ids = {a.name: a.id for a in admin.uploads.attachments()}

    def change() -> None:
        admin.messages.send_to_channel("general", "files", f"[the file]({fix.url})")
        admin.uploads.delete_attachment(ids["to-delete.txt"])

    later = datetime.now(UTC) + timedelta(days=3)  # both files unlinked for 3 days by then
    return Case(
        {"unlinked_days": 1, "max_unlinked_files": -1, "now": later},
        f"to-link.txt (attachment {ids['to-link.txt']})",
        f"to-delete.txt (attachment {ids['to-delete.txt']})",
        change,
    )


def _scheduled(org: Sandbox, admin: chatops.Client) -> Case:
    general = admin.channels.get_id("general")
    soon = int(time.time()) + 3600
    fix, gone = (
        admin.scheduled_messages.create(
            "channel", general, text, scheduled_delivery_timestamp=soon, topic="plans"
        )
        for text in ("to re-time", "to delete")
    )

    def change() -> None:
        later = int(time.time()) + 5 * 86_400
        admin.scheduled_messages.update(fix, scheduled_delivery_timestamp=later)
        admin.scheduled_messages.delete(gone)

    owner = "Adam Admin (admin@demo.chatops.test)"
    return Case(
        # two days on, both are overdue: one is given a later time, the other deleted
        {"max_undeliverable": -1, "now": datetime.now(UTC) + timedelta(days=2)},
        f"scheduled message {fix} of {owner}",
        f"scheduled message {gone} of {owner}",
        change,
    )


def _setting(org: Sandbox, admin: chatops.Client) -> Case:
    groups = {g.name: g.id for g in admin.user_groups.list()}
    admin.channels.subscribe(
        [{"name": "open-admin", "description": "anyone administers it"}],
        group_settings={"can_administer_channel_group": groups["role:members"]},
    )
    gone = admin.channels.get_id("open-admin")

    def change() -> None:
        admin.patch(
            "/realm", params={"can_invite_users_group": {"new": groups["role:administrators"]}}
        )
        admin.channels.archive(gone)

    return Case(
        {"max_group_size_ratio": 0.3, "max_exposed_sensitive": -1},
        "organization: can_invite_users_group",
        "#open-admin: can_administer_channel_group",
        change,
    )


def _group(org: Sandbox, admin: chatops.Client) -> Case:
    me = admin.users.me().user_id
    fix = admin.user_groups.create("small-one", members=[me], description="one member")
    gone = admin.user_groups.create("small-two", members=[me], description="one member")
    other = _user(admin, "Mei Member").user_id

    def change() -> None:
        admin.user_groups.update_members(fix, add=[other])
        admin.user_groups.deactivate(gone)

    return Case({"min_members": 2, "max_empty_groups": -1}, "@small-one", "@small-two", change)


def _renamed_channel(org: Sandbox, admin: chatops.Client) -> Case:
    admin.channels.subscribe(["Bad_Name", "Bad_Too"])
    fix, gone = admin.channels.get_id("Bad_Name"), admin.channels.get_id("Bad_Too")

    def change() -> None:
        admin.patch(f"/streams/{fix}", params={"new_name": "good-name"})
        admin.channels.archive(gone)

    params = {"name_regex": "[a-z-]+", "require_description": False, "max_hygiene_findings": -1}
    return Case(params, f"#Bad_Name ({fix})", f"#Bad_Too ({gone})", change, renamed=True)


def _edited_linkifier(org: Sandbox, admin: chatops.Client) -> Case:
    fix = admin.realm.add_linkifier("#(?P<k>[0-9]{3,})", "https://d.example.org/{k}")
    gone = admin.realm.add_linkifier("#(?P<m>[0-9]{4})", "https://e.example.org/{m}")
    admin.messages.send_to_channel("general", "issues", "see #9876")
    patterns = {lk.id: lk.pattern for lk in admin.realm.linkifiers()}

    def change() -> None:  # one no longer overlaps the first; the other is deleted
        admin.realm.update_linkifier(
            fix, pattern="T-(?P<k>[0-9]{3,})", url_template="https://d.example.org/{k}"
        )
        admin.realm.remove_linkifier(gone)

    return Case(
        {"max_broken_linkifiers": -1},
        f"linkifier {fix} {patterns[fix]}",
        f"linkifier {gone} {patterns[gone]}",
        change,
        renamed=True,
    )


CASES: dict[str, tuple[str, Callable[[Sandbox, chatops.Client], Case]]] = {
    "channel": ("channel_hygiene", _channel),
    "guest": ("guest_access", _guest),
    "bot account": ("inactive_users", _bot),
    "linkifier": ("linkifiers", _linkifier),
    "upload": ("uploads", _upload),
    "scheduled message": ("scheduled_and_reminders", _scheduled),
    "setting": ("permission_posture", _setting),
    "group": ("user_groups", _group),
    "renamed channel": ("channel_hygiene", _renamed_channel),
    "edited linkifier": ("linkifiers", _edited_linkifier),
}


def _outcome(name: str, result: AuditResult) -> AuditRun:
    return AuditRun(
        name=name,
        passed=result.summary.status is Status.PASSED,
        counts=dict(result.summary.counts),
        failed_checks=list(result.summary.failed_checks),
        thresholds=dict(result.summary.thresholds),
        findings=list(result.typed),
        subjects=result.summary.subjects,
        subject_keys=result.summary.subject_keys,
    )


@pytest.mark.parametrize("kind", list(CASES))
def test_a_fixed_finding_is_resolved_and_a_removed_subject_is_gone(
    kind: str, org: Sandbox, boss: chatops.Client, tmp_path: Path
) -> None:
    name, make = CASES[kind]
    case = make(org, boss)
    audit = AUDIT_FUNCTIONS[name]
    before = audit(boss, **case.params)
    subjects = {f.subject for f in before.typed}
    assert {case.fixed, case.removed} <= subjects, sorted(subjects)
    case.change()
    after = audit(boss, **case.params)
    now_listed = after.summary.subjects or []
    assert (case.fixed not in now_listed) if case.renamed else (case.fixed in now_listed)
    assert case.removed not in now_listed

    first = summary_payload(tmp_path / "20260101T000000Z", [_outcome(name, before)], "x", None)
    second = summary_payload(
        tmp_path / "20260102T000000Z",
        [_outcome(name, after)],
        "x",
        ("20260101T000000Z", first),
    )
    resolved = {f["subject"] for f in second["resolved"]}
    gone = {f["subject"] for f in second["gone"]}
    assert case.fixed in resolved and case.fixed not in gone
    assert case.removed in gone and case.removed not in resolved
    # every finding of the removed subject is gone; none of the fixed one's is still open
    removed_ids = {f.id for f in before.typed if f.subject == case.removed}
    assert {f["id"] for f in second["gone"] if f["subject"] == case.removed} == removed_ids
    fixed_ids = {f.id for f in before.typed if f.subject == case.fixed}
    assert {f["id"] for f in second["resolved"] if f["subject"] == case.fixed} == fixed_ids - {
        f.id for f in after.typed
    }
    assert second["audits"][name]["trend"]["gone"] == len(second["gone"])
    assert second["audits"][name]["status"] in (Status.PASSED, Status.THRESHOLD_CROSSED)
