"""The bots audit against a real sandbox over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import chatops
from chatops.audits import FINDING_COLUMNS, bots
from chatops.sandbox import Sandbox
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
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    helper = client_for("bot", fresh_sandbox)
    store = fresh_sandbox.store
    orphan = member.users.create_bot(full_name="Orphan Bot", short_name="orphan").user_id
    ownerless = admin.users.create_bot(full_name="Ownerless Bot", short_name="ownerless").user_id
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

    done = bots(admin, max_orphaned_bots=2, dry_run=False)
    assert sorted(done.summary["deactivated_bot_ids"]) == sorted([orphan, ownerless, *others])
    after = {u.user_id: u.is_active for u in admin.users.list()}
    assert not after[orphan] and not after[ownerless]
    assert after[helper_id]
    again = bots(admin)
    assert again.passed and again.findings.empty
