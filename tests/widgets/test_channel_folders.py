"""The Channel folders panel, headless against a real sandbox: set values, click, check the
sandbox through a second client."""

from __future__ import annotations

import csv
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.types import ChannelFolder
from chatops.widgets.channel_folders import ChannelFoldersPanel

from ..conftest import unchanged

Connect = Callable[[str], chatops.Client]


@pytest.fixture
def panel(connect: Connect, export_dir: Path) -> ChannelFoldersPanel:
    """The panel as an organization administrator."""
    return ChannelFoldersPanel(connect("admin"), background=False, export_dir=export_dir).load()


@pytest.fixture
def other(connect: Connect) -> chatops.Client:
    """Another administrator's client: checks the sandbox and acts "meanwhile"."""
    return connect("owner")


def unique(prefix: str) -> str:
    return f"{prefix} {uuid.uuid4().hex[:6]}"


def folder_named(client: chatops.Client, name: str) -> ChannelFolder:
    matches = [f for f in client.channels.folders(include_archived=True) if f.name == name]
    assert len(matches) == 1, f"expected one folder named {name!r}, got {matches}"
    return matches[0]


def folder_named_by_id(client: chatops.Client, folder_id: int) -> ChannelFolder:
    return next(f for f in client.channels.folders(include_archived=True) if f.id == folder_id)


def folder_of(client: chatops.Client) -> dict[int, int | None]:
    """Every channel's folder ID, by channel ID."""
    return {
        c.stream_id: c.folder_id
        for c in client.channels.list(include_all=True, exclude_archived=False)
    }


def new_folder(panel: ChannelFoldersPanel, other: chatops.Client, prefix: str) -> int:
    """A folder of the test's own, made by another client, then picked in the panel."""
    folder_id = other.channels.create_folder(unique(prefix), description="")
    panel.refresh()
    panel.folder_field.value = folder_id
    return folder_id


def active_channels(client: chatops.Client) -> list[int]:
    return sorted(
        c.stream_id
        for c in client.channels.list(include_all=True, exclude_archived=False)
        if not c.is_archived
    )


