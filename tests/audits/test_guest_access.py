"""The guest_access audit against a real sandbox over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, guest_access
from chatops.audits.guest_access import Options, Read, conclude, findings, judge
from chatops.sandbox import Sandbox
from chatops.types import DisplayRecipient, User
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, ago, calls, channel, kinds, message, user
from tests.conftest import group_id, realm_settings, unchanged

UNSUB = "DELETE /api/v1/users/me/subscriptions"
PRIVATE_ACTION = "Unsubscribe the guest from #{} unless they need it"
SEE_ALL = (
    "Limit can_access_all_users_group to role:members so guests see only the users they "
    "share channels or conversations with"
)


def _guests(admin: chatops.Client) -> list[User]:
    return sorted(
        (u for u in admin.users.list() if u.role == 600 and u.is_active),
        key=lambda u: u.user_id,
    )


def _clear(admin: chatops.Client) -> None:
    """Test set-up: no guest in any channel."""
    guests = [g.user_id for g in _guests(admin)]
    for ch in admin.channels.list(include_all=True):
        members = set(admin.channels.members(ch.stream_id))
        inside = [g for g in guests if g in members]
        if inside:
            admin.channels.unsubscribe([ch.name], principals=inside)


def test_guest_access_on_the_demo_org_passes(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with unchanged(sandbox.store):
            result = guest_access(client)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    assert len(result.tables["guests"]) == result.summary["counts"]["guests"] > 0
    assert "dm_partners" in result.summary["coverage"]


def test_guest_access_none_found(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    admin = client_for("admin", fresh_sandbox)
    _clear(admin)
    members = group_id(fresh_sandbox.store, "role:members")
    with realm_settings(fresh_sandbox.store, can_access_all_users_group=members):
        with unchanged(fresh_sandbox.store):
            result = guest_access(admin, max_flagged_guests=0)
    assert result.passed
    assert result.findings.empty
    assert result.summary["counts"]["flagged_guests"] == 0
    assert not result.tables["guests"]["may_see_all_users"].any()
    assert (result.tables["guests"]["channels"] == 0).all()


def test_guest_access_findings_thresholds_and_fix(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    owner = client_for("owner", fresh_sandbox)
    _clear(admin)
    guests = _guests(admin)
    gus, other = guests[0], guests[1]
    channels = {c.name: c for c in admin.channels.list(include_all=True, include_default=True)}
    private = next(c.name for c in channels.values() if c.invite_only and not c.is_archived)
    default = next(c.name for c in channels.values() if c.is_default and not c.invite_only)
    public = sorted(
        c.name
        for c in channels.values()
        if not c.invite_only and not c.is_default and not c.is_web_public and not c.is_archived
    )[:3]
    admin.channels.subscribe([private], principals=[gus.user_id])
    admin.channels.subscribe([default], principals=[gus.user_id])
    admin.channels.subscribe(public, principals=[other.user_id])
    admin.messages.send_direct([gus.user_id], "welcome aboard")
    members_id = group_id(fresh_sandbox.store, "role:members")

    with unchanged(fresh_sandbox.store):
        result = guest_access(admin, max_channels=2, max_flagged_guests=2)
    assert result.passed
    gus_subject = f"{gus.full_name} ({gus.email})"
    other_subject = f"{other.full_name} ({other.email})"
    expected = [
        [
            "warning",
            gus_subject,
            f"subscribed to private channel #{private}",
            PRIVATE_ACTION.format(private),
            f'{UNSUB} subscriptions=["{private}"] principals=[{gus.user_id}]',
        ],
        [
            "warning",
            gus_subject,
            f"subscribed to default channel #{default}",
            PRIVATE_ACTION.format(default),
            f'{UNSUB} subscriptions=["{default}"] principals=[{gus.user_id}]',
        ],
        [
            "warning",
            other_subject,
            "subscribed to 3 channels; the limit is 2",
            "Unsubscribe the guest from the channels they do not need",
            f"{UNSUB} subscriptions=[{{channel}}] principals=[{other.user_id}]",
        ],
        [
            "warning",
            "organization",
            f"{len(guests)} of {len(guests)} guests may see all users "
            "(can_access_all_users_group reaches guests)",
            SEE_ALL,
            f'PATCH /api/v1/realm can_access_all_users_group={{"new": {members_id}}}',
        ],
    ]
    assert sorted(result.findings.values.tolist()) == sorted(expected)
    table = result.tables["guests"]
    assert table.loc[gus.user_id, "private_channels"] == private
    assert table.loc[gus.user_id, "default_channels"] == default
    assert table.loc[gus.user_id, "channels"] == 2
    assert "Adam Admin" in str(table.loc[gus.user_id, "dm_partners"])
    assert table.loc[other.user_id, "channels"] == 3
    assert bool(table.loc[other.user_id, "may_see_all_users"])
    subs = result.tables["subscriptions"]
    assert set(subs[subs.user_id == gus.user_id]["kind"]) == {"private", "public"}

    with unchanged(fresh_sandbox.store):
        # max_channels at the edge: 3 channels with a limit of 3 is fine
        at_edge = guest_access(admin, max_channels=3, max_flagged_guests=1)
        unflagged = guest_access(
            admin, flag_private=False, flag_default_channels=False, max_flagged_guests=0
        )
        tight = guest_access(admin, max_channels=2, max_flagged_guests=1)
        off = guest_access(admin, max_channels=2, max_flagged_guests=-1)
    assert at_edge.passed and at_edge.summary["counts"]["flagged_guests"] == 1
    assert other_subject not in set(at_edge.findings["subject"])
    assert unflagged.passed and unflagged.summary["counts"]["flagged_guests"] == 0
    assert set(unflagged.findings["subject"]) == {"organization"}
    assert not tight.passed and tight.summary["failed_checks"] == ["max_flagged_guests"]
    first = tight.findings.iloc[0]
    assert (first["severity"], first["subject"]) == ("critical", "guests")
    assert "2 guests have flagged channel access; the threshold is 1" == first["finding"]
    assert off.passed and "critical" not in set(off.findings["severity"])

    # the plan of the unsubscriptions the findings call for: the flagged private and default
    # channels (which channels to leave of too many is a person's choice)
    found = guest_access(admin, max_channels=2, max_flagged_guests=2)
    tally = apply_findings(
        found, admin, tmp_path / "plan.jsonl", keep=lambda f: f.call.method == "DELETE"
    )
    assert tally == {"done": 2, "already_done": 0, "refused": 0, "failed": 0}
    assert gus.user_id not in owner.channels.members(channels[private].stream_id)
    assert gus.user_id not in owner.channels.members(channels[default].stream_id)
    # a guest in too many channels is only reported
    assert other.user_id in owner.channels.members(channels[public[0]].stream_id)
    again = guest_access(admin, max_channels=2, max_flagged_guests=2)
    assert {r for r in again.findings["subject"]} == {other_subject, "organization"}


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [({"max_channels": -1}, "max_channels"), ({"max_flagged_guests": -2}, "max_flagged_guests")],
)
def test_guest_access_rejects_bad_parameters(
    sandbox: Sandbox, kwargs: dict[str, int], name: str
) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with pytest.raises(ValueError, match=name):
            guest_access(client, **kwargs)  # type: ignore[arg-type]


def test_judge_without_a_server() -> None:
    """Every flag from hand-built guests and channels: too many channels, a private channel,
    a default channel (one that is both, once), whether guests may see all users (and the
    group to limit it to), direct-message partners; the threshold."""
    ada, gus, gia = (
        user(1, "Ada Admin", role=200),
        user(2, "Gus", role=600),
        user(3, "Gia", role=600),
    )
    read = Read(
        site="https://chat.example.org",
        users={1: ada, 2: gus, 3: gia},
        channels=[
            channel(1, "general", is_default=True),
            channel(2, "secret", invite_only=True),
            channel(3, "lobby", invite_only=True, is_default=True),
            channel(4, "random"),
        ],
        members={1: [1, 2], 2: [1, 2], 3: [2], 4: [1, 2, 3]},
        realm={"realm_can_access_all_users_group": 11},
        groups={
            10: {"id": 10, "name": "role:members", "members": [1]},
            11: {"id": 11, "name": "role:everyone", "members": [1, 3]},
        },
        direct_messages=[
            message(
                1,
                ada,
                1,
                display_recipient=[
                    DisplayRecipient(id=1, email=ada.email, full_name=ada.full_name),
                    DisplayRecipient(id=2, email=gus.email, full_name=gus.full_name),
                ],
            )
        ],
        last_messages={2: ago(3), 3: None},
    )
    judged = judge(read, Options(max_channels=3, max_flagged_guests=0), at=NOW)
    assert [g.guest.full_name for g in judged.flagged] == ["Gus"]
    assert judged.failed == ["max_flagged_guests"]
    rows = findings(judged)
    gus_is = f"Gus ({gus.email})"
    assert kinds(rows) == [
        ("warning", gus_is, "subscribed to 4 channels; the limit is 3"),
        ("warning", gus_is, "subscribed to default channel #general"),
        ("warning", gus_is, "subscribed to private and default channel #lobby"),
        ("warning", gus_is, "subscribed to private channel #secret"),
        (
            "warning",
            "organization",
            "1 of 2 guests may see all users (can_access_all_users_group reaches guests)",
        ),
        ("critical", "guests", "1 guests have flagged channel access; the threshold is 0"),
    ]
    assert calls(rows)[gus_is][0] == f"{UNSUB} subscriptions=[{{channel}}] principals=[2]"
    assert calls(rows)[gus_is][2] == f'{UNSUB} subscriptions=["lobby"] principals=[2]'
    assert calls(rows)["organization"] == [
        'PATCH /api/v1/realm can_access_all_users_group={"new": 10}'
    ]
    table = conclude(judged).tables["guests"]
    assert table.loc[2, "dm_partners"] == "Ada Admin"
    assert bool(table.loc[3, "may_see_all_users"]) and not bool(table.loc[2, "may_see_all_users"])
