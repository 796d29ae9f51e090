"""The forms of the User groups panel that change groups: a new group, name and description,
members and subgroups in bulk (previewed), the group's own permission settings, and the fix
offered for each objection. The logic is the groups model's editor and objection fixer
(:mod:`~chatops.widgets.user_groups_edit`, :mod:`~chatops.widgets.user_groups_fix`); this
module lays it out and binds it, for the panel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import ipywidgets as w

from ._base import Confirm, FieldError, Panel, frame
from ._controls import WhoPicker, setting_cell
from ._model import plural as _plural
from ._who import Pick
from .user_groups_lists import MEMBER_COLUMNS, WILL_ADD, WILL_REMOVE
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
        invite: Callable[[list[str], int], bool] = lambda _addresses, _group: False,
    ) -> None:
        self.panel = panel
        self.model = model
        self.group_pick = picker
        self._selected = selected
        self.deactivate_button = deactivate_button
        self._invite = invite
        self._invite_from = ""  # the form whose list named the addresses not found
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
        self.skip_unknown = w.Checkbox(
            value=False, description="Skip those not found", indent=False
        )
        self.skip_unknown.add_class("chatops-groups-skip-unknown")
        self.create_button = self.panel.action_button("Create group", icon="plus", style="primary")
        self.create_button.add_class("chatops-groups-create")
        self.panel.on_click(self.create_button, self.create_from_form)
        self.invite_new_button = self._invite_button("new")
        return [
            _section("New group"),
            self.new_name.box,
            self.new_description.box,
            self.new_members.box,
            self.skip_unknown,
            self.create_button,
            self.invite_new_button,
        ]

    def _invite_button(self, where: str) -> w.Button:
        """“Invite those not found…”: shown when a list named addresses nobody here has."""
        button = w.Button(
            description="Invite those not found…", icon="envelope", layout=w.Layout(width="auto")
        )
        button.add_class(f"chatops-groups-invite-{where}")
        button.layout.display = "none"
        button.on_click(lambda _b: self.panel.guard(self.invite_not_found))
        return button

    def show_invite(self) -> None:
        """Offer to invite the addresses the last list named that nobody here has (under the
        form the list came from), once the group they are for exists."""
        addresses, gid = self.model.editor.not_found
        for button in (self.invite_new_button, self.invite_members_button):
            button.layout.display = "none"
        if not addresses or gid is None:
            return
        button = (
            self.invite_new_button if self._invite_from == "new" else self.invite_members_button
        )
        button.description = f"Invite {_plural(len(addresses), 'address', 'addresses')} not found…"
        button.tooltip = ", ".join(addresses)
        button.layout.display = None

    def invite_not_found(self) -> list[str]:
        """Open the console's Invitations with the addresses nobody here has, to join the
        group when they accept; returns them."""
        addresses, gid = self.model.editor.not_found
        if not addresses or gid is None:
            raise FieldError("members", "No address in the last list is missing here.")
        if not self._invite(addresses, gid):
            raise FieldError(
                "members",
                "Invite them from the Invitations panel: " + ", ".join(addresses) + ".",
            )
        return addresses

    def create_from_form(self) -> int:
        """Create the group the form describes and pick it."""
        gid = self.model.create_group(
            str(self.new_name.value),
            description=str(self.new_description.value),
            members=str(self.new_members.value),
            skip_unknown=bool(self.skip_unknown.value),
        )
        self._invite_from = "new"
        for made in (self.new_name, self.new_description, self.new_members):
            made.value = ""
        self.group_pick.value = gid
        self.show_invite()
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
        #: the file the last preview read (its name and content), until the list is typed in
        self.uploaded: tuple[str, bytes] | None = None
        self.entries.input.observe(lambda _change: self._typed(), "value")
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
        self.add_or_remove.observe(lambda _change: self.members_changed(), "value")
        self.members_preview_button = w.Button(description="Preview", icon="search")
        self.members_preview_button.add_class("chatops-groups-members-preview")
        self.panel.on_click(self.members_preview_button, self.preview_from_form)
        self.members_apply_button = self.panel.action_button("Apply", icon="check", style="primary")
        self.members_apply_button.add_class("chatops-groups-members-apply")
        self.invite_members_button = self._invite_button("members")
        self.panel.on_click(self.members_apply_button, self.ask_apply)
        self.members_confirm = Confirm()
        self.members_confirm.widget.add_class("chatops-groups-members-confirm")
        self.members_confirm.yes.add_class("chatops-groups-members-yes")
        self.panel.outcome_of(self.members_apply_button, self.members_confirm.widget)
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
        self.who_picker = WhoPicker()
        value = self.who_picker.input
        self.setting_value = self.panel.field(
            "setting_value",
            value,
            label="Who",
            hint="Groups and people; Ctrl or Shift to choose several. What it names now is "
            "selected.",
        )
        value.add_class("chatops-groups-setting-value")
        self.set_button = self.panel.action_button("Set", icon="check")
        self.set_button.add_class("chatops-groups-set-permission")
        self.panel.on_click(self.set_button, self.ask_set)
        self.set_confirm = Confirm()
        self.set_confirm.widget.add_class("chatops-groups-set-confirm")
        self.set_confirm.yes.add_class("chatops-groups-set-yes")
        self.panel.outcome_of(self.set_button, self.set_confirm.widget)
        for picker in (setting, value):  # the question was about the setting and value shown
            picker.observe(lambda _change: self.set_confirm.cancel(), "value")
        setting.observe(lambda _change: self.panel.guard(self.show_current_value), "value")
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
            self.invite_members_button,
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
        self.show_current_value()
        self.render_fixes()

    def show_current_value(self) -> None:
        """Offer what the setting may name (groups and people, as the server allows) with
        what it names now selected: never the last choice made."""
        gid = self._selected()
        setting = str(self.setting_field.value)
        options, current = self.model.setting_picks(gid, setting)
        self.who_picker.show(options, current)
        raw = self.model.directory.raw_groups.get(gid, {}) if gid is not None else {}
        now = f"Now: {self.model.value_words(raw[setting])}. " if setting in raw else ""
        self.setting_value.hint(now + "Groups and people; Ctrl or Shift to choose several.")

    def save_from_form(self) -> None:
        """Save the name and description in the form for the group picked."""
        self.model.update_group(
            self._selected(),
            name=str(self.edit_name.value),
            description=str(self.edit_description.value),
        )

    def members_input(self) -> dict[str, Any]:
        """The list on screen, as the model's preview and apply take it."""
        remove = self.add_or_remove.value == "Remove"
        if self.uploaded is not None:
            return {"file": self.uploaded, "remove": remove}
        return {"text": str(self.entries.value), "remove": remove}

    def members_changed(self) -> None:
        """The group picked or the list changed: a preview made for another is forgotten and
        its table emptied, so that Apply (disabled until the next preview) cannot send it."""
        if self.model.members_previewed(self._selected(), **self.members_input()):
            return
        self.members_confirm.cancel()
        if self.model.member_rows:
            self.model.forget_members_preview()
            self.members_table.show(self.model.members_frame())
        self.invite_members_button.layout.display = "none"  # it offered the old list's
        self.panel.update_controls()

    def _typed(self) -> None:
        self.uploaded = None
        self.members_changed()

    def preview_from_form(self) -> None:
        """Preview the members or subgroups in the form, for the group picked."""
        self.uploaded = None
        self.model.preview_members(
            self._selected(), str(self.entries.value), remove=self.add_or_remove.value == "Remove"
        )
        self.members_table.show(self.model.members_frame())
        self._invite_from = "members"
        self.show_invite()

    def ask_apply(self) -> str:
        """Ask, listing who will be added or removed, before the preview is applied."""
        gid, given = self._selected(), self.members_input()
        if not self.model.members_previewed(gid, **given):
            raise FieldError("members", "Preview first: nothing is sent without a preview.")
        rows = [r for r in self.model.member_rows if r.sent]
        group = self.model.groups[gid] if gid is not None else None
        verb, where = ("Remove", "from") if given["remove"] else ("Add", "to")
        question = (
            f'{verb} {_plural(len(rows), "entry", "entries")} {where} "{group and group.name}"?'
        )
        items = [f"{r.who} (subgroup)" if r.kind == "group" else r.who for r in rows]
        self.members_confirm.ask(
            question, lambda: self._confirmed(self.apply_from_form), yes=verb, items=items
        )
        return question

    def apply_from_form(self) -> None:
        """Send what the preview of the list on screen allows, for the group on screen, and
        empty the list; when the group changed since the preview, show the preview again."""
        try:
            self.model.apply_members(self._selected(), **self.members_input())
        finally:
            self.members_table.show(self.model.members_frame())
        self.uploaded = None
        self.entries.value = ""

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
        name, content = str(upload.get("name") or "the file"), bytes(upload["content"])
        self.model.preview_file(
            self._selected(), content, name, remove=self.add_or_remove.value == "Remove"
        )
        self.uploaded = (name, content)
        self.members_table.show(self.model.members_frame())

    def ask_set(self) -> str:
        """Ask before setting the permission chosen, naming the change; a change that would
        take away your own right to administer the group is named, and needs a second Yes."""
        picks = self.who_picker.value
        if not picks:
            raise FieldError("setting_value", "Pick who the setting should name.")
        gid, setting = self._selected(), str(self.setting_field.value)
        change = self.model.describe_permission(gid, setting, picks)
        why = self.model.lockout(gid, setting, picks)
        if why:
            self.set_confirm.ask(
                "Change this permission? It takes away your right to administer the group.",
                lambda: self.panel.guard(lambda: self._second(gid, setting, picks, why)),
                yes="Continue…",
                items=[change, f"⚠ {why}"],
            )
        else:
            self.set_confirm.ask(
                "Change this permission?",
                lambda: self._confirmed(self.set_from_form),
                yes="Set",
                items=[change],
            )
        return self.set_confirm.question

    def _second(self, gid: int | None, setting: str, picks: Sequence[Pick], why: str) -> None:
        self.set_confirm.ask(
            f"{why} Set it anyway?",
            lambda: self._confirmed(lambda: self.set_from_form(lose_access=True)),
            yes="Set it, and lose access",
            items=[self.model.describe_permission(gid, setting, picks)],
        )

    def _confirmed(self, action: Callable[[], Any]) -> None:
        self.panel.clear_errors()
        self.panel.guard(action)
        self.panel.update_controls()

    def set_from_form(self, *, lose_access: bool = False) -> None:
        """Set the permission chosen in the form for the group picked."""
        picks = self.who_picker.value
        if not picks:
            raise FieldError("setting_value", "Pick who the setting should name.")
        self.model.set_permission(
            self._selected(), str(self.setting_field.value), picks, lose_access=lose_access
        )

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
