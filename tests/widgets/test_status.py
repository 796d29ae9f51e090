"""The Status panel: choosing users four ways, the text count, emoji checks, preview, apply,
clear, cancel, a per-user failure, read-only accounts, refresh and CSV export. Every change is
checked through a second client of the organization."""

from __future__ import annotations

import csv
import datetime as dt
import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets.status import StatusPanel, unicode_emoji
from tests.conftest import unchanged

Connect = Callable[[str], chatops.Client]
_serial = itertools.count(1)


def tag() -> str:
    """A fresh tag so tests sharing the organization do not collide."""
    return f"st{next(_serial)}"


@pytest.fixture
def admin(connect: Connect) -> chatops.Client:
    """The second client: sets up and checks the organization behind the panel's back."""
    return connect("owner")


def people(admin: chatops.Client, count: int) -> list[int]:
    """New members named ``Status <tag> 0..count-1`` (sorted by name in creation order)."""
    t = tag()
    return [
        admin.users.create(
            email=f"{t}-{i}@example.org", password="status-panel-pw-1", full_name=f"Status {t} {i}"
        )
        for i in range(count)
    ]


def make_panel(connect: Connect, account: str = "admin", **kwargs: Any) -> StatusPanel:
    panel = StatusPanel(connect(account), background=False, **kwargs).load()
    assert panel.status.kind != "error", panel.status.text
    return panel


def address(client: chatops.Client, user_id: int) -> str:
    user = client.users.get(user_id)
    return user.delivery_email or user.email


def upload(panel: StatusPanel, data: bytes, name: str = "people.csv") -> None:
    """What the browser does when the admin picks a file."""
    panel.upload.value = (
        {
            "name": name,
            "type": "text/csv",
            "size": len(data),
            "content": memoryview(data),
            "last_modified": dt.datetime.now(dt.UTC),
        },
    )


def status_of(client: chatops.Client, user_id: int) -> tuple[str, str, str, str]:
    s = client.users.get_status(user_id)
    return (s.status_text or "", s.emoji_name or "", s.emoji_code or "", s.reaction_type or "")


def apply_via_buttons(panel: StatusPanel) -> None:
    panel.apply_button.click()
    assert panel.confirm.pending, panel.status.text
    panel.confirm.yes.click()


