"""The Linkifiers panel: list, live check and preview, add, edit, reorder, delete, overlaps,
read-only accounts. Every change is checked through a second client of the organization."""

from __future__ import annotations

import csv
import html
import itertools
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import chatops
import chatops.widgets.linkifiers_model as linkifiers_model
from chatops.sandbox import Sandbox
from chatops.widgets._base import FieldError
from chatops.widgets.linkifiers import LinkifiersPanel
from tests.conftest import unchanged

Connect = Callable[[str], chatops.Client]
_serial = itertools.count(1)


def unique(prefix: str) -> str:
    """A fresh upper-case tag (``QA1``, ``QA2``...) so tests sharing the org do not collide."""
    return f"{prefix}{next(_serial)}"


def make_panel(
    connect: Connect, account: str = "admin", export_dir: Path | None = None
) -> LinkifiersPanel:
    kwargs = {"export_dir": export_dir} if export_dir is not None else {}
    panel = LinkifiersPanel(connect(account), background=False, **kwargs).load()
    assert panel.status.kind != "error", panel.status.text
    return panel


def server_list(client: chatops.Client) -> list[tuple[str, str]]:
    return [(lf.pattern, lf.url_template) for lf in client.realm.linkifiers()]


def lines(panel: LinkifiersPanel) -> list[str]:
    return [c.line for c in panel.checks]


# -- list, refresh, export -----------------------------------------------------------------------
def test_list_in_server_order_and_csv_export(connect: Connect, export_dir: Path) -> None:
    panel = make_panel(connect, export_dir=export_dir)
    other = connect("owner")
    expected = [
        [str(i), lf.pattern, lf.url_template, str(lf.id)]
        for i, lf in enumerate(other.realm.linkifiers(), start=1)
    ]
    assert len(expected) >= 2  # the demo organization has two
    assert list(panel.list_table.frame.columns) == ["position", "pattern", "URL template", "id"]
    assert panel.list_table.frame.astype(str).values.tolist() == expected

    panel.list_table.export_button.click()
    files = list(export_dir.glob("linkifiers-list-*.csv"))
    assert len(files) == 1
    with files[0].open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["position", "pattern", "URL template", "id"]
    assert rows[1:] == expected


def test_refresh_shows_a_linkifier_added_elsewhere(connect: Connect) -> None:
    panel = make_panel(connect)
    tag = unique("RF")
    pattern = rf"{tag}-(?P<n>[0-9]+)"
    connect("owner").realm.add_linkifier(pattern, "https://rf.example.org/{n}")
    assert pattern not in panel.list_table.frame["pattern"].tolist()
    panel.list_table.refresh_button.click()
    assert panel.list_table.frame["pattern"].tolist()[-1] == pattern
    assert pattern in [label for label, _id in panel.picker.input.options][-1]


def test_preview_and_overlap_tables_export(connect: Connect, export_dir: Path) -> None:
    panel = make_panel(connect, export_dir=export_dir)
    panel.sample.value = "Fixed in FIX-1234 (see CVE-2024-3094)."
    panel.pattern.value = r"FIX-(?P<id>[0-9]+)"
    panel.url_template.value = "https://fix.example.org/{id}"
    path = panel.preview_table.export()
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    sample_rows = [r for r in rows if r["where"] == "sample text"]
    assert sample_rows == [
        {
            "where": "sample text",
            "match": "FIX-1234",
            "groups": "id=1234",
            "URL": "https://fix.example.org/1234",
            "applies": "yes",
        }
    ]
    # Refresh fetches the linkifiers and messages again before recomputing.
    tag = unique("PX")
    connect("owner").realm.add_linkifier(rf"{tag}-(?P<n>[0-9]+)", "https://px.example.org/{n}")
    panel.sample.value = f"Fixed in FIX-1234 and {tag}-12-1."
    panel.overlap_table.refresh_button.click()
    assert panel.list_table.frame["pattern"].tolist()[-1] == rf"{tag}-(?P<n>[0-9]+)"
    panel.preview_table.refresh_button.click()
    assert panel.preview_table.frame["match"].tolist()[:1] == ["FIX-1234"]
    path = panel.overlap_table.export()
    header = path.read_text(encoding="utf-8").splitlines()[0]
    assert header == "note,winner,winner pattern,loser,loser pattern,text,where"


