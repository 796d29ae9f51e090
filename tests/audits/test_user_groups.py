"""The user_groups audit against a real sandbox over HTTP."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, user_groups
from chatops.audits.user_groups import Options, Read, conclude, findings, judge
from chatops.sandbox import Sandbox
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, calls, kinds, message, user
from tests.conftest import age_messages, group_id, unchanged


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
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
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
            "has no members; is not used by any setting or group, nor mentioned in the last 180 days",
            f"POST /api/v1/user_groups/{ids['alumni']}/deactivate",
        ],
        [
            "@empty-used",
            "has no members; used in mentioners:can_mention_group",
            f"POST /api/v1/user_groups/{empty_used}/members add=[{{user_ids}}]",
        ],
        [
            "@ghosts",
            f"has only deactivated members (1); used in #{channel.name}:can_send_message_group",
            f"POST /api/v1/user_groups/{ghosts}/members add=[{{user_ids}}]",
        ],
        [
            "@mentioners",
            "is not used by any setting or group, nor mentioned in the last 180 days",
            f"POST /api/v1/user_groups/{ids['mentioners']}/deactivate",
        ],
    ]
    assert result.summary["counts"]["empty_groups"] == 3

    with unchanged(store):
        tight = user_groups(admin, max_empty_groups=2)
    assert tight.summary["failed_checks"] == ["max_empty_groups"]

    # the plan of the findings deactivates the unused groups; the empty ones still used wait
    # for a person to choose their members
    found = user_groups(admin, max_empty_groups=3)
    assert apply_findings(found, admin, tmp_path / "plan.jsonl") == {
        "done": 2,
        "already_done": 0,
        "refused": 0,
        "failed": 0,
    }
    expected = sorted([ids["alumni"], ids["mentioners"]])
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
                f"POST /api/v1/user_groups/{mixed}/members add=[{{user_ids}}]",
            ],
        ]
        assert rows(small) == [
            removal,
            [
                "info",
                "@mixed",
                "has 1 active members, fewer than min_members=3",
                f"POST /api/v1/user_groups/{mixed}/members add=[{{user_ids}}]",
            ],
            [
                "info",
                "@pair",
                "has 2 active members, fewer than min_members=3",
                f"POST /api/v1/user_groups/{pair}/members add=[{{user_ids}}]",
            ],
        ]
        assert small.summary["counts"]["small_groups"] == 5  # and the three one-member uses-*
        assert small.summary["counts"]["groups_with_deactivated_members"] == 1
        # 0 and 1 switch the small-group check off
        off = user_groups(admin, min_members=1, max_empty_groups=-1)
        assert [r[2] for r in rows(off)] == [removal[2]]
        with pytest.raises(ValueError, match="min_members"):
            user_groups(admin, min_members=-1)

        # the plan of the findings removes the deactivated members, and deactivates the
        # unused groups
        found = user_groups(admin, min_members=0, max_empty_groups=-1)
        tally = apply_findings(found, admin, tmp_path / "plan.jsonl")
        # a change another one already made (a member removed by an earlier call) is read as
        # made and not sent
        assert tally["done"] + tally["already_done"] == sum(tally.values())
        members = {g.id: g.members for g in admin.user_groups.list()}
        assert members[mixed] == [a]
        # the unused uses-* groups went too
        after = rows(user_groups(admin, min_members=0, max_empty_groups=-1))
        assert [r[2] for r in after] == [
            "is not used by any setting or group, nor mentioned in the last 180 days"
        ] * 3


def _ours(result: object, subjects: set[str]) -> list[list[str]]:
    f = result.findings  # type: ignore[attr-defined]
    return f[f["subject"].isin(subjects)][
        ["severity", "subject", "finding", "api_call"]
    ].values.tolist()


def test_mentions_keep_unused_groups_and_stale_days_edges(tmp_path: Path) -> None:
    with (
        Sandbox.start(tmp_path / "org", seed=21) as sb,
        chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
    ):
        me = admin.users.me().user_id
        quiet = admin.user_groups.create("quiet", members=[me])
        hushed = admin.user_groups.create("Hushed", members=[me])
        talked = admin.user_groups.create("talked", members=[me])
        channel = admin.channels.list()[0].stream_id
        # a silent mention, named in another case, then the newest message: a plain one; a
        # person-style mention of a group's name is not a group mention
        older = admin.messages.send_to_channel(channel, "audit", "ping @_*hushed* and @**quiet**")
        sent = admin.messages.send_to_channel(channel, "audit", "hello @*talked*")
        age_messages(sb.store, [older.id], 100)  # set-up: the silent mention is older
        ts = int(sb.store.scalar("SELECT timestamp FROM messages WHERE id = ?", [sent.id]))
        ours = {"@quiet", "@Hushed", "@talked"}

        def stale(gid: int, name: str, days: int) -> list[str]:
            return [
                "info",
                f"@{name}",
                f"is not used by any setting or group, nor mentioned in the last {days} days",
                f"POST /api/v1/user_groups/{gid}/deactivate",
            ]

        with unchanged(sb.store):
            result = user_groups(admin, max_empty_groups=-1)
        assert _ours(result, ours) == [stale(quiet, "quiet", 180)]
        table = result.tables["groups"]
        assert table.loc[talked, "mentions"] == 1
        assert table.loc[talked, "last_mention"].timestamp() == ts
        assert table.loc[hushed, "mentions"] == 1
        assert table.loc[quiet, "mentions"] == 0 and str(table.loc[quiet, "last_mention"]) == "NaT"
        assert result.summary["counts"]["unused_groups"] == 2  # quiet and the demo's alumni

        # edge: the window is [now - stale_days, now]; a mention exactly stale_days old counts
        later = datetime.fromtimestamp(ts + 10 * 86400, UTC)
        at_edge = user_groups(admin, max_empty_groups=-1, stale_days=10, now=later)
        assert [r[1] for r in _ours(at_edge, ours)] == ["@Hushed", "@quiet"]
        past = user_groups(admin, max_empty_groups=-1, stale_days=9, now=later)
        assert _ours(past, {"@talked"}) == [stale(talked, "talked", 9)]
        # a mention after `now` does not count
        before = datetime.fromtimestamp(ts - 1, UTC)
        early = user_groups(admin, max_empty_groups=-1, now=before)
        assert [r[1] for r in _ours(early, ours)] == ["@quiet", "@talked"]

        # max_messages: 1 reads only the newest message (talked), 2 both
        one = user_groups(admin, max_empty_groups=-1, max_messages=1)
        assert [r[1] for r in _ours(one, ours)] == ["@Hushed", "@quiet"]
        coverage = one.findings[one.findings["subject"] == "coverage"]
        assert coverage[["severity", "finding"]].values.tolist() == [
            [
                "warning",
                "mention scan stopped at max_messages=1 before the window of 180 days began; "
                "some groups may look unmentioned",
            ]
        ]
        two = user_groups(admin, max_empty_groups=-1, max_messages=2)
        assert [r[1] for r in _ours(two, ours)] == ["@quiet"]
        for bad in ({"stale_days": 0}, {"max_messages": 0}):
            with pytest.raises(ValueError, match=next(iter(bad))):
                user_groups(admin, **bad)  # type: ignore[arg-type]

        # the plan of the findings deactivates only the unused and unmentioned groups
        found = user_groups(admin, max_empty_groups=-1)
        deactivating = [
            f.call.path for f in found.typed if f.call and f.call.changes and not f.call.needs_input
        ]
        assert sorted(deactivating) == sorted(
            f"/user_groups/{g}/deactivate" for g in (quiet, group_id(sb.store, "alumni"))
        )
        assert apply_findings(found, admin, tmp_path / "plan.jsonl") == {
            "done": 2,
            "already_done": 0,
            "refused": 0,
            "failed": 0,
        }
        assert {"Hushed", "talked"} <= set(_ids(admin))


def test_an_empty_group_that_people_mention_keeps_its_members_call(tmp_path: Path) -> None:
    with (
        Sandbox.start(tmp_path / "org", seed=21) as sb,
        chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
    ):
        nobody = admin.user_groups.create("nobody-home", members=[])
        channel = admin.channels.list()[0].stream_id
        sent = admin.messages.send_to_channel(channel, "audit", "@*nobody-home* anyone?")
        ts = int(sb.store.scalar("SELECT timestamp FROM messages WHERE id = ?", [sent.id]))
        day = datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d")
        result = user_groups(admin, max_empty_groups=-1)
        assert _ours(result, {"@nobody-home"}) == [
            [
                "warning",
                "@nobody-home",
                f"has no members; mentioned 1 times in the last 180 days, last on {day}",
                f"POST /api/v1/user_groups/{nobody}/members add=[{{user_ids}}]",
            ]
        ]


def test_group_mentions_syntax() -> None:
    from chatops.audits.user_groups import group_mentions

    messages = [
        (10, "@*Team* and @_*team* again"),  # one message mentions a group once
        (30, "@**team** is a person; @*other-team* is not a group we know"),
        (20, "```\n@*team* in code\n``` @_*ops*"),
        (40, "`@*team*` inline, and\n~~~\n@*ops*\n~~~"),
        (50, "```\n@*team* in a block never closed"),
    ]
    assert group_mentions(messages, ["team", "ops"]) == {"team": (1, 10), "ops": (1, 20)}
    assert group_mentions([], ["team"]) == {}


def test_settings_granted_to_huge_groups_and_ratio_edges(tmp_path: Path) -> None:
    with (
        Sandbox.start(tmp_path / "org", seed=21) as sb,
        chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
    ):
        users = admin.users.list()
        humans = [u.user_id for u in users if u.is_active and not u.is_bot]
        bots = [u.user_id for u in users if u.is_active and u.is_bot]
        n = len(humans)
        k = n // 2 + 1
        wide = admin.user_groups.create("wide", members=humans[:k] + bots[:1])
        channel = admin.channels.list()[0]
        admin._request(
            "PATCH",
            f"/streams/{channel.stream_id}",
            params={"can_send_message_group": {"new": wide}},
        )
        # an anonymous group: the custom group plus one more person
        admin._request(
            "PATCH",
            f"/streams/{channel.stream_id}",
            params={
                "can_remove_subscribers_group": {
                    "new": {"direct_members": [humans[k]], "direct_subgroups": [wide]}
                }
            },
        )
        where = f"#{channel.name}"
        subjects = {f"{where}: can_send_message_group", f"{where}: can_remove_subscribers_group"}
        share = k / n

        def row(setting: str, value: str, people: int, limit: float) -> list[str]:
            return [
                "info",
                f"{where}: {setting}",
                f"setting reaches {people / n:.0%} of the organization through custom groups "
                f"({value}, {people} people); the limit is {limit:.0%}",
                f'PATCH /api/v1/streams/{channel.stream_id} {setting}={{"new": {{group_id}}}}',
            ]

        with unchanged(sb.store):
            below = user_groups(admin, max_group_size_ratio=(k - 0.5) / n)
        assert _ours(below, subjects) == [
            row(
                "can_remove_subscribers_group", f"{{user {humans[k]}, wide}}", k + 1, (k - 0.5) / n
            ),
            row("can_send_message_group", "wide", k, (k - 0.5) / n),
        ]
        # edge: a setting reaching exactly the ratio is not flagged
        at = user_groups(admin, max_group_size_ratio=share)
        assert _ours(at, subjects) == [
            row("can_remove_subscribers_group", f"{{user {humans[k]}, wide}}", k + 1, share)
        ]
        assert _ours(user_groups(admin, max_group_size_ratio=(k + 1) / n), subjects) == []
        assert _ours(user_groups(admin, max_group_size_ratio=-1), subjects) == []
        # settings granted to role groups are permission_posture's: none of them is here
        default = user_groups(admin)
        assert default.summary["counts"]["huge_group_settings"] == 2
        assert all("role:" not in s for s in default.findings["finding"])
        for bad in (1.5, -0.5):
            with pytest.raises(ValueError, match="max_group_size_ratio"):
                user_groups(admin, max_group_size_ratio=bad)


def test_demo_org_has_no_huge_group_settings_nor_cycles(tmp_path: Path) -> None:
    with (
        Sandbox.start(tmp_path / "demo") as demo,
        chatops.Client.from_zuliprc(demo.zuliprc("admin")) as client,
    ):
        result = user_groups(client)
    counts = result.summary["counts"]
    assert counts["huge_group_settings"] == 0 and counts["subgroup_cycles"] == 0
    graph = result.tables["graph"]
    assert list(graph.columns) == ["source", "target", "kind", "setting"]
    assert graph[graph["kind"] == "subgroup"].values.tolist() == [
        ["@support-team", "@leads", "subgroup", ""]
    ]
    leads = graph[(graph["source"] == "@leads") & (graph["kind"] == "permission")]
    assert leads[["target", "setting"]].values.tolist() == [
        ["organization", "can_mention_many_users_group"]
    ]


def test_subgroup_cycles_from_a_hand_made_list() -> None:
    from chatops.audits.user_groups import subgroup_cycles

    # the server refuses these; the check must still see them
    groups = [
        {"id": 5, "direct_subgroup_ids": [3]},
        {"id": 3, "direct_subgroup_ids": [4]},
        {"id": 4, "direct_subgroup_ids": [5, 6]},
        {"id": 6, "direct_subgroup_ids": []},
        {"id": 7, "direct_subgroup_ids": [7]},
    ]
    assert subgroup_cycles(groups) == [[3, 4, 5], [7]]
    assert subgroup_cycles(groups[3:4]) == []
    assert subgroup_cycles([{"id": 1, "direct_subgroup_ids": [2]}, {"id": 2}]) == []


def test_graph_edges_from_hand_made_usages() -> None:
    from chatops.audits.user_groups import edge_graph, graph_edges

    usages = [
        {"group_id": 1, "kind": "realm", "where": "organization", "setting": "can_x_group"},
        {"group_id": 1, "kind": "channel", "where": "#ops", "setting": "can_y_group"},
        {"group_id": 2, "kind": "group", "where": "one", "setting": "can_mention_group"},
        {"group_id": 2, "kind": "subgroup", "where": "one", "setting": ""},
        {"group_id": 9, "kind": "realm", "where": "organization", "setting": "can_z_group"},
    ]
    edges = graph_edges(usages, {1: "one", 2: "two"})
    assert edges.values.tolist() == [
        ["@one", "organization", "permission", "can_x_group"],
        ["@one", "#ops", "permission", "can_y_group"],
        ["@two", "@one", "permission", "can_mention_group"],
        ["@one", "@two", "subgroup", ""],
    ]
    graph = edge_graph(edges)
    assert graph.number_of_edges() == 4
    assert sorted(graph.nodes) == ["#ops", "@one", "@two", "organization"]
    assert graph_edges([], {}).empty


def test_a_subgroup_cycle_in_the_data_is_a_finding(tmp_path: Path) -> None:
    with (
        Sandbox.start(tmp_path / "org", seed=21) as sb,
        chatops.Client.from_zuliprc(sb.zuliprc("admin")) as admin,
    ):
        me = admin.users.me().user_id
        a = admin.user_groups.create("ring-a", members=[me])
        b = admin.user_groups.create("ring-b", members=[me], subgroups=[a])
        # set-up: a cycle the API refuses, written into the store directly
        sb.store.execute(
            "INSERT INTO group_subgroups (group_id, subgroup_id) VALUES (?, ?)", [a, b]
        )
        result = user_groups(admin, max_empty_groups=-1)
    assert _ours(result, {"@ring-a -> @ring-b -> @ring-a"}) == [
        [
            "warning",
            "@ring-a -> @ring-b -> @ring-a",
            "subgroups form a cycle, so each group's members include all the others'",
            f"POST /api/v1/user_groups/{b}/subgroups delete=[{a}]",
        ]
    ]
    assert result.summary["counts"]["subgroup_cycles"] == 1


def test_judge_without_a_server() -> None:
    """Every kind of finding from hand-built groups: empty and unused, empty but used, only
    deactivated members but mentioned, deactivated members still in a live group, small, a
    setting reaching too many through a custom group, a subgroup cycle, a cut-short mention
    scan; the threshold. System groups are never judged."""
    ada, bo, cy = user(1, "Ada Admin", role=200), user(2, "Bo"), user(3, "Cy")
    gil = user(4, "Gil Gone", is_active=False)

    def group(gid: int, name: str, members: list[int], **fields: Any) -> dict[str, Any]:
        return {"id": gid, "name": name, "members": members, **fields}

    read = Read(
        site="https://chat.example.org",
        raw_groups=[
            group(1, "role:members", [1, 2, 3], is_system_group=True),
            group(10, "alumni", []),
            group(11, "on-call", []),
            group(12, "ghosts", [4]),
            group(13, "mixed", [1, 4]),
            group(14, "big", [2, 3], direct_subgroup_ids=[13]),
            group(15, "a", [1], direct_subgroup_ids=[16]),
            group(16, "b", [1], direct_subgroup_ids=[15]),
            group(17, "gone", [], deactivated=True),
        ],
        users=[ada, bo, cy, gil],
        realm={"realm_can_invite_users_group": 11, "realm_can_create_groups": 14},
        channels=[],
        messages=[message(1, ada, 5, content="ping @*ghosts* `@*alumni*`")],
        truncated=True,
    )
    options = Options(max_empty_groups=2, min_members=2)
    judged = judge(read, options, at=NOW)
    assert [g.group.name for g in judged.empty] == ["alumni", "on-call", "ghosts"]
    assert judged.failed == ["max_empty_groups"]
    day = (NOW - pd.Timedelta(days=5)).strftime("%Y-%m-%d")
    rows = findings(judged)
    assert kinds(rows) == [
        (
            "warning",
            "@alumni",
            "has no members; is not used by any setting or group, nor "
            "mentioned in the last 180 days",
        ),
        ("warning", "@on-call", "has no members; used in organization:can_invite_users_group"),
        (
            "warning",
            "@ghosts",
            f"has only deactivated members (1); mentioned 1 times in the "
            f"last 180 days, last on {day}",
        ),
        ("warning", "@mixed", "1 deactivated users are still direct members"),
        ("info", "@mixed", "has 1 active members, fewer than min_members=2"),
        ("info", "@a", "has 1 active members, fewer than min_members=2"),
        ("info", "@b", "has 1 active members, fewer than min_members=2"),
        (
            "info",
            "organization: can_create_groups",
            "setting reaches 100% of the organization "
            "through custom groups (big, 3 people); the limit is 50%",
        ),
        (
            "warning",
            "@a -> @b -> @a",
            "subgroups form a cycle, so each group's members include all the others'",
        ),
        (
            "warning",
            "coverage",
            "mention scan stopped at max_messages=50000 before the window "
            "of 180 days began; some groups may look unmentioned",
        ),
        ("critical", "groups", "3 groups have no active member; the threshold is 2"),
    ]
    by_subject = calls(rows)
    assert by_subject["@alumni"] == ["POST /api/v1/user_groups/10/deactivate"]
    assert by_subject["@on-call"] == ["POST /api/v1/user_groups/11/members add=[{user_ids}]"]
    assert by_subject["@mixed"][0] == "POST /api/v1/user_groups/13/members delete=[4]"
    assert by_subject["@a -> @b -> @a"] == ["POST /api/v1/user_groups/16/subgroups delete=[15]"]
    result = conclude(judged)
    assert result.tables["groups"].loc[12, "mentions"] == 1
    assert result.tables["groups"].loc[10, "mentions"] == 0  # inline code mentions nobody
    assert 17 not in result.tables["groups"].index
