"""The panels' shared base: who acts, read-only, errors beside fields and in the status line,
tables with CSV export, cancellable progress, confirmations."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import ipywidgets as w
import pandas as pd
import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.types import AnonymousGroup
from chatops.widgets._base import Confirm, FieldError, Panel, Session, describe_error, frame
from tests.conftest import group_id, realm_settings


class Toy(Panel):
    """A panel for the base's tests: one field, one action, one list."""

    title = "Toy"
    slug = "toy"

    def build(self) -> w.Widget:
        self.rows: list[dict[str, object]] = [{"name": "<b>bold</b>", "count": 2}]
        self.name = self.field("name", w.Text(), label="Name")
        self.go = self.action_button("Go")
        self.items = self.table(
            "Things", lambda: frame(self.rows, ["name", "count"]), slug="things", empty="None."
        )
        self.failure: BaseException | None = None
        self.on_click(self.go, self.act)
        return w.VBox([self.name.box, self.go, self.items.widget])

    def missing_permission(self) -> str | None:
        if self.session.is_admin:
            return None
        return f"Toys need an administrator; you are a {self.session.role_name}."

    def refresh(self) -> None:
        self.items.refresh()

    def act(self) -> None:
        if not self.name.value.strip():
            raise FieldError("name", "A name is needed.")
        if self.failure is not None:
            raise self.failure


def test_header_says_who_acts(org: Sandbox, connect: Callable[[str], chatops.Client]) -> None:
    panel = Toy(connect("admin"), background=False).load()
    header = panel.header.value
    me = panel.session.me
    assert me.full_name in header and me.email in header
    assert "administrator" in header
    assert org.site in header
    assert f"feature level {panel.session.capabilities.feature_level}" in header
    assert not panel.read_only and panel.notice.value == ""
    assert panel.go.disabled is False


def test_read_only_gives_the_reason_and_disables_actions(
    connect: Callable[[str], chatops.Client],
) -> None:
    panel = Toy(connect("member"), background=False).load()
    assert panel.read_only
    assert "Toys need an administrator; you are a member." in panel.notice.value
    assert "Read-only" in panel.notice.value
    assert panel.go.disabled is True


def test_field_error_shows_beside_the_field(connect: Callable[[str], chatops.Client]) -> None:
    panel = Toy(connect("admin"), background=False).load()
    panel.go.click()
    assert panel.name.error_text == "A name is needed."
    assert panel.status.kind == "error"
    panel.name.value = "ok"
    panel.go.click()
    assert panel.name.error_text == "" and panel.status.kind == ""


def test_api_error_shows_code_and_status(connect: Callable[[str], chatops.Client]) -> None:
    client = connect("admin")
    panel = Toy(client, background=False).load()
    panel.name.value = "x"

    def refused() -> None:
        client.user_groups.deactivate(10**6)

    panel.on_click(panel.go, refused)
    panel.go.click()
    assert panel.status.kind == "error"
    assert "BAD_REQUEST" in panel.status.text and "HTTP 400" in panel.status.text


def test_limit_error_lands_beside_the_field_it_names(
    connect: Callable[[str], chatops.Client],
) -> None:
    panel = Toy(connect("admin"), background=False).load()
    panel.name.value = "x"
    panel.failure = chatops.LimitError("name", 60, 75)
    panel.go.click()
    assert "60" in panel.name.error_text and "75" in panel.name.error_text


def test_unexpected_error_is_shown_not_raised(connect: Callable[[str], chatops.Client]) -> None:
    panel = Toy(connect("admin"), background=False).load()
    panel.name.value = "x"
    panel.failure = RuntimeError("boom")
    panel.go.click()  # must not raise
    assert "Unexpected error (RuntimeError): boom" in panel.status.text


def test_describe_error_never_quotes_a_secret() -> None:
    exc = chatops.TransportError("connection refused")
    assert describe_error(exc) == "Could not reach the server: connection refused"


