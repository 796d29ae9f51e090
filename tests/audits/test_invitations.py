"""The invitations audit against a real sandbox over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import chatops
from chatops.audits import FINDING_COLUMNS, invitations
from chatops.audits.invitations import Options, Read, conclude, findings, judge
from chatops.sandbox import Sandbox
from chatops.types import Invite
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, ago, calls, kinds, user
from tests.conftest import unchanged

REVOKE = "Revoke the invitation (send a new one with a short expiry if still wanted)"


def test_invitations_on_the_demo_org_passes(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        result = invitations(client)
        risky = result.summary["counts"]["risky"]
        assert result.passed
        assert list(result.findings.columns) == list(FINDING_COLUMNS)
        assert len(result.findings) == risky
        assert len(result.tables["invitations"]) == result.summary["counts"]["invitations"]
        tight = invitations(client, max_risky_invitations=risky - 1)
    assert not tight.passed
    assert tight.summary["failed_checks"] == ["max_risky_invitations"]
    assert tight.findings.iloc[0]["subject"] == "invitations"


def test_invitations_findings_and_revocation(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    store = fresh_sandbox.store
    before = {i.id for i in admin.invitations.list()}
    admin.invitations.create_link(expires_in_minutes=None, invite_as=200)
    admin.invitations.send("long@example.org", expires_in_minutes=60 * 24 * 60, invite_as=400)
    admin.invitations.send("short@example.org", expires_in_minutes=60 * 24, invite_as=400)
    member.invitations.send("bymember@example.org", expires_in_minutes=60 * 24, invite_as=400)
    # the member leaves; set up directly so that the invitation outlives them
    member_id = fresh_sandbox.accounts["member"].user_id
    store.execute("UPDATE users SET is_active = 0 WHERE id = ?", [member_id])
    new = {i.id: i for i in admin.invitations.list() if i.id not in before}
    link = next(i.id for i in new.values() if i.is_multiuse)
    by_email = {i.email: i.id for i in new.values() if not i.is_multiuse}
    full_name = fresh_sandbox.accounts["member"].full_name

    with unchanged(store):
        result = invitations(admin, now=datetime.now(UTC), max_risky_invitations=3)
    assert result.passed
    assert result.findings.values.tolist() == [
        [
            "warning",
            f"invite {by_email['bymember@example.org']} (bymember@example.org)",
            f"created by deactivated user {full_name}",
            REVOKE,
            f"DELETE /api/v1/invites/{by_email['bymember@example.org']}",
        ],
        [
            "warning",
            f"invite {by_email['long@example.org']} (long@example.org)",
            "expires in 60 days (more than 30)",
            REVOKE,
            f"DELETE /api/v1/invites/{by_email['long@example.org']}",
        ],
        [
            "warning",
            f"link {link}",
            "never expires; grants the administrator role",
            REVOKE,
            f"DELETE /api/v1/invites/multiuse/{link}",
        ],
    ]
    assert result.summary["counts"]["risky"] == 3

    with unchanged(store):
        tight = invitations(admin, max_risky_invitations=2, flag_roles="100, 200")
        wide = invitations(admin, max_expiry_days=90, flag_roles="", max_risky_invitations=2)
    assert tight.summary["failed_checks"] == ["max_risky_invitations"]
    assert wide.passed and wide.summary["counts"]["risky"] == 2

    # the plan of the findings revokes every risky invitation
    tally = apply_findings(result, admin, tmp_path / "plan.jsonl")
    assert tally == {"done": 3, "already_done": 0, "refused": 0, "failed": 0}
    left = {i.id for i in admin.invitations.list()}
    assert left == before | {by_email["short@example.org"]}
    assert invitations(admin, max_risky_invitations=0).passed


def test_judge_without_a_server() -> None:
    """Every flag from hand-built invitations, each finding's call (a link's and an email
    invitation's differ), and the threshold."""
    ada, gone = user(1, "Ada Admin"), user(2, "Gil Gone", is_active=False)

    def invite(invite_id: int, **fields: Any) -> Invite:
        return Invite(id=invite_id, invited=ago(1), **{"invited_by_user_id": 1, **fields})

    read = Read(
        site="https://chat.example.org",
        users={1: ada, 2: gone},
        invitations=[
            invite(1, is_multiuse=True),
            invite(2, email="far@example.org", expiry_date=ago(-60)),
            invite(3, email="boss@example.org", expiry_date=ago(-1), invited_as=200),
            invite(4, email="orphan@example.org", expiry_date=ago(-1), invited_by_user_id=9),
            invite(5, email="left@example.org", expiry_date=ago(-1), invited_by_user_id=2),
            invite(6, email="fine@example.org", expiry_date=ago(-1)),
        ],
    )
    judged = judge(read, Options(max_risky_invitations=4), now=NOW)
    assert judged.failed == ["max_risky_invitations"]
    rows = findings(judged)
    assert kinds(rows) == [
        ("warning", "link 1", "never expires"),
        ("warning", "invite 2 (far@example.org)", "expires in 60 days (more than 30)"),
        ("warning", "invite 3 (boss@example.org)", "grants the administrator role"),
        ("warning", "invite 4 (orphan@example.org)", "created by unknown user 9"),
        ("warning", "invite 5 (left@example.org)", "created by deactivated user Gil Gone"),
        ("critical", "invitations", "5 risky invitations; the threshold is 4"),
    ]
    assert calls(rows)["link 1"] == ["DELETE /api/v1/invites/multiuse/1"]
    assert calls(rows)["invite 2 (far@example.org)"] == ["DELETE /api/v1/invites/2"]
    relaxed = judge(
        read, Options(max_expiry_days=90, flag_roles="", max_risky_invitations=3), now=NOW
    )
    assert len(relaxed.risky) == 3 and relaxed.failed == []
    assert conclude(judged).tables["invitations"].loc[6, "flags"] == ""