# -- lists ----------------------------------------------------------------------------------------
def test_opens_with_folders_in_server_order_and_counts(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    folders = other.channels.folders(include_archived=True)
    shown = panel.folders_table.frame
    assert list(shown.columns) == [
        "Order",
        "Name",
        "Description",
        "Archived",
        "Active channels",
        "Created by",
        "Created (UTC)",
        "Folder ID",
    ]
    assert list(shown["Folder ID"]) == [f.id for f in folders]
    assert list(shown["Order"]) == list(range(1, len(folders) + 1))
    channels = other.channels.list(include_all=True, exclude_archived=False)
    engineering = shown[shown["Name"] == "Engineering"].iloc[0]
    expected = sum(
        1 for c in channels if c.folder_id == engineering["Folder ID"] and not c.is_archived
    )
    assert expected >= 1
    assert engineering["Active channels"] == expected
    assert engineering["Description"] == "Build and ship"
    assert engineering["Created by"] == "Adam Admin"
    assert len(engineering["Created (UTC)"]) == len("2026-01-31")
    assert panel.status.kind != "error", panel.status.text

    listed = panel.channels_table.frame
    assert set(listed["Channel ID"]) == {c.stream_id for c in channels}
    design = listed[listed["Channel"] == "design"].iloc[0]
    by_id = {c.stream_id: c for c in channels}
    design_folder = by_id[int(design["Channel ID"])].folder_id
    names = {f.id: f.name for f in folders}
    assert design["Folder"] == (names[design_folder] if design_folder else "no folder")
    assert design["Folder"] == "Engineering"  # as the demo organization puts it
    assert "archived" in set(listed["Archived"])  # the demo's archived channel is listed, marked
    options = dict((label, value) for label, value in panel.channels_field.input.options)
    assert all(by_id[v].is_archived is False for v in options.values())
    assert f"design ({design['Folder']})" in options


def test_archived_folder_is_listed_and_marked(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    folder_id = other.channels.create_folder(unique("Old"), description="gone")
    other.channels.update_folder(folder_id, is_archived=True)
    panel.refresh()
    row = panel.folders_table.frame.set_index("Folder ID").loc[folder_id]
    assert row["Archived"] == "archived"
    labels = {value: label for label, value in panel.folder_field.input.options}
    assert labels[folder_id].endswith("· archived")


# -- create ---------------------------------------------------------------------------------------
def test_live_hint_counts_characters_against_server_limit(panel: ChannelFoldersPanel) -> None:
    limit = panel.session.capabilities.max_channel_folder_name_length
    assert limit == 60
    panel.name_field.value = "Engineering!"
    assert "12 / 60 characters" in panel.name_field._hint.value
    panel.name_field.value = "x" * 65
    assert "65 / 60 characters (5 too many)" in panel.name_field._hint.value
    panel.description_field.value = "abc"
    assert "3 / 1024 characters" in panel.description_field._hint.value


def test_create_sends_name_and_description(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    name = unique("Design")
    panel.name_field.value = f"  {name}  "
    panel.description_field.value = "Pixels and *type*"
    panel.create_button.click()
    assert panel.status.kind == "ok", panel.status.text
    made = folder_named(other, name)
    assert made.description == "Pixels and *type*"
    assert not made.is_archived
    assert panel.folder_field.value == made.id
    assert name in set(panel.folders_table.frame["Name"])
    assert panel.name_field.value == ""


def test_create_with_empty_description(panel: ChannelFoldersPanel, other: chatops.Client) -> None:
    name = unique("Plain")
    panel.name_field.value = name
    panel.description_field.value = ""
    panel.create_button.click()
    assert panel.status.kind == "ok", panel.status.text
    assert folder_named(other, name).description == ""


@pytest.mark.parametrize("name", ["", "   "])
def test_create_refuses_empty_name(panel: ChannelFoldersPanel, org: Sandbox, name: str) -> None:
    panel.name_field.value = name
    with unchanged(org.store):
        panel.create_button.click()
    assert panel.name_field.error_text == "A channel folder needs a name."
    assert panel.status.kind == "error"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "n" * 61, "The name is 61 characters long; the server allows at most 60."),
        (
            "description",
            "d" * 1025,
            "The description is 1025 characters long; the server allows at most 1024.",
        ),
    ],
)
def test_create_refuses_overlong_input_without_sending(
    panel: ChannelFoldersPanel, org: Sandbox, field: str, value: str, message: str
) -> None:
    panel.name_field.value = unique("Long")
    panel.description_field.value = ""
    panel.fields[field].value = value
    with unchanged(org.store):
        panel.create_button.click()
    assert panel.fields[field].error_text == message
    assert "Traceback" not in str(panel.log.outputs)


@pytest.mark.parametrize("typed", ["Engineering", "engineering", "  ENGINEERING "])
def test_create_refuses_duplicate_name_before_sending(
    panel: ChannelFoldersPanel, org: Sandbox, typed: str
) -> None:
    panel.name_field.value = typed
    with unchanged(org.store):
        panel.create_button.click()
    assert "A channel folder named 'Engineering' already exists" in panel.name_field.error_text


