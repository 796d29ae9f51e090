"""The User groups panel: every group with its members and where it is used, and deactivation
(spec 4.21) that shows what blocks it before and after the admin asks, plus reactivation. The
logic is :class:`~chatops.widgets.groups_model.GroupsModel`; this module lays it out.

"Used" means what the server's ``objections`` list: an organization setting, a channel setting,
another group's setting, or membership as a subgroup of another active group. The panel works
it out locally from raw JSON (so that settings newer than the typed records count too), but the
server has the last word: when it answers ``CANNOT_DEACTIVATE_GROUP_IN_USE`` its ``objections``
are shown as a table of names.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import ipywidgets as w
import pandas as pd

from chatops import CannotDeactivateGroupInUse, Client

from ._base import Confirm, FieldError, Panel, Session, TableView, frame
from ._controls import setting_cell
from ._model import escape
from ._model import plural as _plural
from .groups_model import USE_COLUMNS, GroupInfo, GroupsModel
from .user_groups_forms import GroupForms

__all__ = ["GroupsModel", "UserGroupsPanel"]

#: Columns of the groups list kept for Export CSV but not drawn in the grid.
GRID_HIDDEN = (
    "Description",
    "All members",
    "Subgroups",
    "State",
    "System group",
    "Uses",
    "Where used",
    "You may manage",
    "ID",
)
#: Cells of the grid with another column as their tooltip.
GRID_TIPS = {"Group": "Description", "Member names": "All members", "Used in": "Where used"}


class UserGroupsPanel(GroupForms, GroupsModel, Panel):  # type: ignore[misc]  # status: a widget
    """User groups: list with filters; create, rename, describe; members and subgroups in bulk
    (previewed); the group's own permissions; uses of a group, deactivate (with confirmation,
    the server's objections as a table and a fix for each) and reactivate.

    Example::

        panel = UserGroupsPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                   # shows the panel in JupyterLab
        panel.uses_frame(panel.group_id("support-team"))
        panel.deactivate(panel.group_id("alumni"))   # True, or False with panel.objections_table
        panel.reactivate(panel.group_id("alumni"))
    """

    title: ClassVar[str] = "User groups"
    slug: ClassVar[str] = "groups"

    def __init__(
        self,
        client: Client | Session,
        *,
        background: bool | None = None,
        export_dir: str | Path = "exports",
    ) -> None:
        Panel.__init__(self, client, background=background, export_dir=export_dir)
        self._setup()

    def missing_permission(self) -> str | None:
        return GroupsModel.missing_permission(self)

    def refresh(self) -> None:
        """Fetch groups, users, channels and organization settings again and show them."""
        self.fetch()
        self._render()

    # -- building ---------------------------------------------------------------------------
    def build(self) -> w.Widget:
        """Make the filters, the tables, the group picker and the action buttons."""

        self.name_filter = w.Text(
            placeholder="part of a name",
            description="Name contains",
            style={"description_width": "initial"},
        )
        self.only_empty = w.Checkbox(
            value=False, description="Only empty (no active member)", indent=False
        )
        self.only_unused = w.Checkbox(value=False, description="Only unused", indent=False)
        self.show_deactivated = w.Checkbox(
            value=False, description="Show deactivated", indent=False
        )
        self.name_filter.add_class("chatops-groups-filter-name")
        self.only_empty.add_class("chatops-groups-only-empty")
        self.only_unused.add_class("chatops-groups-only-unused")
        self.show_deactivated.add_class("chatops-groups-show-deactivated")
        for widget in (self.name_filter, self.only_empty, self.only_unused, self.show_deactivated):
            widget.observe(lambda _change: self.guard(self.apply_filters), "value")

        self.groups_table = self.table(
            "User groups",
            lambda: self._reloaded(lambda: self.groups_table),
            slug="list",
            empty="No user group matches the filters.",
        )
        self.groups_table.widget.add_class("chatops-groups-table")
        # the grid fits the list's column at 1400x900: what the other columns say is in the
        # tooltips (description, every member, every use), in the picked group's hint and
        # tables, and in Export CSV
        self.groups_table.hidden = GRID_HIDDEN
        self.groups_table.tips = dict(GRID_TIPS)
        self.groups_table._cells["Group"] = self._group_cell

        picker = w.Dropdown(options=[], layout=w.Layout(width="360px"))
        picker.add_class("chatops-groups-pick")
        self.group_field = self.field("group", picker, label="User group")
        picker.observe(lambda _change: self.guard(self._show_selected), "value")
        self.watch(picker)

        self.uses_table = self.table(
            "What uses this group (deactivation is refused while anything does)",
            lambda: self._reloaded(lambda: self.uses_table),
            slug="uses",
            cells={"Setting": setting_cell},
            empty="Nothing uses this group: it can be deactivated.",
        )
        self.uses_table.widget.add_class("chatops-groups-uses")

        self.deactivate_button = self.action_button("Deactivate…", icon="ban", style="danger")
        self.reactivate_button = self.action_button("Reactivate", icon="undo", style="success")
        self.deactivate_button.add_class("chatops-groups-deactivate")
        self.reactivate_button.add_class("chatops-groups-reactivate")
        self.on_click(self.deactivate_button, self.ask_deactivate)
        self.on_click(self.reactivate_button, lambda: self.reactivate(self._selected()))

        self.confirm = Confirm()
        self.confirm.widget.add_class("chatops-groups-confirm")
        self.confirm.yes.add_class("chatops-groups-confirm-yes")
        self.confirm.no.add_class("chatops-groups-confirm-no")

        self.objections_note = w.HTML(value="")
        self.objections_note.add_class("chatops-groups-objections-note")
        self.objections_table = self.table(
            "What the server says still uses the group",
            lambda: self._reloaded(lambda: self.objections_table),
            slug="objections",
            cells={"Setting": setting_cell},
            empty="The server reported no objections.",
        )
        self.objections_table.widget.add_class("chatops-groups-objections")
        self.objections_box = w.VBox(
            [self.objections_note, self.objections_table.widget, *self._build_fixes()]
        )
        self.objections_box.layout.display = "none"

        # the objections stay in the layout (hidden until the server objects), so that the
        # fix button has its own outcome place right under it
        self.outcome_of(self.deactivate_button, self.confirm.widget)
        self.outcome_of(self.reactivate_button, self.confirm.widget)

        filters = w.HBox(
            [self.name_filter, self.only_empty, self.only_unused, self.show_deactivated],
            layout=w.Layout(flex_flow="row wrap", align_items="center", grid_gap="12px"),
        )
        body = self.columns(
            [filters, self.groups_table.widget, *self._build_create()],
            [
                w.HTML(value='<div class="chatops-section">Deactivate or reactivate a group</div>'),
                self.group_field.box,
                self.uses_table.widget,
                w.HBox([self.deactivate_button, self.reactivate_button]),
                self.objections_box,
                *self._build_edit(picker),
            ],
        )
        body.add_class("chatops-groups")
        return body

    def _group_cell(self, value: object) -> str:
        """The group's name, marked when deactivated."""
        cell = escape(value)
        group = next((g for g in self._groups.values() if g.name == value), None)
        if group is not None and group.deactivated:
            cell += ' <span class="chatops-muted">deactivated</span>'
        return cell

    def control_reasons(self) -> list[tuple[w.DOMWidget, str]]:
        """Deactivate and reactivate say why they cannot act on the group picked."""
        gid = self._selected()
        group = self._groups.get(gid) if gid is not None else None
        if group is None:
            why = "Pick a user group first."
            return [
                (self.deactivate_button, why),
                (self.reactivate_button, why),
                (self.members_preview_button, why),
                (self.members_apply_button, why),
            ]
        common = ""
        if group.is_system_group:
            common = f'"{group.name}" is a system group: it follows the organization\'s roles.'
        elif not group.may_manage:
            common = (
                f'You may not manage "{group.name}": that needs its “Who can administer this '
                f"group” or the organization's “Who can administer all user groups” "
                f"({self._manage_all_words()})."
            )
        deactivated = group.deactivated
        editable = common or ("Deactivated: reactivate it first." if deactivated else "")
        members = self.members_refusal(group, remove=self.add_or_remove.value == "Remove")
        return [
            (self.deactivate_button, common or ("Already deactivated." if deactivated else "")),
            (self.reactivate_button, common or ("" if deactivated else "It is active.")),
            (self.save_button, editable),
            # members may change without permission to manage the group, as on the server
            (self.members_preview_button, members),
            (self.members_apply_button, members or ("" if self.member_rows else "Preview first.")),
            (self.set_button, editable),
        ]

    # -- rendering --------------------------------------------------------------------------
    def _render(self) -> None:
        options = [(g.label, g.id) for g in self._picker_order()]
        picker = self.group_field.input
        current = picker.value
        picker.options = options
        if current in self._groups:
            picker.value = current
        elif options:
            picker.value = options[0][1]
        self.groups_table.show(self._filtered())
        self._show_selected()
        if self._objections:
            self.objections_table.show(self._objections_with_fixes())

    def _picker_order(self) -> list[GroupInfo]:
        return sorted(
            self._groups.values(),
            key=lambda g: (g.is_system_group, g.deactivated, g.name.casefold()),
        )

    def _reloaded(self, view: Callable[[], TableView]) -> pd.DataFrame:
        self.refresh()
        return view().frame

    def apply_filters(self) -> None:
        """Show the groups table again as the filters now say (no new fetch)."""
        self.groups_table.show(self._filtered())

    def _filtered(self) -> pd.DataFrame:
        return self.groups_frame(
            str(self.name_filter.value),
            only_empty=bool(self.only_empty.value),
            only_unused=bool(self.only_unused.value),
            show_deactivated=bool(self.show_deactivated.value),
        )

    def _selected(self) -> int | None:
        value = self.group_field.value
        return int(value) if value is not None else None

    def _show_selected(self) -> None:
        gid = self._selected()
        self.uses_table.show(self.uses_frame(gid))
        if self._objections_group is not None and self._objections_group != gid:
            self._hide_objections()
        group = self._groups.get(gid) if gid is not None else None
        self.group_field.clear()
        self.group_field.hint(self._describe(group) if group else "")
        self._render_edit()

    def _describe(self, g: GroupInfo) -> str:
        members = _plural(len(g.active_members), "active member")
        if g.is_system_group:
            return (
                f"System group, {members}: it follows the organization's roles and cannot be "
                "deactivated."
            )
        state = "Deactivated" if g.deactivated else "Active"
        if g.subgroups:  # the list's grid leaves subgroups out: they are said here
            members += f" (with those of {_plural(len(g.subgroups), 'subgroup')}: "
            members += f"{', '.join(g.subgroups)})"
        uses = f"used in {_plural(len(g.uses), 'place')}" if g.uses else "not used"
        if g.may_manage:
            may = "you may manage it"
        elif g.may_add_members or g.may_remove_members:
            can = [
                w for w, ok in (("add", g.may_add_members), ("remove", g.may_remove_members)) if ok
            ]
            may = f"you may not manage it but may {' and '.join(can)} members"
        else:
            may = "you may not manage it"
        return f"{state}, {members}, {uses}; {may}."

    def _objections_with_fixes(self) -> pd.DataFrame:
        """The objections as the server listed them, numbered with the fix each offers."""
        table = self.objections_frame(self._objections)
        fixes = self.fixes_frame()
        if len(fixes) == len(table):
            return fixes
        return table

    def _hide_objections(self) -> None:
        GroupsModel._hide_objections(self)
        self.objections_note.value = ""
        self.objections_table.show(frame([], USE_COLUMNS))
        self.objections_box.layout.display = "none"

    def ask_deactivate(self) -> None:
        """Check the picked group and ask for confirmation before deactivating it."""
        group = self._checked(self._selected(), action="deactivate")
        if group.deactivated:
            raise FieldError("group", f'"{group.name}" is already deactivated.')
        question = f'Deactivate the user group "{group.name}"?'
        if group.uses:
            question += (
                f" It is still used in {_plural(len(group.uses), 'place')} (listed above), so "
                "the server will likely refuse."
            )
        else:
            question += " It can no longer be mentioned or used in permissions."
        self.confirm.ask(question, lambda: self._confirmed(group.id), yes="Deactivate")

    def _confirmed(self, group_id: int) -> None:
        self.clear_errors()
        self.guard(lambda: self.deactivate(group_id))
        self.update_controls()

    def _show_objections(
        self, group: GroupInfo, objections: list[dict[str, Any]], exc: CannotDeactivateGroupInUse
    ) -> None:
        GroupsModel._show_objections(self, group, objections, exc)
        self.objections_table.show(self._objections_with_fixes())
        self._render_fixes()
        stamp = datetime.now().strftime("%H:%M:%S")
        # the status line above says what and why; the note only dates the list
        self.objections_note.value = (
            f'<span class="chatops-muted">What the server listed at {stamp}:</span>'
        )
        self.objections_box.layout.display = "flex"
