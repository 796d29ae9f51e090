"""Organization settings, linkifiers, custom emoji, profile fields and user groups on both
clients (``twin``), against the module's own organization (``fresh_sandbox``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.realm.test_custom_emoji import png


def test_realm_settings_linkifiers_and_emoji(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    admin.realm.update(description=f"twin {twin}")
    assert fresh_sandbox.store.scalar("SELECT description FROM realm") == f"twin {twin}"

    first = admin.realm.add_linkifier(f"#{twin}(?P<id>[0-9]+)", "https://a.test/{id}")
    second = admin.realm.add_linkifier(f"!{twin}(?P<id>[0-9]+)", "https://b.test/{id}")
    admin.realm.update_linkifier(
        first, pattern=f"#{twin}(?P<id>[0-9]+)", url_template="https://c.test/{id}"
    )
    by_id = {item.id: item for item in admin.realm.linkifiers()}
    assert by_id[first].url_template == "https://c.test/{id}"
    ids = [item.id for item in admin.realm.linkifiers()]
    reordered = [second, first] + [i for i in ids if i not in (first, second)]
    admin.realm.reorder_linkifiers(reordered)
    assert [item.id for item in admin.realm.linkifiers()] == reordered
    admin.realm.remove_linkifier(first)
    admin.realm.remove_linkifier(second)
    assert {first, second}.isdisjoint(item.id for item in admin.realm.linkifiers())

    name = f"twin_{twin}"
    admin.realm.upload_emoji(name, png())
    emoji = {e.name: e for e in admin.realm.emoji().values()}[name]
    assert emoji.deactivated is False
    admin.realm.deactivate_emoji(name)
    assert admin.realm.emoji()[emoji.id].deactivated is True


def test_profile_fields_and_values(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    me = member.users.me().user_id
    first = admin.realm.create_profile_field(field_type=1, name=f"Desk {twin}", hint="where")
    second = admin.realm.create_profile_field(field_type=1, name=f"Floor {twin}")
    admin.realm.update_profile_field(first, hint="which desk")
    fields = {f.id: f for f in admin.realm.profile_fields()}
    assert (fields[first].name, fields[first].hint) == (f"Desk {twin}", "which desk")
    order = [f.id for f in admin.realm.profile_fields()]
    reordered = [second, first] + [i for i in order if i not in (first, second)]
    admin.realm.reorder_profile_fields(reordered)
    assert [f.id for f in admin.realm.profile_fields()] == reordered

    value = "SELECT value FROM custom_profile_values WHERE user_id = ? AND field_id = ?"
    member.users.update_profile_data({first: "4B"})
    assert fresh_sandbox.store.scalar(value, [me, first]) == "4B"
    member.users.remove_profile_data([first])
    assert fresh_sandbox.store.scalar(value, [me, first]) is None
    admin.users.update(me, profile_data={second: "3"})
    assert fresh_sandbox.store.scalar(value, [me, second]) == "3"

    admin.realm.delete_profile_field(first)
    admin.realm.delete_profile_field(second)
    assert {first, second}.isdisjoint(f.id for f in admin.realm.profile_fields())


def test_user_group_life(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    me = admin.users.me().user_id
    member_id = client_for("member", fresh_sandbox).users.me().user_id
    inner = admin.user_groups.create(f"inner {twin}", members=[member_id])
    outer = admin.user_groups.create(f"outer {twin}", members=[me], description="d")
    admin.user_groups.update(outer, name=f"outer2 {twin}", description="d2")
    got = admin.user_groups.get(outer)
    assert (got.name, got.description, got.members) == (f"outer2 {twin}", "d2", [me])

    admin.user_groups.update_subgroups(outer, add=[inner])
    assert admin.user_groups.subgroups(outer) == [inner]
    assert sorted(admin.user_groups.members(outer)) == sorted([me, member_id])
    assert admin.user_groups.members(outer, direct_member_only=True) == [me]
    assert admin.user_groups.is_member(outer, member_id) is True
    assert admin.user_groups.is_member(outer, member_id, direct_member_only=True) is False
    admin.user_groups.update_members(outer, add=[member_id], delete=[me])
    assert admin.user_groups.members(outer, direct_member_only=True) == [member_id]
    admin.user_groups.update_subgroups(outer, delete=[inner])
    assert admin.user_groups.subgroups(outer) == []

    admin.user_groups.deactivate(inner)
    assert inner not in [g.id for g in admin.user_groups.list()]
    assert admin.user_groups.get(inner).deactivated is True
    assert inner in [g.id for g in admin.user_groups.list(include_deactivated_groups=True)]
    admin.user_groups.reactivate(inner)
    assert inner in [g.id for g in admin.user_groups.list()]
    deactivated = "SELECT deactivated FROM user_groups WHERE id = ?"
    assert fresh_sandbox.store.scalar(deactivated, [inner]) == 0


def test_organization_exports(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    owner = client_for("owner", fresh_sandbox)
    owner.users.update_settings(allow_private_data_export=True)
    owner_id = fresh_sandbox.accounts["owner"].user_id
    assert {c.user_id: c.consented for c in admin.realm.export_consents()}[owner_id] is True
    export_id = admin.realm.create_export(export_type=2)
    assert export_id in {e.id for e in admin.realm.exports()}
    done = admin.realm.wait_for_export(export_id, timeout=60, poll_seconds=0.1)
    assert done.export_type == 2 and done.export_url and not done.pending
    assert admin.realm.download_export(done)[:2] == b"\x1f\x8b"  # gzip
    assert admin.realm.download_export(done.export_url)[:2] == b"\x1f\x8b"
    with pytest.raises(LookupError):
        admin.realm.wait_for_export(10**6)
