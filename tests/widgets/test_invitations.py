"""The Invitations panel: preview classification, batched sending with per-address results,
cancel, retry of failed batches, role and welcome-text rules, CSV upload, reusable links,
read-only accounts, refresh and export. Every change is checked through a second client."""

from __future__ import annotations

import csv
import itertools
import json
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

import chatops
from chatops.sandbox import RateLimit, Sandbox
from chatops.types import Invite
from chatops.widgets._base import FieldError
from chatops.widgets.invitations import (
    FAILED,
    INVITED,
    NOT_SENT,
    REFUSED,
    SKIPPED,
    InvitationsPanel,
    InviteOptions,
    NotAllowed,
    address_problem,
    addresses_from_file,
    split_addresses,
)
from tests.conftest import group_id, realm_settings, unchanged

Connect = Callable[[str], chatops.Client]
_serial = itertools.count(1)


def fresh(n: int, tag: str = "t") -> list[str]:
    """``n`` addresses nobody has used in this module."""
    run = next(_serial)
    return [f"{tag}{run}-{i}@invite.test" for i in range(n)]


class Requests:
    """Counts (and can break) the panel's ``POST /invites`` requests on their way to the
    sandbox; the sandbox still serves every request that is let through."""

    def __init__(self, fail_on: set[int] | None = None) -> None:
        self.posts: list[list[str]] = []
        self.fail_on = fail_on or set()
        self._real = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path.endswith("/invites"):
            body = parse_qs(request.content.decode())
            self.posts.append(body["invitee_emails"][0].split(","))
            if len(self.posts) in self.fail_on:
                # a fault the sandbox cannot make: the connection drops before the request
                raise httpx.ConnectError("connection reset by peer", request=request)
        return self._real.handle_request(request)


class _Transport(httpx.BaseTransport):
    def __init__(self, spy: Requests) -> None:
        self.spy = spy

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.spy.handle_request(request)


def make_panel(
    org: Sandbox,
    account: str = "admin",
    *,
    spy: Requests | None = None,
    export_dir: Path | None = None,
    **kwargs: Any,
) -> InvitationsPanel:
    transport = _Transport(spy) if spy is not None else None
    client = chatops.Client.from_zuliprc(org.zuliprc(account), transport=transport)
    if export_dir is not None:
        kwargs["export_dir"] = export_dir
    panel = InvitationsPanel(client, background=False, **kwargs).load()
    assert panel.status.kind != "error", panel.status.text
    return panel


@pytest.fixture
def panels(org: Sandbox) -> Iterator[list[InvitationsPanel]]:
    made: list[InvitationsPanel] = []
    yield made
    for p in made:
        p.close()
        p.client.close()


@pytest.fixture
def other(connect: Connect) -> chatops.Client:
    """The owner's client: sees every invitation, independent of the panel's client."""
    return connect("owner")


def email_invites(client: chatops.Client) -> dict[str, Invite]:
    return {i.email.lower(): i for i in client.invitations.list() if i.email and not i.is_multiuse}


def result_of(panel: InvitationsPanel) -> dict[str, tuple[str, str]]:
    return {o.email: (o.result, o.detail) for o in panel.results}


# -- parsing -------------------------------------------------------------------------------------
def click_send(panel: InvitationsPanel) -> None:
    """Send as an admin does: click Send, then Yes under the question it asks."""
    panel.send_button.click()
    if panel.send_confirm.pending:
        panel.send_confirm.yes.click()
    panel.wait()