def test_create_refuses_name_of_archived_folder(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    name = unique("Retired")
    folder_id = other.channels.create_folder(name, description="")
    other.channels.update_folder(folder_id, is_archived=True)
    panel.refresh()
    panel.name_field.value = name.upper()
    with unchanged(org.store):
        panel.create_button.click()
    assert f"'{name}' (archived) already exists" in panel.name_field.error_text


def test_create_refuses_name_differing_only_in_non_ascii_case(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    # The real server compares case-insensitively over all of Unicode; the sandbox's SQLite
    # lower() folds only ASCII, so the panel must catch this one itself.
    suffix = uuid.uuid4().hex[:6]
    other.channels.create_folder(f"Équipe {suffix}", description="")
    panel.refresh()
    panel.name_field.value = f"équipe {suffix}"
    with unchanged(org.store):
        panel.create_button.click()
    assert f"'Équipe {suffix}' already exists" in panel.name_field.error_text


def test_create_refuses_control_character(panel: ChannelFoldersPanel, org: Sandbox) -> None:
    panel.name_field.value = "Ops\tteam"
    with unchanged(org.store):
        panel.create_button.click()
    assert "position 4" in panel.name_field.error_text


# -- rename and description -----------------------------------------------------------------------
def test_picking_a_folder_fills_in_its_name_and_description(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    folder_id = other.channels.create_folder(unique("Pick"), description="about it")
    panel.refresh()
    panel.folder_field.value = folder_id
    assert panel.new_name_field.value.startswith("Pick ")
    assert panel.new_description_field.value == "about it"


def test_rename_folder(panel: ChannelFoldersPanel, other: chatops.Client) -> None:
    folder_id = new_folder(panel, other, "Before")
    name = unique("After")
    panel.new_name_field.value = name
    panel.rename_button.click()
    assert panel.status.kind == "ok", panel.status.text
    assert folder_named(other, name).id == folder_id
    assert name in set(panel.folders_table.frame["Name"])


def test_rename_changing_only_case_is_allowed(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    folder_id = new_folder(panel, other, "casing")
    upper = panel.new_name_field.value.upper()
    panel.new_name_field.value = upper
    panel.rename_button.click()
    assert panel.status.kind == "ok", panel.status.text
    assert folder_named(other, upper).id == folder_id


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "A channel folder needs a name."),
        ("engineering", "A channel folder named 'Engineering' already exists"),
        ("r" * 61, "The name is 61 characters long; the server allows at most 60."),
        (None, "The folder is already named"),
    ],
)
def test_rename_refusals_send_nothing(
    panel: ChannelFoldersPanel,
    other: chatops.Client,
    org: Sandbox,
    typed: str | None,
    message: str,
) -> None:
    new_folder(panel, other, "Keep")
    if typed is not None:
        panel.new_name_field.value = typed
    with unchanged(org.store):
        panel.rename_button.click()
    assert message in panel.new_name_field.error_text


def test_rename_to_name_created_meanwhile_shows_server_refusal(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    folder_id = new_folder(panel, other, "Mine")
    taken = unique("Taken")
    other.channels.create_folder(taken, description="")  # after the panel's last refresh
    panel.new_name_field.value = taken.lower()
    with unchanged(org.store):
        panel.rename_button.click()
    assert panel.status.kind == "error"
    assert panel.status.text == (
        f"The server refused: Channel folder '{taken.lower()}' already exists (BAD_REQUEST, HTTP 400)"
    )
    assert "Traceback" not in str(panel.log.outputs)
    assert folder_named(other, taken).id != folder_id
    # the refusal reloaded the lists, so the panel now knows the other folder
    assert taken in set(panel.folders_table.frame["Name"])
    assert panel.new_name_field.value == taken.lower()


def test_change_and_clear_description(panel: ChannelFoldersPanel, other: chatops.Client) -> None:
    folder_id = new_folder(panel, other, "Described")
    panel.new_description_field.value = "Where the **builders** talk"
    panel.describe_button.click()
    assert panel.status.kind == "ok", panel.status.text
    described = [f for f in other.channels.folders(include_archived=True) if f.id == folder_id]
    assert described[0].description == "Where the **builders** talk"
    panel.new_description_field.value = ""
    panel.describe_button.click()
    assert panel.status.text.startswith("Cleared"), panel.status.text
    cleared = [f for f in other.channels.folders(include_archived=True) if f.id == folder_id]
    assert cleared[0].description == ""


def test_description_refusals_send_nothing(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    new_folder(panel, other, "Terse")
    panel.new_description_field.value = "x" * 1025
    with unchanged(org.store):
        panel.describe_button.click()
    assert "1025 characters long" in panel.new_description_field.error_text
    panel.new_description_field.value = ""  # already empty
    with unchanged(org.store):
        panel.describe_button.click()
    assert panel.new_description_field.error_text == "That is already the folder's description."


# -- archive --------------------------------------------------------------------------------------
def test_archive_asks_confirmation_and_cancel_changes_nothing(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    folder_id = new_folder(panel, other, "Maybe")
    with unchanged(org.store):
        panel.archive_button.click()
        assert panel.confirm.pending
        assert "It holds no active channels" in panel.confirm.message.value
        assert panel.confirm.yes.description == "Archive"
        panel.confirm.no.click()
    assert not panel.confirm.pending
    assert not [f for f in other.channels.folders(include_archived=True) if f.id == folder_id][
        0
    ].is_archived


def test_archive_confirmed_then_unarchive(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    folder_id = new_folder(panel, other, "Seasonal")
    archived_channel = next(
        c.stream_id
        for c in other.channels.list(include_all=True, exclude_archived=False)
        if c.is_archived
    )
    other.channels.update(archived_channel, is_archived=False)
    other.channels.update(archived_channel, folder_id=folder_id)
    other.channels.archive(archived_channel)
    panel.refresh()
    panel.archive_button.click()
    assert "1 archived channel stay in it" in panel.confirm.message.value
    panel.confirm.yes.click()
    assert panel.status.kind == "ok", panel.status.text
    assert [f for f in other.channels.folders(include_archived=True) if f.id == folder_id][
        0
    ].is_archived
    row = panel.folders_table.frame.set_index("Folder ID").loc[folder_id]
    assert row["Archived"] == "archived"

    panel.unarchive_button.click()
    assert panel.status.kind == "ok", panel.status.text
    assert not [f for f in other.channels.folders(include_archived=True) if f.id == folder_id][
        0
    ].is_archived


def test_archive_refused_while_folder_holds_channels(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    folder_id = new_folder(panel, other, "Busy")
    channel = active_channels(other)[0]
    other.channels.update(channel, folder_id=folder_id)
    panel.refresh()
    with unchanged(org.store):
        panel.archive_button.click()
    assert not panel.confirm.pending
    assert "holds 1 active channel (" in panel.folder_field.error_text
    assert "take them out of the folder first" in panel.folder_field.error_text


def test_archive_refused_by_server_when_channel_added_meanwhile(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    folder_id = new_folder(panel, other, "Racing")
    panel.archive_button.click()
    assert panel.confirm.pending
    other.channels.update(active_channels(other)[-1], folder_id=folder_id)
    with unchanged(org.store):
        panel.confirm.yes.click()
    assert panel.status.text == (
        "The server refused: You need to remove all the channels from this folder to archive "
        "it. (BAD_REQUEST, HTTP 400)"
    )
    assert not [f for f in other.channels.folders(include_archived=True) if f.id == folder_id][
        0
    ].is_archived


def test_unarchive_refuses_an_active_folder(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    new_folder(panel, other, "Awake")
    with unchanged(org.store):
        panel.unarchive_button.click()
    assert panel.folder_field.error_text.endswith("is not archived.")


# -- order ----------------------------------------------------------------------------------------
def test_move_down_and_up_send_the_whole_order(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    first = new_folder(panel, other, "First")
    second = other.channels.create_folder(unique("Second"), description="")
    panel.folder_field.value = first
    panel.move_down_button.click()
    assert panel.status.kind == "ok", panel.status.text
    order = [f.id for f in other.channels.folders(include_archived=True)]
    assert order[-2:] == [second, first]
    assert list(panel.folders_table.frame["Folder ID"]) == order

    panel.move_up_button.click()
    order = [f.id for f in other.channels.folders(include_archived=True)]
    assert order[-2:] == [first, second]
    assert panel.status.text.startswith("Moved ")


def test_move_at_the_edges_is_refused(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    last = new_folder(panel, other, "Bottom")
    top = other.channels.folders(include_archived=True)[0]
    panel.folder_field.value = top.id
    with unchanged(org.store):
        panel.move_up_button.click()
    assert panel.folder_field.error_text == f"'{top.name}' is already the first folder."
    panel.folder_field.value = last
    with unchanged(org.store):
        panel.move_down_button.click()
    assert panel.folder_field.error_text.endswith("is already the last folder.")


# -- channels -------------------------------------------------------------------------------------
def test_assign_and_take_out_channels(panel: ChannelFoldersPanel, other: chatops.Client) -> None:
    folder_id = new_folder(panel, other, "Team")
    one, two, three = active_channels(other)[:3]
    other.channels.update(one, folder_id=folder_id)  # already in: skipped
    panel.refresh()
    panel.folder_field.value = folder_id
    panel.channels_field.value = (one, two, three)
    panel.assign_button.click()
    panel.move_confirm.yes.click()
    assert panel.status.kind == "ok", panel.status.text
    assert "2 channels assigned to" in panel.status.text and "1 skipped" in panel.status.text
    folders = folder_of(other)
    assert folders[one] == folders[two] == folders[three] == folder_id
    results = panel.results_table.frame
    assert list(results.columns) == ["Channel", "Folder before", "Result"]
    assert results.iloc[0]["Result"].startswith("skipped: already in")
    assert list(results["Result"][1:].str.startswith("assigned")) == [True, True]
    assert panel.progress.done == 3

    panel.channels_field.value = (two, three)
    panel.take_out_button.click()
    panel.move_confirm.yes.click()
    assert panel.status.kind == "ok", panel.status.text
    folders = folder_of(other)
    assert folders[one] == folder_id
    assert folders[two] is None and folders[three] is None
    assert list(panel.results_table.frame["Result"]) == ["taken out", "taken out"]

    panel.channels_field.value = (two,)
    panel.take_out_button.click()
    panel.move_confirm.yes.click()
    assert panel.results_table.frame.iloc[0]["Result"].startswith("skipped: not in")
    listed = panel.channels_table.frame.set_index("Channel ID")
    assert listed.loc[one, "Folder"] == folder_named_by_id(other, folder_id).name
    assert listed.loc[two, "Folder"] == "no folder"


def test_assign_asks_first_listing_where_each_channel_goes(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    """Console issue: bulk actions sent at once. Assigning lists each channel with where it is
    now and where it goes; nothing is sent before Yes, and a change of the channels picked
    drops the question."""
    source = other.channels.create_folder(unique("From"), description="")
    target = new_folder(panel, other, "To")
    one, two = active_channels(other)[5:7]
    other.channels.update(one, folder_id=source)
    other.channels.update(two, folder_id=None)
    panel.refresh()
    panel.folder_field.value = target
    panel.channels_field.value = (one, two)
    names = {c.stream_id: c.name for c in panel.channels}
    with unchanged(org.store):
        panel.assign_button.click()
        assert panel.move_confirm.pending
        assert panel.move_confirm.question.startswith("Put 2 channels in 'To ")
        source_name = folder_named_by_id(other, source).name
        target_name = folder_named_by_id(other, target).name
        assert panel.move_confirm.items == [
            f"#{names[one]}: '{source_name}' → '{target_name}'",
            f"#{names[two]}: no folder → '{target_name}'",
        ]
        panel.channels_field.value = (two,)
        assert not panel.move_confirm.pending
    panel.assign_button.click()
    panel.move_confirm.yes.click()
    assert folder_of(other)[two] == target and folder_of(other)[one] == source


def test_assign_moves_channel_from_another_folder(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    source = other.channels.create_folder(unique("Source"), description="")
    target = new_folder(panel, other, "Target")
    channel = active_channels(other)[4]
    other.channels.update(channel, folder_id=source)
    panel.refresh()
    panel.channels_field.value = (channel,)
    panel.assign_button.click()
    panel.move_confirm.yes.click()
    assert folder_of(other)[channel] == target
    assert panel.results_table.frame.iloc[0]["Result"].startswith("assigned (moved from 'Source")


def test_assign_needs_channels_and_an_active_folder(
    panel: ChannelFoldersPanel, other: chatops.Client, org: Sandbox
) -> None:
    folder_id = new_folder(panel, other, "Empty")
    panel.channels_field.value = ()
    with unchanged(org.store):
        panel.assign_button.click()
    assert panel.channels_field.error_text == "Pick at least one channel."
    other.channels.update_folder(folder_id, is_archived=True)
    panel.refresh()
    panel.channels_field.value = (active_channels(other)[0],)
    with unchanged(org.store):
        panel.assign_button.click()
    assert "is archived; unarchive it before adding channels" in panel.folder_field.error_text


def test_a_refused_channel_is_reported_and_the_others_go_on(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    folder_id = new_folder(panel, other, "Partly")
    doomed_name = unique("doomed").replace(" ", "-")
    other.channels.subscribe([doomed_name])
    doomed = other.channels.get_id(doomed_name)
    first, last = active_channels(other)[:1][0], active_channels(other)[1]
    panel.refresh()
    panel.channels_field.value = (first, doomed, last)

    def archive_meanwhile(change: dict[str, Any]) -> None:
        if change["new"] == 1:  # between the first and the second channel
            other.channels.archive(doomed)

    panel.progress.bar.observe(archive_meanwhile, "value")
    panel.assign_button.click()
    panel.move_confirm.yes.click()
    results = panel.results_table.frame.set_index("Channel")
    assert results.loc[doomed_name, "Result"].startswith("failed: The server refused:")
    assert "(BAD_REQUEST, HTTP 400)" in results.loc[doomed_name, "Result"]
    assert panel.status.kind == "error"
    assert "1 failed" in panel.status.text
    folders = folder_of(other)
    assert folders[first] == folders[last] == folder_id
    assert folders[doomed] is None
    assert panel.progress.failed == 1


def test_cancel_mid_assignment(panel: ChannelFoldersPanel, other: chatops.Client) -> None:
    folder_id = new_folder(panel, other, "Halfway")
    picked = [c for c in active_channels(other) if folder_of(other)[c] != folder_id][:4]
    before = folder_of(other)
    panel.channels_field.value = tuple(picked)

    def cancel_after_two(change: dict[str, Any]) -> None:
        if change["new"] == 2:
            panel.progress.cancel_button.click()

    panel.progress.bar.observe(cancel_after_two, "value")
    panel.assign_button.click()
    panel.move_confirm.yes.click()
    after = folder_of(other)
    assert [after[c] for c in picked[:2]] == [folder_id, folder_id]
    assert [after[c] for c in picked[2:]] == [before[c] for c in picked[2:]]
    assert {c: after[c] for c in after if c not in picked} == {
        c: before[c] for c in before if c not in picked
    }
    results = list(panel.results_table.frame["Result"])
    assert results[2:] == ["not done: cancelled", "not done: cancelled"]
    assert all(r.startswith("assigned") for r in results[:2])
    assert panel.status.text.startswith("Cancelled: 2 channels assigned to")
    assert "2 not done" in panel.status.text


# -- permission -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("account", "role"), [("member", "member"), ("moderator", "moderator"), ("guest", "guest")]
)
def test_read_only_for_non_administrators(
    connect: Connect, export_dir: Path, org: Sandbox, account: str, role: str
) -> None:
    panel = ChannelFoldersPanel(connect(account), background=False, export_dir=export_dir).load()
    assert panel.read_only
    assert (
        "Creating and changing channel folders needs an organization administrator; "
        f"you are a {role}."
    ) in panel.notice.value
    buttons = [
        panel.create_button,
        panel.rename_button,
        panel.describe_button,
        panel.archive_button,
        panel.unarchive_button,
        panel.move_up_button,
        panel.move_down_button,
        panel.assign_button,
        panel.take_out_button,
    ]
    assert all(b.disabled for b in buttons)
    assert panel.name_field.input.disabled and panel.channels_field.input.disabled
    assert "Engineering" in set(panel.folders_table.frame["Name"])  # the lists still show
    panel.name_field.value = unique("Sneaky")
    with unchanged(org.store):
        panel.create_button.click()
        panel.guard(lambda: panel.archive_folder(1))
    assert panel.status.text.startswith("Read-only: Creating and changing channel folders")


def test_server_refusal_shows_its_code_when_admin_was_demoted_meanwhile(
    connect: Connect, export_dir: Path, org: Sandbox, other: chatops.Client
) -> None:
    acting = connect("admin")
    panel = ChannelFoldersPanel(acting, background=False, export_dir=export_dir).load()
    assert not panel.read_only
    me = acting.users.me().user_id
    other.users.update(me, role=400)
    try:
        panel.name_field.value = unique("Late")
        with unchanged(org.store):
            panel.create_button.click()
    finally:
        other.users.update(me, role=200)
    assert panel.status.kind == "error"
    assert panel.status.text == (
        "The server refused: Must be an organization administrator "
        "(UNAUTHORIZED_PRINCIPAL, HTTP 400)"
    )
    assert "Traceback" not in str(panel.log.outputs)


# -- refresh and export ---------------------------------------------------------------------------
def test_refresh_picks_up_a_folder_created_by_another_client(
    panel: ChannelFoldersPanel, other: chatops.Client
) -> None:
    name = unique("Meanwhile")
    other.channels.create_folder(name, description="made elsewhere")
    assert name not in set(panel.folders_table.frame["Name"])
    panel.folders_table.refresh_button.click()
    assert name in set(panel.folders_table.frame["Name"])
    assert any(label.startswith(name) for label, _ in panel.folder_field.input.options)
    renamed = unique("Renamed")
    other.channels.update_folder(folder_named(other, name).id, name=renamed)
    panel.channels_table.refresh_button.click()  # either list's Refresh reloads both
    assert renamed in set(panel.folders_table.frame["Name"])


def test_csv_export(panel: ChannelFoldersPanel, other: chatops.Client, export_dir: Path) -> None:
    folder_id = new_folder(panel, other, 'Exported, "quoted"')
    panel.channels_field.value = (active_channels(other)[0],)
    panel.assign_button.click()
    panel.move_confirm.yes.click()

    panel.folders_table.export_button.click()
    files = sorted(export_dir.glob("folders-list-*.csv"))
    assert len(files) == 1
    with files[0].open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == [
        "Order",
        "Name",
        "Description",
        "Archived",
        "Active channels",
        "Created by",
        "Created (UTC)",
        "Folder ID",
    ]
    mine = [r for r in rows if r["Folder ID"] == str(folder_id)]
    assert mine[0]["Name"].startswith('Exported, "quoted"')
    assert mine[0]["Active channels"] == "1"
    assert mine[0]["Created by"] == "Olivia Owner"
    assert [r["Folder ID"] for r in rows] == [
        str(f.id) for f in other.channels.folders(include_archived=True)
    ]

    path = panel.channels_table.export(export_dir / "channels.csv")
    with path.open(encoding="utf-8", newline="") as fh:
        channels = list(csv.DictReader(fh))
    assert len(channels) == len(folder_of(other))
    assert {r["Folder"] for r in channels if r["Channel ID"] == str(active_channels(other)[0])} == {
        mine[0]["Name"]
    }

    path = panel.results_table.export(export_dir / "results.csv")
    assert path.read_text(encoding="utf-8").splitlines()[0] == "Channel,Folder before,Result"
    assert "Saved 1 row to" in panel.results_table.export_link.value


def test_widgets_carry_css_classes_for_browser_tests(panel: ChannelFoldersPanel) -> None:
    assert "chatops-folders" in panel.root._dom_classes
    assert "chatops-panel" in panel.root._dom_classes
    for widget, role in [
        (panel.name_field.input, "name"),
        (panel.description_field.input, "description"),
        (panel.create_button, "create"),
        (panel.folder_field.input, "folder"),
        (panel.new_name_field.input, "new-name"),
        (panel.rename_button, "rename"),
        (panel.archive_button, "archive"),
        (panel.confirm.yes, "confirm-yes"),
        (panel.move_up_button, "move-up"),
        (panel.channels_field.input, "channels"),
        (panel.assign_button, "assign"),
        (panel.take_out_button, "take-out"),
    ]:
        assert f"chatops-folders-{role}" in widget._dom_classes