# -- live check ----------------------------------------------------------------------------------
def test_live_check_follows_what_is_typed(connect: Connect) -> None:
    panel = make_panel(connect)
    assert lines(panel) == ["• Type a pattern and a URL template; they are checked as you type."]
    panel.pattern.value = r"TK-(?P<num>[0-9]+"
    assert lines(panel)[0] == (
        "✗ The pattern does not compile with RE2: missing ): TK-(?P<num>[0-9]+."
    )
    panel.pattern.value = r"TK-(?P<num>[0-9]+)"
    assert lines(panel)[0] == "✓ The pattern compiles with RE2 (named groups: num)."
    assert lines(panel)[1] == "✗ Enter a URL template."
    panel.url_template.value = "https://tk.example.org/{num}"
    assert lines(panel) == [
        "✓ The pattern compiles with RE2 (named groups: num).",
        "✓ The URL template is valid RFC 6570 (variables: num).",
        "✓ The named groups and the template's variables are the same.",
        "⚠ No match in the sample text or the 100 recent messages scanned.",
    ]
    panel.sample.value = "Blocked by TK-7 and TK-8."
    assert (
        lines(panel)[-1] == "✓ 2 matches in the sample text, 0 in the 100 recent messages scanned."
    )
    # The marks show in the widget too, one line each.
    html = panel.check_html.value
    assert html.count("chatops-linkifiers-check-ok") == 4 and "✓ 2 matches" in html


def test_lookbehind_is_refused_because_re2_lacks_it(connect: Connect) -> None:
    """Python's re accepts look-behind; RE2, the server's engine, does not."""
    panel = make_panel(connect)
    panel.pattern.value = r"(?<=x)#(?P<id>[0-9]+)"
    panel.url_template.value = "https://x.example.org/{id}"
    assert lines(panel)[0].startswith(
        "✗ The pattern does not compile with RE2: invalid perl operator"
    )


def test_invalid_regex_is_refused_beside_the_pattern_and_nothing_sent(
    org: Sandbox, connect: Connect
) -> None:
    panel = make_panel(connect)
    panel.pattern.value = r"BAD-(?P<id>[0-9]+"
    panel.url_template.value = "https://bad.example.org/{id}"
    with unchanged(org.store):
        panel.add_button.click()
    assert panel.pattern.error_text == (
        "The pattern does not compile with RE2: missing ): BAD-(?P<id>[0-9]+."
    )
    assert panel.status.kind == "error" and panel.status.text == "Check the fields marked."
    assert panel.log.outputs == ()  # a user's mistake leaves no traceback
    # Typing again clears the old error next to the field.
    panel.pattern.value = r"BAD-(?P<id>[0-9]+)"
    assert panel.pattern.error_text == ""


def test_add_is_disabled_with_the_reason_and_errors_go_when_fixed(
    org: Sandbox, connect: Connect
) -> None:
    """Console issue: "Add linkifier" stayed enabled with a pattern that does not compile, the
    error showed far below the Pattern box, and "✗ Check the fields marked." stayed after every
    check had turned green."""
    panel = make_panel(connect)
    panel.url_template.value = "https://bad.example.org/{id}"
    panel.pattern.value = r"BAD-(?P<id>[0-9]+"
    wrong = "The pattern does not compile with RE2: missing ): BAD-(?P<id>[0-9]+."
    assert panel.add_button.disabled and panel.add_button.tooltip == wrong
    assert panel.pattern.error_text == wrong  # beside the field, as it is typed
    with unchanged(org.store):
        panel.add_button.click()
    assert panel.status.text == "Check the fields marked."
    panel.pattern.value = r"BAD-(?P<id>[0-9]+)"
    assert panel.pattern.error_text == "" and panel.url_template.error_text == ""
    assert panel.status.text == ""  # no field is marked: the outcome that said so is gone
    assert not panel.add_button.disabled


def test_group_and_variable_mismatch_is_listed_and_refused(org: Sandbox, connect: Connect) -> None:
    panel = make_panel(connect)
    panel.pattern.value = r"(?P<repo>[a-z]+)#(?P<id>[0-9]+)"
    panel.url_template.value = "https://git.example.org/{id}/{num}"
    mismatch = (
        "Groups missing from the URL template: repo. Template variables no group provides: num."
    )
    assert f"✗ {mismatch}" in lines(panel)
    with unchanged(org.store):
        panel.add_button.click()
    assert panel.url_template.error_text == mismatch
    assert panel.pattern.error_text == ""
    assert panel.preview_table.frame.empty


