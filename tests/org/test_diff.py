"""``chatops org diff FILE``: where the organization differs from its file, in words, grouped
by object; exit 0 when equal, 1 on drift, 2 on a bad file or account. Only what the file
mentions is compared."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

import chatops
from chatops.org import export_document, to_yaml
from chatops.org.diff import diff_documents
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.test_report_trends import chatops_cli


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("org-diff"), size="small", seed=35) as sb:
        yield sb


@pytest.fixture(scope="module")
def owner(org: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(org.zuliprc("owner")) as client:
        yield client


def write(path: Path, document: dict) -> Path:
    path.write_text(to_yaml(document), encoding="utf-8")
    return path


def diff(org: Sandbox, path: Path, *more: str) -> tuple[int, str, str]:
    done = chatops_cli("org", "diff", str(path), "--zuliprc", str(org.zuliprc("admin")), *more)
    return done.returncode, done.stdout, done.stderr


def test_an_organization_matches_its_own_export(
    org: Sandbox, owner: chatops.Client, tmp_path: Path
) -> None:
    path = write(tmp_path / "org.yaml", export_document(owner))
    with unchanged(org.store):
        code, out, err = diff(org, path)
    assert (code, err) == (0, ""), out + err
    assert out.strip() == f"The organization matches {path}."


def test_drift_is_said_in_words_by_object_and_exits_1(
    org: Sandbox, owner: chatops.Client, tmp_path: Path
) -> None:
    before = export_document(owner)
    path = write(tmp_path / "org.yaml", before)
    channel = next(c for c in before["channels"] if not c["archived"] and not c["private"])
    group = next(g for g in before["user_groups"] if not g["deactivated"])
    member = next(p for p in before["people"] if p["role"] == "member" and p["active"])
    cid = owner.channels.get_id(channel["name"])
    mods = next(g.id for g in owner.user_groups.list() if g.name == "role:moderators")
    owner.channels.update(cid, group_settings={"can_send_message_group": mods})
    gid = next(g.id for g in owner.user_groups.list() if g.name == group["name"])
    owner.user_groups.update(gid, description="Changed behind the file's back")
    uid = next(
        u.user_id for u in owner.users.list() if (u.delivery_email or u.email) == member["email"]
    )
    owner.users.update(uid, role=300)
    owner.realm.update(can_create_groups=mods)
    try:
        code, out, _err = diff(org, path)
        assert code == 1, out
        lines = out.strip().splitlines()
        assert (
            f"#{channel['name']}: “Who can post to this channel” is role:moderators; the file "
            f"says {channel['permissions']['can_send_message_group']}"
        ) in lines
        assert (
            f"@{group['name']}: description is Changed behind the file's back; the file says "
            f"{group['description']}"
        ) in lines
        assert f"{member['email']}: role is moderator; the file says member" in lines
        assert (
            "the organization: “Who can create user groups” is role:moderators; the file says "
            "role:members"
        ) in lines
        assert lines[-1] == f"4 differences from {path}."
        code, out, _err = diff(org, path, "--format", "json")
        records = json.loads(out)
        assert code == 1 and len(records) == 4
        assert {r["kind"] for r in records} == {"channel", "user group", "person", "organization"}
        role = next(r for r in records if r["kind"] == "person")
        assert (role["field"], role["actual"], role["wanted"]) == ("role", "moderator", "member")
    finally:
        owner.channels.update(
            cid, group_settings={"can_send_message_group": _id(owner, before, channel)}
        )
        owner.user_groups.update(gid, description=group["description"])
        owner.users.update(uid, role=400)
        owner.realm.update(can_create_groups=_group_id(owner, "role:members"))
    assert diff(org, path)[0] == 0


def _group_id(owner: chatops.Client, name: str) -> int:
    return next(g.id for g in owner.user_groups.list() if g.name == name)


def _id(owner: chatops.Client, before: dict, channel: dict) -> int:
    return _group_id(owner, channel["permissions"]["can_send_message_group"])


def test_only_what_the_file_mentions_is_compared_and_prune_lists_the_rest(
    org: Sandbox, owner: chatops.Client, tmp_path: Path
) -> None:
    whole = export_document(owner)
    channel = whole["channels"][0]
    partial = {"version": 1, "channels": [{"name": channel["name"], "private": channel["private"]}]}
    path = write(tmp_path / "partial.yaml", partial)
    assert diff(org, path)[0] == 0
    groups = {"version": 1, "user_groups": whole["user_groups"][1:]}
    path = write(tmp_path / "groups.yaml", groups)
    assert diff(org, path)[0] == 0
    code, out, _err = diff(org, path, "--prune")
    assert code == 1
    assert f"@{whole['user_groups'][0]['name']}: in the organization, not in the file" in out


def test_a_new_object_and_a_rename_are_named(owner: chatops.Client) -> None:
    whole = export_document(owner)
    group = whole["user_groups"][0]
    wanted = {
        "version": 1,
        "user_groups": [
            {**group, "name": "renamed-in-the-file", "renamed_from": group["name"]},
            {"name": "only-in-the-file", "members": []},
        ],
    }
    words = [d.words for d in diff_documents(wanted, whole)]
    assert f"@{group['name']}: to be renamed @renamed-in-the-file" in words
    assert "@only-in-the-file: in the file, not in the organization" in words
    assert len(words) == 2


def test_a_bad_file_or_account_exits_2_in_one_line_and_reads_nothing(
    org: Sandbox, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\npeople:\n  - email: ann@example.org\n    role: boss\n")
    with unchanged(org.store):
        code, out, err = diff(org, bad)
    assert code == 2 and out == ""
    assert err.strip().endswith(
        "people.0.role: 'boss' is not one of ['owner', 'administrator', 'moderator', 'member', 'guest']"
    )
    assert f"{bad}:4:11:" in err and len(err.strip().splitlines()) == 1
    fine = tmp_path / "fine.yaml"
    fine.write_text(yaml.safe_dump({"version": 1}))
    member = chatops_cli("org", "diff", str(fine), "--zuliprc", str(org.zuliprc("member")))
    assert member.returncode == 2 and "needs an administrator's account" in member.stderr


def test_a_permission_is_compared_by_who_it_names_and_options_by_their_order(
    tmp_path: Path,
) -> None:
    actual = {
        "organization": {"permissions": {"can_create_groups": "backend"}},
        "user_groups": [
            {
                "name": "ops",
                "members": ["a@x.org", "b@x.org"],
                "permissions": {"can_join_group": "role:nobody"},
            }
        ],
        "custom_profile_fields": [{"name": "Team", "type": "choice", "options": ["A", "B"]}],
        "channels": [{"name": "general"}],
        "membership_rules": [],
    }
    same = {
        "organization": {"permissions": {"can_create_groups": {"groups": ["Backend"]}}},
        "user_groups": [
            {
                "name": "ops",
                "members": ["B@x.org", "a@x.org"],
                "permissions": {"can_join_group": {"people": []}},
            }
        ],
    }
    assert diff_documents(same, actual) == []
    reordered = {
        "custom_profile_fields": [{"name": "Team", "type": "choice", "options": ["B", "A"]}]
    }
    assert [d.words for d in diff_documents(reordered, actual)] == [
        "profile field “Team”: options is A, B; the file says B, A"
    ]
    rules = {
        "membership_rules": [
            {"group": "ghosts", "channels": ["general"]},
            {"group": "ops", "channels": ["nowhere", "general"]},
        ]
    }
    assert [d.words for d in diff_documents(rules, actual)] == [
        "@ghosts: a membership rule names a group the organization does not have",
        "@ops: no channel #nowhere; not every member is subscribed to #general",
    ]
    dated = tmp_path / "dated.yaml"
    dated.write_text(
        "version: 1\ncustom_profile_fields:\n  - name: Start\n    type: date\n"
        "    field_data: {since: 2024-01-01}\n"
    )
    from chatops.org import load_document

    assert load_document(dated)["custom_profile_fields"][0]["field_data"] == {"since": "2024-01-01"}
