"""The User groups panel: every group with its members and where it is used, and deactivation
(spec 4.21) that shows what blocks it before and after the admin asks, plus reactivation. The
logic is :class:`~chatops.widgets.user_groups_model.GroupsModel`; this module lays it out
(the forms that change groups: :mod:`~chatops.widgets.user_groups_forms`).

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
from typing import ClassVar

import ipywidgets as w
import pandas as pd

from chatops import Client

from ._base import Confirm, Panel, Session, TableView, forwarded, frame, from_model
from ._controls import setting_cell
from ._model import escape
from ._model import plural as _plural
from .user_groups_data import GroupInfo
from .user_groups_forms import GroupForms
from .user_groups_lists import MemberRow
from .user_groups_model import USE_COLUMNS, GroupsModel

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


class UserGroupsPanel(Panel):
    """User groups: list with filters; create, rename, describe; members and subgroups in bulk
    (previewed); the group's own permissions; uses of a group, deactivate (with confirmation,
    the server's objections as a table and a fix for each) and reactivate.

    Example::

        panel = UserGroupsPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                   # shows the panel in JupyterLab
        panel.uses_frame(panel.group_id("support-team"))
        panel.deactivate(panel.group_id("alumni"))   # True, or False with panel.objections_table
        panel.reactivate(panel.group_id("alumni"))

    The logic is :attr:`model`; the forms that change groups are :attr:`forms`.
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
        super().__init__(client, background=background, export_dir=export_dir)
        self.model = GroupsModel(
            self.session,
            status=self.status,
            changed=self.refresh,
            objections_changed=self._show_objections,
        )

    member_rows = from_model[list[MemberRow]]()

    def missing_permission(self) -> str | None:
        return self.model.missing_permission()

    def refresh(self) -> None:
        """Fetch groups, users, channels and organization settings again and show them."""
        self.model.fetch()
        self._render()

    #: how addresses nobody here has are invited: set by the console (its Invitations tab
    #: opens with them filled in); a panel alone offers no invitation
    invite_hook: Callable[[list[str], int], None] | None = None

    def _invite(self, addresses: list[str], group_id: int) -> bool:
        if self.invite_hook is None:
            return False
        self.invite_hook(addresses, group_id)
        return True

    # -- building ---------------------------------------------------------------------------
    def build(self) -> w.Widget:
        """Make the filters, the tables, the group picker, the forms and the action buttons."""
        filters = self._build_list()
        picker = self._build_deactivation()
        forms = self.forms = GroupForms(
            self,
            self.model,
            picker=picker,
            selected=self._selected,
            deactivate_button=self.deactivate_button,
            invite=self._invite,
        )
        self._name_form_widgets(forms)
        self.objections_box = w.VBox(
            [self.objections_note, self.objections_table.widget, *forms.fix_widgets]
        )
        self.objections_box.layout.display = "none"
        body = self.columns(
            [filters, self.groups_table.widget, *forms.create_widgets],
            [
                w.HTML(value='<div class="chatops-section">Deactivate or reactivate a group</div>'),
                self.group_field.box,
                self.uses_table.widget,
                w.HBox([self.deactivate_button, self.reactivate_button]),
                self.objections_box,
                *forms.edit_widgets,
            ],
        )
        body.add_class("chatops-groups")
        return body

    def _build_list(self) -> w.HBox:
        """The filters and the list of groups; returns the filters' row."""
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

        filters = w.HBox(
            [self.name_filter, self.only_empty, self.only_unused, self.show_deactivated],
            layout=w.Layout(flex_flow="row wrap", align_items="center", grid_gap="12px"),
        )
        return filters

    def _build_deactivation(self) -> w.Dropdown:
        """The group picker, its uses, Deactivate and Reactivate, and the server's objections;
        returns the picker."""
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
        # the objections stay in the layout (hidden until the server objects), so that the
        # fix button has its own outcome place right under it
        self.outcome_of(self.deactivate_button, self.confirm.widget)
        self.outcome_of(self.reactivate_button, self.confirm.widget)

        return picker

    def _name_form_widgets(self, forms: GroupForms) -> None:
        # the forms' widgets are the panel's too, as they were when the panel made them itself
        self.new_name, self.new_description = forms.new_name, forms.new_description
        self.new_members, self.create_button = forms.new_members, forms.create_button
        self.edit_name, self.edit_description = forms.edit_name, forms.edit_description
        self.save_button, self.entries = forms.save_button, forms.entries
        self.entries_file, self.add_or_remove = forms.entries_file, forms.add_or_remove
        self.members_preview_button = forms.members_preview_button
        self.members_apply_button = forms.members_apply_button
        self.members_confirm, self.set_confirm = forms.members_confirm, forms.set_confirm
        self.members_table, self.permissions_table = forms.members_table, forms.permissions_table
        self.setting_field, self.setting_value = forms.setting_field, forms.setting_value
        self.set_button, self.fix_field = forms.set_button, forms.fix_field
        self.replacement_field, self.fix_button = forms.replacement_field, forms.fix_button
        self.fix_confirm = forms.fix_confirm

    def _group_cell(self, value: object) -> str:
        """The group's name, marked when deactivated."""
        cell = escape(value)
        group = next((g for g in self.model.groups.values() if g.name == value), None)
        if group is not None and group.deactivated:
            cell += ' <span class="chatops-muted">deactivated</span>'
        return cell

    def control_reasons(self) -> list[tuple[w.DOMWidget, str]]:
        """Deactivate and reactivate say why they cannot act on the group picked."""
        gid = self._selected()
        group = self.model.groups.get(gid) if gid is not None else None
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
                f"({self.model.manage_all_words()})."
            )
        deactivated = group.deactivated
        editable = common or ("Deactivated: reactivate it first." if deactivated else "")
        members = self.members_refusal(group, remove=self.forms.add_or_remove.value == "Remove")
        return [
            (self.deactivate_button, common or ("Already deactivated." if deactivated else "")),
            (self.reactivate_button, common or ("" if deactivated else "It is active.")),
            (self.save_button, editable),
            # members may change without permission to manage the group, as on the server
            (self.members_preview_button, members),
            (
                self.members_apply_button,
                members or ("" if self._previewed() else "Preview first."),
            ),
            (self.set_button, editable),
        ]

    def _previewed(self) -> bool:
        """Whether the last preview is of the group and the list on screen."""
        return self.model.members_previewed(self._selected(), **self.forms.members_input())

    # -- rendering --------------------------------------------------------------------------
    def _render(self) -> None:
        options = [(g.label, g.id) for g in self._picker_order()]
        picker = self.group_field.input
        current = picker.value
        picker.options = options
        if current in self.model.groups:
            picker.value = current
        elif options:
            picker.value = options[0][1]
        self.groups_table.show(self._filtered())
        self._show_selected()
        if self.model.objections:
            self.objections_table.show(self._objections_with_fixes())

    def _picker_order(self) -> list[GroupInfo]:
        return sorted(
            self.model.groups.values(),
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
        if self.model.objections_group is not None and self.model.objections_group != gid:
            self.model.forget_objections()
        group = self.model.groups.get(gid) if gid is not None else None
        self.group_field.clear()
        self.group_field.hint(self._describe(group) if group else "")
        self.forms.render_edit()
        self.forms.members_changed()

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
        if not g.may_manage and self.session.role != 600:
            # why, in view: the two settings that would let one manage it
            own = self.model.directory.raw_groups.get(g.id, {}).get("can_manage_group")
            may += (
                f": neither its “Who can administer this group” ({self.model.value_words(own)}) "
                "nor the organization's “Who can administer all user groups” "
                f"({self.model.manage_all_words()}) includes you"
            )
        return f"{state}, {members}, {uses}; {may}."

    def _objections_with_fixes(self) -> pd.DataFrame:
        """The objections as the server listed them, numbered with the fix each offers."""
        table = self.objections_frame(self.model.objections)
        fixes = self.fixes_frame()
        if len(fixes) == len(table):
            return fixes
        return table

    def ask_deactivate(self) -> None:
        """Check the picked group and ask for confirmation before deactivating it."""
        gid = self._selected()
        question = self.model.deactivate_question(gid)
        assert gid is not None  # the question checked it
        self.confirm.ask(question, lambda: self._confirmed(gid), yes="Deactivate")

    def _confirmed(self, group_id: int) -> None:
        self.clear_errors()
        self.guard(lambda: self.deactivate(group_id))
        self.update_controls()

    def _show_objections(self) -> None:
        """The server's objections are known (shown under the buttons) or forgotten (hidden)."""
        if not self.model.objections:
            self.objections_note.value = ""
            self.objections_table.show(frame([], USE_COLUMNS))
            self.objections_box.layout.display = "none"
            return
        self.objections_table.show(self._objections_with_fixes())
        self.forms.render_fixes()
        stamp = datetime.now().strftime("%H:%M:%S")
        # the status line above says what and why; the note only dates the list
        self.objections_note.value = (
            f'<span class="chatops-muted">What the server listed at {stamp}:</span>'
        )
        self.objections_box.layout.display = "flex"

    # -- the forms' actions ------------------------------------------------------------------
    def create_from_form(self) -> int:
        """Create the group the form describes and pick it."""
        return self.forms.create_from_form()

    def save_from_form(self) -> None:
        """Save the name and description in the form for the group picked."""
        self.forms.save_from_form()

    def preview_from_form(self) -> None:
        """Preview the members or subgroups in the form, for the group picked."""
        self.forms.preview_from_form()

    def apply_from_form(self) -> None:
        """Send what the preview of the form allows."""
        self.forms.apply_from_form()

    def preview_upload(self) -> None:
        """Preview the uploaded file's entries."""
        self.forms.preview_upload()

    def set_from_form(self) -> None:
        """Set the permission chosen in the form for the group picked."""
        self.forms.set_from_form()

    def ask_fix(self) -> None:
        """Say what the fix picked will do and apply it when confirmed."""
        self.forms.ask_fix()

    # -- what the model does as it is ---------------------------------------------------------
    fetch = forwarded(GroupsModel.fetch)
    group_id = forwarded(GroupsModel.group_id)
    groups_frame = forwarded(GroupsModel.groups_frame)
    uses_frame = forwarded(GroupsModel.uses_frame)
    objections_frame = forwarded(GroupsModel.objections_frame)
    used_in = staticmethod(GroupsModel.used_in)
    where_used = staticmethod(GroupsModel.where_used)
    what_to_change = staticmethod(GroupsModel.what_to_change)
    deactivate = forwarded(GroupsModel.deactivate)
    reactivate = forwarded(GroupsModel.reactivate)
    may_create = forwarded(GroupsModel.may_create)
    create_group = forwarded(GroupsModel.create_group)
    update_group = forwarded(GroupsModel.update_group)
    members_refusal = forwarded(GroupsModel.members_refusal)
    preview_members = forwarded(GroupsModel.preview_members)
    preview_file = forwarded(GroupsModel.preview_file)
    members_frame = forwarded(GroupsModel.members_frame)
    apply_members = forwarded(GroupsModel.apply_members)
    value_words = forwarded(GroupsModel.value_words)
    permissions_frame = forwarded(GroupsModel.permissions_frame)
    setting_choices = forwarded(GroupsModel.setting_choices)
    set_permission = forwarded(GroupsModel.set_permission)
    setting_options = staticmethod(GroupsModel.setting_options)
    fixes = forwarded(GroupsModel.fixes)
    fixes_frame = forwarded(GroupsModel.fixes_frame)
    replacement_choices = forwarded(GroupsModel.replacement_choices)
    describe_fix = forwarded(GroupsModel.describe_fix)
    fix = forwarded(GroupsModel.fix)
