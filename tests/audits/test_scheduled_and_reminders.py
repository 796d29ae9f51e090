"""The scheduled messages and reminders audit against a real sandbox over HTTP."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, scheduled_and_reminders
from chatops.audits.scheduled_and_reminders import (
    NOT_VISIBLE,
    Account,
    Options,
    Read,
    conclude,
    findings,
    judge,
)
from chatops.sandbox import Sandbox
from chatops.types import Reminder, ScheduledMessage
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, ago, channel, kinds, user
from tests.conftest import unchanged

DELETE_OR_RETIME = (
    "Delete it, or give it a new time (PATCH /scheduled_messages/{id} scheduled_delivery_timestamp)"
)


def _at(timestamp: int) -> datetime:
    return datetime.fromtimestamp(timestamp, UTC)


def test_scheduled_and_reminders_on_the_demo_org_passes(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client, unchanged(sandbox.store):
        result = scheduled_and_reminders(client)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    # the demo's one failed message, addressed to its archived channel
    [row] = result.findings.values.tolist()
    assert row[0] == "warning" and row[4].startswith("DELETE /api/v1/scheduled_messages/")
    assert "failed" in row[2] and "archived channel" in row[2]
    coverage = result.summary["coverage"]
    assert coverage["accounts"] == ["Adam Admin (admin@demo.chatops.test)"]
    assert coverage["not_visible"] == NOT_VISIBLE
    assert coverage["other_active_accounts"] > 0


def test_scheduled_and_reminders_rejects_bad_parameters(sandbox: Sandbox, tmp_path: Path) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with pytest.raises(ValueError, match="max_undeliverable"):
            scheduled_and_reminders(client, max_undeliverable=-2)
        with pytest.raises(ValueError, match="zuliprcs"):
            scheduled_and_reminders(client, zuliprcs=str(tmp_path / "missing.zuliprc"))


def test_scheduled_and_reminders_findings_thresholds_and_deletion(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    moderator = client_for("moderator", fresh_sandbox)
    store = fresh_sandbox.store
    rc = {a: str(fresh_sandbox.zuliprc(a)) for a in ("admin", "member", "guest")}

    # accounts with none of the problems: no findings, and coverage names exactly them
    with unchanged(store):
        clean = scheduled_and_reminders(moderator, zuliprcs=rc["guest"])
    assert clean.passed and clean.findings.empty
    assert clean.summary["coverage"]["accounts"] == [
        "Mona Moderator (moderator@demo.chatops.test)",
        "Gus Guest (guest@demo.chatops.test)",
    ]

    soon = int(time.time()) + 2 * 3600  # overdue once the audit's clock is past it
    later = int(time.time()) + 30 * 3600  # never overdue in this test
    check = soon + 3600  # the audit's "now"
    admin_id = fresh_sandbox.accounts["admin"].user_id
    member_id = fresh_sandbox.accounts["member"].user_id
    admin.channels.subscribe(
        [{"name": "sched-target", "description": "x"}], principals=[admin_id, member_id]
    )
    target = admin.channels.get_id("sched-target")
    general = admin.channels.get_id("general")
    to_archived = member.scheduled_messages.create(
        "channel", target, "Ship it", topic="launch", scheduled_delivery_timestamp=later
    )
    admin.channels.archive(target)
    gone = admin.users.create(
        email="gone@demo.chatops.test", password="a long password 2", full_name="Gil Gone"
    )
    gone_too = admin.users.create(
        email="gone2@demo.chatops.test", password="a long password 3", full_name="Gia Gone"
    )
    partly_gone = member.scheduled_messages.create(
        "direct", [gone, admin_id], "Hello both", scheduled_delivery_timestamp=later
    )
    all_gone = member.scheduled_messages.create(
        "direct", [gone_too], "Hello", scheduled_delivery_timestamp=later
    )
    admin.users.deactivate(gone)
    admin.users.deactivate(gone_too)
    overdue = member.scheduled_messages.create(
        "channel", general, "Standup", topic="daily", scheduled_delivery_timestamp=soon
    )
    failing = member.scheduled_messages.create(
        "channel", general, "Retro", topic="daily", scheduled_delivery_timestamp=later
    )
    note = member.messages.send_to_channel("general", "daily", "remind me").id
    late_reminder = member.reminders.create(note, scheduled_delivery_timestamp=soon)
    failed_reminder = member.reminders.create(note, scheduled_delivery_timestamp=later)
    # set-up the API cannot make: the server marks an item failed only when delivery fails
    store.execute(
        "UPDATE scheduled_messages SET failed = 1 WHERE id IN (?, ?)", [failing, failed_reminder]
    )
    [demo] = [s for s in admin.scheduled_messages.list() if s.failed]
    demo_failed = demo.scheduled_message_id
    demo_channel = demo.to
    assert isinstance(demo_channel, int)
    names = {
        c.stream_id: c.name for c in admin.channels.list(include_all=True, exclude_archived=False)
    }

    member_name = "Mei Member (member@demo.chatops.test)"
    rows = [
        [
            "warning",
            f"scheduled message {demo_failed} of Adam Admin (admin@demo.chatops.test)",
            "failed: the server could not send it; addressed to the archived channel "
            f"#{names[demo_channel]}",
            DELETE_OR_RETIME,
            f"DELETE /api/v1/scheduled_messages/{demo_failed}",
        ],
        [
            "warning",
            f"scheduled message {to_archived} of {member_name}",
            "addressed to the archived channel #sched-target",
            "Send it to a live channel, or unarchive #sched-target "
            f"(PATCH /streams/{target} is_archived=false)",
            f"PATCH /api/v1/scheduled_messages/{to_archived} to={{stream_id}} topic=launch",
        ],
        [
            "warning",
            f"scheduled message {partly_gone} of {member_name}",
            "deactivated recipients: Gil Gone",
            "Drop the deactivated recipients",
            f"PATCH /api/v1/scheduled_messages/{partly_gone} to=[{admin_id}]",
        ],
        [
            "warning",
            f"scheduled message {all_gone} of {member_name}",
            "deactivated recipients: Gia Gone",
            "Delete it: none of its recipients is active",
            f"DELETE /api/v1/scheduled_messages/{all_gone}",
        ],
        [
            "warning",
            f"scheduled message {overdue} of {member_name}",
            "overdue: due 60 minutes ago and not delivered",
            "Give it a new delivery time, or delete it",
            f"PATCH /api/v1/scheduled_messages/{overdue} "
            "scheduled_delivery_timestamp={timestamp}",
        ],
        [
            "warning",
            f"scheduled message {failing} of {member_name}",
            "failed: the server could not send it",
            DELETE_OR_RETIME,
            f"DELETE /api/v1/scheduled_messages/{failing}",
        ],
        [
            "warning",
            f"reminder {late_reminder} of {member_name}",
            "overdue: due 60 minutes ago and not delivered",
            f"Delete it and set a new reminder (POST /reminders message_id={note})",
            f"DELETE /api/v1/reminders/{late_reminder}",
        ],
        [
            "warning",
            f"reminder {failed_reminder} of {member_name}",
            "failed: the server could not send it",
            "Delete it, and set a new reminder if it is still wanted",
            f"DELETE /api/v1/reminders/{failed_reminder}",
        ],
    ]
    both = f"{rc['member']}, {rc['admin']}"  # the client's own account is read once
    with unchanged(store):
        result = scheduled_and_reminders(
            admin, zuliprcs=both, max_undeliverable=len(rows), now=_at(check)
        )
    assert result.passed
    assert sorted(result.findings.values.tolist()) == sorted(rows)
    counts = result.summary["counts"]
    assert counts["accounts"] == 2 and counts["reminders"] == 2
    assert counts["failed"] == 3 and counts["overdue"] == 2
    assert counts["archived_channel"] == 2 and counts["deactivated_recipients"] == 2
    coverage = result.summary["coverage"]
    assert coverage["accounts"] == ["Adam Admin (admin@demo.chatops.test)", member_name]
    active = [u for u in admin.users.list() if u.is_active and not u.is_system_bot]
    assert coverage["other_active_accounts"] == len(active) - 2
    items = result.tables["items"]
    assert len(items) == counts["scheduled_messages"] + counts["reminders"]
    assert items.set_index("id").loc[overdue, "to"] == "#general"

    # ten minutes late is still on time; a second more is overdue
    with unchanged(store):
        on_time = scheduled_and_reminders(member, now=_at(soon + 600), max_undeliverable=-1)
        late = scheduled_and_reminders(member, now=_at(soon + 601), max_undeliverable=-1)
    assert on_time.summary["counts"]["overdue"] == 0
    assert late.summary["counts"]["overdue"] == 2

    # the threshold at its edge, and off
    with unchanged(store):
        over = scheduled_and_reminders(
            admin, zuliprcs=both, max_undeliverable=len(rows) - 1, now=_at(check)
        )
        off = scheduled_and_reminders(admin, zuliprcs=both, max_undeliverable=-1, now=_at(check))
    assert over.summary["failed_checks"] == ["max_undeliverable"]
    assert over.findings.iloc[0][["severity", "subject", "finding"]].tolist() == [
        "critical",
        "scheduled messages and reminders",
        f"{len(rows)} items will not be delivered as meant; the threshold is {len(rows) - 1}",
    ]
    assert off.passed and len(off.findings) == len(rows)

    # an account whose key the server refuses is named in coverage, not fatal
    bad = tmp_path / "bad.zuliprc"
    bad.write_text(
        f"[api]\nemail=member@demo.chatops.test\nkey=wrongkey\nsite={fresh_sandbox.site}\n"
    )
    with unchanged(store):
        partial = scheduled_and_reminders(moderator, zuliprcs=[bad])
    [why] = partial.summary["coverage"]["accounts_not_read"]
    assert why.startswith(str(bad))
    assert partial.summary["counts"]["accounts"] == 1

    # the plan of the failed items' findings deletes them, each with its owner's key, and
    # nothing else
    found = scheduled_and_reminders(admin, zuliprcs=both, now=_at(check))
    for client, owner in ((admin, "Adam Admin (admin@demo.chatops.test)"), (member, member_name)):
        tally = apply_findings(
            found,
            client,
            tmp_path / f"plan-{client.credentials.email}.jsonl",
            keep=lambda f, owner=owner: (
                f.finding.startswith("failed") and f.subject.endswith(f" of {owner}")
            ),
        )
        assert tally["done"] == sum(tally.values()) > 0
    owner_view = client_for("member", fresh_sandbox)
    left = {s.scheduled_message_id for s in owner_view.scheduled_messages.list()}
    assert failing not in left and {to_archived, partly_gone, all_gone, overdue} <= left
    assert [r.reminder_id for r in owner_view.reminders.list()] == [late_reminder]
    assert demo_failed not in {s.scheduled_message_id for s in admin.scheduled_messages.list()}
    again = scheduled_and_reminders(admin, zuliprcs=both, now=_at(check), max_undeliverable=-1)
    assert again.summary["counts"]["failed"] == 0
    assert len(again.findings) == len(rows) - 3


def test_judge_without_a_server() -> None:
    """Every flag from hand-built items: failed, overdue (a scheduled message's fix is a new
    time, a reminder's a new reminder), addressed to an archived or missing channel, to
    recipients some or all deactivated; an account whose reminders could not be read; the
    threshold."""
    ada, gil = user(1, "Ada Admin"), user(2, "Gil Gone", is_active=False)
    soon, past = ago(-1), ago(1)

    def sm(item_id: int, to: int | list[int], **fields: Any) -> ScheduledMessage:
        kind = "stream" if isinstance(to, int) else "private"
        return ScheduledMessage(
            scheduled_message_id=item_id,
            type=kind,
            to=to,
            content="x",
            **{"scheduled_delivery_timestamp": soon, **fields},
        )

    me = Account(
        ada,
        [
            sm(1, 10, failed=True, topic="t"),
            sm(2, 10, scheduled_delivery_timestamp=past, topic="t"),
            sm(3, 11, topic="t"),
            sm(4, 99, topic="t"),
            sm(5, [1, 2]),
            sm(6, [2]),
            sm(7, 10, topic="fine"),
        ],
        [
            Reminder(
                reminder_id=8, scheduled_delivery_timestamp=past, reminder_target_message_id=3
            ),
            Reminder(reminder_id=9, failed=True, reminder_target_message_id=3),
        ],
    )
    other = Account(user(3, "Bo Bot", is_bot=True), [], None)
    read = Read(
        site="https://chat.example.org",
        users={1: ada, 2: gil},
        channels={10: channel(10, "general"), 11: channel(11, "attic", is_archived=True)},
        accounts=[me, other],
        unread=["/x.zuliprc: refused"],
    )
    judged = judge(read, Options(max_undeliverable=7), at=NOW)
    assert judged.failed == ["max_undeliverable"]
    rows = findings(judged)
    of = f" of Ada Admin ({ada.email})"
    assert [(s.removesuffix(of), f) for _v, s, f in kinds(rows)] == [
        ("scheduled message 1", "failed: the server could not send it"),
        ("scheduled message 2", "overdue: due 24 hours ago and not delivered"),
        ("scheduled message 3", "addressed to the archived channel #attic"),
        ("scheduled message 4", "channel 99 does not exist or is not visible"),
        ("scheduled message 5", "deactivated recipients: Gil Gone"),
        ("scheduled message 6", "deactivated recipients: Gil Gone"),
        ("reminder 8", "overdue: due 24 hours ago and not delivered"),
        ("reminder 9", "failed: the server could not send it"),
        (
            "scheduled messages and reminders",
            "8 items will not be delivered as meant; the threshold is 7",
        ),
    ]
    assert [r.api_call for r in rows[:8]] == [
        "DELETE /api/v1/scheduled_messages/1",
        "PATCH /api/v1/scheduled_messages/2 scheduled_delivery_timestamp={timestamp}",
        "PATCH /api/v1/scheduled_messages/3 to={stream_id} topic=t",
        "PATCH /api/v1/scheduled_messages/4 to={stream_id} topic=t",
        "PATCH /api/v1/scheduled_messages/5 to=[1]",
        "DELETE /api/v1/scheduled_messages/6",
        "DELETE /api/v1/reminders/8",
        "DELETE /api/v1/reminders/9",
    ]
    coverage = conclude(judged).summary["coverage"]
    assert coverage["reminders_not_read"] == [f"Bo Bot ({other.user.email})"]
    assert coverage["accounts_not_read"] == ["/x.zuliprc: refused"]