# -- choosing users -----------------------------------------------------------------------------
def test_by_group_follows_subgroups_and_leaves_out_bots_and_deactivated(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    a, b, gone = people(admin, 3)
    bot = org.accounts["bot"].user_id
    t = tag()
    inner = admin.user_groups.create(f"{t}-inner", members=[b])
    outer = admin.user_groups.create(f"{t}-outer", members=[a, gone, bot], subgroups=[inner])
    admin.users.deactivate(gone)
    old = admin.user_groups.create(f"{t}-old", members=[a])
    admin.user_groups.deactivate(old)
    panel = make_panel(connect)

    labels = {value: label for label, value in panel.group.options}
    assert labels[outer] == f"{t}-outer (2 users)"  # a, and b through the subgroup
    assert old not in labels  # deactivated groups are not offered
    panel.group.value = outer

    assert panel.target_ids() == [a, b]
    shown = panel.targets_table.frame
    assert list(shown.columns) == ["name", "email", "role", "current status"]
    assert shown["email"].tolist() == [address(admin, a), address(admin, b)]
    assert shown["role"].tolist() == ["member", "member"]
    assert shown["current status"].tolist() == ["(no status)", "(no status)"]
    assert sorted((u.user_id, why) for u, why in panel.left_out) == sorted(
        [(bot, "bot"), (gone, "deactivated")]
    )
    note = panel.left_out_note.value
    assert "2 users chosen" in note
    assert "Left out 1 bot: Helper Bot" in note
    assert f"Left out 1 deactivated user: {admin.users.get(gone).full_name}." in note
    assert "never get a status" in note


def test_by_role(connect: Connect, admin: chatops.Client) -> None:
    panel = make_panel(connect)
    panel.roles.value = (600, 100)
    expected = sorted(
        (u for u in admin.users.list() if u.role in (600, 100) and u.is_active and not u.is_bot),
        key=lambda u: u.full_name.casefold(),
    )
    assert len(expected) >= 2
    assert panel.target_ids() == [u.user_id for u in expected]
    assert set(panel.targets_table.frame["role"]) == {"owner", "guest"}


def test_by_name_and_all_four_ways_combined(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    a, b, c, d = people(admin, 4)
    group = admin.user_groups.create(f"{tag()}-combo", members=[a, b])
    panel = make_panel(connect)
    owner = org.accounts["owner"].user_id

    panel.users.value = (d,)
    assert panel.target_ids() == [d]
    assert panel.targets_table.frame["email"].tolist() == [address(admin, d)]

    panel.group.value = group
    panel.roles.value = (100,)
    upload(panel, f"email\n{address(admin, c)}\n{address(admin, a)}\n".encode())
    # a is reached twice (group and CSV) and appears once
    assert sorted(panel.target_ids()) == sorted([owner, a, b, c, d])
    assert len(panel.targets_table.frame) == 5

    panel.reset_choices_button.click()
    assert panel.target_ids() == []
    assert panel.targets_table.frame.empty
    assert panel.csv_user_ids == []


# -- CSV upload ---------------------------------------------------------------------------------
def test_csv_upload_lists_unknown_rows(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    a, b, gone = people(admin, 3)
    admin.users.deactivate(gone)
    bot_email = address(admin, org.accounts["bot"].user_id)
    panel = make_panel(connect)
    data = (
        "name,email\n"
        f"A,{address(admin, a).upper()}\n"
        "Nobody,nobody@nowhere.example\n"
        "Typo,not an email\n"
        f"B,{address(admin, b)}\n"
        f"Bot,{bot_email}\n"
        f"Gone,{address(admin, gone)}\n"
        "Blank,\n"
    ).encode("utf-8-sig")  # Excel's "CSV UTF-8" starts with a byte-order mark

    upload(panel, data, "team.csv")

    assert panel.csv_user_ids == [a, b, org.accounts["bot"].user_id, gone]
    assert panel.target_ids() == [a, b]
    problems = panel.csv_table.frame
    assert list(problems.columns) == ["row", "value", "problem"]
    assert problems.values.tolist() == [
        [3, "nobody@nowhere.example", "no user with this email"],
        [4, "not an email", "neither an email nor a user ID"],
        [6, bot_email, "a bot: left out"],
        [7, address(admin, gone), "deactivated user: left out"],
        [8, "", "empty: no email or user ID"],
    ]
    assert panel.csv_field.error_text == ""
    assert panel.csv_summary == (
        "team.csv: 2 users from column 'email'; 5 rows not used (listed below)."
    )
    assert panel.upload.value == ()  # ready for the same file again


def test_csv_upload_user_id_column_and_headerless_first_column(
    connect: Connect, admin: chatops.Client
) -> None:
    a, b, c = people(admin, 3)
    panel = make_panel(connect)

    upload(panel, f"team;user_id\nx;{a}\ny;{b}\nz;999999\n".encode())
    assert panel.csv_user_ids == [a, b]
    assert panel.csv_table.frame.values.tolist() == [[4, "999999", "no user with this ID"]]

    upload(panel, f"{address(admin, c)},ignored\n{b},ignored\n".encode())
    assert panel.csv_user_ids == [c, b]  # no header: every row counts
    assert panel.csv_table.frame.empty
    assert sorted(panel.target_ids()) == sorted([b, c])

    panel.forget_csv_button.click()
    assert panel.target_ids() == []


BAD_FILES = [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "is not a text file; upload a CSV or TXT file"),
    ("email\nzoë@example.org\n".encode("latin-1"), "is not UTF-8 text"),
    (b"", "is empty"),
    (b" \n\n", "is empty"),
]


def test_bad_csv_file_is_refused_and_chooses_nobody(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    (a,) = people(admin, 1)
    panel = make_panel(connect)
    for data, words in BAD_FILES:
        upload(panel, f"{a}\n".encode())
        assert panel.target_ids() == [a]
        with unchanged(org.store):
            upload(panel, data, "photo.csv")
        assert panel.csv_field.error_text.startswith(f"photo.csv {words}"), words
        assert panel.status.kind == "error"
        assert panel.csv_user_ids == [] and panel.target_ids() == []


# -- the new status: text and emoji checks ------------------------------------------------------
def test_text_count_and_over_limit_refused_before_sending(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    (a,) = people(admin, 1)
    panel = make_panel(connect)
    panel.users.value = (a,)

    panel.status_text.value = "x" * 23
    assert panel.text_count_text == "23 / 60"
    assert "23 / 60" in panel.text_count.value
    assert "chatops-field-error" not in panel.text_count.value
    panel.status_text.value = "  " + "y" * 60 + "  "  # the server strips the ends
    assert panel.text_count_text == "60 / 60" and not panel.text_over_limit

    panel.status_text.value = "z" * 61
    assert panel.text_count_text == "61 / 60" and panel.text_over_limit
    assert "chatops-field-error" in panel.text_count.value
    with unchanged(org.store):
        panel.apply_button.click()
    assert not panel.confirm.pending
    assert "61 characters" in panel.fields["status_text"].error_text
    assert "at most 60" in panel.fields["status_text"].error_text
    assert panel.status.kind == "error"
    assert status_of(admin, a) == ("", "", "", "")


def test_unknown_and_deactivated_emoji_refused_before_sending(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    (a,) = people(admin, 1)
    panel = make_panel(connect)
    panel.users.value = (a,)
    panel.status_text.value = "Hello"

    panel.emoji.value = "no_such_emoji_here"
    assert "No emoji is named" in panel.emoji_hint  # live hint while typing
    with unchanged(org.store):
        panel.apply_button.click()
    assert "No emoji is named :no_such_emoji_here:" in panel.emoji_field.error_text
    assert not panel.confirm.pending

    deactivated = [e.name for e in admin.realm.emoji().values() if e.deactivated]
    assert deactivated, "the demo organization has a deactivated custom emoji"
    panel.emoji.value = deactivated[0]
    with unchanged(org.store):
        panel.apply_button.click()
    assert "is deactivated" in panel.emoji_field.error_text
    assert status_of(admin, a) == ("", "", "", "")


def test_nothing_to_set_and_nobody_chosen_are_refused(connect: Connect, org: Sandbox) -> None:
    panel = make_panel(connect)
    panel.status_text.value = "Hi"
    with unchanged(org.store):
        panel.apply_button.click()
        assert panel.status.text == "Choose at least one user: by group, role, CSV file or name."
        panel.roles.value = (100,)
        panel.status_text.value = "   "
        panel.apply_button.click()
    assert "Type a status text or choose an emoji" in panel.fields["status_text"].error_text
    assert not panel.confirm.pending


def test_unicode_names_and_codes_match_the_sandbox() -> None:
    from chatops.sandbox import emoji_data

    assert unicode_emoji() == emoji_data.tables()[0]


# -- preview, apply, clear ----------------------------------------------------------------------
def test_preview_shows_current_and_new_status_and_sends_nothing(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    a, b, c = people(admin, 3)
    admin.users.set_user_status(a, status_text="Old", emoji_name="calendar")
    admin.users.set_user_status(b, status_text="Focus time")
    panel = make_panel(connect)
    panel.users.value = (a, b, c)
    panel.status_text.value = "Focus time"
    panel.emoji.value = ""
    with unchanged(org.store):
        panel.preview_button.click()
    shown = panel.preview_table.frame
    assert list(shown.columns) == ["name", "email", "current status", "new status", "change"]
    assert shown[["current status", "new status", "change"]].values.tolist() == [
        ["📅 Old", "Focus time", "replaced"],
        ["Focus time", "Focus time", "unchanged"],
        ["(no status)", "Focus time", "new"],
    ]
    panel.status_text.value = "Something else"  # inputs changed: the preview is stale
    assert panel.preview_table.frame.empty


def test_apply_custom_emoji(connect: Connect, admin: chatops.Client, export_dir: Path) -> None:
    a, b = people(admin, 2)
    shipit = next(e for e in admin.realm.emoji().values() if e.name == "shipit")
    panel = make_panel(connect, export_dir=export_dir)
    offered = set(panel.emoji.options)
    assert {"shipit", "palm_tree", "+1"} <= offered
    assert not {e.name for e in admin.realm.emoji().values() if e.deactivated} & offered
    panel.users.value = (a, b)
    panel.status_text.value = "  Release day  "
    panel.emoji.value = ":shipit:"
    assert "custom emoji" in panel.emoji_hint

    panel.apply_button.click()
    assert panel.confirm.pending
    assert "2 users" in panel.confirm.message.value
    assert panel.preview_table.frame["new status"].tolist() == [":shipit: Release day"] * 2
    assert status_of(admin, a) == ("", "", "", "")  # nothing sent before Yes
    panel.confirm.yes.click()

    for uid in (a, b):
        assert status_of(admin, uid) == ("Release day", "shipit", shipit.id, "realm_emoji")
    assert panel.results_table.frame["result"].tolist() == ["set", "set"]
    assert panel.status.kind == "ok"
    assert panel.status.text == "Status set for 2 of 2 users."
    # the chosen users' list shows the new status
    assert panel.targets_table.frame["current status"].tolist() == [":shipit: Release day"] * 2

    path = panel.results_table.export()
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["email"], r["result"]) for r in rows] == [
        (address(admin, a), "set"),
        (address(admin, b), "set"),
    ]


def test_apply_unicode_emoji_and_empty_emoji_removes_it(
    connect: Connect, admin: chatops.Client
) -> None:
    (a,) = people(admin, 1)
    panel = make_panel(connect)
    panel.users.value = (a,)
    panel.status_text.value = "On vacation"
    panel.emoji.value = "palm_tree"
    apply_via_buttons(panel)
    assert status_of(admin, a) == ("On vacation", "palm_tree", "1f334", "unicode_emoji")

    panel.emoji.value = "+1"
    panel.status_text.value = ""
    apply_via_buttons(panel)
    assert status_of(admin, a) == ("", "+1", "1f44d", "unicode_emoji")

    panel.emoji.value = ""  # empty emoji means none: the old emoji goes
    panel.status_text.value = "Back soon"
    apply_via_buttons(panel)
    assert status_of(admin, a) == ("Back soon", "", "", "")


def test_clear(connect: Connect, admin: chatops.Client) -> None:
    a, b = people(admin, 2)
    admin.users.set_user_status(a, status_text="Out sick", emoji_name="house")
    panel = make_panel(connect)
    panel.users.value = (a, b)
    panel.clear_button.click()
    assert panel.confirm.pending and panel.confirm.yes.description == "Clear status"
    assert panel.preview_table.frame["change"].tolist() == ["removed", "already none"]
    panel.confirm.yes.click()
    assert status_of(admin, a) == ("", "", "", "")
    assert status_of(admin, b) == ("", "", "", "")
    assert panel.results_table.frame["result"].tolist() == ["cleared", "cleared"]
    assert panel.status.text == "Status cleared for 2 of 2 users."


def test_answering_no_or_changing_inputs_sends_nothing(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    (a,) = people(admin, 1)
    panel = make_panel(connect)
    panel.users.value = (a,)
    panel.status_text.value = "Lunch"
    with unchanged(org.store):
        panel.apply_button.click()
        panel.confirm.no.click()
        assert not panel.confirm.pending
        panel.apply_button.click()
        panel.status_text.value = "Dinner"  # the question was about "Lunch": withdrawn
        assert not panel.confirm.pending
        panel.confirm.yes.click()


def test_cancel_after_k_users(connect: Connect, admin: chatops.Client) -> None:
    ids = people(admin, 5)
    panel = make_panel(connect)
    panel.users.value = tuple(ids)
    panel.status_text.value = "Offsite"
    k = 2

    def stop_at_k(change: dict[str, Any]) -> None:
        if change["new"] == k:
            panel.progress.cancel_button.click()

    panel.progress.bar.observe(stop_at_k, "value")
    apply_via_buttons(panel)

    assert [status_of(admin, uid)[0] for uid in ids] == ["Offsite"] * k + [""] * (5 - k)
    results = panel.results_table.frame
    assert results["result"].tolist() == ["set"] * k + ["not done"] * (5 - k)
    assert results["detail"].tolist()[k:] == ["cancelled"] * (5 - k)
    assert panel.status.kind == "info"
    assert "3 not done (cancelled)" in panel.status.text


def test_one_user_refused_the_others_set(connect: Connect, admin: chatops.Client) -> None:
    # The server refuses a user deactivated after the admin chose them; nothing else about a
    # single user makes it refuse one and accept the others.
    a, b, c = people(admin, 3)
    panel = make_panel(connect)
    panel.users.value = (a, b, c)
    panel.status_text.value = "Training"
    panel.apply_button.click()
    admin.users.deactivate(b)
    panel.confirm.yes.click()

    results = panel.results_table.frame
    assert results["result"].tolist() == ["set", "failed", "set"]
    assert results["detail"][1] == "The server refused: No such user (BAD_REQUEST, HTTP 400)"
    assert status_of(admin, a)[0] == "Training" and status_of(admin, c)[0] == "Training"
    assert status_of(admin, b)[0] == ""
    assert panel.status.kind == "error"
    assert panel.status.text == "Status set for 2 of 3 users; 1 failed. See the results below."
    assert panel.progress.failed == 1


def test_server_gone_mid_run_stops_after_that_user(tmp_path: Path) -> None:
    # The sandbox stops between two users; on restart its data shows what was done.
    data = tmp_path / "gone"
    server = Sandbox.start(data, size="small", seed=21)
    client = chatops.Client.from_zuliprc(server.zuliprc("admin"), max_retries=0)
    try:
        panel = StatusPanel(client, background=False).load()
        first, second, third = (value for _, value in panel.users.options[:3])
        panel.users.value = (first, second, third)
        panel.status_text.value = "Maintenance"

        def stop_after_first(change: dict[str, Any]) -> None:
            if change["new"] == 1:
                server.stop()

        panel.progress.bar.observe(stop_after_first, "value")
        apply_via_buttons(panel)
        results = panel.results_table.frame
        assert results["result"].tolist() == ["set", "failed", "not done"]
        assert results["detail"][1].startswith("Could not reach the server")
        assert results["detail"][2] == "stopped: the server could not be reached"
        assert panel.status.kind == "error"
    finally:
        client.close()
    with Sandbox.start(data, size="small", seed=21) as again:
        check = chatops.Client.from_zuliprc(again.zuliprc("admin"))
        try:
            texts = [check.users.get_status(uid).status_text for uid in (first, second, third)]
        finally:
            check.close()
    assert texts[0] == "Maintenance"
    assert texts[1] != "Maintenance" and texts[2] != "Maintenance"


# -- permissions --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("account", "role"),
    [("member", "a member"), ("moderator", "a moderator"), ("bot", "a bot (member)")],
)
def test_read_only_for_non_administrators(
    connect: Connect, org: Sandbox, account: str, role: str
) -> None:
    panel = make_panel(connect, account)
    assert panel.read_only
    assert panel.read_only_reason == (
        f"Setting other users' status needs an organization administrator; you are {role}."
    )
    assert "Read-only." in panel.notice.value
    assert panel.apply_button.disabled and panel.clear_button.disabled
    assert panel.confirm.yes.disabled
    # choosing and previewing still work: they send nothing
    panel.roles.value = (100,)
    panel.status_text.value = "Hi"
    with unchanged(org.store):
        panel.preview_button.click()
        assert len(panel.preview_table.frame) == 1
        panel.guard(lambda: panel.apply())
    assert panel.status.kind == "error"
    assert panel.status.text == panel.read_only_reason


def test_read_only_on_a_server_before_feature_level_407(tmp_path: Path) -> None:
    with Sandbox.start(tmp_path / "old", size="small", seed=21, feature_level=406) as old:
        client = chatops.Client.from_zuliprc(old.zuliprc("admin"))
        try:
            panel = StatusPanel(client, background=False).load()
            assert panel.read_only_reason == (
                "Setting another user's status needs a server at feature level 407 or later; "
                "this server is at feature level 406."
            )
            assert panel.apply_button.disabled and panel.clear_button.disabled
        finally:
            client.close()


# -- refresh and export -------------------------------------------------------------------------
def test_refresh_shows_changes_made_elsewhere(connect: Connect, admin: chatops.Client) -> None:
    (a,) = people(admin, 1)
    panel = make_panel(connect)
    panel.users.value = (a,)
    assert panel.targets_table.frame["current status"].tolist() == ["(no status)"]

    admin.users.set_user_status(a, status_text="In a meeting", emoji_name="calendar")
    panel.targets_table.refresh_button.click()
    assert panel.targets_table.frame["current status"].tolist() == ["📅 In a meeting"]

    (new,) = people(admin, 1)
    assert new not in {value for _, value in panel.users.options}
    panel.refresh()
    assert new in {value for _, value in panel.users.options}
    assert panel.users.value == (a,)  # the choice survives a refresh


def test_export_chosen_users_csv(connect: Connect, admin: chatops.Client, export_dir: Path) -> None:
    a, b = people(admin, 2)
    admin.users.set_user_status(b, status_text="Remote")
    panel = make_panel(connect, export_dir=export_dir)
    panel.users.value = (a, b)
    panel.targets_table.export_button.click()
    files = list(export_dir.glob("status-users-*.csv"))
    assert len(files) == 1
    with files[0].open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["email"], r["role"], r["current status"]) for r in rows] == [
        (address(admin, a), "member", "(no status)"),
        (address(admin, b), "member", "Remote"),
    ]
    # the export is a valid upload: its email column chooses the same users
    panel.users.value = ()
    upload(panel, files[0].read_bytes())
    assert panel.target_ids() == [a, b]


def test_a_status_for_many_names_whose_status_it_replaces_and_undo_restores_them(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    """Console issue: a bulk status overwrote "On vacation" and "Out sick" without showing
    them, and there was no way back. The question lists them; the console's Undo restores
    every status as it was, the people who had none included."""
    from chatops.widgets import AdminConsole

    a, b, c = people(admin, 3)
    admin.users.set_user_status(a, status_text="On vacation", emoji_name="palm_tree")
    admin.users.set_user_status(b, status_text="Out sick", emoji_name="house")
    before = {u: status_of(admin, u) for u in (a, b, c)}
    console = AdminConsole(connect("admin"), background=False)
    panel = console.panel("status")
    assert isinstance(panel, StatusPanel)
    panel.users.value = (a, b, c)
    panel.status_text.value = "In the offsite"
    with unchanged(org.store):
        panel.apply_button.click()
    assert panel.confirm.question == (
        "Set the status “In the offsite” for 3 users? It replaces the status 2 of them have now:"
    )
    names = {u: admin.users.get(u).full_name for u in (a, b, c)}
    assert panel.confirm.items == [
        f"{names[a]}: 🌴 On vacation",
        f"{names[b]}: 🏠 Out sick",
    ]
    panel.confirm.yes.click()
    assert {status_of(admin, u)[0] for u in (a, b, c)} == {"In the offsite"}

    with unchanged(org.store):
        question = console.ask_undo()
    assert question == "Undo “Status: Apply status”: put back 3 changes?"
    assert sorted(console.undo_confirm.items) == sorted(
        [
            f"{names[a]}: back to “:palm_tree: On vacation”",
            f"{names[b]}: back to “:house: Out sick”",
            f"{names[c]}: back to no status",
        ]
    )
    console.undo_confirm.yes.click()
    assert {u: status_of(admin, u) for u in (a, b, c)} == before
    assert console.undo_status.text == "Undid “Status: Apply status”: 3 put back."
    with unchanged(org.store):
        assert console.ask_undo() == ""
    assert console.undo_status.text.startswith("Nothing to undo")


def test_restore_previous_statuses_puts_back_what_a_bulk_status_replaced(
    connect: Connect, admin: chatops.Client, org: Sandbox
) -> None:
    """Console issue 5: a bulk status overwrote “🌴 On vacation” and “Out sick”, Clear left
    “(no status)”, and there was no way back."""
    a, b = people(admin, 2)
    admin.users.set_user_status(a, status_text="On vacation", emoji_name="palm_tree")
    admin.users.set_user_status(b, status_text="Out sick", emoji_name="house")
    before = {uid: status_of(admin, uid) for uid in (a, b)}
    panel = make_panel(connect)
    with unchanged(org.store):
        panel.restore_button.click()
        assert not panel.confirm.pending
        assert panel.status.text.startswith("Nothing to restore")
    panel.users.value = (a, b)
    panel.status_text.value = "In the office"
    panel.emoji.value = ""
    apply_via_buttons(panel)
    assert status_of(admin, a)[0] == status_of(admin, b)[0] == "In the office"
    with unchanged(org.store):
        panel.restore_button.click()
        assert panel.confirm.pending and panel.confirm.yes.description == "Restore"
        assert panel.confirm.question.startswith("Restore the previous status of 2 users")
        names = {uid: admin.users.get(uid).full_name for uid in (a, b)}
        assert sorted(panel.confirm.items) == sorted(
            [
                f"{names[a]}: back to “:palm_tree: On vacation”",
                f"{names[b]}: back to “:house: Out sick”",
            ]
        )
    panel.confirm.yes.click()
    assert panel.status.kind == "ok", panel.status.text
    assert panel.status.text == "Restored the previous status of 2 users."
    assert {uid: status_of(admin, uid) for uid in (a, b)} == before
    panel.restore_button.click()  # what was restored is not restored twice
    assert panel.status.text.startswith("Nothing to restore")
