"""Groups managed end to end by the model, against a real sandbox: create, rename, describe,
members and subgroups in bulk with a preview, the group's own permission settings."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets._model import FieldError
from chatops.widgets._words import api_name
from chatops.widgets.user_groups_edit import entries_from_file, split_entries
from chatops.widgets.user_groups_model import GroupsModel
from tests.conftest import unchanged

Connect = Callable[[str], chatops.Client]
OWNER, ADMIN, MODERATOR, MEMBER, GUEST = 2, 3, 4, 5, 6


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
def model(connect: Connect) -> GroupsModel:
    made = GroupsModel(connect("admin"))
    made.fetch()
    return made


def test_create_with_members_and_a_subgroup(model: GroupsModel, connect: Connect) -> None:
    name = unique("oncall")
    gid = model.create_group(
        name,
        description="Who answers pages",
        members="member@demo.chatops.test, Mona Moderator\n@*support-team*",
    )
    group = connect("owner").user_groups.get(gid)
    assert (group.name, group.description) == (name, "Who answers pages")
    assert sorted(group.members) == [MODERATOR, MEMBER]
    assert group.direct_subgroup_ids == [model.group_id("support-team")]
    assert model.status.kind == "ok"
    assert model.status.text == f'Created the user group "{name}" with 2 members and 1 subgroup.'
    assert model.group_id(name) == gid  # the model caught up


def test_create_refuses_bad_names_and_entries_before_sending(
    model: GroupsModel, org: Sandbox
) -> None:
    with unchanged(org.store):
        for bad, words in [
            ("", "Type a name"),
            ("role:x", 'cannot start with "role:"'),
            ("x" * 101, "at most 100 characters; this has 101"),
            ("LEADS", 'already a group called "leads"'),
        ]:
            with pytest.raises(FieldError, match=words) as caught:
                model.create_group(bad)
            assert caught.value.field == "new_name"
        with pytest.raises(FieldError, match="line 1 “nobody@nowhere.test”: unknown") as caught:
            model.create_group(unique("g"), members="Mei Member, nobody@nowhere.test")
        assert caught.value.field == "new_members"


def test_an_entry_is_named_by_the_line_it_was_typed_on_and_can_be_skipped(
    model: GroupsModel, connect: Connect, org: Sandbox
) -> None:
    """Console issue: one unknown member blocked a new group, and the error named row 5 for an
    address on line 4 (line 3 held two entries)."""
    pasted = "Mei Member\n\nMona Moderator, Olivia Owner\nnobody@nowhere.test"
    with unchanged(org.store), pytest.raises(FieldError) as caught:
        model.create_group(unique("g"), members=pasted)
    assert "line 4 “nobody@nowhere.test”: unknown" in caught.value.message
    assert "Skip those not found" in caught.value.message
    name = unique("skip")
    gid = model.create_group(name, members=pasted, skip_unknown=True)
    assert sorted(connect("owner").user_groups.get(gid).members) == [OWNER, MODERATOR, MEMBER]
    assert model.status.text == (
        f'Created the user group "{name}" with 3 members; left out line 4 '
        "“nobody@nowhere.test”: unknown."
    )
    rows = model.preview_members(gid, pasted, remove=True)
    assert [(r.row, r.typed) for r in rows] == [
        (1, "Mei Member"),
        (3, "Mona Moderator"),
        (3, "Olivia Owner"),
        (4, "nobody@nowhere.test"),
    ]


def test_member_may_not_create_when_the_setting_excludes_them(
    connect: Connect, org: Sandbox
) -> None:
    from tests.conftest import realm_settings

    with realm_settings(org.store, can_create_groups=6):  # administrators only
        model = GroupsModel(connect("member"))
        model.fetch()
        assert not model.may_create()
        with unchanged(org.store), pytest.raises(FieldError, match="Who can create user groups"):
            model.create_group(unique("mine"))


def test_rename_and_describe(model: GroupsModel, connect: Connect) -> None:
    old, new = unique("old"), unique("new")
    gid = connect("admin").user_groups.create(old, members=[MEMBER], description="before")
    model.refresh()
    model.update_group(gid, name=new, description="after")
    group = connect("owner").user_groups.get(gid)
    assert (group.name, group.description) == (new, "after")
    assert model.status.text == f'Renamed "{old}" to "{new}" and changed its description.'
    model.update_group(gid, description="again")
    assert model.status.text == f'Changed the description of "{new}".'
    with pytest.raises(FieldError, match="Nothing to save"):
        model.update_group(gid, name=new, description="again")
    with pytest.raises(FieldError, match='already a group called "leads"'):
        model.update_group(gid, name="leads")


def test_system_and_unmanaged_groups_cannot_be_changed(model: GroupsModel, org: Sandbox) -> None:
    with unchanged(org.store):
        with pytest.raises(FieldError, match="system group"):
            model.update_group(model.group_id("role:members"), name="x")
        with pytest.raises(FieldError, match='You may not change "leads"'):
            model.update_group(model.group_id("leads"), description="x")


def test_bulk_add_preview_then_apply(model: GroupsModel, connect: Connect, org: Sandbox) -> None:
    admin = connect("admin")
    sub = admin.user_groups.create(unique("sub"), members=[])
    gid = admin.user_groups.create(unique("bulk"), members=[MEMBER], subgroups=[sub])
    holder = admin.user_groups.create(unique("holder"), members=[], subgroups=[gid])
    model.refresh()
    holder_name = model.groups[holder].name
    pasted = (
        "Mei Member\nMona Moderator <moderator@demo.chatops.test>\nMONA MODERATOR\n"
        f"nobody@nowhere.test\n@**Olivia Owner|2**\n@*support-team*\n{holder_name}\n"
        f"{model.groups[sub].name}"
    )
    with unchanged(org.store):
        rows = model.preview_members(gid, pasted)
    assert [(r.row, r.kind, r.who, r.outcome) for r in rows] == [
        (1, "user", "Mei Member", "already in the group"),
        (2, "user", "Mona Moderator", "will be added"),
        (3, "user", "Mona Moderator", "duplicate"),
        (4, "", "", "unknown"),
        (5, "user", "Olivia Owner", "will be added"),
        (6, "group", "support-team", "will be added"),
        (7, "group", holder_name, "cannot"),
        (8, "group", model.groups[sub].name, "already in the group"),
    ]
    assert "would be a loop" in rows[6].detail
    assert list(model.members_frame()["outcome"])[:2] == ["already in the group", "will be added"]
    assert model.status.text.startswith("8 entries for")
    assert model.apply_members(gid, pasted) == 3
    group = connect("owner").user_groups.get(gid)
    assert sorted(group.members) == [OWNER, MODERATOR, MEMBER]
    assert sorted(group.direct_subgroup_ids) == sorted([sub, model.group_id("support-team")])
    assert model.status.text.endswith(f'Added 2 members and 1 subgroup to "{group.name}".')
    with pytest.raises(FieldError, match="Preview first"):
        model.apply_members(gid, pasted)


def test_bulk_remove_from_a_csv(model: GroupsModel, connect: Connect) -> None:
    admin = connect("admin")
    sub = admin.user_groups.create(unique("sub"), members=[])
    gid = admin.user_groups.create(unique("rm"), members=[MEMBER, MODERATOR], subgroups=[sub])
    model.refresh()
    csv_text = (
        b"Full name,Email\nMei Member,member@demo.chatops.test\n"
        b"Olivia Owner,owner@demo.chatops.test\n"
    )
    rows = model.preview_file(gid, csv_text, "people.csv", remove=True)
    assert [(r.typed, r.outcome) for r in rows] == [
        ("member@demo.chatops.test", "will be removed"),
        ("owner@demo.chatops.test", "not in the group"),
    ]
    assert model.apply_members(gid, file=("people.csv", csv_text), remove=True) == 1
    assert connect("owner").user_groups.get(gid).members == [MODERATOR]
    model.preview_members(gid, model.groups[sub].name, remove=True)
    model.apply_members(gid, model.groups[sub].name, remove=True)
    assert connect("owner").user_groups.get(gid).direct_subgroup_ids == []


def test_entries_of_pasted_text_and_files() -> None:
    assert split_entries(" a@x.org, b ;\n\nc ") == ["a@x.org", "b", "c"]
    assert entries_from_file(b"member,role\nAnn,x\nBo,y\n") == ["Ann", "Bo"]
    assert entries_from_file(b"ann@x.org,bo@x.org\ncy@x.org\n") == [
        "ann@x.org",
        "bo@x.org",
        "cy@x.org",
    ]
    with pytest.raises(ValueError, match="people.csv is empty"):
        entries_from_file(b"  \n", "people.csv")
    with pytest.raises(ValueError, match="not UTF-8"):
        entries_from_file(b"\xff\xfe\xfa", "people.csv")
    with pytest.raises(ValueError, match="has no entries"):
        entries_from_file(b"email\n", "people.csv")


def test_permission_settings_in_zulips_words(model: GroupsModel, connect: Connect) -> None:
    gid = connect("admin").user_groups.create(unique("perm"), members=[MEMBER])
    model.refresh()
    table = model.permissions_frame(gid)
    settings = list(table["Setting"])
    assert settings == [
        "Who can administer this group",
        "Who can mention this group",
        "Who can join this group",
        "Who can leave this group",
        "Who can add members to this group",
        "Who can remove members from this group",
    ]
    assert api_name(settings[0]) == "can_manage_group"  # the tooltip of the label
    model.set_permission(gid, "can_mention_group", model.group_id("role:moderators"))
    assert connect("owner").user_groups.get(gid).can_mention_group == model.group_id(
        "role:moderators"
    )
    assert model.status.text.startswith("“Who can mention this group” of")
    assert "is now Moderators" in model.status.text
    shown = dict(
        zip(
            model.permissions_frame(gid)["Setting"],
            model.permissions_frame(gid)["Who now"],
            strict=True,
        )
    )
    assert shown["Who can mention this group"] == "Moderators"
    with pytest.raises(FieldError, match="already names Moderators"):
        model.set_permission(gid, "can_mention_group", model.group_id("role:moderators"))
    with pytest.raises(FieldError, match="not a setting of a user group"):
        model.set_permission(gid, "can_send_message_group", 3)


def test_deactivate_then_reactivate_from_the_model(model: GroupsModel, connect: Connect) -> None:
    gid = connect("admin").user_groups.create(unique("cycle"), members=[MEMBER])
    model.refresh()
    assert model.deactivate(gid) is True
    assert connect("owner").user_groups.get(gid).deactivated
    with pytest.raises(FieldError, match="deactivated; reactivate it"):
        model.update_group(gid, name="x")
    model.reactivate(gid)
    assert not connect("owner").user_groups.get(gid).deactivated


def test_a_preview_applies_only_to_its_group_and_its_list(
    model: GroupsModel, connect: Connect, org: Sandbox
) -> None:
    """Console issue: a preview for `oncall` left on screen, a new group picked, and Apply
    added to `oncall`. Apply is given what the screen shows and sends only a matching preview."""
    admin = connect("admin")
    oncall = admin.user_groups.create(unique("oncall"), members=[])
    triage = admin.user_groups.create(unique("triage"), members=[])
    model.refresh()
    model.preview_members(oncall, "Mona Moderator")
    assert model.members_previewed(oncall, "Mona Moderator")
    assert not model.members_previewed(triage, "Mona Moderator")
    with unchanged(org.store):
        with pytest.raises(FieldError, match="group picked changed since the preview"):
            model.apply_members(triage, "Mona Moderator")
        assert model.member_rows == []  # forgotten: Apply is disabled until the next preview
        model.preview_members(oncall, "Mona Moderator")
        with pytest.raises(FieldError, match="list changed since the preview"):
            model.apply_members(oncall, "Mona Moderator\nMei Member")
        model.preview_members(oncall, "Mona Moderator")
        with pytest.raises(FieldError, match="list changed since the preview"):
            model.apply_members(oncall, "Mona Moderator", remove=True)
    assert connect("owner").user_groups.get(oncall).members == []
    assert connect("owner").user_groups.get(triage).members == []


def test_apply_checks_the_group_again_before_sending(
    model: GroupsModel, connect: Connect, org: Sandbox
) -> None:
    admin = connect("admin")
    gid = admin.user_groups.create(unique("moved"), members=[])
    model.refresh()
    rows = model.preview_members(gid, "Mona Moderator\nMei Member")
    assert [r.outcome for r in rows] == ["will be added", "will be added"]
    admin.user_groups.update_members(gid, add=[MODERATOR])  # someone else, meanwhile
    with unchanged(org.store), pytest.raises(FieldError, match="changed since the preview"):
        model.apply_members(gid, "Mona Moderator\nMei Member")
    # the preview shows the group as it is now; applying it sends what is left
    assert [r.outcome for r in model.member_rows] == ["already in the group", "will be added"]
    assert model.apply_members(gid, "Mona Moderator\nMei Member") == 1
    assert sorted(connect("owner").user_groups.get(gid).members) == [MODERATOR, MEMBER]
