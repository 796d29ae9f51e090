"""The forms of the User groups panel that change groups: a new group, name and description,
members and subgroups in bulk (previewed), the group's own permission settings, and the fix
offered for each objection. The logic is the groups model's editor and objection fixer
(:mod:`~chatops.widgets.user_groups_edit`, :mod:`~chatops.widgets.user_groups_fix`); this
module lays it out and binds it, for the panel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as w

from ._base import Confirm, FieldError, Panel, frame
from ._controls import setting_cell
from .user_groups_edit import MEMBER_COLUMNS, WILL_ADD, WILL_REMOVE
from .user_groups_model import GroupsModel

__all__ = ["GroupForms"]

TEXT = w.Layout(width="360px")


def _section(title: str) -> w.HTML:
    return w.HTML(value=f'<div class="chatops-section">{title}</div>')


class GroupForms:
    """The forms of ``panel`` over ``model``, acting on the group picked in ``picker`` (the
    panel's, as ``selected`` reads it); after a fix deactivates the group, the outcome moves
    under ``deactivate_button``. Made in the panel's :meth:`Panel.build`."""

    def __init__(
        self,
        panel: Panel,
        model: GroupsModel,
        *,
        picker: w.Dropdown,
        selected: Callable[[], int | None],
        deactivate_button: w.Button,
    ) -> None:
        self.panel = panel
        self.model = model
        self.group_pick = picker
        self._selected = selected
        self.deactivate_button = deactivate_button
        self.fix_widgets = self._build_fixes()
        self.create_widgets = self._build_create()
        self.edit_widgets = self._build_edit()

    # -- a new group ------------------------------------------------------------------------
    def _build_create(self) -> list[w.Widget]:
        self.new_name = self.panel.field("new_name", w.Text(layout=TEXT), label="Name")
        self.new_description = self.panel.field(
            "new_description", w.Text(layout=TEXT), label="Description"
        )
        self.new_members = self.panel.field(
            "new_members",
            w.Textarea(
                placeholder="ann@example.org, Bo Li, @*support-team*",
                layout=w.Layout(width="360px", height="60px"),
            ),
            label="Members",
            hint="Emails, full names or groups (as subgroups); one per line or comma-separated.",
        )
        for made, css in (
            (self.new_name, "new-name"),
            (self.new_description, "new-description"),
            (self.new_members, "new-members"),
        ):
            made.input.add_class(f"chatops-groups-{css}")
        self.create_button = self.panel.action_button("Create group", icon="plus", style="primary")
        self.create_button.add_class("chatops-groups-create")
        self.panel.on_click(self.create_button, self.create_from_form)
        return [
            _section("New group"),
            self.new_name.box,
            self.new_description.box,
            self.new_members.box,
            self.create_button,
        ]

    def create_from_form(self) -> int:
        """Create the group the form describes and pick it."""
        gid = self.model.create_group(
            str(self.new_name.value),
            description=str(self.new_description.value),
            members=str(self.new_members.value),
        )
        for made in (self.new_name, self.new_description, self.new_members):
            made.value = ""
        self.group_pick.value = gid
        return gid

    # -- name, description, members, permissions of the group picked ------------------------
    def _build_edit(self) -> list[w.Widget]:
        self.edit_name = self.panel.field("name", w.Text(layout=TEXT), label="Name")
        self.edit_description = self.panel.field(
            "description", w.Text(layout=TEXT), label="Description"
        )
        self.edit_name.input.add_class("chatops-groups-edit-name")
        self.edit_description.input.add_class("chatops-groups-edit-description")
        self.save_button = self.panel.action_button("Save name and description", icon="save")
        self.save_button.add_class("chatops-groups-save")
        self.panel.on_click(self.save_button, self.save_from_form)

        self.entries = self.panel.field(
            "members",
            w.Textarea(
                placeholder="ann@example.org\nBo Li\n@*support-team*",
                layout=w.Layout(width="360px", height="80px"),
            ),
            label="Members or subgroups",
            hint="Emails, full names, @**name** or @*group* mentions, group names; one per line "
            "or comma-separated.",
        )
        self.entries.input.add_class("chatops-groups-entries")
        self.entries_file = self.panel.field(
            "members_file",
            w.FileUpload(accept=".csv,.txt", multiple=False, description="Upload CSV"),
            label="Or a file",
            hint="A CSV with a column named email, member, user, name or group, or a text file.",
        )
        self.entries_file.input.observe(self._on_entries_file, "value")
        self.add_or_remove = w.ToggleButtons(options=["Add", "Remove"], value="Add")
        self.add_or_remove.add_class("chatops-groups-add-or-remove")
        self.panel.watch(self.add_or_remove)  # who may add and who may remove can differ
        self.members_preview_button = w.Button(description="Preview", icon="search")
        self.members_preview_button.add_class("chatops-groups-members-preview")
        self.panel.on_click(self.members_preview_button, self.preview_from_form)
        self.members_apply_button = self.panel.action_button("Apply", icon="check", style="primary")
        self.members_apply_button.add_class("chatops-groups-members-apply")
        self.panel.on_click(self.members_apply_button, self.apply_from_form)
        self.members_table = self.panel.table(
            "Preview of the list",
            lambda: frame([], MEMBER_COLUMNS),
            slug="members-preview",
            empty="Paste or upload a list, then click Preview.",
            problem=lambda row: row.get("outcome") not in (WILL_ADD, WILL_REMOVE),
        )
        self.members_table.widget.add_class("chatops-groups-members-table")
        self.panel.outcome_of(self.members_preview_button, self.members_table)

        self.permissions_table = self.panel.table(
            "The group's own permissions",
            lambda: frame([], ("Setting", "Who now")),
            slug="permissions",
            cells={"Setting": setting_cell},
            empty="A system group has no settings of its own.",
        )
        self.permissions_table.widget.add_class("chatops-groups-permissions")
        setting = w.Dropdown(options=GroupsModel.setting_options(), layout=TEXT)
        self.setting_field = self.panel.field("setting", setting, label="Setting")
        setting.add_class("chatops-groups-setting")
        value = w.Dropdown(options=[], layout=TEXT)
        self.setting_value = self.panel.field("setting_value", value, label="Who")
        value.add_class("chatops-groups-setting-value")
        self.set_button = self.panel.action_button("Set", icon="check")
        self.set_button.add_class("chatops-groups-set-permission")
        self.panel.on_click(self.set_button, self.set_from_form)
        return [
            _section("Name and description"),
            self.edit_name.box,
            self.edit_description.box,
            self.save_button,
            _section("Members and subgroups"),
            self.entries.box,
            self.entries_file.box,
            w.HBox([self.add_or_remove, self.members_preview_button]),
            self.members_apply_button,
            _section("Permissions of the group"),
            self.permissions_table.widget,
            self.setting_field.box,
            self.setting_value.box,
            self.set_button,
        ]

    def render_edit(self) -> None:
        """Fill the forms with the group picked: its name, description and permissions."""
        gid = self._selected()
        group = self.model.groups.get(gid) if gid is not None else None
        self.edit_name.value = group.name if group else ""
        self.edit_description.value = group.description if group else ""
        self.permissions_table.show(self.model.permissions_frame(gid))
        choices = self.model.setting_choices()
        current = self.setting_value.input.value
        self.setting_value.input.options = choices
        if current in dict((v, k) for k, v in choices):
            self.setting_value.input.value = current
        self.render_fixes()

    def save_from_form(self) -> None:
        """Save the name and description in the form for the group picked."""
        self.model.update_group(
            self._selected(),
            name=str(self.edit_name.value),
            description=str(self.edit_description.value),
        )

    def preview_from_form(self) -> None:
        """Preview the members or subgroups in the form, for the group picked."""
        self.model.preview_members(
            self._selected(), str(self.entries.value), remove=self.add_or_remove.value == "Remove"
        )
        self.members_table.show(self.model.members_frame())

    def apply_from_form(self) -> None:
        """Send what the preview allows and empty the list."""
        self.model.apply_members()
        self.entries.value = ""
        self.members_table.show(self.model.members_frame())

    def _on_entries_file(self, change: Mapping[str, Any]) -> None:
        if change["new"]:
            self.panel.clear_errors()
            self.panel.guard(self.preview_upload)

    def preview_upload(self) -> None:
        """Preview the uploaded file's entries."""
        files = tuple(self.entries_file.value)
        if not files:
            raise FieldError("members_file", "Choose a CSV or TXT file first.")
        upload = files[0]
        self.model.preview_file(
            self._selected(),
            bytes(upload["content"]),
            str(upload.get("name") or "the file"),
            remove=self.add_or_remove.value == "Remove",
        )
        self.members_table.show(self.model.members_frame())

    def set_from_form(self) -> None:
        """Set the permission chosen in the form for the group picked."""
        value = self.setting_value.value
        if value is None:
            raise FieldError("setting_value", "Pick who the setting should name.")
        self.model.set_permission(self._selected(), str(self.setting_field.value), int(value))

    # -- objections fixed in place ----------------------------------------------------------
    def _build_fixes(self) -> list[w.Widget]:
        fix = w.Dropdown(options=[], layout=w.Layout(width="520px"))
        fix.add_class("chatops-groups-fix-pick")
        self.fix_field = self.panel.field("fix", fix, label="Fix")
        fix.observe(lambda _change: self._show_replacement(), "value")
        replacement = w.Dropdown(options=[], layout=TEXT)
        replacement.add_class("chatops-groups-replacement")
        self.replacement_field = self.panel.field("replacement", replacement, label="Put instead")
        self.fix_button = self.panel.action_button(
            "Fix and deactivate again…", icon="wrench", style="warning"
        )
        self.fix_button.add_class("chatops-groups-fix")
        self.panel.on_click(self.fix_button, self.ask_fix)
        self.fix_confirm = Confirm()
        self.fix_confirm.widget.add_class("chatops-groups-fix-confirm")
        self.fix_confirm.yes.add_class("chatops-groups-fix-yes")
        self.panel.outcome_of(self.fix_button, self.fix_confirm.widget)
        return [self.fix_field.box, self.replacement_field.box, self.fix_button]

    def render_fixes(self) -> None:
        """Offer a fix for each of the server's objections, and the groups to put instead."""
        fixes = self.model.fixes()
        options = [(f"{n}. {f.label}", n - 1) for n, f in enumerate(fixes, start=1)]
        self.fix_field.input.options = options
        if options:
            self.fix_field.input.value = 0
        choices = self.model.replacement_choices()
        self.replacement_field.input.options = choices
        admins = [gid for label, gid in choices if label == "administrators"]
        if admins:
            self.replacement_field.input.value = admins[0]
        self._show_replacement()

    def _show_replacement(self) -> None:
        index = self.fix_field.value
        fixes = self.model.fixes()
        needs = index is not None and index < len(fixes) and fixes[index].needs_group
        self.replacement_field.box.layout.display = "flex" if needs else "none"

    def ask_fix(self) -> None:
        """Say what the fix picked will do and apply it when confirmed."""
        index = self.fix_field.value
        if index is None:
            raise FieldError("fix", "Pick a fix first.")
        replacement = self.replacement_field.value
        question = self.model.describe_fix(int(index), replacement)
        self.fix_confirm.ask(
            question, lambda: self._fix_confirmed(int(index), replacement), yes="Fix and deactivate"
        )

    def _fix_confirmed(self, index: int, replacement: int | None) -> None:
        self.panel.clear_errors()
        deactivated = self.panel.guard(lambda: self.model.fix(index, replacement))
        if deactivated:
            # the objections, and the fix button's place under them, are hidden now
            self.panel.focus_on(self.deactivate_button)
        self.panel.update_controls()
