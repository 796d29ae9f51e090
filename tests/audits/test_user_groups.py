"""The user_groups audit against a real sandbox over HTTP."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, user_groups
from chatops.sandbox import Sandbox
from tests.conftest import group_id, unchanged


def _ids(client: chatops.Client) -> dict[str, int]:
    return {g.name: g.id for g in client.user_groups.list()}


def test_user_groups_on_the_demo_org_passes(tmp_path: Path) -> None:
    # the demo organization that `chatops audit run` starts; the shared sandbox's groups
    # are changed by other tests
    with (
        Sandbox.start(tmp_path / "demo") as demo,
        chatops.Client.from_zuliprc(demo.zuliprc("admin")) as client,
    ):
        result = user_groups(client)
        tight = user_groups(client, max_empty_groups=0)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    ids = {str(n): int(i) for i, n in result.tables["groups"]["name"].items()}
    alumni = result.findings[result.findings["subject"] == "@alumni"]
    assert alumni["api_call"].tolist() == [f"POST /api/v1/user_groups/{ids['alumni']}/deactivate"]
    assert result.summary["counts"]["empty_groups"] == 1
    # leads is used by an organization setting and as a subgroup of support-team
    usages = result.tables["usages"]
    leads = usages[usages["group"] == "leads"]
    assert sorted(leads["kind"]) == ["realm", "subgroup"]
    assert not tight.passed
    assert tight.summary["failed_checks"] == ["max_empty_groups"]
    assert tight.findings.iloc[0]["severity"] == "critical"


def test_user_groups_findings_and_deactivation(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    admin = client_for("admin", fresh_sandbox)
    users = admin.users.list()
    demo = {a.email for a in fresh_sandbox.accounts.values()}
    humans = [u for u in users if u.is_active and not u.is_bot and u.email not in demo]
    live, gone = humans[0].user_id, humans[-1].user_id
    empty_used = admin.user_groups.create("empty-used", members=[])
    ghosts = admin.user_groups.create("ghosts", members=[gone])
    admin.users.deactivate(gone)
    admin.user_groups.create(
        "mentioners", members=[live], settings={"can_mention_group": empty_used}
    )
    channel = admin.channels.list()[0]
    admin._request(
        "PATCH",
        f"/streams/{channel.stream_id}",
        params={"can_send_message_group": {"new": ghosts}},
    )
    ids = _ids(admin)
    store = fresh_sandbox.store

    with unchanged(store):
        result = user_groups(admin, max_empty_groups=3)
    assert result.passed
    rows = result.findings[["subject", "finding", "api_call"]].values.tolist()
    assert rows == [
        [
            "@alumni",
            "has no members; is not used by any setting or group",
            f"POST /api/v1/user_groups/{ids['alumni']}/deactivate",
        ],
        [
            "@empty-used",
            "has no members; used in mentioners:can_mention_group",
            f"POST /api/v1/user_groups/{empty_used}/members add=[user_id, ...]",
        ],
        [
            "@ghosts",
            f"has only deactivated members (1); used in #{channel.name}:can_send_message_group",
            f"POST /api/v1/user_groups/{ghosts}/members add=[user_id, ...]",
        ],
        [
            "@mentioners",
            "is not used by any setting or group",
            f"POST /api/v1/user_groups/{ids['mentioners']}/deactivate",
        ],
    ]
    assert result.summary["counts"]["empty_groups"] == 3

    with unchanged(store):
        tight = user_groups(admin, max_empty_groups=2)
    assert tight.summary["failed_checks"] == ["max_empty_groups"]

    done = user_groups(admin, max_empty_groups=3, dry_run=False)
    expected = sorted([ids["alumni"], ids["mentioners"]])
    assert sorted(done.summary["deactivated_group_ids"]) == expected
    after = _ids(admin)
    assert not set(expected) & set(after.values())
    assert {"empty-used", "ghosts", "leads", "support-team"} <= set(after)
    assert group_id(store, "mentioners") == ids["mentioners"]
    # mentioners is gone, so empty-used is no longer used and is now a candidate too
    again = user_groups(admin, max_empty_groups=3)
    assert again.findings["subject"].tolist() == ["@empty-used", "@ghosts"]
    assert again.summary["counts"]["unused_groups"] == 1


def test_group_usages_counts_settings_whose_names_end_in_groups() -> None:
    from chatops.audits.user_groups import group_usages

    realm = {
        "realm_can_create_groups": 11,
        "realm_can_manage_all_groups": {"direct_members": [], "direct_subgroups": [12]},
        "realm_can_invite_users_group": 13,
        "realm_user_groups": [{"id": 11}],  # the list of groups, not a setting
    }
    uses = {(u["group_id"], u["setting"]) for u in group_usages([], realm, [])}
    assert uses == {
        (11, "can_create_groups"),
        (12, "can_manage_all_groups"),
        (13, "can_invite_users_group"),
    }


def test_deactivated_members_and_small_groups(tmp_path: Path) -> None:
    with (
        Sandbox.start(tmp_path / "org", seed=21) as sb,
        chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
    ):
        demo = {a.email for a in sb.accounts.values()}
        humans = [
            u for u in admin.users.list() if u.is_active and not u.is_bot and u.email not in demo
        ]
        a, b, c, gone1, gone2 = (u.user_id for u in humans[:5])
        mixed = admin.user_groups.create("mixed", members=[a, gone1, gone2])
        pair = admin.user_groups.create("pair", members=[a, b])
        trio = admin.user_groups.create("trio", members=[a, b, c])
        for gid in (mixed, pair, trio):  # used, so only the new checks speak
            admin.user_groups.create(
                f"uses-{gid}", members=[a], settings={"can_mention_group": gid}
            )
        admin.users.deactivate(gone1)
        admin.users.deactivate(gone2)

        with unchanged(sb.store):
            none_small = user_groups(admin, min_members=2, max_empty_groups=-1)
            small = user_groups(admin, min_members=3, max_empty_groups=-1)
        ours = {"@mixed", "@pair", "@trio"}

        def rows(result: object) -> list[list[str]]:
            f = result.findings  # type: ignore[attr-defined]
            return f[f["subject"].isin(ours)][
                ["severity", "subject", "finding", "api_call"]
            ].values.tolist()

        removal = [
            "warning",
            "@mixed",
            "2 deactivated users are still direct members",
            f"POST /api/v1/user_groups/{mixed}/members delete={json.dumps(sorted([gone1, gone2]))}",
        ]
        # edge: min_members=2 -> a group of 1 active member is small, 2 is not
        assert rows(none_small) == [
            removal,
            [
                "info",
                "@mixed",
                "has 1 active members, fewer than min_members=2",
                f"POST /api/v1/user_groups/{mixed}/members add=[user_id, ...]",
            ],
        ]
        assert rows(small) == [
            removal,
            [
                "info",
                "@mixed",
                "has 1 active members, fewer than min_members=3",
                f"POST /api/v1/user_groups/{mixed}/members add=[user_id, ...]",
            ],
            [
                "info",
                "@pair",
                "has 2 active members, fewer than min_members=3",
                f"POST /api/v1/user_groups/{pair}/members add=[user_id, ...]",
            ],
        ]
        assert small.summary["counts"]["small_groups"] == 5  # and the three one-member uses-*
        assert small.summary["counts"]["groups_with_deactivated_members"] == 1
        # 0 and 1 switch the small-group check off
        off = user_groups(admin, min_members=1, max_empty_groups=-1)
        assert [r[2] for r in rows(off)] == [removal[2]]
        with pytest.raises(ValueError, match="min_members"):
            user_groups(admin, min_members=-1)

        done = user_groups(admin, min_members=0, max_empty_groups=-1, dry_run=False)
        assert done.summary["cleaned_group_ids"] == [mixed]
        members = {g.id: g.members for g in admin.user_groups.list()}
        assert members[mixed] == [a]
        # the unused uses-* groups went too (dry_run=False deactivates unused groups)
        after = rows(user_groups(admin, min_members=0, max_empty_groups=-1))
        assert [r[2] for r in after] == ["is not used by any setting or group"] * 3
