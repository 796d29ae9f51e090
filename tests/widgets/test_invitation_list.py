"""The list of invitations made: filtered by inviter, role, kind, expiry and state; revoked and
resent in bulk from the grid's selection, with one result per invitation and the progress
counted. Every change is checked through a second client."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets._controls import Progress
from chatops.widgets.invitations import InvitationsPanel, NotAllowed
from chatops.widgets.invitations_list import (
    LATER,
    NEVER,
    WITHIN_A_DAY,
    InvitationFilter,
)

Connect = Callable[[str], chatops.Client]
_serial = itertools.count(1)


@pytest.fixture
def panel(org: Sandbox, export_dir: Path) -> Iterator[InvitationsPanel]:
    client = chatops.Client.from_zuliprc(org.zuliprc("admin"))
    made = InvitationsPanel(client, background=False, export_dir=export_dir).load()
    yield made
    made.close()
    client.close()


def made(client: chatops.Client, role: int, minutes: int | None, n: int = 1) -> list[str]:
    """``n`` fresh email invitations made by ``client``; their addresses."""
    run = next(_serial)
    emails = [f"list{run}-{i}@invite.test" for i in range(n)]
    client.invitations.send(emails, invite_as=role, expires_in_minutes=minutes)
    return emails


def ids_of(client: chatops.Client, emails: list[str]) -> list[int]:
    by_email = {i.email: i.id for i in client.invitations.list() if i.email}
    return [by_email[e] for e in emails]


def test_the_list_filters_by_inviter_role_kind_expiry_and_state(
    panel: InvitationsPanel, connect: Connect
) -> None:
    owner, admin = connect("owner"), connect("admin")
    guests_by_owner = made(owner, 600, 60)  # expires within the hour
    members_by_admin = made(admin, 400, None, n=2)  # never expires
    link = admin.invitations.create_link(invite_as=400, expires_in_minutes=30 * 1440)
    panel.refresh()
    # every filter starts at "any", shown by name (not an empty box)
    labels = [
        f.label
        for f in (panel.inviter_filter, panel.role_filter, panel.kind_filter, panel.state_filter)
    ]
    assert labels == ["anyone", "any", "emails and links", "any"]
    table = panel.invitations_table.frame
    assert set(guests_by_owner + members_by_admin) <= set(table["email or link"])
    assert link in set(table["email or link"])

    owner_id = owner.users.me().user_id
    assert owner_id in panel.inviters()
    panel.inviter_filter.value = owner_id
    shown = panel.invitations_table.frame
    assert set(shown["invited by"]) == {panel.inviters()[owner_id]}
    assert set(guests_by_owner) <= set(shown["email or link"])
    assert not set(members_by_admin) & set(shown["email or link"])

    panel.inviter_filter.value = 0
    panel.role_filter.value = 600
    assert set(panel.invitations_table.frame["role"]) == {"guest"}
    panel.role_filter.value = 0
    panel.expiry_filter.value = WITHIN_A_DAY
    within = set(panel.invitations_table.frame["email or link"])
    assert set(guests_by_owner) <= within and not set(members_by_admin) & within
    panel.expiry_filter.value = NEVER
    assert set(panel.invitations_table.frame["expires (UTC)"]) == {"never"}
    assert set(members_by_admin) <= set(panel.invitations_table.frame["email or link"])
    panel.expiry_filter.value = LATER
    later = set(panel.invitations_table.frame["email or link"])
    assert link in later and not set(guests_by_owner) & later
    panel.expiry_filter.value = "any"
    panel.kind_filter.value = "link"
    assert set(panel.invitations_table.frame["kind"]) == {"link"}
    panel.kind_filter.value = ""
    panel.state_filter.value = "revoked"
    assert panel.invitations_table.frame.empty
    assert "No invitation matches" in panel.invitations_table.html.value


def test_a_filter_names_the_bad_value() -> None:
    with pytest.raises(ValueError, match="role must be one of .*not 450"):
        InvitationFilter(role=450)
    with pytest.raises(ValueError, match="expiry must be one of .*not 'soon'"):
        InvitationFilter(expiry="soon")
    with pytest.raises(ValueError, match="state must be one of .*not 'gone'"):
        InvitationFilter(state="gone")


def test_revoke_the_selection_with_one_result_per_invitation(
    panel: InvitationsPanel, connect: Connect
) -> None:
    owner = connect("owner")
    emails = made(owner, 400, 600, n=3)
    link = owner.invitations.create_link(invite_as=400)
    panel.refresh()
    frame = panel.invitations_table.frame
    wanted = [*emails, link]
    positions = [i for i, v in enumerate(frame["email or link"]) if v in wanted]
    panel.invitations_table.select(positions)
    assert sorted(panel.selected_invitations()) == sorted(
        int(frame["invitation ID"].iloc[p]) for p in positions
    )
    # one of them is revoked by someone else first: the server refuses it, the rest go on
    gone = ids_of(owner, emails[:1])[0]
    owner.invitations.revoke(gone)

    panel.revoke_button.click()
    assert panel.confirm.pending
    assert "Revoke 4 invitations?" in panel.confirm.message.value
    # the question names each invitation, not only their number
    assert sorted(panel.confirm.items) == sorted([*emails, f"reusable link {link}"])
    panel.confirm.yes.click()

    results = {h.invitation_id: h for h in panel.handled}
    assert len(results) == 4
    assert results[gone].result == "failed"
    assert results[gone].code == "BAD_REQUEST (HTTP 400)"
    assert results[gone].detail == "No such invitation"
    assert sum(h.result == "done" for h in results.values()) == 3
    assert panel.status.kind == "error"
    assert panel.status.text == (
        "Revoked 3 of 4 invitations; 1 failed. One result per invitation below."
    )
    assert isinstance(panel.progress, Progress)
    assert (panel.progress.done, panel.progress.total, panel.progress.failed) == (4, 4, 1)
    # the server: none of them is active any more
    active = {i.email or i.link_url for i in owner.invitations.list()}
    assert not set(wanted) & active
    # the results table: the failure first; the list: the revoked ones marked as such
    handled = panel.handled_table.html.value.split("<tr")[2:]
    assert "No such invitation" in handled[0] and "chatops-row-problem" in handled[0]
    panel.state_filter.value = "revoked"
    assert set(panel.invitations_table.frame["email or link"]) == set(wanted) - {emails[0]}


def test_resend_skips_links_and_restarts_the_clock(
    panel: InvitationsPanel, connect: Connect
) -> None:
    owner = connect("owner")
    email = made(owner, 400, 60)[0]
    link = owner.invitations.create_link(invite_as=400)
    panel.refresh()
    before = {i.email: i for i in owner.invitations.list() if i.email}[email]
    invitation_id = before.id
    link_id = next(i.id for i in owner.invitations.list() if i.link_url == link)

    panel.ask_bulk("resend", [invitation_id, link_id])
    assert "Send 2 email invitations again?" in panel.confirm.message.value
    panel.confirm.yes.click()
    results = {h.invitation_id: h for h in panel.handled}
    assert results[invitation_id].result == "done"
    assert results[link_id].result == "skipped"
    assert results[link_id].detail == (
        "A reusable link is not sent to anyone, so it cannot be resent."
    )
    after = {i.email: i for i in owner.invitations.list() if i.email}[email]
    assert after.invited >= before.invited
    assert after.expiry_date is not None and before.expiry_date is not None
    assert after.expiry_date - after.invited == before.expiry_date - before.invited
    row = panel.invitations_table.frame.set_index("invitation ID").loc[invitation_id]
    assert row["state"] == "resent"


def test_nothing_selected_says_what_to_do(panel: InvitationsPanel) -> None:
    panel.refresh()
    with pytest.raises(NotAllowed, match="Select the invitations to revoke in the list first"):
        panel.ask_bulk("revoke")
    panel.revoke_button.click()
    assert panel.status.kind == "error"
    assert "Select the invitations to revoke" in panel.status.text
    assert not panel.confirm.pending


def test_a_refresh_counts_its_steps(panel: InvitationsPanel) -> None:
    panel.invitations_table.refresh_button.click()
    assert (panel.progress.done, panel.progress.total) == (2, 2)
    assert "lists fetched" in panel.progress.label.value
    assert panel.progress.widget.layout.display == "none"  # shown while it runs only
