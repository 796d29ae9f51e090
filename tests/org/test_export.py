"""``chatops org export``: the organization's setup by names and emails, in a stable order,
valid against the file's JSON Schema; and reading a file back, every mistake named with its
line and column."""

from __future__ import annotations

import json
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
import yaml

import chatops
from chatops.org import OrgFileError, export_document, load_document, schema, to_yaml
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.test_report_trends import chatops_cli


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("org-export"), size="small", seed=33) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("owner")) as owner:
            people = [u for u in owner.users.list() if not u.is_bot and u.is_active]
            mods = next(g.id for g in owner.user_groups.list() if g.name == "role:moderators")
            pair = [people[0].user_id, people[1].user_id]
            crew = owner.user_groups.create(
                "export-crew",
                members=pair,
                description="Both in #export-room",
                settings={
                    "can_mention_group": {"direct_members": [pair[0]], "direct_subgroups": [mods]}
                },
            )
            owner.channels.subscribe(
                ["export-room"],
                principals=pair,
                group_settings={"can_send_message_group": crew},
            )
        yield sb


@pytest.fixture(scope="module")
def document(org: Sandbox) -> dict:
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as admin:
        return export_document(admin)


def test_the_export_is_valid_against_the_shipped_schema(document: dict) -> None:
    jsonschema.Draft202012Validator.check_schema(schema())
    jsonschema.Draft202012Validator(schema()).validate(document)
    assert list(document) == [
        "version",
        "feature_level",
        "organization",
        "channel_folders",
        "channels",
        "user_groups",
        "linkifiers",
        "custom_profile_fields",
        "people",
        "membership_rules",
    ]


def test_names_and_emails_never_ids(document: dict, org: Sandbox) -> None:
    text = to_yaml(document)
    assert not re.search(r"\b(user_id|stream_id|group_id|folder_id|id):", text)
    crew = next(g for g in document["user_groups"] if g["name"] == "export-crew")
    assert crew["description"] == "Both in #export-room"
    assert all("@" in m for m in crew["members"]) and len(crew["members"]) == 2
    mention = crew["permissions"]["can_mention_group"]
    assert mention["groups"] == ["role:moderators"]
    assert len(mention["people"]) == 1 and mention["people"][0] in crew["members"]
    room = next(c for c in document["channels"] if c["name"] == "export-room")
    assert room["permissions"]["can_send_message_group"] == "export-crew"
    rules = {r["group"]: r["channels"] for r in document["membership_rules"]}
    assert "export-room" in rules["export-crew"]
    perms = document["organization"]["permissions"]
    assert perms["can_manage_all_groups"] == "role:owners"
    assert perms["can_create_groups"] == "role:members"
    roles = {p["role"] for p in document["people"]}
    assert roles == {"owner", "administrator", "moderator", "member", "guest"}
    assert not any(g["name"].startswith("role:") for g in document["user_groups"])


def test_two_exports_of_one_organization_are_byte_equal_and_lists_are_sorted(
    org: Sandbox, document: dict
) -> None:
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as admin, unchanged(org.store):
        again = to_yaml(export_document(admin))
    assert again == to_yaml(document)
    names = [c["name"] for c in document["channels"]]
    assert names == sorted(names, key=str.casefold)
    emails = [p["email"] for p in document["people"]]
    assert emails == sorted(emails, key=str.casefold)
    for group in document["user_groups"]:
        assert group["members"] == sorted(group["members"])


def test_the_cli_writes_an_owner_only_file_an_admin_can_read_back(
    org: Sandbox, tmp_path: Path, document: dict
) -> None:
    out = tmp_path / "org.yaml"
    done = chatops_cli("org", "export", "--zuliprc", str(org.zuliprc("admin")), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # it holds everyone's address
    assert out.read_text(encoding="utf-8") == to_yaml(document)
    assert load_document(out) == document
    schema_out = chatops_cli("org", "schema")
    assert schema_out.returncode == 0 and json.loads(schema_out.stdout) == schema()


def test_the_cli_refuses_a_member_and_a_missing_zuliprc_in_one_line(
    org: Sandbox, tmp_path: Path
) -> None:
    out = tmp_path / "org.yaml"
    member = chatops_cli(
        "org", "export", "--zuliprc", str(org.zuliprc("member")), "--out", str(out)
    )
    assert member.returncode == 2
    assert "needs an administrator's account" in member.stderr
    assert len(member.stderr.strip().splitlines()) == 1 and not out.exists()
    missing = chatops_cli("org", "export", "--zuliprc", str(tmp_path / "nope"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    folder = chatops_cli(
        "org", "export", "--zuliprc", str(org.zuliprc("admin")), "--out", str(tmp_path)
    )
    assert folder.returncode == 2 and "is a folder" in folder.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "version: 1\nchannels:\n  - name: [unclosed\n",
            r":4:1: not valid YAML: expected .,. or .\].",
        ),
        (
            "version: 1\npeople:\n  - email: ann@example.org\n    role: boss\n",
            r":4:11: people\.0\.role: 'boss' is not one of",
        ),
        (
            "version: 1\nchannels:\n  - name: ops\n    colour: red\n",
            r":3:5: channels\.0: Additional properties are not allowed \('colour'",
        ),
        (
            "version: 1\nuser_groups:\n  - name: 'role:mine'\n",
            r":3:11: user_groups\.0\.name: .* should not be valid",
        ),
        ("version: 7\n", r"format is version 7; this chatops reads version 1"),
        ("- just\n- a list\n", r"an organization file is a mapping"),
    ],
)
def test_a_bad_file_is_named_with_its_line_and_column(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "org.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(OrgFileError, match=message):
        load_document(path)


def test_a_missing_file_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(OrgFileError, match="no such file"):
        load_document(tmp_path / "absent.yaml")
    assert yaml.safe_load(to_yaml({"version": 1})) == {"version": 1}
