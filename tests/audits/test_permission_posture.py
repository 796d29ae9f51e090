"""The permission_posture audit against a real sandbox over HTTP."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, permission_posture
from chatops.audits.permission_posture import (
    SNAPSHOT_NAME,
    Options,
    Read,
    conclude,
    findings,
    judge,
    write_snapshot,
)
from chatops.sandbox import Sandbox
from chatops.sandbox import realm as realm_mod
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, kinds, user
from tests.conftest import group_id, realm_settings, unchanged

TO_MEMBERS = "Set the setting to role:members so guests lose it"
SMALLER = "Set the setting to a smaller group, e.g. role:moderators"


def _people(admin: chatops.Client) -> tuple[list[int], list[int], dict[int, str]]:
    users = admin.users.list()
    humans = sorted(u.user_id for u in users if u.is_active and not u.is_bot)
    guests = sorted(u.user_id for u in users if u.is_active and not u.is_bot and u.role == 600)
    return humans, guests, {u.user_id: u.full_name for u in users}


def test_permission_posture_on_the_demo_org_passes(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with unchanged(sandbox.store):
            result = permission_posture(client)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    settings = result.tables["settings"]
    org = set(settings[settings.scope == "organization"]["setting"])
    # keys ending in _groups and _group both count; non-group realm settings do not
    assert {"can_create_groups", "can_manage_all_groups", "can_access_all_users_group"} <= org
    assert not any(s.endswith("_limit_seconds") for s in org)
    assert (settings.scope == "channel").any()
    everyone = settings[settings.setting == "can_access_all_users_group"].iloc[0]
    assert bool(everyone["includes_everyone"]) and bool(everyone["includes_guests"])
    assert everyone["share"] == 1.0


def test_permission_posture_none_found(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    admin = client_for("admin", fresh_sandbox)
    store = fresh_sandbox.store
    admins = group_id(store, "role:administrators")
    with realm_settings(
        store,
        can_add_subscribers_group=admins,
        can_invite_users_group=admins,
        can_move_messages_between_channels_group=admins,
    ):
        with unchanged(store):
            result = permission_posture(admin)
    assert result.passed
    assert result.findings.empty
    assert result.summary["counts"]["exposed_sensitive"] == 0
    assert result.tables["changes"].empty


def test_permission_posture_findings_snapshot_and_fix(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    owner = client_for("owner", fresh_sandbox)
    store = fresh_sandbox.store
    admins = group_id(store, "role:administrators")
    members_id = group_id(store, "role:members")
    everyone_id = group_id(store, "role:everyone")
    humans, guests, names = _people(admin)
    member = fresh_sandbox.accounts["member"].user_id
    guest = fresh_sandbox.accounts["guest"].user_id
    # a clean start: no sensitive organization setting above administrators
    realm_mod.update_settings(
        store,
        {
            "can_add_subscribers_group": admins,
            "can_invite_users_group": admins,
            "can_move_messages_between_channels_group": admins,
        },
    )
    before = permission_posture(admin)
    assert before.findings.empty
    snapshot = write_snapshot(before, tmp_path)
    assert snapshot == tmp_path / SNAPSHOT_NAME
    saved = json.loads(snapshot.read_text())
    admin_ids = sorted(u.user_id for u in admin.users.list() if u.is_active and u.role <= 200)
    assert saved["settings"]["organization/can_invite_users_group"]["member_ids"] == admin_ids

    # 1. an organization setting reaching everyone (set-up the API refuses: role:everyone)
    realm_mod.update_settings(store, {"can_invite_users_group": everyone_id})
    # 2. a channel setting reaching a guest, through a group
    contractors = admin.user_groups.create("contractors", members=[guest, member])
    general = admin.channels.get_id("general")
    admin.channels.update(general, group_settings={"can_remove_subscribers_group": contractors})
    # 3. a deactivated subgroup reaches nobody: this setting reaches only the member
    old_team = admin.user_groups.create("old-team", members=[guest])
    admin.user_groups.deactivate(old_team)
    realm_mod.update_settings(
        store,
        {
            "can_delete_any_message_group": {
                "direct_members": [member],
                "direct_subgroups": [old_team],
            }
        },
    )
    # 4. a broad sensitive setting: exactly `k` of the humans, no guest
    broad = [h for h in humans if h not in guests][:6]
    realm_mod.update_settings(
        store, {"can_manage_all_groups": {"direct_members": broad, "direct_subgroups": []}}
    )
    ratio = len(broad) / len(humans)

    with unchanged(store):
        result = permission_posture(
            admin,
            max_group_size_ratio=(len(broad) - 1) / len(humans),
            max_exposed_sensitive=2,
            previous_snapshot=str(snapshot),
        )
    assert result.passed
    everyone_people = len(humans)
    expected = [
        [
            "warning",
            "organization: can_invite_users_group",
            f"sensitive setting reaches everyone (role:everyone, {everyone_people} people)",
            TO_MEMBERS,
            f'PATCH /api/v1/realm can_invite_users_group={{"new": {members_id}}}',
        ],
        [
            "warning",
            "#general: can_remove_subscribers_group",
            "sensitive setting reaches 1 guest (contractors, 2 people)",
            TO_MEMBERS,
            f'PATCH /api/v1/streams/{general} can_remove_subscribers_group={{"new": {members_id}}}',
        ],
        [
            "warning",
            "organization: can_manage_all_groups",
            f"sensitive setting reaches {ratio:.0%} of the organization "
            f"({{{', '.join(f'user {b}' for b in broad)}}}, {len(broad)} people); the limit is "
            f"{(len(broad) - 1) / len(humans):.0%}",
            SMALLER,
            'PATCH /api/v1/realm can_manage_all_groups={"new": {group_id}}',
        ],
    ]
    assert sorted(result.findings.values.tolist()) == sorted(expected)
    settings = result.tables["settings"].set_index("key")
    deleting = settings.loc["organization/can_delete_any_message_group"]
    assert deleting["member_ids"] == [member]
    assert not deleting["includes_guests"]
    assert "old-team (deactivated)" in deleting["value"]

    changes = result.tables["changes"].set_index("key")
    grew = changes.loc["organization/can_invite_users_group"]
    assert grew["change"] == "grew"
    assert guest in [i for i in humans if names[i] in str(grew["added"]).split(", ")]
    assert grew["removed"] == ""
    swapped = changes.loc[f"channel:{general}/can_remove_subscribers_group"]
    assert swapped["change"] == "changed" and swapped["after"] == 2
    assert swapped["added"] == ", ".join(sorted([names[guest], names[member]]))
    assert swapped["removed"] == ", ".join(sorted(names[i] for i in admin_ids))
    assert f"channel:{general}/can_send_message_group" not in changes.index

    with unchanged(store):
        at_edge = permission_posture(admin, max_group_size_ratio=ratio, max_exposed_sensitive=2)
        ratio_off = permission_posture(admin, max_group_size_ratio=-1, max_exposed_sensitive=2)
        tight = permission_posture(admin, max_group_size_ratio=ratio, max_exposed_sensitive=1)
        off = permission_posture(admin, max_group_size_ratio=ratio, max_exposed_sensitive=-1)
    assert at_edge.passed and len(at_edge.findings) == 2
    assert "organization: can_manage_all_groups" not in set(at_edge.findings["subject"])
    assert len(ratio_off.findings) == 2
    assert not tight.passed and tight.summary["failed_checks"] == ["max_exposed_sensitive"]
    first = tight.findings.iloc[0]
    assert (first["severity"], first["subject"]) == ("critical", "settings")
    assert off.passed and "critical" not in set(off.findings["severity"])

    # the plan of the findings sets the two guest-reaching settings to role:members; the
    # others wait for a person to choose a group
    found = permission_posture(admin, max_group_size_ratio=ratio)
    tally = apply_findings(found, admin, tmp_path / "plan.jsonl")
    assert tally == {"done": 2, "already_done": 0, "refused": 0, "failed": 0}
    state = owner.server.register()
    assert state["realm_can_invite_users_group"] == members_id
    raw = owner.get(f"/streams/{general}")["stream"]
    assert raw["can_remove_subscribers_group"] == members_id
    again = permission_posture(admin, max_group_size_ratio=-1)
    assert again.passed and again.findings.empty


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_group_size_ratio": 1.5}, "max_group_size_ratio"),
        ({"max_group_size_ratio": -0.5}, "max_group_size_ratio"),
        ({"max_exposed_sensitive": -2}, "max_exposed_sensitive"),
        ({"previous_snapshot": "/nonexistent/snapshot.json"}, "previous_snapshot"),
    ],
)
def test_permission_posture_rejects_bad_parameters(
    sandbox: Sandbox, kwargs: dict[str, object], name: str
) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with pytest.raises(ValueError, match=name):
            permission_posture(client, **kwargs)  # type: ignore[arg-type]


def test_judge_without_a_server() -> None:
    """Every kind of finding from hand-built settings: a sensitive one reaching a guest (set to
    role:members), one reaching everyone (a group a person chooses), one too broad; a setting
    that is not sensitive is only listed; the threshold; and what changed since a snapshot."""
    ada, mo = user(1, "Ada Admin", role=200), user(2, "Mo Member")
    gus, bot = user(3, "Gus Guest", role=600), user(4, "Ci Bot", is_bot=True)
    groups = {
        10: {"id": 10, "name": "role:members", "members": [1, 2]},
        11: {"id": 11, "name": "role:everyone", "members": [1, 2, 3, 4]},
        12: {"id": 12, "name": "helpers", "members": [1]},
        13: {"id": 13, "name": "old-team", "members": [2], "deactivated": True},
    }
    read = Read(
        site="https://chat.example.org",
        users={1: ada, 2: mo, 3: gus, 4: bot},
        groups=groups,
        realm={
            "realm_can_invite_users_group": {"direct_members": [3], "direct_subgroups": [12]},
            "realm_can_manage_all_groups": 11,
            "realm_can_delete_any_message_group": {
                "direct_members": [2],
                "direct_subgroups": [13, 12],
            },
            "realm_can_mention_many_users_group": 11,
            "realm_user_groups": [{"id": 10}],  # a list of groups, not a setting
        },
        channels=[
            {"stream_id": 5, "name": "ops", "can_administer_channel_group": 12},
            {"stream_id": 6, "name": "attic", "is_archived": True, "can_add_subscribers_group": 11},
        ],
        previous={"settings": {"organization/can_manage_all_groups": {"member_ids": [1, 2]}}},
    )
    options = Options(max_group_size_ratio=0.5, max_exposed_sensitive=1)
    judged = judge(read, options, at=NOW)
    assert [s.key for s in judged.settings] == [
        "organization/can_delete_any_message_group",
        "organization/can_invite_users_group",
        "organization/can_manage_all_groups",
        "organization/can_mention_many_users_group",
        "channel:5/can_administer_channel_group",
    ]
    assert judged.failed == ["max_exposed_sensitive"]
    rows = findings(judged)
    assert kinds(rows) == [
        (
            "warning",
            "organization: can_delete_any_message_group",
            "sensitive setting reaches 67% of the organization ({user 2, old-team "
            "(deactivated), helpers}, 2 people); the limit is 50%",
        ),
        (
            "warning",
            "organization: can_invite_users_group",
            "sensitive setting reaches 1 guest ({user 3, helpers}, 2 people)",
        ),
        (
            "warning",
            "organization: can_manage_all_groups",
            "sensitive setting reaches everyone (role:everyone, 3 people)",
        ),
        (
            "critical",
            "settings",
            "2 sensitive settings reach everyone or guests; the threshold is 1",
        ),
    ]
    assert [r.recommended_action for r in rows[:3]] == [SMALLER, TO_MEMBERS, TO_MEMBERS]
    assert rows[1].api_call == 'PATCH /api/v1/realm can_invite_users_group={"new": 10}'
    assert rows[0].call is not None and rows[0].call.needs_input
    # with no role:members group to fall back on, a person chooses the group
    bare = Read(**{**read.__dict__, "groups": {k: v for k, v in groups.items() if k != 10}})
    exposed = [r for r in findings(judge(bare, options, at=NOW)) if "reaches 1 guest" in r.finding]
    assert exposed[0].recommended_action == (
        "Set the setting to a smaller group, e.g. role:administrators"
    )
    assert exposed[0].api_call == 'PATCH /api/v1/realm can_invite_users_group={"new": {group_id}}'
    result = conclude(judged)
    changes = result.tables["changes"].set_index("key")
    assert changes.loc["organization/can_manage_all_groups", ["change", "added"]].tolist() == [
        "grew",
        "Ci Bot, Gus Guest",
    ]
    assert result.summary["counts"]["sensitive_settings"] == 4
