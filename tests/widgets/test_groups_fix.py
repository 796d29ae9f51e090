"""Objections fixed in place by the model, against a real sandbox: a group used in five places
is deactivated through fixes alone, each one followed by another try."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets._model import FieldError
from chatops.widgets.user_groups_fix import replaced
from chatops.widgets.user_groups_model import GroupsModel
from tests.conftest import realm_settings, unchanged

Connect = Callable[[str], chatops.Client]
MEMBER = 5
ROLE_MEMBERS, ROLE_ADMINS = 3, 6


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def test_a_group_used_in_five_places_is_deactivated_by_fixes_alone(
    connect: Connect, org: Sandbox
) -> None:
    admin = connect("admin")
    target = admin.user_groups.create(unique("busy"), members=[MEMBER])
    holder = admin.user_groups.create(unique("super"), members=[], subgroups=[target])
    other = admin.user_groups.create(
        unique("other"), members=[MEMBER], settings={"can_mention_group": target}
    )
    channel = unique("chan")
    admin.channels.subscribe([channel], group_settings={"can_send_message_group": target})
    cid = admin.channels.get_id(channel)
    anonymous = {"direct_members": [MEMBER], "direct_subgroups": [ROLE_MEMBERS, target]}
    with realm_settings(org.store, can_invite_users_group=anonymous, can_create_groups=target):
        model = GroupsModel(admin)
        model.fetch()
        assert model.deactivate(target) is False
        labels = [f.label for f in model.fixes()]
        assert len(labels) == 5
        assert labels[0].startswith("Remove it from the subgroups of super-")
        assert "Organization: “Who can send email invitations to new users”" in labels
        assert f"#{channel}: “Who can post to this channel”" in labels
        assert list(model.fixes_frame()["Fix"]) == [1, 2, 3, 4, 5]
        assert list(model.fixes_frame()["How to fix"])[0].startswith("remove it from super-")

        # each fix is applied, then deactivation is tried again (and refused while any is left)
        for remaining in (4, 3, 2, 1):
            fix = model.fixes()[0]
            assert model.fix(0, ROLE_ADMINS if fix.needs_group else None) is False
            assert len(model.fixes()) == remaining
            assert model.status.kind == "error"
            assert "CANNOT_DEACTIVATE_GROUP_IN_USE" in model.status.text
        assert model.fix(0, ROLE_ADMINS) is True
        assert model.status.kind == "ok"
        assert "Deactivated the user group" in model.status.text

        assert admin.user_groups.get(target).deactivated
        assert admin.user_groups.get(holder).direct_subgroup_ids == []
        assert admin.user_groups.get(other).can_mention_group == ROLE_ADMINS
        channel_now = admin.get("/streams", params={"include_all": True})["streams"]
        assert {c["stream_id"]: c for c in channel_now}[cid]["can_send_message_group"] == (
            ROLE_ADMINS
        )
        realm = admin.server.register(fetch_event_types=["realm"], event_types=["realm"])
        # the other members and subgroups of an anonymous setting stay
        assert realm["realm_can_invite_users_group"] == {
            "direct_members": [MEMBER],
            "direct_subgroups": [ROLE_MEMBERS, ROLE_ADMINS],
        }
        assert realm["realm_can_create_groups"] == ROLE_ADMINS
        assert model.fixes() == []


def test_fix_checks_before_sending(connect: Connect, org: Sandbox) -> None:
    admin = connect("admin")
    target = admin.user_groups.create(unique("t"), members=[MEMBER])
    channel = unique("chan")
    admin.channels.subscribe([channel], group_settings={"can_send_message_group": target})
    model = GroupsModel(admin)
    model.fetch()
    with pytest.raises(FieldError, match="nothing to fix"):
        model.fix(0, ROLE_ADMINS)
    assert model.deactivate(target) is False
    with unchanged(org.store):
        with pytest.raises(FieldError, match="Pick the group to put") as caught:
            model.fix(0, None)
        assert caught.value.field == "replacement"
        with pytest.raises(FieldError, match="another group than the one to deactivate"):
            model.fix(0, target)
        with pytest.raises(FieldError, match="Pick one of the 1 fixes"):
            model.fix(3, ROLE_ADMINS)
    assert model.describe_fix(0, ROLE_ADMINS) == (
        f'Put "administrators" in place of "{model.groups[target].name}" in '
        f"#{channel}: “Who can post to this channel”, then deactivate it?"
    )
    assert target not in [gid for _label, gid in model.replacement_choices()]


def test_someone_else_changed_the_setting_first(connect: Connect, org: Sandbox) -> None:
    """The old value goes with the change: a setting changed since the refusal is not
    overwritten, and the server's refusal is what the admin reads."""
    admin = connect("admin")
    target = admin.user_groups.create(unique("t"), members=[MEMBER])
    channel = unique("chan")
    admin.channels.subscribe([channel], group_settings={"can_send_message_group": target})
    cid = admin.channels.get_id(channel)
    model = GroupsModel(admin)
    model.fetch()
    assert model.deactivate(target) is False
    admin.channels.update(cid, group_settings={"can_send_message_group": ROLE_MEMBERS})
    with pytest.raises(chatops.ApiError) as caught:
        model.fix(0, ROLE_ADMINS)
    assert caught.value.status == 400
    streams = admin.get("/streams", params={"include_all": True})["streams"]
    assert {c["stream_id"]: c for c in streams}[cid]["can_send_message_group"] == ROLE_MEMBERS


def test_replaced_keeps_the_rest_of_an_anonymous_group() -> None:
    assert replaced(9, 9, 6) == 6
    assert replaced({"direct_members": [1], "direct_subgroups": [3, 9]}, 9, 6) == {
        "direct_members": [1],
        "direct_subgroups": [3, 6],
    }
    assert replaced({"direct_members": [], "direct_subgroups": [6, 9]}, 9, 6) == {
        "direct_members": [],
        "direct_subgroups": [6],
    }