@pytest.mark.parametrize(
    ("pattern", "template", "field", "message"),
    [
        ("", "https://e.example.org/", "pattern", "Enter a pattern."),
        ("E-1", "", "url_template", "Enter a URL template."),
        (
            "x" * 1001,
            "https://e.example.org/",
            "pattern",
            "The pattern is 1001 characters long; at most 1000 are allowed.",
        ),
        (
            "E-1",
            "https://e.example.org/" + "x" * 1003,
            "url_template",
            "The URL template is 1025 characters long; at most 1024 are allowed.",
        ),
        (
            "E-1",
            "ftp://e.example.org/",
            "url_template",
            "The URL template must start with https://, http:// or /.",
        ),
        (
            r"E-(?P<n>\d+)",
            "https://e.example.org/{n",
            "url_template",
            "The URL template has unbalanced { and }.",
        ),
    ],
)
def test_limits_are_checked_before_sending(
    org: Sandbox, connect: Connect, pattern: str, template: str, field: str, message: str
) -> None:
    panel = make_panel(connect)
    panel.pattern.value = pattern
    panel.url_template.value = template
    with unchanged(org.store):
        panel.add_button.click()
    assert panel.fields[field].error_text == message
    assert f"✗ {message}" in lines(panel)


def test_duplicate_is_refused_by_the_server_with_its_code(org: Sandbox, connect: Connect) -> None:
    panel = make_panel(connect)
    tag = unique("DUP")
    pattern, template = rf"{tag}-(?P<n>[0-9]+)", "https://dup.example.org/{n}"
    other = connect("owner")
    other.realm.add_linkifier(pattern, template)  # the panel's list does not know it yet
    panel.pattern.value = pattern
    panel.url_template.value = template
    with unchanged(org.store):
        panel.add_button.click()
    assert panel.status.kind == "error"
    assert panel.status.text == (
        "The server refused: Linkifier with this Pattern and URL template already exists. "
        "(BAD_REQUEST, HTTP 400)"
    )
    assert server_list(other).count((pattern, template)) == 1
    # Once the list is fresh, the live check says so and Add refuses without asking the server.
    panel.list_table.refresh()
    position = server_list(other).index((pattern, template)) + 1
    message = f"Linkifier #{position} already has this pattern and URL template."
    assert f"✗ {message}" in lines(panel)
    with unchanged(org.store):
        panel.add_button.click()
    assert panel.pattern.error_text == message


