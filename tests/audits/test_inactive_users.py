"""The inactive_users audit against a real sandbox: accounts made inactive on purpose."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, inactive_users
from chatops.audits.inactive_users import Options, Read, conclude, findings, judge
from chatops.sandbox import Sandbox
from chatops.types import Invite
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, ago, kinds, message, user
from tests.conftest import unchanged

DAY = 86400


@pytest.fixture(scope="module")
def sb(fresh_sandbox: Sandbox) -> Sandbox:
    """The demo org plus Idle Ivy (joined 200 days ago, never posted, owns a bot) and New Ned
    (joined today, never posted)."""
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin")) as admin:
        ivy = admin.users.create(
            email="ivy@demo.chatops.test", password="pw-ivy-123456", full_name="Idle Ivy"
        )
        admin.users.create(
            email="ned@demo.chatops.test", password="pw-ned-123456", full_name="New Ned"
        )
        bot = admin.bots.create(full_name="Ivy Bot", short_name="ivybot")
    store = fresh_sandbox.store
    store.execute("UPDATE users SET date_joined = date_joined - ? WHERE id = ?", [200 * DAY, ivy])
    store.execute("UPDATE users SET bot_owner_id = ? WHERE id = ?", [ivy, bot.user_id])
    return fresh_sandbox


@pytest.fixture
def admin_client(sb: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as client:
        yield client


def _demo_inactive(sb: Sandbox, roles: tuple[int, ...] = (400, 600)) -> list[int]:
    """The demo's own inactive accounts, straight from the store (the audit's second opinion):
    no message in 90 days and no presence in the two weeks the server reports."""
    now = int(time.time())
    cut = now - 90 * DAY
    rows = sb.store.query(
        f"SELECT id FROM users WHERE is_active = 1 AND is_bot = 0 AND role IN ({','.join(map(str, roles))}) "
        "AND delivery_email NOT IN ('admin@demo.chatops.test', 'ivy@demo.chatops.test') "
        "AND date_joined < ? AND id NOT IN (SELECT sender_id FROM messages WHERE timestamp >= ?) "
        "AND id NOT IN (SELECT user_id FROM user_presence WHERE last_connected_time >= ?) "
        "ORDER BY id",
        [cut, cut, now - 14 * DAY],
    )
    return [int(r["id"]) for r in rows]


def _uid(sb: Sandbox, email: str) -> int:
    return int(sb.store.scalar("SELECT id FROM users WHERE delivery_email = ?", [email]))


def test_finds_exactly_the_inactive_accounts(sb: Sandbox, admin_client: chatops.Client) -> None:
    ivy = _uid(sb, "ivy@demo.chatops.test")
    ned = _uid(sb, "ned@demo.chatops.test")
    with unchanged(sb.store):
        result = inactive_users(admin_client)
    demo = _demo_inactive(sb)
    assert len(demo) == 3  # the seed-11 demo has three idle accounts of its own
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    assert sorted(result.summary["inactive_user_ids"]) == sorted([*demo, ivy])
    assert sorted(result.findings["api_call"]) == sorted(
        f"DELETE /api/v1/users/{u}" for u in [*demo, ivy]
    )
    ivy_rows = result.findings[result.findings["subject"].str.startswith("Idle Ivy")]
    assert ivy_rows.astype(str).to_dict("records") == [
        {
            "severity": "warning",
            "subject": "Idle Ivy <ivy@demo.chatops.test>",
            "finding": "member with no message and not seen in the last 90 days; deactivating "
            "also deactivates 1 bots it owns",
            "recommended_action": "Deactivate the account if it is no longer needed",
            "api_call": f"DELETE /api/v1/users/{ivy}",
        }
    ]
    users = result.tables["users"]
    assert users.loc[ivy, "status"] == "inactive" and users.loc[ned, "status"] == "new"
    assert users.loc[_uid(sb, "member@demo.chatops.test"), "status"] == "active"
    assert _uid(sb, "admin@demo.chatops.test") not in users.index  # never judges itself
    by_role = result.tables["by_role"]
    assert int(by_role["inactive"].sum()) == len(demo) + 1
    assert result.summary["counts"]["new"] == 1


def test_presence_keeps_a_reader_who_never_posts_active(
    sb: Sandbox, admin_client: chatops.Client
) -> None:
    lou = admin_client.users.create(
        email="lou@demo.chatops.test", password="pw-lou-123456", full_name="Lurking Lou"
    )
    sb.store.execute(
        "UPDATE users SET date_joined = date_joined - ? WHERE id = ?", [200 * DAY, lou]
    )
    key = sb.store.scalar("SELECT api_key FROM users WHERE id = ?", [lou])
    with chatops.Client(site=sb.site, email="lou@demo.chatops.test", api_key=key) as lurker:
        lurker.users.update_presence("active", ping_only=True)
    result = inactive_users(admin_client)
    row = result.tables["users"].loc[lou]
    assert row["status"] == "active" and row["messages"] == 0
    stored = sb.store.scalar("SELECT last_active_time FROM user_presence WHERE user_id = ?", [lou])
    assert row["last_seen_at"].timestamp() == stored
    assert lou not in result.summary["inactive_user_ids"]
    assert result.summary["counts"]["seen_without_messages"] >= 1
    # The demo's long-gone people stay inactive: their presence is as old as their messages.
    for uid in _demo_inactive(sb):
        assert result.tables["users"].loc[uid, "status"] == "inactive"


def test_roles_and_window_options(sb: Sandbox, admin_client: chatops.Client) -> None:
    guests_only = inactive_users(admin_client, roles=[600])
    assert guests_only.summary["inactive_user_ids"] == _demo_inactive(sb, (600,))
    assert "member" not in guests_only.tables["by_role"].index
    with pytest.raises(ValueError):
        inactive_users(admin_client, inactive_days=0)


def test_threshold_fails_when_tight(admin_client: chatops.Client) -> None:
    result = inactive_users(admin_client, max_inactive_share=0)
    assert not result.passed
    assert result.summary["failed_checks"] == ["max_inactive_share"]
    assert result.findings["severity"].iloc[0] == "critical"
    assert inactive_users(admin_client, max_inactive_share=-1).passed


def test_invitations_of_inactive_accounts_and_seat_savings(
    sb: Sandbox, admin_client: chatops.Client
) -> None:
    ivy = _uid(sb, "ivy@demo.chatops.test")
    before = {i.id for i in admin_client.invitations.list()}
    admin_client.invitations.create_link()
    admin_client.invitations.send(["friend-of-ivy@example.org"])
    link, email = sorted(
        (i.id, i.is_multiuse) for i in admin_client.invitations.list() if i.id not in before
    )
    # set-up: Ivy created them (the audit reads GET /invites)
    sb.store.execute(
        "UPDATE invites SET referrer_id = ? WHERE id IN (?, ?)", [ivy, link[0], email[0]]
    )
    link_id = link[0] if link[1] else email[0]
    email_id = email[0] if link[1] else link[0]
    demo = _demo_inactive(sb)
    with unchanged(sb.store):
        result = inactive_users(admin_client, seat_cost=12.5)
    rows = result.findings[result.findings["subject"].str.startswith("Idle Ivy")]
    assert rows[["finding", "api_call"]].values.tolist() == [
        [
            "member with no message and not seen in the last 90 days; deactivating also "
            "deactivates 1 bots it owns",
            f"DELETE /api/v1/users/{ivy}",
        ],
        *[
            row
            for _, row in sorted(
                [
                    (
                        email_id,
                        [
                            f"inactive account created active invitation {email_id}, which "
                            "outlives it",
                            f"DELETE /api/v1/invites/{email_id}",
                        ],
                    ),
                    (
                        link_id,
                        [
                            f"inactive account created active link {link_id}, which outlives it",
                            f"DELETE /api/v1/invites/multiuse/{link_id}",
                        ],
                    ),
                ]
            )
        ],
    ]
    assert result.tables["users"].loc[ivy, "active_invitations"] == 2
    assert result.summary["counts"]["invitations_of_inactive"] == 2
    n = len(demo) + 1
    assert result.summary["savings"] == {
        "seat_cost": 12.5,
        "inactive_accounts": n,
        "projected": n * 12.5,
    }
    seats = result.findings[result.findings["subject"] == "seats"]
    assert seats[["severity", "finding"]].values.tolist() == [
        [
            "info",
            f"deactivating the {n} accounts inactive for 90 days saves {n} x 12.5 = "
            f"{n * 12.5:g} per billing period",
        ]
    ]
    # edges: 0 leaves savings out; below 0 is refused
    free = inactive_users(admin_client, seat_cost=0)
    assert free.summary["savings"] == {} and "seats" not in set(free.findings["subject"])
    with pytest.raises(ValueError, match="seat_cost"):
        inactive_users(admin_client, seat_cost=-1)
    # an active account's invitations are not findings
    active_member = _uid(sb, "member@demo.chatops.test")
    sb.store.execute("UPDATE invites SET referrer_id = ? WHERE id = ?", [active_member, link_id])
    again = inactive_users(admin_client)
    assert again.summary["counts"]["invitations_of_inactive"] == 1
    assert again.tables["users"].loc[active_member, "active_invitations"] >= 1


def test_the_plan_of_its_findings_deactivates_them(
    sb: Sandbox, admin_client: chatops.Client, tmp_path: Path
) -> None:
    ivy = _uid(sb, "ivy@demo.chatops.test")
    demo = _demo_inactive(sb)
    result = inactive_users(admin_client)
    assert sorted(result.summary["inactive_user_ids"]) == sorted([*demo, ivy])
    tally = apply_findings(result, admin_client, tmp_path / "plan.jsonl")
    assert tally["done"] == sum(tally.values()) >= len(demo) + 1
    for uid in demo:
        assert sb.store.scalar("SELECT is_active FROM users WHERE id = ?", [uid]) == 0
    assert sb.store.scalar("SELECT is_active FROM users WHERE id = ?", [ivy]) == 0
    assert (
        sb.store.scalar(
            "SELECT is_active FROM users WHERE delivery_email = ?", ["ned@demo.chatops.test"]
        )
        == 1
    )
    assert inactive_users(admin_client).summary["inactive_user_ids"] == []


def test_include_bots_judges_bots_by_their_last_message(tmp_path: Path) -> None:
    with (
        Sandbox.start(tmp_path / "org", size="small", seed=11) as org,
        chatops.Client.from_zuliprc(org.zuliprc("admin")) as admin,
    ):
        store = org.store
        everyone = admin.users.list()
        bots = {u.full_name: u for u in everyone if u.is_bot and u.is_active}
        assert set(bots) == {"Helper Bot", "Webhook Bot"}  # the demo's two
        helper, webhook = bots["Helper Bot"], bots["Webhook Bot"]
        owner = next(u.full_name for u in everyone if u.user_id == helper.bot_owner_id)
        # set-up: Webhook Bot's owner is a deactivated guest (deactivating first, since that
        # deactivates the person's bots)
        quinn = _uid(org, "quinn.sato@demo.chatops.test")
        admin.users.deactivate(quinn)
        store.execute("UPDATE users SET bot_owner_id = ? WHERE id = ?", [quinn, webhook.user_id])
        key = store.scalar("SELECT api_key FROM users WHERE id = ?", [helper.user_id])
        channel = admin.channels.list()[0].stream_id
        with chatops.Client(site=org.site, email=helper.email, api_key=key) as bot:
            sent = bot.messages.send_to_channel(channel, "alerts", "all green")
        ts = int(store.scalar("SELECT timestamp FROM messages WHERE id = ?", [sent.id]))
        fresh = admin.bots.create(full_name="Fresh Bot", short_name="freshbot")
        # set-up: two bots a year old, one with no owner, one owned by an inactive guest
        orphan = admin.bots.create(full_name="Orphan Bot", short_name="orphan")
        kept = admin.bots.create(full_name="Ximena's Bot", short_name="ximena")
        ximena = next(u.user_id for u in everyone if u.full_name == "Ximena Ueda")
        assert ximena in off_ids(admin)
        store.execute("UPDATE users SET bot_owner_id = NULL WHERE id = ?", [orphan.user_id])
        store.execute("UPDATE users SET bot_owner_id = ? WHERE id = ?", [ximena, kept.user_id])
        store.execute(
            "UPDATE users SET date_joined = date_joined - ? WHERE id IN (?, ?)",
            [365 * DAY, orphan.user_id, kept.user_id],
        )
        emails = {u.user_id: u.email for u in admin.users.list()}

        def year_old_rows(days: int = 90) -> list[list[str]]:
            return [
                [
                    "warning",
                    f"Orphan Bot <{emails[orphan.user_id]}>",
                    f"bot with no owner and no message in the last {days} days",
                    f"DELETE /api/v1/bots/{orphan.user_id}",
                ],
                [
                    "warning",
                    f"Ximena's Bot <{emails[kept.user_id]}>",
                    f"bot owned by Ximena Ueda with no message in the last {days} days",
                    f"DELETE /api/v1/bots/{kept.user_id}",
                ],
            ]

        def webhook_row(days: int = 90) -> list[str]:
            return [
                "warning",
                f"Webhook Bot <{webhook.email}>",
                f"bot owned by Quinn Sato (deactivated) with no message in the last {days} days",
                f"DELETE /api/v1/bots/{webhook.user_id}",
            ]

        def bot_rows(result: object) -> list[list[str]]:
            f = result.findings  # type: ignore[attr-defined]
            return f[f["api_call"].str.startswith("DELETE /api/v1/bots/")][
                ["severity", "subject", "finding", "api_call"]
            ].values.tolist()

        with unchanged(store):
            off = inactive_users(admin, seat_cost=10)
            on = inactive_users(admin, include_bots=True, seat_cost=10)
        # the default leaves bots out: nothing found about them
        assert bot_rows(off) == []
        assert not off.tables["users"]["is_bot"].any()
        assert "bot" not in off.tables["by_role"].index
        assert bot_rows(on) == by_subject([*year_old_rows(), webhook_row()])
        users = on.tables["users"]
        assert users.loc[helper.user_id, ["status", "messages", "bot_owner"]].tolist() == [
            "active",
            1,
            owner,
        ]
        assert users.loc[helper.user_id, "last_message_at"].timestamp() == ts
        assert users.loc[fresh.user_id, "status"] == "new"
        assert users.loc[webhook.user_id, "bot_owner"] == "Quinn Sato (deactivated)"
        assert on.tables["by_role"].loc["bot"].to_dict() == {"active": 1, "inactive": 3, "new": 1}
        assert on.summary["counts"]["judged"] == off.summary["counts"]["judged"] + 4
        assert on.summary["counts"]["inactive_bots"] == 3
        assert on.summary["inactive_user_ids"] == sorted(
            [*off.summary["inactive_user_ids"], webhook.user_id, orphan.user_id, kept.user_id]
        )
        # bots cost no seat
        assert on.summary["savings"] == off.summary["savings"]
        # whatever roles says, bots are judged
        guests = inactive_users(admin, include_bots=True, roles=[600])
        assert bot_rows(guests) == by_subject([*year_old_rows(), webhook_row()])
        assert sorted(guests.tables["by_role"].index) == ["bot", "guest"]

        # edges of inactive_days: a message exactly inactive_days old still counts
        later = datetime.fromtimestamp(ts + 30 * DAY, UTC)
        at_edge = inactive_users(admin, include_bots=True, inactive_days=30, now=later)
        assert at_edge.tables["users"].loc[helper.user_id, "status"] == "active"
        past = inactive_users(admin, include_bots=True, inactive_days=29, now=later)
        # ... and Fresh Bot, a month old by then, is judged too
        fresh_email = next(u.email for u in admin.users.list() if u.user_id == fresh.user_id)
        assert bot_rows(past) == by_subject(
            [
                [
                    "warning",
                    f"Fresh Bot <{fresh_email}>",
                    f"bot owned by {owner} with no message in the last 29 days",
                    f"DELETE /api/v1/bots/{fresh.user_id}",
                ],
                [
                    "warning",
                    f"Helper Bot <{helper.email}>",
                    f"bot owned by {owner} with no message in the last 29 days",
                    f"DELETE /api/v1/bots/{helper.user_id}",
                ],
                *year_old_rows(29),
                webhook_row(29),
            ]
        )

        # the plan deactivates the bots first (Ximena's too), then the people
        found = inactive_users(admin, include_bots=True)
        gone = [ximena, webhook.user_id, orphan.user_id, kept.user_id]
        assert set(gone) <= set(found.summary["inactive_user_ids"])
        tally = apply_findings(found, admin, tmp_path / "plan.jsonl")
        assert tally["done"] == sum(tally.values())
        for uid in gone:
            assert store.scalar("SELECT is_active FROM users WHERE id = ?", [uid]) == 0
        assert store.scalar("SELECT is_active FROM users WHERE id = ?", [helper.user_id]) == 1
        after = inactive_users(admin, include_bots=True)
        assert bot_rows(after) == []
        assert after.tables["by_role"].loc["bot"].to_dict() == {
            "active": 1,
            "inactive": 0,
            "new": 1,
        }


def off_ids(admin: chatops.Client) -> list[int]:
    """The accounts the default run finds inactive."""
    return list(inactive_users(admin).summary["inactive_user_ids"])


def by_subject(rows: list[list[str]]) -> list[list[str]]:
    """Finding rows in the order the audit gives them (by severity, then subject)."""
    return sorted(rows, key=lambda r: (r[0], r[1]))


def test_judge_without_a_server() -> None:
    """Every status and every kind of finding from hand-built accounts: active by a message
    or by presence, new, inactive people and bots (with and without an owner), their
    invitations, the seats saved, a cut-short history, the threshold."""
    joined = NOW - pd.Timedelta(days=365)
    old = {"date_joined": joined.isoformat()}
    me = user(1, "Ada Admin", role=200, **old)
    ann, rob = user(2, "Ann Active", **old), user(3, "Rob Reader", **old)
    fresh = user(4, "Nia New", date_joined=(NOW - pd.Timedelta(days=10)).isoformat())
    ivy = user(5, "Ivy Idle", role=600, **old)
    mod = user(6, "Moe Moderator", role=300, **old)
    pet = user(20, "Pet Bot", is_bot=True, bot_owner_id=5, **old)
    stray = user(21, "Stray Bot", is_bot=True, **old)
    read = Read(
        site="https://chat.example.org",
        me=1,
        users=[me, ann, rob, fresh, ivy, mod, pet, stray],
        messages=[message(1, ann, 5, display_recipient="general")],
        truncated=True,
        last_seen={rob.email: ago(3)},
        invitations=[
            Invite(id=6, invited_by_user_id=5, invited=ago(30), email="x@example.org"),
            Invite(id=5, invited_by_user_id=5, invited=ago(30), is_multiuse=True),
        ],
    )
    options = Options(include_bots=True, seat_cost=10.0)
    judged = judge(read, options, until=NOW)
    status = {a.user.full_name: a.status for a in judged.accounts}
    assert status == {
        "Ann Active": "active",
        "Rob Reader": "active",
        "Nia New": "new",
        "Ivy Idle": "inactive",
        "Moe Moderator": "inactive",
        "Pet Bot": "inactive",
        "Stray Bot": "inactive",
    }
    assert [a.user.user_id for a in judged.inactive] == [5, 20, 21]  # Moe's role is not judged
    assert judged.failed == ["max_inactive_share"]
    rows = findings(judged)
    assert [(v, s.split(" <")[0], f) for v, s, f in kinds(rows)] == [
        (
            "critical",
            "accounts",
            "3 of 5 accounts (60%) sent no message in the last 90 days; the threshold is 25%",
        ),
        (
            "warning",
            "Ivy Idle",
            "guest with no message and not seen in the last 90 days; "
            "deactivating also deactivates 1 bots it owns",
        ),
        ("warning", "Pet Bot", "bot owned by Ivy Idle with no message in the last 90 days"),
        ("warning", "Stray Bot", "bot with no owner and no message in the last 90 days"),
        ("warning", "Ivy Idle", "inactive account created active link 5, which outlives it"),
        ("warning", "Ivy Idle", "inactive account created active invitation 6, which outlives it"),
        (
            "info",
            "seats",
            "deactivating the 1 accounts inactive for 90 days saves 1 x 10 = 10 per billing period",
        ),
        (
            "warning",
            "coverage",
            "history fetch stopped at max_messages=50000 before the window "
            "start; some accounts may look inactive",
        ),
    ]
    assert [r.api_call for r in rows[1:6]] == [
        "DELETE /api/v1/users/5",
        "DELETE /api/v1/bots/20",
        "DELETE /api/v1/bots/21",
        "DELETE /api/v1/invites/multiuse/5",
        "DELETE /api/v1/invites/6",
    ]
    result = conclude(judged)
    assert result.tables["by_role"].loc["bot"].to_dict() == {"active": 0, "inactive": 2, "new": 0}
    assert result.summary["savings"] == {
        "seat_cost": 10.0,
        "inactive_accounts": 1,
        "projected": 10.0,
    }
