"""``chatops people subscribe|unsubscribe|role|deactivate-idle``: previewed a row per person,
the server's rules said before anything is sent, made in the fewest requests, journalled and
undone exactly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.test_report_trends import chatops_cli


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("org-bulk"), size="small", seed=37) as sb:
        yield sb


@pytest.fixture(scope="module")
def owner(org: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(org.zuliprc("owner")) as client:
        yield client


def people(org: Sandbox, *args: str, account: str = "admin") -> tuple[int, str, str]:
    done = chatops_cli("people", *args, "--zuliprc", str(org.zuliprc(account)))
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


def subscribers(client: chatops.Client) -> dict[str, set[int]]:
    return {c.name: set(client.channels.members(c.stream_id)) for c in client.channels.list()}


def test_people_times_channels_in_one_request_then_undone_exactly(
    org: Sandbox, owner: chatops.Client, tmp_path: Path
) -> None:
    before = subscribers(owner)
    group = next(g for g in owner.user_groups.list() if not g.is_system_group and g.members)
    listed = tmp_path / "team.csv"
    listed.write_text("Name,Email\nMei Member,member@demo.chatops.test\n", encoding="utf-8")
    with unchanged(org.store):
        code, out, _err = people(
            org, "subscribe", "--people", f"@{group.name}", "--people-file", str(listed),
            "--channels", "#design, random", "--dry-run",
        )  # fmt: skip
    assert code == 0, out
    assert "Dry run: nothing sent." in out
    assert "in 1 request." in out
    code, out, err = people(
        org, "subscribe", "--people", f"@{group.name}", "--people-file", str(listed),
        "--channels", "#design, random", "--yes",
    )  # fmt: skip
    assert code == 0, out + err
    after = subscribers(owner)
    wanted = set(group.members) | {owner.users.get_by_email("member@demo.chatops.test").user_id}
    humans = {u.user_id for u in owner.users.list() if not u.is_bot}
    for name in ("design", "random"):
        assert wanted & humans <= after[name]
        assert after[name] - before[name] <= wanted  # nobody else was moved
    changed = [n for n in after if after[n] != before[n]]
    assert set(changed) <= {"design", "random"}
    lines = out.splitlines()
    assert any(line.strip().startswith("done") and "joins #design" in line for line in lines)
    assert "1 request made; 0 people refused, 0 requests failed" in out
    journal = out.rsplit("journal in ", 1)[1].split(" ", 1)[0]
    undone = chatops_cli("undo", journal, "--yes", "--zuliprc", str(org.zuliprc("admin")))
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert subscribers(owner) == before


def test_unknown_names_are_named_with_the_closest_and_nothing_is_sent(org: Sandbox) -> None:
    with unchanged(org.store):
        code, _out, err = people(
            org, "subscribe", "--people", "Mei Membr, owner@demo.chatops.tes",
            "--channels", "#desgn", "--yes",
        )  # fmt: skip
    assert code == 2
    assert "✗ “Mei Membr” is nobody in the organization (the closest is “Mei Member”)" in err
    assert "(the closest is “owner@demo.chatops.test”)" in err
    assert "✗ #desgn is no channel of the organization (the closest is “design”)" in err
    assert "nothing was sent" in err
    with unchanged(org.store):
        code, _out, err = people(org, "role", "--people", "Mei Member", "--role", "admin")
    assert code == 2 and "invalid choice: 'admin'" in err
    with unchanged(org.store):
        code, _out, err = people(org, "deactivate-idle", "--days", "0")
    assert code == 2 and "--days must be at least 1, not 0" in err
    with unchanged(org.store):
        code, _out, err = people(
            org, "subscribe", "--people", "Mei Member", "--channels", "#design", account="member"
        )
    assert code == 2 and "needs an administrator's account" in err


def test_roles_follow_the_servers_rules_and_are_undone(org: Sandbox, owner: chatops.Client) -> None:
    member = owner.users.get_by_email("member@demo.chatops.test")
    code, out, _err = people(
        org, "role", "--people", "Mei Member, owner@demo.chatops.test", "--role", "moderator",
        "--yes",
    )  # fmt: skip
    assert code == 1, out  # one person refused
    assert "refused  Olivia Owner <owner@demo.chatops.test>: owner → moderator  (only an " in out
    assert "done  Mei Member <member@demo.chatops.test>: member → moderator" in out
    assert owner.users.get(member.user_id).role == 300
    assert owner.users.me().role == 100
    journal = out.rsplit("journal in ", 1)[1].split(" ", 1)[0]
    with unchanged(org.store):
        code, out, _err = people(org, "role", "--people", "owner@demo.chatops.test",
                                 "--role", "member", "--yes", account="owner")  # fmt: skip
    assert code == 1 and "your own role" in out, out
    undone = chatops_cli("undo", journal, "--yes", "--zuliprc", str(org.zuliprc("admin")))
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert owner.users.get(member.user_id).role == 400


def test_idle_accounts_are_previewed_with_their_dates_and_reactivated_by_undo(
    org: Sandbox, owner: chatops.Client
) -> None:
    with unchanged(org.store):
        code, out, _err = people(org, "deactivate-idle", "--days", "20", "--dry-run")
    assert code == 0, out
    rows = [line for line in out.splitlines() if "deactivated" in line]
    assert rows, out
    for row in rows:
        assert "no message since " in row or "last message " in row
        assert "last seen" in row or "not seen lately" in row
        assert "owner@" not in row and "-bot@" not in row and "admin@" not in row
    asleep = {u.user_id for u in owner.users.list() if not u.is_active}
    code, out, _err = people(org, "deactivate-idle", "--days", "20", "--yes")
    assert code == 0, out
    gone = {u.user_id for u in owner.users.list() if not u.is_active} - asleep
    assert len(gone) == len(rows)
    assert all(owner.users.get(uid).role != 100 and not owner.users.get(uid).is_bot for uid in gone)
    journal = out.rsplit("journal in ", 1)[1].split(" ", 1)[0]
    undone = chatops_cli("undo", journal, "--yes", "--zuliprc", str(org.zuliprc("admin")))
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert {u.user_id for u in owner.users.list() if not u.is_active} == asleep