def test_table_escapes_html_and_exports_csv(
    connect: Callable[[str], chatops.Client], export_dir: Path
) -> None:
    panel = Toy(connect("admin"), background=False, export_dir=export_dir).load()
    assert "&lt;b&gt;bold&lt;/b&gt;" in panel.items.html.value
    assert "<b>bold</b>" not in panel.items.html.value
    path = panel.items.export()
    assert path.parent == export_dir and path.name.startswith("toy-things-")
    with path.open(newline="") as f:
        assert list(csv.DictReader(f)) == [{"name": "<b>bold</b>", "count": "2"}]
    assert "download" in panel.items.export_link.value
    panel.rows.append({"name": "second", "count": 3})
    panel.items.refresh_button.click()
    assert len(panel.items.frame) == 2
    panel.rows.clear()
    panel.items.refresh()
    assert "None." in panel.items.html.value


def test_progress_counts_and_cancels_between_items(
    connect: Callable[[str], chatops.Client],
) -> None:
    panel = Toy(connect("admin"), background=False).load()
    done: list[int] = []

    def work() -> None:
        panel.progress.start(5, "things")
        for i in range(5):
            if panel.progress.cancelled:
                break
            done.append(i)
            panel.progress.advance(failed=1 if i == 1 else 0)

    panel.progress.bar.observe(
        lambda change: panel.progress.cancel_button.click() if change["new"] == 3 else None,
        "value",
    )
    panel.run_long(work)
    assert done == [0, 1, 2]
    assert "3 of 5 things · 1 failed · cancelled" in panel.progress.label.value
    assert panel.progress.bar.bar_style == "warning"
    assert panel.go.disabled is False  # actions come back after the work


def test_background_work_runs_in_a_thread(connect: Callable[[str], chatops.Client]) -> None:
    panel = Toy(connect("admin"), background=True).load()
    seen: list[bool] = []
    panel.run_long(lambda: seen.append(panel.busy))
    panel.wait(5)
    assert seen == [True] and not panel.busy


def test_confirm_runs_the_action_only_on_yes() -> None:
    confirm = Confirm()
    ran: list[str] = []
    confirm.ask("Delete it?", lambda: ran.append("yes"), yes="Delete")
    assert confirm.pending and confirm.yes.description == "Delete"
    confirm.no.click()
    assert ran == [] and not confirm.pending
    confirm.ask("Delete it?", lambda: ran.append("yes"))
    confirm.yes.click()
    assert ran == ["yes"]


def test_session_resolves_group_settings(connect: Callable[[str], chatops.Client]) -> None:
    session = Session(connect("admin"))
    groups = {g.name: g for g in session.groups}
    admins = groups["role:administrators"]
    assert session.group_members(admins.id) >= set(admins.members)
    assert session.me.user_id in session.group_members(admins.id)
    assert session.group_members({"direct_members": [5], "direct_subgroups": []}) == {5}
    typed = AnonymousGroup(direct_members=[5], direct_subgroups=[admins.id])
    assert session.group_members(typed) == {5} | session.group_members(admins.id)
    assert session.group_members(groups["role:nobody"].id) == set()


@pytest.mark.parametrize(
    ("group", "admin_may", "member_may"),
    [("role:administrators", True, False), ("role:members", True, True)],
)
def test_permits_follows_the_realm_setting(
    group: str,
    admin_may: bool,
    member_may: bool,
    org: Sandbox,
    connect: Callable[[str], chatops.Client],
) -> None:
    with realm_settings(org.store, can_invite_users_group=group_id(org.store, group)):
        assert Session(connect("admin")).permits("can_invite_users_group") is admin_may
        assert Session(connect("member")).permits("can_invite_users_group") is member_may


def test_frame_keeps_columns_when_empty() -> None:
    empty = frame([], ["a", "b"])
    assert list(empty.columns) == ["a", "b"] and empty.empty
    assert isinstance(empty, pd.DataFrame)
