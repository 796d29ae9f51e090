"""The Organization panel: the organization's permission settings by the names of Zulip's
“Organization permissions” page, who each names now and whether it includes you; changing one
to groups, people, or both, asked first, with a change that takes a permission away from you
named and confirmed a second time. The logic is
:class:`~chatops.widgets.organization_model.OrganizationModel`.

Only organization administrators may change them; anyone else sees the list read-only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as w

from ._base import Confirm, Panel, forwarded
from ._controls import WhoPicker, setting_cell
from ._model import FieldError
from ._who import Pick
from .organization_model import OrganizationModel

__all__ = ["OrganizationPanel"]


class OrganizationPanel(Panel):
    """The organization's permissions: the list, and a form to change one.

    Example::

        panel = OrganizationPanel(chatops.Client.from_zuliprc("~/.zuliprc")).load()
        panel.settings_frame()                      # who each permission names now
        panel.set_permission("can_create_groups", panel.group_id("role:moderators"))
    """

    title = "Organization"
    slug = "organization"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.model = OrganizationModel(self.session, status=self.status, changed=self.refresh)

    settings_frame = forwarded(OrganizationModel.settings_frame)
    set_permission = forwarded(OrganizationModel.set_permission)
    lockout = forwarded(OrganizationModel.lockout)
    group_id = forwarded(OrganizationModel.group_id)

    def missing_permission(self) -> str | None:
        return self.model.missing_permission()

    def build(self) -> w.Widget:
        self.settings_table = self.table(
            "Organization permissions (as Zulip's “Organization permissions” page names them)",
            lambda: self.model.settings_frame(),
            slug="permissions",
            cells={"Setting": setting_cell},
        )
        self.settings_table.widget.add_class("chatops-organization-permissions")
        setting = w.Dropdown(options=[], layout=w.Layout(width="360px"))
        setting.add_class("chatops-organization-setting")
        self.setting_field = self.field("setting", setting, label="Setting")
        self.picker = WhoPicker()
        self.value_field = self.field(
            "setting_value",
            self.picker.input,
            label="Who",
            hint="Groups and people; Ctrl or Shift to choose several. What it names now is "
            "selected.",
        )
        self.actions += [setting, self.picker.input]
        self.set_button = self.action_button("Set…", icon="check", style="primary")
        self.set_button.add_class("chatops-organization-set")
        self.on_click(self.set_button, self.ask_set)
        self.set_confirm = Confirm()
        self.set_confirm.widget.add_class("chatops-organization-confirm")
        self.set_confirm.yes.add_class("chatops-organization-yes")
        self.outcome_of(self.set_button, self.set_confirm.widget)
        setting.observe(lambda _change: self.guard(self.show_current_value), "value")
        for picker in (setting, self.picker.input):  # the question was about what was shown
            picker.observe(lambda _change: self.set_confirm.cancel(), "value")
        self.expire_on(self.set_button, setting, self.picker.input)
        self.watch(setting, self.picker.input)
        return self.columns(
            [self.settings_table.widget],
            [
                w.HTML(value='<div class="chatops-section">Change a permission</div>'),
                self.setting_field.box,
                self.value_field.box,
                self.set_button,
            ],
        )

    def refresh(self) -> None:
        chosen = self.setting_field.value
        self.model.fetch()
        self.settings_table.refresh()
        options = self.model.setting_options()
        self.setting_field.input.options = options
        names = [name for _label, name in options]
        self.setting_field.value = chosen if chosen in names else (names[0] if names else None)
        self.show_current_value()

    def show_current_value(self) -> None:
        """Offer what the setting chosen may name, with what it names now selected."""
        setting = self.setting_field.value
        if not setting:
            self.picker.show([], ())
            return
        current = self.model.who.picks(self.model.current(setting))
        self.picker.show(self.model.options(setting), current)
        self.value_field.hint(
            f"Now: {self.model.who.words(self.model.current(setting))}. Groups and people; "
            "Ctrl or Shift to choose several."
        )

    def control_reasons(self) -> list[tuple[w.DOMWidget, str]]:
        setting, picks = self.setting_field.value, self.picker.value
        reason = ""
        if not setting:
            reason = "Choose a setting."
        elif not picks:
            reason = "Choose who the setting should name."
        elif set(picks) == set(self.model.who.picks(self.model.current(setting))):
            reason = "That is what the setting names now."
        return [(self.set_button, reason)]

    def ask_set(self) -> str:
        """Ask before changing the permission chosen, naming the change; a change that takes
        the permission away from you is named and needs a second, explicit Yes."""
        setting, picks = self.setting_field.value, self.picker.value
        if not setting:
            raise FieldError("setting", "Choose a setting.")
        change = self.model.describe(setting, picks)
        why = self.model.lockout(setting, picks)
        items = [change] + ([f"⚠ {why}"] if why else [])
        if why:
            self.set_confirm.ask(
                "Change this organization permission? It takes it away from you.",
                lambda: self.guard(lambda: self._second(setting, picks, why)),
                yes="Continue…",
                items=items,
            )
        else:
            self.set_confirm.ask(
                "Change this organization permission?",
                self._then(lambda: self.model.set_permission(setting, picks)),
                yes="Set",
                items=items,
            )
        return self.set_confirm.question

    def _second(self, setting: str, picks: tuple[Pick, ...], why: str) -> None:
        self.set_confirm.ask(
            f"{why} Set it anyway?",
            self._then(lambda: self.model.set_permission(setting, picks, lose_access=True)),
            yes="Set it, and lose it myself",
            items=[self.model.describe(setting, picks)],
        )

    def _then(self, action: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            self.clear_errors()
            self.guard(action)
            self.update_controls()

        return run