def test_server_field_errors_land_beside_the_field(
    org: Sandbox, connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal the panel could not foresee (here a server whose URL templates are shorter than
    the panel expects) lands beside the field the server's ``errors`` names."""
    monkeypatch.setattr(linkifiers_model, "MAX_URL_TEMPLATE_LENGTH", 4096)
    panel = make_panel(connect)
    panel.pattern.value = r"LONG-(?P<n>[0-9]+)"
    panel.url_template.value = "https://long.example.org/" + "x" * 1100 + "/{n}"
    assert lines(panel)[0] == "✓ The pattern compiles with RE2 (named groups: n)."
    with unchanged(org.store):
        panel.add_button.click()
    message = "Ensure this value has at most 1024 characters."
    assert panel.status.text == f"The server refused: {message} (BAD_REQUEST, HTTP 400)"
    assert panel.url_template.error_text == f"The server refused: {message}"
    assert panel.pattern.error_text == ""


# -- preview -------------------------------------------------------------------------------------
def test_preview_shows_each_match_and_its_url(connect: Connect) -> None:
    panel = make_panel(connect)
    panel.sample.value = (
        "Deploys GH-12 and (GH-7), not xGH-9 nor GH-10a; repo GH-3/web: done.\nGH-5"
    )
    panel.pattern.value = r"GH-(?P<id>[0-9]+)(?:/(?P<repo>[a-z]+))?"
    panel.url_template.value = "https://gh.example.org/issues/{id}{?repo}"
    rows = panel.preview_table.frame
    sample = rows[rows["where"] == "sample text"]
    assert sample[["match", "groups", "URL", "applies"]].values.tolist() == [
        ["GH-12", "id=12", "https://gh.example.org/issues/12", "yes"],
        ["GH-7", "id=7", "https://gh.example.org/issues/7", "yes"],
        ["GH-3/web", "id=3, repo=web", "https://gh.example.org/issues/3?repo=web", "yes"],
        ["GH-5", "id=5", "https://gh.example.org/issues/5", "yes"],
    ]


def test_preview_says_when_an_earlier_linkifier_takes_the_text(connect: Connect) -> None:
    panel = make_panel(connect)
    first = panel.linkifiers[0]
    assert first.pattern == r"#(?P<id>[0-9]+)"  # the demo organization's first linkifier
    panel.sample.value = "Merged PR #99."
    panel.pattern.value = r"PR #(?P<id>[0-9]+)"
    panel.url_template.value = "https://pr.example.org/{id}"
    rows = panel.preview_table.frame
    assert rows[rows["where"] == "sample text"][["match", "applies"]].values.tolist() == [
        ["PR #99", "no: #1 `#(?P<id>[0-9]+)` wins"]
    ]
    assert lines(panel)[-1].startswith("⚠ 1 match in the sample text")
    assert lines(panel)[-1].endswith("1 taken by an earlier linkifier (see the preview).")


def test_recent_message_preview_finds_a_message_posted_first(connect: Connect) -> None:
    poster = connect("admin")
    tag = unique("ZED")
    channel = poster.channels.subscriptions()[0].name
    sent = poster.messages.send_to_channel(channel, f"{tag} topic 31", f"Broken again: {tag}-4711.")
    panel = make_panel(connect)
    panel.scan_count.value = 20
    panel.scan_button.click()
    assert panel.scan_summary == (
        "Scanned the 20 most recent messages you can see (content as Markdown, and topics)."
    )
    assert "Scanned the 20 most recent messages" in panel.scan_info.value
    panel.pattern.value = rf"{tag}(?:-| topic )(?P<n>[0-9]+)"
    panel.url_template.value = "https://zed.example.org/{n}"
    rows = panel.preview_table.frame
    assert rows[["where", "match", "URL"]].values.tolist() == [
        [f"message {sent.id}", f"{tag}-4711", "https://zed.example.org/4711"],
        [f"topic of message {sent.id}", f"{tag} topic 31", "https://zed.example.org/31"],
    ]
    assert (
        lines(panel)[-1] == "✓ 0 matches in the sample text, 2 in the 20 recent messages scanned."
    )


def test_scan_count_out_of_range_is_refused_beside_the_field(connect: Connect) -> None:
    panel = make_panel(connect)
    with pytest.raises(FieldError) as refused:
        panel.scan_recent(5000)
    assert refused.value.field == "scan_count"


# -- add, edit, reorder, delete -------------------------------------------------------------------
def test_add_appends_and_the_server_links_what_the_preview_showed(connect: Connect) -> None:
    panel = make_panel(connect)
    other = connect("owner")
    tag = unique("ADD")
    pattern, template = rf"{tag}-(?P<n>[0-9]+)", "https://add.example.org/t/{n}"
    panel.sample.value = f"Ship {tag}-5 then {tag}-6x and ({tag}-7)."
    panel.pattern.value = "  " + pattern  # stripped, as the server does
    panel.url_template.value = template
    previewed = panel.preview_table.frame
    previewed = previewed[previewed["where"] == "sample text"]["URL"].tolist()
    assert previewed == ["https://add.example.org/t/5", "https://add.example.org/t/7"]

    panel.add_button.click()
    assert panel.status.kind == "ok", panel.status.text
    saved = other.realm.linkifiers()
    assert (saved[-1].pattern, saved[-1].url_template) == (pattern, template)
    assert panel.picker.value == saved[-1].id
    assert panel.status.text == (
        f"Added linkifier #{len(saved)} `{pattern}` → {template} (id {saved[-1].id})."
    )
    assert panel.list_table.frame["pattern"].tolist()[-1] == pattern

    channel = other.channels.subscriptions()[0].name
    sent = other.messages.send_to_channel(channel, "linkifier check", panel.sample.value)
    rendered = other.messages.get_one(sent.id).content
    assert re.findall(r'href="([^"]+)"', rendered) == previewed


def test_edit_fills_the_form_and_saves(org: Sandbox, connect: Connect) -> None:
    other = connect("owner")
    tag = unique("ED")
    filter_id = other.realm.add_linkifier(rf"{tag}-(?P<n>[0-9]+)", "https://old.example.org/{n}")
    panel = make_panel(connect)
    panel.pick(filter_id)
    assert panel.pattern.value == rf"{tag}-(?P<n>[0-9]+)"
    assert panel.url_template.value == "https://old.example.org/{n}"
    assert "already has" not in " ".join(lines(panel))  # not a duplicate of itself
    panel.url_template.value = "https://new.example.org/{n}"
    panel.save_button.click()
    assert panel.status.kind == "ok", panel.status.text
    saved = {lf.id: lf for lf in other.realm.linkifiers()}
    assert saved[filter_id].url_template == "https://new.example.org/{n}"
    assert saved[filter_id].pattern == rf"{tag}-(?P<n>[0-9]+)"

    # A bad edit is refused beside the field and sends nothing.
    panel.url_template.value = "https://new.example.org/{id}"
    with unchanged(org.store):
        panel.save_button.click()
    assert panel.url_template.error_text == (
        "Groups missing from the URL template: n. Template variables no group provides: id."
    )
    # "New linkifier" empties the form; Save then says what to pick.
    panel.pick(0)
    assert (panel.pattern.value, panel.url_template.value) == ("", "")
    panel.pattern.value = rf"{tag}X-(?P<n>[0-9]+)"
    panel.url_template.value = "https://x.example.org/{n}"
    with unchanged(org.store):
        panel.save_button.click()
    assert panel.picker.error_text == "Pick a linkifier to save."


def test_move_up_and_down_send_the_full_order(org: Sandbox, connect: Connect) -> None:
    other = connect("owner")
    tag = unique("MV")
    a = other.realm.add_linkifier(rf"{tag}A-(?P<n>[0-9]+)", "https://mv.example.org/a/{n}")
    b = other.realm.add_linkifier(rf"{tag}B-(?P<n>[0-9]+)", "https://mv.example.org/b/{n}")
    panel = make_panel(connect)
    before = [lf.id for lf in other.realm.linkifiers()]
    assert before[-2:] == [a, b]

    panel.pick(b)
    panel.up_button.click()
    assert panel.status.kind == "ok", panel.status.text
    assert [lf.id for lf in other.realm.linkifiers()] == before[:-2] + [b, a]
    assert panel.list_table.frame["id"].tolist()[-2:] == [b, a]
    assert panel.picker.value == b
    n = len(before)
    assert panel.status.text == f"Moved linkifier #{n} to #{n - 1}."

    panel.pick(b)
    panel.down_button.click()
    assert [lf.id for lf in other.realm.linkifiers()] == before

    # The last one cannot go further down; nothing is sent.
    with unchanged(org.store):
        panel.down_button.click()
    assert panel.picker.error_text == f"Linkifier #{n} is already last."
    first = before[0]
    panel.pick(first)
    with unchanged(org.store):
        panel.up_button.click()
    assert panel.picker.error_text == "Linkifier #1 is already first."


def test_overlap_note_names_the_winner_and_follows_reordering(connect: Connect) -> None:
    other = connect("owner")
    tag = unique("OV")
    short, long = rf"{tag}-(?P<n>[0-9]+)", rf"{tag}-(?P<n>[0-9]+)-(?P<m>[0-9]+)"
    s = other.realm.add_linkifier(short, "https://ov.example.org/{n}")
    other.realm.add_linkifier(long, "https://ov.example.org/{n}/{m}")
    panel = make_panel(connect)
    panel.sample.value = f"Compare {tag}-12-3 with {tag}-4."
    ids = [lf.id for lf in other.realm.linkifiers()]
    ps, pl = len(ids) - 1, len(ids)
    notes = panel.overlap_table.frame
    mine = notes[notes["text"] == f"{tag}-12-3"]
    assert mine["note"].tolist() == [f"#{ps} `{short}` wins over #{pl} `{long}` on '{tag}-12-3'"]
    assert mine[["winner", "loser", "where"]].values.tolist() == [[ps, pl, "sample text"]]

    panel.pick(s)
    panel.down_button.click()  # now the longer pattern comes first and wins
    notes = panel.overlap_table.frame
    mine = notes[notes["text"] == f"{tag}-12-3"]
    assert mine["note"].tolist() == [f"#{ps} `{long}` wins over #{pl} `{short}` on '{tag}-12-3'"]
    assert html.escape(f"#{ps} `{long}` wins over") in panel.overlap_table.html.value


def test_delete_cancelled_changes_nothing_and_confirmed_deletes(
    org: Sandbox, connect: Connect
) -> None:
    other = connect("owner")
    tag = unique("DEL")
    filter_id = other.realm.add_linkifier(rf"{tag}-(?P<n>[0-9]+)", "https://del.example.org/{n}")
    panel = make_panel(connect)
    panel.pick(filter_id)
    with unchanged(org.store):
        panel.delete_button.click()
        assert panel.confirm.pending
        assert f"`{tag}-(?P&lt;n&gt;[0-9]+)`" in panel.confirm.message.value
        panel.confirm.no.click()
    assert not panel.confirm.pending
    assert filter_id in [lf.id for lf in other.realm.linkifiers()]

    panel.delete_button.click()
    panel.confirm.yes.click()
    assert panel.status.kind == "ok", panel.status.text
    assert panel.status.text.startswith("Deleted linkifier #")
    assert filter_id not in [lf.id for lf in other.realm.linkifiers()]
    assert filter_id not in panel.list_table.frame["id"].tolist()
    assert panel.picker.value == 0 and panel.pattern.value == ""


def test_delete_of_a_linkifier_removed_elsewhere_shows_the_server_error(connect: Connect) -> None:
    other = connect("owner")
    tag = unique("GONE")
    filter_id = other.realm.add_linkifier(rf"{tag}-(?P<n>[0-9]+)", "https://gone.example.org/{n}")
    panel = make_panel(connect)
    panel.pick(filter_id)
    other.realm.remove_linkifier(filter_id)
    panel.delete_button.click()
    panel.confirm.yes.click()
    assert panel.status.kind == "error"
    assert panel.status.text.startswith("The server refused: Linkifier not found. (BAD_REQUEST")
    assert panel.log.outputs == ()


def test_delete_without_a_pick_says_what_to_do(org: Sandbox, connect: Connect) -> None:
    panel = make_panel(connect)
    with unchanged(org.store):
        panel.delete_button.click()
    assert panel.picker.error_text == "Pick a linkifier to delete."
    assert not panel.confirm.pending


# -- permission ----------------------------------------------------------------------------------
@pytest.mark.parametrize("account", ["member", "moderator", "guest"])
def test_read_only_below_administrator(org: Sandbox, connect: Connect, account: str) -> None:
    panel = make_panel(connect, account)
    role = {"member": "a member", "moderator": "a moderator", "guest": "a guest"}[account]
    assert panel.read_only_reason == (
        "Adding, editing, reordering and deleting linkifiers needs an organization "
        f"administrator; you are {role}."
    )
    assert "Read-only." in panel.notice.value
    for button in (
        panel.add_button,
        panel.save_button,
        panel.up_button,
        panel.down_button,
        panel.delete_button,
        panel.confirm.yes,
    ):
        assert button.disabled
    # The list, the live check and the preview still work.
    assert len(panel.list_table.frame) == len(connect("admin").realm.linkifiers())
    panel.pattern.value = r"RO-(?P<n>[0-9]+)"
    panel.url_template.value = "https://ro.example.org/{n}"
    panel.sample.value = "RO-1"
    assert lines(panel)[-1].startswith("✓ 1 match in the sample text")
    with unchanged(org.store), pytest.raises(FieldError):
        panel.add(r"RO-(?P<n>[0-9]+)", "https://ro.example.org/{n}")


def test_admin_panel_is_not_read_only(connect: Connect) -> None:
    panel = make_panel(connect, "owner")
    assert panel.read_only_reason is None and panel.notice.value == ""
    assert not panel.add_button.disabled
    assert {"chatops-panel", "chatops-linkifiers"} <= set(panel.root._dom_classes)


def test_a_saved_pattern_re2_refuses_is_named_not_skipped_silently(
    org: Sandbox, connect: Connect
) -> None:
    """A look-behind saved before the server checked patterns with RE2 (put in the database,
    since the API refuses it now) is named in the overlap note, not skipped silently."""
    other = connect("owner")
    tag = unique("LB")
    pattern = rf"(?<=@){tag}-(?P<n>[0-9]+)"
    filter_id = org.store.insert(
        "linkifiers", {"pattern": pattern, "url_template": "https://lb.example.org/{n}", "ord": 99}
    )
    try:
        panel = make_panel(connect)
        position = [lf.id for lf in other.realm.linkifiers()].index(filter_id) + 1
        assert html.escape(f"#{position} `{pattern}` (invalid perl operator: (?<=)") in (
            panel.overlap_info.value
        )
        assert "Not tried, RE2 cannot compile them" in panel.overlap_info.value
    finally:
        other.realm.remove_linkifier(filter_id)
