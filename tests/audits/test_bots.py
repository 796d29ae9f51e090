"""The bots audit against a real sandbox over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, bots
from chatops.audits.bots import Options, Read, conclude, findings, judge
from chatops.sandbox import Sandbox
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, kinds, message, user
from tests.conftest import unchanged

DEACTIVATE = "Deactivate the bot if it is no longer needed"
REASSIGN = "Give the bot a live owner (PATCH /bots/{id} bot_owner_id), or deactivate it"


def test_bots_on_the_demo_org_passes(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        result = bots(client)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    assert result.summary["counts"]["orphaned"] == 0
    assert len(result.tables["bots"]) == result.summary["counts"]["active_bots"]


def test_bots_findings_and_deactivation(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    helper = client_for("bot", fresh_sandbox)
    store = fresh_sandbox.store
    orphan = member.bots.create(full_name="Orphan Bot", short_name="orphan").user_id
    ownerless = admin.bots.create(full_name="Ownerless Bot", short_name="ownerless").user_id
    # set-up the API cannot make: the owner leaves but the bot stays; a bot loses its owner
    member_id = fresh_sandbox.accounts["member"].user_id
    store.execute("UPDATE users SET is_active = 0 WHERE id = ?", [member_id])
    store.execute("UPDATE users SET bot_owner_id = NULL WHERE id = ?", [ownerless])
    channel = admin.channels.list()[0].name
    helper.messages.send_to_channel(channel, "audit", "still here")
    users = {u.user_id: u for u in admin.users.list()}
    member_name = users[member_id].full_name
    helper_id = fresh_sandbox.accounts["bot"].user_id
    others = sorted(
        u.user_id
        for u in users.values()
        if u.is_bot
        and u.is_active
        and not u.is_system_bot
        and u.user_id not in (orphan, ownerless, helper_id)
    )

    with unchanged(store):
        result = bots(admin, max_orphaned_bots=2)
    assert result.passed
    expected = [
        [
            "warning",
            f"Orphan Bot ({users[orphan].email})",
            f"owner {member_name} is deactivated; never sent a message",
            REASSIGN,
            f"DELETE /api/v1/users/{orphan}",
        ],
        [
            "warning",
            f"Ownerless Bot ({users[ownerless].email})",
            "has no owner; never sent a message",
            REASSIGN,
            f"DELETE /api/v1/users/{ownerless}",
        ],
    ] + [
        [
            "warning",
            f"{users[i].full_name} ({users[i].email})",
            "never sent a message",
            DEACTIVATE,
            f"DELETE /api/v1/users/{i}",
        ]
        for i in others
    ]
    assert sorted(result.findings.values.tolist()) == sorted(expected)
    assert result.tables["bots"].loc[helper_id, "flags"] == ""
    assert result.summary["counts"]["orphaned"] == 2
    assert result.summary["counts"]["stale"] == 2 + len(others)

    with unchanged(store):
        default = bots(admin)
        tight_stale = bots(
            admin, max_orphaned_bots=2, stale_days=1, now=datetime.now(UTC) + timedelta(days=365)
        )
    assert default.summary["failed_checks"] == ["max_orphaned_bots"]
    assert default.findings.iloc[0]["subject"] == "bots"
    # a year on, the helper bot has been silent too
    assert "no message in" in str(tight_stale.tables["bots"].loc[helper_id, "flags"])

    # the plan of the findings deactivates every flagged bot
    tally = apply_findings(result, admin, tmp_path / "plan.jsonl")
    assert tally["done"] == 2 + len(others) and tally["done"] == sum(tally.values())
    after = {u.user_id: u.is_active for u in admin.users.list()}
    assert not after[orphan] and not after[ownerless]
    assert after[helper_id]
    again = bots(admin)
    assert again.passed and again.findings.empty


def test_bots_posting_to_many_channels_at_the_edge(tmp_path: Path) -> None:
    with (
        Sandbox.start(tmp_path / "org", seed=23) as sb,
        chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
        chatops.Client.from_zuliprc(sb.zuliprc("bot")) as helper,
    ):
        names = sorted(c.name for c in admin.channels.list() if not c.invite_only)[:3]
        for name in names:
            helper.messages.send_to_channel(name, "rounds", "checking in")
        helper_id = sb.accounts["bot"].user_id
        email = sb.accounts["bot"].email
        full_name = {u.user_id: u.full_name for u in admin.users.list()}[helper_id]
        with unchanged(sb.store):
            at_edge = bots(admin, max_bot_channels=3, max_orphaned_bots=-1)
            over = bots(admin, max_bot_channels=2, max_orphaned_bots=-1)
            off = bots(admin, max_bot_channels=-1, max_orphaned_bots=-1)
        mine = over.findings[over.findings["subject"] == f"{full_name} ({email})"]
        assert mine.values.tolist() == [
            [
                "warning",
                f"{full_name} ({email})",
                "posted to 3 channels in 90 days (more than 2)",
                DEACTIVATE,
                f"DELETE /api/v1/users/{helper_id}",
            ]
        ]
        assert over.summary["counts"]["posting_to_many_channels"] == 1
        table = at_edge.tables["bots"]
        assert table.loc[helper_id, "channels_posted_to"] == 3
        assert table.loc[helper_id, "channels"] == ", ".join(f"#{n}" for n in names)
        assert table.loc[helper_id, "flags"] == ""  # 3 is not more than 3
        assert off.summary["counts"]["posting_to_many_channels"] == 0
        # a window that starts after the messages sees no channels, only silence
        later = bots(admin, stale_days=1, now=datetime.now(UTC) + timedelta(days=30))
        assert later.tables["bots"].loc[helper_id, "channels_posted_to"] == 0
        with pytest.raises(ValueError, match="max_bot_channels"):
            bots(admin, max_bot_channels=-2)


def test_judge_without_a_server() -> None:
    """Every flag from hand-built bots: no owner, a missing or deactivated owner, never sent,
    silent, posting to too many channels; the threshold; system bots left out."""
    owner, gone = user(1, "Olga Owner"), user(2, "Gil Gone", is_active=False)
    bot = dict(is_bot=True, bot_type=1)
    bots_read = {
        10: user(10, "Lost Bot", **bot),
        11: user(11, "Ghost Bot", bot_owner_id=99, **bot),
        12: user(12, "Left Bot", bot_owner_id=2, **bot),
        13: user(13, "Quiet Bot", bot_owner_id=1, **bot),
        14: user(14, "Busy Bot", bot_owner_id=1, **bot),
        15: user(15, "Fine Bot", bot_owner_id=1, **bot),
        16: user(16, "System Bot", is_system_bot=True, **bot),
    }
    read = Read(
        site="https://chat.example.org",
        users={1: owner, 2: gone, **bots_read},
        messages={
            13: [message(1, bots_read[13], 100, display_recipient="ops")],
            14: [message(i, bots_read[14], 1, display_recipient=f"c{i}") for i in range(2, 5)],
            15: [message(5, bots_read[15], 1, display_recipient="ops")],
        },
    )
    judged = judge(read, Options(max_bot_channels=2, max_orphaned_bots=2), now=NOW)
    assert [b.bot.user_id for b in judged.bots] == [10, 11, 12, 13, 14, 15]
    assert judged.failed == ["max_orphaned_bots"]
    rows = findings(judged)
    assert [(s, f) for _v, s, f in kinds(rows)] == [
        (f"Lost Bot ({bots_read[10].email})", "has no owner; never sent a message"),
        (f"Ghost Bot ({bots_read[11].email})", "owner 99 does not exist; never sent a message"),
        (
            f"Left Bot ({bots_read[12].email})",
            "owner Gil Gone is deactivated; never sent a message",
        ),
        (f"Quiet Bot ({bots_read[13].email})", "no message in 100 days (more than 90)"),
        (f"Busy Bot ({bots_read[14].email})", "posted to 3 channels in 90 days (more than 2)"),
        ("bots", "3 active bots have no live owner; the threshold is 2"),
    ]
    assert rows[0].recommended_action == REASSIGN and rows[3].recommended_action == DEACTIVATE
    assert rows[0].api_call == "DELETE /api/v1/users/10"
    assert rows[-1].call is not None and rows[-1].call.needs_input
    assert conclude(judged).tables["bots"].loc[15, "flags"] == ""