def test_send_asks_first_listing_the_addresses_and_what_they_get(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    """Console issue: "Send invitations" sent 46 invitations on one click, reusing the channels
    of the batch before without a word. Now it previews, asks, and sends only on Yes."""
    panel = make_panel(org, "admin")
    panels.append(panel)
    channel, name = next(iter(panel.channel_names.items()))
    panel.channels.value = (channel,)
    first, second = fresh(2), fresh(3)
    panel.addresses.value = "\n".join([*first, "broken@"])
    with unchanged(org.store):
        panel.send_button.click()
        assert panel.send_confirm.pending
        assert panel.send_confirm.question == (
            f"Send 2 invitations as member, joining #{name}, and the default channels, "
            "expiring in 10 days?"
        )
        assert panel.send_confirm.items == first
        assert panel.send_confirm.yes.description == "Send 2"
        panel.send_confirm.no.click()  # Cancel
        panel.send_button.click()
        panel.addresses.value += "\nlate@example.org"  # the list changed: the question goes
        assert not panel.send_confirm.pending
    panel.addresses.value = "\n".join(first)
    click_send(panel)
    assert set(first) <= set(email_invites(other))
    # the next batch: the channels still chosen are named as such
    panel.addresses.value = "\n".join(second)
    with unchanged(org.store):
        panel.send_button.click()
    assert f"joining #{name} (still chosen from the last batch)" in panel.send_confirm.question
    assert panel.send_confirm.items == second
    panel.send_confirm.no.click()
    assert not set(second) & set(email_invites(other))


def test_split_addresses_keeps_names_out_and_duplicates_in() -> None:
    assert split_addresses("Ann Lee <ann@x.org>, bob@x.org\n\n BOB@x.org ,") == [
        ("Ann Lee <ann@x.org>", "ann@x.org"),
        ("bob@x.org", "bob@x.org"),
        ("BOB@x.org", "BOB@x.org"),
    ]


@pytest.mark.parametrize(
    ("email", "problem"),
    [
        ("ann@example.org", None),
        ("first.last+tag@sub.example.co.uk", None),
        ("ann@bücher.example", None),
        ("ann.example.org", "No @ in the address."),
        ("ann@@example.org", "An address needs exactly one @."),
        ("ann@", "Nothing after the @."),
        ("ann @example.org", "An address cannot contain spaces."),
        ("ann@localhost", "“localhost” is not a valid domain."),
        ("ann@example..org", "“example..org” is not a valid domain."),
        (".ann@example.org", "The part before the @ is not valid."),
        ("ann@-example.org", "“-example.org” is not a valid domain."),
        ("", "No address between the angle brackets."),
        ("a" * 250 + "@x.org", "Longer than 254 characters."),
    ],
)
def test_address_problem(email: str, problem: str | None) -> None:
    assert address_problem(email) == problem


# -- preview -------------------------------------------------------------------------------------
def test_preview_classifies_every_row(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    panel = make_panel(org)
    panels.append(panel)
    new_a, new_b, invited = fresh(3)
    other.invitations.send([invited], stream_ids=[])
    users = other.users.list()
    active = next(u for u in users if u.is_active and not u.is_bot and u.delivery_email)
    gone = next(u for u in users if not u.is_active and u.delivery_email)
    assert active.delivery_email and gone.delivery_email
    panel.addresses.value = "\n".join(
        [
            f"New Person <{new_a}>",
            f"{new_b}, not-an-address",
            new_b.upper(),
            active.delivery_email.upper(),
            gone.delivery_email,
            invited,
            "Someone <>",
        ]
    )
    with unchanged(org.store):
        panel.preview_button.click()
    table = panel.preview_table.frame
    assert list(table.columns) == ["row", "as typed", "address", "classification", "detail"]
    got = [(r["row"], r["address"], r["classification"]) for _, r in table.iterrows()]
    assert got == [
        (1, new_a, "valid"),
        (2, new_b, "valid"),
        (3, "not-an-address", "invalid address"),
        (4, new_b.upper(), "duplicate"),
        (5, active.delivery_email.upper(), "already a user"),
        (6, gone.delivery_email, "already a user"),
        (7, invited, "already invited"),
        (8, "", "invalid address"),
    ]
    details = dict(zip(table["row"], table["detail"], strict=True))
    assert details[4] == "Same address as row 2."
    assert "active account" in details[5] and active.full_name in details[5]
    assert "deactivated account" in details[6] and "reactivate" in details[6]
    assert "Olivia Owner" in details[7] and "as member" in details[7]
    assert panel.status.text.startswith(
        "8 rows: 2 valid, 2 invalid address, 1 duplicate, 2 already a user, 1 already invited."
    )


def test_preview_of_an_empty_box_is_an_error_next_to_it(
    org: Sandbox, panels: list[InvitationsPanel]
) -> None:
    panel = make_panel(org)
    panels.append(panel)
    panel.addresses.value = " ,\n "
    with unchanged(org.store):
        panel.preview_button.click()
    assert panel.addresses.error_text == "Paste at least one address, or upload a file."
    assert panel.status.kind == "error"


# -- sending -------------------------------------------------------------------------------------
def test_send_mixed_list_gives_exact_result_per_address(
    org: Sandbox, connect: Connect, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    # As a member, whose view hides some users' addresses: the preview cannot know those,
    # and the server refuses them inside a batch whose other addresses it does invite.
    panel = make_panel(org, "member", batch_size=50)
    panels.append(panel)
    member_view = connect("member").users.list()
    hidden_id = next(
        u.user_id for u in member_view if u.delivery_email is None and u.is_active and not u.is_bot
    )
    hidden = next(u for u in other.users.list() if u.user_id == hidden_id).delivery_email
    assert hidden is not None
    visible = "admin@demo.chatops.test"
    new = fresh(3)
    already = fresh(1)[0]
    connect("member").invitations.send([already], stream_ids=[])  # members see only their own
    before = email_invites(other)
    panel.addresses.value = ", ".join([new[0], "broken@", new[1], hidden, new[0], visible, already])
    panel.addresses.value += "\n" + new[2]
    click_send(panel)

    rows = panel.results
    assert [o.row for o in rows] == list(range(1, 9))
    assert [(o.email, o.result) for o in rows] == [
        (new[0], INVITED),
        ("broken@", SKIPPED),
        (new[1], INVITED),
        (hidden, REFUSED),
        (new[0], SKIPPED),
        (visible, SKIPPED),
        (already, SKIPPED),
        (new[2], INVITED),
    ]
    assert rows[1].detail == "invalid address: Nothing after the @."
    assert rows[3].detail == "Already has an account."  # the server's reason
    assert rows[3].code == "INVITATION_FAILED (HTTP 400)"
    assert rows[4].detail == "duplicate: Same address as row 1."
    assert rows[5].detail.startswith("already a user: Adam Admin has an active account")
    assert rows[6].detail.startswith("already invited: Invited ")
    assert all(rows[i].detail == "" and rows[i].code == "" for i in (0, 2, 7))

    after = email_invites(other)
    assert set(after) - set(before) == {e.lower() for e in new}
    me = connect("member").users.me().user_id
    for email in new:
        assert after[email.lower()].invited_by_user_id == me
        assert after[email.lower()].invited_as == 400
    assert hidden.lower() not in after
    assert panel.requests_sent == 1  # the refusal came with the others invited
    assert "Invited 3 of 4 addresses in 1 request; 1 refused" in panel.status.text
    frame = panel.results_table.frame
    assert list(frame.columns) == ["row", "address", "result", "detail", "code"]
    assert len(frame) == 8


def test_send_batches_several_addresses_per_request(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    spy = Requests()
    panel = make_panel(org, spy=spy, batch_size=3)
    panels.append(panel)
    emails = fresh(7)
    panel.addresses.value = "\n".join(emails)
    click_send(panel)
    assert spy.posts == [emails[0:3], emails[3:6], emails[6:7]]
    assert panel.progress.done == 7 and panel.progress.bar.value == 7
    invites = email_invites(other)
    assert all(e in invites for e in emails)
    assert {o.result for o in panel.results} == {INVITED}


def test_options_reach_the_server(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    panel = make_panel(org)
    panels.append(panel)
    channel = next(sid for sid, name in panel.channel_names.items() if name == "engineering")
    group = next(gid for gid, name in panel.group_names.items() if name == "support-team")
    email = fresh(1)[0]
    panel.addresses.value = email
    panel.role.value = 600
    panel.channels.value = (channel,)
    panel.groups.value = (group,)
    panel.expires_in_days.value = 3
    panel.welcome.value = "Welcome aboard, see #**engineering**."
    panel.include_defaults.value = False
    before = int(time.time())
    click_send(panel)
    invite = email_invites(other)[email]
    assert invite.invited_as == 600
    assert invite.expiry_date is not None
    assert abs(invite.expiry_date - (before + 3 * 86400)) <= 5
    row = org.store.one("SELECT * FROM invites WHERE email = ?", [email])
    assert row is not None  # what the API does not list: channels, groups, welcome text
    assert row["stream_ids"] == f"[{channel}]" and row["group_ids"] == f"[{group}]"
    assert row["include_realm_default_subscriptions"] == 0
    assert row["welcome_message_custom_text"] == "Welcome aboard, see #**engineering**."


def test_never_expires(org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]) -> None:
    panel = make_panel(org)
    panels.append(panel)
    email = fresh(1)[0]
    panel.addresses.value = email
    panel.never_expires.value = True
    assert panel.expires_in_days.input.disabled
    click_send(panel)
    assert email_invites(other)[email].expiry_date is None


def test_cancel_after_first_batch_leaves_the_rest_untouched(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    spy = Requests()
    panel = make_panel(org, spy=spy, batch_size=3)
    panels.append(panel)
    emails = fresh(9)
    panel.addresses.value = "\n".join(emails)

    def on_progress(change: dict[str, Any]) -> None:
        if change["new"] >= 3:
            panel.progress.cancel()

    panel.progress.bar.observe(on_progress, "value")
    click_send(panel)
    assert len(spy.posts) == 1
    invites = email_invites(other)
    assert [e in invites for e in emails] == [True] * 3 + [False] * 6
    assert [o.result for o in panel.results] == [INVITED] * 3 + [NOT_SENT] * 6
    assert all(o.detail == "cancelled" for o in panel.results[3:])
    assert "Cancelled" in panel.status.text
    assert panel.progress.bar.bar_style == "warning"


def test_failed_batch_then_retry_failed_only(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    spy = Requests(fail_on={2})
    panel = make_panel(org, spy=spy, batch_size=2)
    panels.append(panel)
    emails = fresh(6)
    panel.addresses.value = ", ".join(emails)
    click_send(panel)
    assert len(spy.posts) == 3  # the batch after the failed one was still sent
    results = [o.result for o in panel.results]
    assert results == [INVITED, INVITED, FAILED, FAILED, INVITED, INVITED]
    failed = panel.results[2]
    assert failed.code == "TransportError"
    assert "Could not reach the server" in failed.detail
    assert panel.status.kind == "error" and "Retry failed" in panel.status.text
    invites = email_invites(other)
    assert [e in invites for e in emails] == [True, True, False, False, True, True]

    panel.retry_button.click()
    assert spy.posts[3:] == [emails[2:4]]  # only the failed ones, in one request
    assert [o.result for o in panel.results] == [INVITED] * 6
    assert all(e in email_invites(other) for e in emails)

    with unchanged(org.store):
        panel.retry_button.click()
    assert panel.status.text == "Nothing failed, so there is nothing to retry."
    assert len(spy.posts) == 4


def test_retry_finds_addresses_the_failed_request_did_invite(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    spy = Requests(fail_on={1})
    panel = make_panel(org, spy=spy)
    panels.append(panel)
    a, b = fresh(2)
    panel.addresses.value = f"{a}, {b}"
    click_send(panel)
    assert [o.result for o in panel.results] == [FAILED, FAILED]
    other.invitations.send([a], stream_ids=[])  # as if the lost request had reached the server
    panel.retry_button.click()
    assert spy.posts[1:] == [[b]]
    assert result_of(panel)[a] == (INVITED, "Found among the active invitations on retry.")
    assert result_of(panel)[b] == (INVITED, "")


def test_second_send_of_the_same_list_skips_invited(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    spy = Requests()
    panel = make_panel(org, spy=spy)
    panels.append(panel)
    emails = fresh(4)
    panel.addresses.value = "\n".join(emails[:3])
    click_send(panel)
    assert len(spy.posts) == 1
    with unchanged(org.store):
        click_send(panel)
    assert len(spy.posts) == 1
    assert not panel.send_confirm.pending  # nothing to ask about: nothing is valid
    assert panel.addresses.error_text == "No row is a valid new address: see the preview."
    assert all(c.classification == "already invited" for c in panel.candidates)

    panel.addresses.value = "\n".join(emails)  # one more: only that one goes out
    click_send(panel)
    assert spy.posts[1:] == [[emails[3]]]
    assert [o.result for o in panel.results] == [SKIPPED, SKIPPED, SKIPPED, INVITED]


def test_a_batch_refused_as_a_whole_stops_the_rest(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    spy = Requests()
    panel = make_panel(org, "member", spy=spy, batch_size=2)
    panels.append(panel)
    channel = next(iter(panel.channel_names))
    panel.channels.value = (channel,)
    emails = fresh(5)
    panel.addresses.value = "\n".join(emails)
    # The organization stops members subscribing others after the panel was opened.
    with realm_settings(org.store, can_add_subscribers_group=group_id(org.store, "role:nobody")):
        with unchanged(org.store):
            click_send(panel)
    assert len(spy.posts) == 1
    assert {o.result for o in panel.results} == {FAILED}
    first = panel.results[0]
    assert first.code == "BAD_REQUEST (HTTP 400)"
    assert "permission to subscribe other users" in first.detail
    assert "Not sent after an earlier batch failed" in panel.results[2].detail
    assert not any(e in email_invites(other) for e in emails)


def test_paces_itself_by_the_rate_limit(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        time.sleep(seconds)

    panel = make_panel(org, batch_size=1, sleep=sleep)
    panels.append(panel)
    emails = fresh(6)
    panel.addresses.value = "\n".join(emails)
    org.state.rate_limit = RateLimit(max_calls=4, window_seconds=0.5)
    try:
        click_send(panel)
    finally:
        org.state.rate_limit = None
    assert slept, "the panel never slowed down although the limit ran low"
    assert [o.result for o in panel.results] == [INVITED] * 6
    assert all(e in email_invites(other) for e in emails)


def test_sends_500_addresses_and_accounts_for_every_one(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    spy = Requests()
    panel = make_panel(org, spy=spy)
    panels.append(panel)
    emails = fresh(500, "bulk")
    panel.addresses.value = "\n".join(emails)
    click_send(panel)
    assert [len(p) for p in spy.posts] == [100] * 5
    assert len(panel.results) == 500
    assert {o.result for o in panel.results} == {INVITED}
    invites = email_invites(other)
    assert all(e in invites for e in emails)
    assert panel.progress.done == 500
    assert panel.status.text == "Invited 500 of 500 addresses in 5 requests."


# -- options rules -------------------------------------------------------------------------------
def test_moderator_cannot_pick_administrator(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    panel = make_panel(org, "moderator")
    panels.append(panel)
    assert [v for _label, v in panel.role.input.options] == [300, 400, 600]
    email = fresh(1)[0]
    with unchanged(org.store):
        panel.guard(lambda: panel.send(email, InviteOptions(invite_as=200)))
    assert (
        panel.role.error_text == "As a moderator you can invite moderators, members, guests only."
    )
    panel.addresses.value = email
    panel.role.value = 300
    click_send(panel)
    assert email_invites(other)[email].invited_as == 300


def test_expiry_and_choices_are_checked_before_sending(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    panel = make_panel(org, "member")
    panels.append(panel)
    panel.addresses.value = fresh(1)[0]
    panel.expires_in_days.value = 0
    with unchanged(org.store):
        click_send(panel)
    assert panel.expires_in_days.error_text == "Enter 1 to 3,650 days, or tick “never”."
    private = next(c.stream_id for c in other.channels.list(include_all=True) if c.name == "data")
    with unchanged(org.store):
        panel.guard(lambda: panel.send(options=InviteOptions(stream_ids=(private,))))
        panel.guard(lambda: panel.send(options=InviteOptions(group_ids=(9,))))
    assert panel.channels.error_text.startswith(f"You may not add new users to channel #{private}")
    assert panel.groups.error_text == "You may not add people to user group #9; pick another."


def test_welcome_text_over_8000_is_refused_before_sending(
    org: Sandbox, panels: list[InvitationsPanel]
) -> None:
    spy = Requests()
    panel = make_panel(org, spy=spy)
    panels.append(panel)
    panel.addresses.value = fresh(1)[0]
    panel.welcome.value = "x" * 8000
    assert panel.welcome.error_text == ""
    panel.welcome.value = "x" * 8001
    assert panel.welcome.error_text == "1 character too many; the server allows 8,000."
    with unchanged(org.store):
        click_send(panel)
        panel.link_button.click()
    assert spy.posts == []
    assert panel.welcome.error_text == (
        "The welcome message is 8,001 characters long; at most 8,000 are allowed."
    )
    assert panel.link.value == ""


def test_welcome_text_is_hidden_for_non_admins(
    org: Sandbox, panels: list[InvitationsPanel]
) -> None:
    panel = make_panel(org, "moderator")
    panels.append(panel)
    assert panel.welcome.box.layout.display == "none"
    assert "Only organization administrators" in panel.welcome_note.value
    panel.welcome.value = "sneaked in"
    assert panel.options().welcome_message_custom_text is None
    with pytest.raises(FieldError) as err:
        panel.check_options(InviteOptions(welcome_message_custom_text="hi"))
    assert err.value.field == "welcome_message_custom_text"
    admin = make_panel(org)
    panels.append(admin)
    assert admin.welcome.box.layout.display != "none"
    assert admin.welcome_note.value == ""


# -- CSV upload ----------------------------------------------------------------------------------
def upload(panel: InvitationsPanel, name: str, data: bytes) -> None:
    panel.upload.value = (
        {
            "name": name,
            "type": "text/csv",
            "size": len(data),
            "content": memoryview(data),
            "last_modified": datetime.now(UTC),
        },
    )


def test_csv_upload_with_a_header(org: Sandbox, panels: list[InvitationsPanel]) -> None:
    panel = make_panel(org)
    panels.append(panel)
    data = b"Name;E-Mail;Team\nAnn;ann@x.org;ops\nBob;bob@x.org;data\n;;\n"
    upload(panel, "people.csv", b"\xef\xbb\xbf" + data)  # with the BOM Excel writes
    assert panel.addresses.value == "ann@x.org\nbob@x.org"
    assert panel.status.text.startswith("Read 2 addresses from people.csv (column “E-Mail”).")
    assert [c.classification for c in panel.classify()] == ["valid", "valid"]


def test_csv_upload_without_a_header(org: Sandbox, panels: list[InvitationsPanel]) -> None:
    panel = make_panel(org)
    panels.append(panel)
    upload(panel, "list.csv", b"ann@x.org,Ann\nBob <bob@x.org>,Bob\n")
    assert panel.addresses.value == "ann@x.org\nBob <bob@x.org>"
    assert "(the first column)" in panel.status.text
    upload(panel, "list.txt", b"carol@x.org, dan@x.org\nerin@x.org\n")
    assert panel.addresses.value == "carol@x.org\ndan@x.org\nerin@x.org"


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.csv", b"  \n", "empty.csv is empty."),
        ("photo.csv", b"\x89PNG\r\n\x1a\n\x00\x00", "photo.csv is not a text file"),
        ("latin.csv", "email\nrené@x.org\n".encode("latin-1"), "latin.csv is not UTF-8 text"),
        (
            "names.csv",
            b"name,phone\nAnn,123\n",
            "names.csv has a header row (name, phone) but no column named email",
        ),
        ("blank.csv", b"email,name\n,Ann\n", "blank.csv has no addresses in column “email”."),
    ],
)
def test_bad_upload_is_a_clear_error(
    org: Sandbox, panels: list[InvitationsPanel], name: str, data: bytes, message: str
) -> None:
    panel = make_panel(org)
    panels.append(panel)
    panel.addresses.value = "kept@x.org"
    upload(panel, name, data)
    assert panel.upload.error_text.startswith(message)
    assert panel.addresses.value == "kept@x.org"
    assert panel.log.outputs == ()  # a user's mistake, not a traceback


def test_addresses_from_file_picks_the_address_column() -> None:
    found, where = addresses_from_file(b"id\tfull name\temail_address\n1\tAnn\tann@x.org\n", "a")
    assert (found, where) == (["ann@x.org"], "column “email_address”")
    found, where = addresses_from_file(b"Ann,ann@x.org\n", "b")
    assert (found, where) == (["ann@x.org"], "column 2")


# -- links ---------------------------------------------------------------------------------------
def test_link_mode_creates_a_reusable_link(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    panel = make_panel(org)
    panels.append(panel)
    before = {i.id for i in other.invitations.list()}
    panel.role.value = 300
    panel.never_expires.value = True
    panel.link_button.click()
    assert panel.status.kind == "ok", panel.status.text
    url = panel.link.value
    assert url.startswith(f"{org.site}/join/") and url.endswith("/")
    new = [i for i in other.invitations.list() if i.id not in before]
    assert len(new) == 1
    assert new[0].is_multiuse and new[0].link_url == url
    assert new[0].invited_as == 300 and new[0].expiry_date is None
    assert url in panel.invitations_table.frame["email or link"].tolist()


def test_link_needs_its_own_permission(org: Sandbox, panels: list[InvitationsPanel]) -> None:
    panel = make_panel(org, "member")
    panels.append(panel)
    assert not panel.read_only  # members may send email invitations
    assert not panel.send_button.disabled
    assert panel.link_button.disabled
    assert "Who can create reusable invitation links" in panel.link_note.value
    assert "you are a member" in panel.link_note.value
    with unchanged(org.store):
        with pytest.raises(NotAllowed):
            panel.create_link()
    panel.addresses.value = fresh(1)[0]
    click_send(panel)  # the long work re-enables actions: not this one
    assert panel.link_button.disabled


# -- read-only -----------------------------------------------------------------------------------
def test_guest_is_read_only(org: Sandbox, panels: list[InvitationsPanel]) -> None:
    panel = make_panel(org, "guest")
    panels.append(panel)
    assert panel.read_only
    assert "Guests cannot invite anyone" in panel.notice.value
    assert panel.send_button.disabled and panel.retry_button.disabled
    assert panel.link_button.disabled
    assert panel.addresses.input.disabled and panel.role.input.disabled
    panel.addresses.value = fresh(1)[0]
    with unchanged(org.store):
        click_send(panel)
        panel.link_button.click()
        with pytest.raises(NotAllowed):
            panel.send()
    assert panel.results == []


def test_read_only_when_neither_setting_includes_the_account(
    org: Sandbox, panels: list[InvitationsPanel]
) -> None:
    admins = group_id(org.store, "role:administrators")
    with realm_settings(org.store, can_invite_users_group=admins):
        panel = make_panel(org, "moderator")
    panels.append(panel)
    assert panel.read_only
    reason = panel.read_only_reason or ""
    assert "Sending email invitations is allowed to administrators" in reason
    assert "Creating invitation links is allowed to administrators" in reason
    assert "you are a moderator" in reason
    assert panel.send_button.disabled and panel.link_button.disabled


# -- refresh and export --------------------------------------------------------------------------
def test_refresh_and_csv_export(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel], export_dir: Path
) -> None:
    panel = make_panel(org, export_dir=export_dir)
    panels.append(panel)
    email = fresh(1)[0]
    other.invitations.send([email], stream_ids=[], invite_as=600)
    assert email not in panel.invitations_table.frame["email or link"].tolist()
    panel.invitations_table.refresh_button.click()
    table = panel.invitations_table.frame
    row = table[table["email or link"] == email].iloc[0]
    assert (row["kind"], row["role"], row["invited by"]) == ("email", "guest", "Olivia Owner")
    invited = table["invited (UTC)"].tolist()
    assert invited == sorted(invited, reverse=True)  # newest first

    panel.invitations_table.export_button.click()
    files = list(export_dir.glob("invitations-active-*.csv"))
    assert len(files) == 1
    with files[0].open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == [
        "kind",
        "email or link",
        "role",
        "invited by",
        "invited (UTC)",
        "expires (UTC)",
        "state",
        "invitation ID",
        "about",
    ]
    assert len(rows) == len(table) + 1
    assert ["email", email, "guest", "Olivia Owner"] in [r[:4] for r in rows]

    sent = fresh(2)
    panel.addresses.value = f"{sent[0]}\nbad@\n{sent[1]}"
    click_send(panel)
    path = panel.results_table.export(export_dir / "results.csv")
    with path.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows == [
        ["row", "address", "result", "detail", "code"],
        ["1", sent[0], "invited", "", ""],
        ["2", "bad@", "skipped", "invalid address: Nothing after the @.", ""],
        ["3", sent[1], "invited", "", ""],
    ]
    panel.preview_table.export_button.click()
    assert len(list(export_dir.glob("invitations-preview-*.csv"))) == 1


def test_refresh_picks_up_a_new_group(
    org: Sandbox, other: chatops.Client, panels: list[InvitationsPanel]
) -> None:
    panel = make_panel(org, "owner")
    panels.append(panel)
    name = f"new-hires-{next(_serial)}"
    assert name not in panel.group_names.values()
    other.user_groups.create(name, description="Joined this quarter", members=[])
    panel.refresh()
    assert name in panel.group_names.values()
    assert name in [label for label, _gid in panel.groups.input.options]


def test_long_lists_show_every_row_in_the_grid_and_export_all(
    org: Sandbox, panels: list[InvitationsPanel], export_dir: Path
) -> None:
    panel = make_panel(org, export_dir=export_dir)
    panels.append(panel)
    emails = [f"<b>{i}</b>@x.org" for i in range(1200)]
    with unchanged(org.store):
        panel.classify("\n".join(emails))
    html = panel.preview_table.html.value
    assert html.count("<tr") == 1201  # the header and every row: no cap
    # escaped (the line-break hints after "@", "/" and "." aside)
    assert "&lt;b&gt;0&lt;/b&gt;@x.org" in html.replace("<wbr>", "") and "<b>0</b>" not in html
    args = panel.preview_table.grid._dt_args
    rows = json.loads(args["data_json"])
    assert len(rows) == 1200 and "downsampling_warning" not in args
    # search, page length, paging and "Showing 1 to 10 of 1,200 entries" around the rows
    assert args["layout"] == {
        "topStart": "pageLength",
        "topEnd": "search",
        "bottomStart": "info",
        "bottomEnd": {"paging": {"buttons": 5, "firstLast": False}},
    }
    assert "&lt;b&gt;1199&lt;/b&gt;@x.org" in args["data_json"].replace("<wbr>", "")
    assert "<b>1199</b>" not in args["data_json"]
    path = panel.preview_table.export()
    with path.open(newline="", encoding="utf-8") as fh:
        assert len(list(csv.reader(fh))) == 1201


def test_an_outcome_goes_when_its_inputs_change_or_another_action_starts(
    org: Sandbox, panels: list[InvitationsPanel]
) -> None:
    """Console issue: "46 of 46 addresses sent" came back under Revoke and Preview. The bar and
    the outcome line belong to the action that made them."""
    panel = make_panel(org, "admin")
    panels.append(panel)
    panel.addresses.value = "\n".join(fresh(2))
    click_send(panel)
    assert panel.progress.widget.layout.display == "flex"
    assert "2 of 2" in panel.progress.label.value
    sent = panel.status.text
    assert sent
    panel.preview_button.click()  # another action: the bar of the send goes
    assert panel.progress.widget.layout.display == "none"
    assert panel.status.text != sent

    panel.addresses.value = "\n".join(fresh(1))
    click_send(panel)
    assert panel.status.text and panel.progress.widget.layout.display == "flex"
    panel.addresses.value += "\nnext@example.org"  # the outcome was of the list before
    assert panel.status.text == ""
    assert panel.progress.widget.layout.display == "none"
