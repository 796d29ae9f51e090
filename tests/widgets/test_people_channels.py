"""The People and channels panel, headless against the sandbox: a preview a row per person,
nothing sent before the question is answered, a result per row, the console's Undo, the
server's rules for roles, unknown names beside the field, a member's read-only panel."""

from __future__ import annotations

from collections.abc import Callable

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets.people import PeopleChannelsPanel
from tests.conftest import unchanged

Connect = Callable[[str], chatops.Client]


def make_panel(connect: Connect, account: str = "admin") -> PeopleChannelsPanel:
    panel = PeopleChannelsPanel(connect(account), background=False).load()
    assert panel.status.kind != "error", panel.status.text
    return panel


def members(client: chatops.Client, name: str) -> set[int]:
    return set(client.channels.members(client.channels.get_id(name)))


def test_subscribe_is_previewed_asked_made_and_undone(org: Sandbox, connect: Connect) -> None:
    owner = connect("owner")
    group = next(g for g in owner.user_groups.list() if not g.is_system_group and g.members)
    before = {n: members(owner, n) for n in ("design", "random")}
    panel = make_panel(connect)
    panel.people.value = f"@{group.name}\nMei Member"
    panel.channels.value = ("design", "random")
    assert not panel.apply_button.disabled
    with unchanged(org.store):
        plan = panel.preview()
        panel.apply_button.click()  # previews again and asks; nothing sent yet
    assert panel.confirm.pending
    frame = panel.preview_table.frame
    assert set(frame["status"]) <= {"will change", "already so"}
    assert len(frame) == len(set(frame["email"]))
    assert "joins #design" in " ".join(frame["change"]) or "joins #random" in " ".join(
        frame["change"]
    )
    panel.confirm.yes.click()
    results = panel.results_table.frame
    assert (results["status"] == "done").sum() == plan.will
    assert panel.status.kind == "ok" and "changed" in panel.status.text
    wanted = set(group.members) | {owner.users.get_by_email("member@demo.chatops.test").user_id}
    humans = {u.user_id for u in owner.users.list() if not u.is_bot and u.is_active}
    for name in ("design", "random"):
        now = members(owner, name)
        assert wanted & humans <= now and now - before[name] <= wanted
    # the console's Undo (the session's change log) puts every subscription back
    log = panel.session.changes
    action = log.last_action()
    assert action is not None
    tally = log.undo_action(action)
    assert tally.ok
    assert {n: members(owner, n) for n in ("design", "random")} == before


def test_an_input_changed_after_the_question_sends_nothing(org: Sandbox, connect: Connect) -> None:
    owner = connect("owner")
    mei = owner.users.get_by_email("member@demo.chatops.test").user_id
    outside = [c.name for c in owner.channels.list() if mei not in members(owner, c.name)]
    panel = make_panel(connect)
    panel.people.value = "Mei Member"
    panel.channels.value = (outside[0],)
    panel.ask_apply()
    assert panel.confirm.pending
    with unchanged(org.store):
        panel.people.value = "Mei Member, Adam Admin"  # the question was about Mei alone
        assert not panel.confirm.pending


def test_unknown_people_show_beside_the_field_with_the_closest(
    org: Sandbox, connect: Connect
) -> None:
    panel = make_panel(connect)
    panel.people.value = "Mei Membr"
    panel.channels.value = ("design",)
    with unchanged(org.store):
        panel.preview_button.click()
    error = panel.fields["people"].error_text
    assert "“Mei Membr” is nobody in the organization (the closest is “Mei Member”)" in error


def test_roles_say_the_servers_rules_per_row(org: Sandbox, connect: Connect) -> None:
    owner = connect("owner")
    panel = make_panel(connect)  # an administrator: may not make owners
    panel.action.value = "role"
    panel.people.value = "Mei Member\nowner@demo.chatops.test"
    panel.role.value = "owner"
    with unchanged(org.store):
        panel.preview()
    frame = panel.preview_table.frame.set_index("email")
    assert frame.loc["member@demo.chatops.test", "status"] == "refused"
    assert "only an organization owner" in frame.loc["member@demo.chatops.test", "detail"]
    assert frame.loc["owner@demo.chatops.test", "status"] == "already so"
    assert panel.status.kind == "error"
    assert owner.users.get_by_email("member@demo.chatops.test").role == 400


def test_idle_accounts_are_listed_with_their_dates(org: Sandbox, connect: Connect) -> None:
    panel = make_panel(connect)
    panel.action.value = "idle"
    panel.days.value = 20
    assert panel.fields["people"].box.layout.display == "none"
    with unchanged(org.store):
        panel.preview()
    frame = panel.preview_table.frame
    assert len(frame) > 0
    assert all(("message" in d) and ("seen" in d) for d in frame["detail"])
    assert not frame["email"].str.startswith("owner@").any()


def test_a_member_sees_a_read_only_panel(connect: Connect) -> None:
    panel = make_panel(connect, "member")
    assert panel.read_only
    assert panel.apply_button.disabled
