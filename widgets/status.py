"""The Status panel: set or clear the status of many users at once (spec 4.7). The logic is
:class:`~chatops.widgets.status_model.StatusModel`; this module lays it out and binds it.

The admin chooses users four ways that add up to one list: by user group (members of its
subgroups included), by role, from an uploaded CSV file of emails or user IDs, or by name. Bots
and deactivated users never get a status here; the panel says which ones it left out. The new
status is a text of at most 60 characters (counted as the admin types) and an emoji from the
organization's custom emoji or the Unicode emoji, checked before anything is sent. A preview
shows each user's current and new status; Apply and Clear then send one request per user (the
API has no bulk call), with a progress bar that can be cancelled between users and a result per
user.

Emoji names follow the server's three namespaces in its order: the organization's custom emoji
first, then the service's extra emoji (``zulip``), then Unicode emoji by name. A Unicode emoji's
code is the dash-separated lowercase hex of its codepoints without the variation selector
U+FE0F, as the server expects.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from chatops import Client, User

from ._base import (
    ROLE_NAMES,
    Confirm,
    FieldError,
    Panel,
    Session,
    escape,
    forwarded,
    frame,
    from_model,
)
from ._model import plural as _plural
from ._model import undo_counts, undo_words
from .status_model import (
    CSV_HINT,
    EXTRA,
    MAX_STATUS_TEXT,
    PREVIEW_COLUMNS,
    REALM,
    UNICODE,
    NewStatus,
    StatusModel,
    _normalise_emoji,
    unicode_emoji,
)

__all__ = ["MAX_STATUS_TEXT", "NewStatus", "StatusModel", "StatusPanel", "unicode_emoji"]


class StatusPanel(Panel):
    """Set or clear the status of many users: choose users, type the status, preview, apply.

    Example::

        panel = StatusPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                   # in JupyterLab: the panel
        panel.roles.value = (600,)              # all guests ...
        panel.status_text.value = "Onboarding week"
        panel.emoji.value = "wave"
        panel.preview()                         # each guest's current and new status
        panel.apply()                           # one request per guest, with progress

    The logic is :attr:`model`; the choices and the status typed reach it as they change.
    """

    title = "Status"
    slug = "status"

    def __init__(
        self,
        client: Client | Session,
        *,
        background: bool | None = None,
        export_dir: str | Path = "exports",
    ) -> None:
        super().__init__(client, background=background, export_dir=export_dir)
        self._quiet = False
        #: what the line under the emoji says: the emoji picked, or why the name is unknown
        self.emoji_hint = ""
        self.model = StatusModel(
            self.session,
            status=self.status,
            progress=self.progress,
            targets_changed=self._show_left_out,
            csv_changed=self._shown_csv,
            previewed=lambda shown: self.preview_table.show(shown),
            applied=self._applied,
        )

    # the model's state, as the panel shows it
    csv_user_ids = from_model[list[int]]()
    csv_name = from_model[str]()
    csv_summary = from_model[str]()
    left_out = from_model[list[tuple[User, str]]]()
    chosen_group = from_model[int | None]()
    chosen_roles = from_model[tuple[int, ...]]()
    chosen_users = from_model[tuple[int, ...]]()
    typed_text = from_model[str]()
    typed_emoji = from_model[str]()

    def _shown_csv(self) -> None:
        self.csv_table.show(self.model.csv_problems)
        self.csv_field.hint(self.csv_summary or CSV_HINT)
        if not self.csv_name:
            self.csv_field.clear()

    def _applied(self) -> None:
        self.results_table.show(self.model.results)
        self.guard(self.show_targets)

    def missing_permission(self) -> str | None:
        return self.model.missing_permission()

    # -- building ---------------------------------------------------------------------------------
    def build(self) -> w.Widget:
        choose = self._build_choosers()
        typed = self._build_status()
        self._wire()
        body = self.columns(
            [w.HTML(value='<div class="chatops-section">1. Choose users</div>'), *choose],
            [w.HTML(value='<div class="chatops-section">2. New status</div>'), *typed],
        )
        body.add_class("chatops-status")
        return body

    def _build_choosers(self) -> list[w.Widget]:
        self.group = w.Dropdown(options=[("(no group)", None)], value=None)
        self.group.add_class("chatops-status-group")
        self.roles = w.SelectMultiple(
            options=[(name, role) for role, name in ROLE_NAMES.items()], rows=5
        )
        self.roles.add_class("chatops-status-roles")
        self.upload = w.FileUpload(accept=".csv,.txt", multiple=False, description="CSV file")
        self.upload.add_class("chatops-status-csv")
        self.forget_csv_button = w.Button(description="Forget file", icon="times")
        self.forget_csv_button.add_class("chatops-status-csv-forget")
        self.users = w.SelectMultiple(options=[], rows=8, layout=w.Layout(width="420px"))
        self.users.add_class("chatops-status-users")
        self.reset_choices_button = w.Button(description="Choose nobody", icon="eraser")
        self.reset_choices_button.add_class("chatops-status-reset-choices")
        group_field = self.field(
            "group", self.group, label="By user group", hint="Members of its subgroups too."
        )
        roles_field = self.field(
            "roles", self.roles, label="By role", hint="Ctrl/Cmd-click to choose several."
        )
        self.csv_field = self.field("csv", self.upload, label="From a CSV file", hint=CSV_HINT)
        users_field = self.field(
            "users", self.users, label="By name", hint="Ctrl/Cmd-click to choose several."
        )
        self.left_out_note = w.HTML(value="")
        self.left_out_note.add_class("chatops-status-left-out")
        self.targets_table = self.table(
            "Chosen users",
            self._load_targets,
            slug="users",
            empty="No users chosen yet: choose a group, roles, a CSV file or names above.",
        )
        self.targets_table.widget.add_class("chatops-status-targets")
        self.csv_table = self.table(
            "CSV rows not used",
            lambda: self.model.csv_problems,
            slug="csv-problems",
            empty="No CSV file rows left unused.",
        )
        self.csv_table.widget.add_class("chatops-status-csv-problems")
        return [
            group_field.box,
            roles_field.box,
            w.HBox([self.csv_field.box, self.forget_csv_button]),
            users_field.box,
            w.HBox([self.reset_choices_button, self.left_out_note]),
            self.targets_table.widget,
            self.csv_table.widget,
        ]

    def _build_status(self) -> list[w.Widget]:
        self.status_text = w.Text(placeholder="e.g. On vacation", layout=w.Layout(width="420px"))
        self.status_text.add_class("chatops-status-text")
        self.text_count = w.HTML(value="")
        self.text_count.add_class("chatops-status-count")
        text_field = self.field(
            "status_text",
            self.status_text,
            label="Status text",
            hint=f"At most {MAX_STATUS_TEXT} characters; spaces at either end do not count.",
        )
        self.emoji = w.Combobox(
            options=[],
            placeholder="e.g. palm_tree, or empty for no emoji",
            ensure_option=False,
            layout=w.Layout(width="420px"),
        )
        self.emoji.add_class("chatops-status-emoji")
        self.emoji_field = self.field(
            "emoji", self.emoji, label="Emoji", hint="Custom or Unicode emoji name; empty: none."
        )
        self.preview_button = w.Button(description="Preview", icon="eye")
        self.preview_button.add_class("chatops-status-preview")
        self.apply_button = self.action_button("Apply status", icon="check", style="primary")
        self.apply_button.add_class("chatops-status-apply")
        self.clear_button = self.action_button("Clear status", icon="eraser", style="danger")
        self.clear_button.add_class("chatops-status-clear")
        self.restore_button = self.action_button(
            "Restore previous statuses…", icon="undo", style=""
        )
        self.restore_button.add_class("chatops-status-restore")
        self.confirm = Confirm()
        self.confirm.widget.add_class("chatops-status-confirm")
        self.actions.append(self.confirm.yes)
        self.preview_table = self.table(
            "Preview: current and new status",
            self._load_preview,
            slug="preview",
            empty="Click Preview (or Apply) to see each user's current and new status.",
        )
        self.preview_table.widget.add_class("chatops-status-preview-table")
        self.results_table = self.table(
            "Results",
            lambda: self.model.results,
            slug="results",
            empty="Nothing applied yet.",
            problem=lambda row: row["result"] not in ("set", "cleared", "unchanged"),
        )
        self.results_table.widget.add_class("chatops-status-results")
        for table in (self.targets_table, self.preview_table, self.results_table):
            table.whole_words("email")
        # beside the form, the preview and results show each person by name, the address as
        # its tooltip (Export CSV keeps it): every column stays in view
        for table in (self.preview_table, self.results_table):
            table.hidden = ("email",)
            table.tips["name"] = "email"
        return [
            w.HBox([text_field.box, self.text_count]),
            self.emoji_field.box,
            w.HBox([self.preview_button, self.apply_button, self.clear_button]),
            self.restore_button,
        ]

    def _wire(self) -> None:
        """Callbacks only read widgets and call public methods under guard."""
        # the model follows the choices and the status typed (quiet changes too), before the
        # panel reacts to them
        for chooser, name in (
            (self.group, "chosen_group"),
            (self.roles, "chosen_roles"),
            (self.users, "chosen_users"),
            (self.status_text, "typed_text"),
            (self.emoji, "typed_emoji"),
        ):
            chooser.observe(lambda change, name=name: self._follow(name, change["new"]), "value")
        for chooser in (self.group, self.roles, self.users):
            chooser.observe(self._on_choice, "value")
        self.upload.observe(self._on_upload, "value")
        self.forget_csv_button.on_click(lambda _b: self.guard(self.forget_csv))
        self.reset_choices_button.on_click(lambda _b: self.guard(self.choose_nobody))
        self.status_text.observe(self._on_status_input, "value")
        self.emoji.observe(self._on_status_input, "value")
        self.on_click(self.preview_button, self.preview)
        self.on_click(self.apply_button, self._ask_apply)
        self.on_click(self.clear_button, self._ask_clear)
        self.on_click(self.restore_button, self.ask_restore)
        self._show_count()
        self.outcome_of(self.preview_button, self.preview_table)
        self.outcome_of(
            self.apply_button, self.confirm.widget, self.preview_table, self.results_table
        )
        self.outcome_of(
            self.clear_button, self.confirm.widget, self.preview_table, self.results_table
        )
        self.outcome_of(self.restore_button, self.confirm.widget)

    def _follow(self, name: str, value: Any) -> None:
        if name in ("chosen_roles", "chosen_users"):
            value = tuple(value)
        elif name in ("typed_text", "typed_emoji"):
            value = str(value)
        setattr(self.model, name, value)

    # -- refreshing -------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fetch users, user groups and custom emoji again, and the chosen users' statuses."""
        self.fetch()
        self._quiet = True
        try:
            self._fill_choices()
        finally:
            self._quiet = False
        self.targets_table.refresh()
        self._show_emoji_hint()

    def _fill_choices(self) -> None:
        group, roles, picked = self.group.value, self.roles.value, self.users.value
        people = self.model.people()
        groups = [g for g in self.session.groups if not g.deactivated]
        groups.sort(key=lambda g: (g.is_system_group, g.name.casefold()))
        options: list[tuple[str, int | None]] = [("(no group)", None)]
        for g in groups:
            reached = len(self.session.group_members(g.id) & people)
            system = ", system group" if g.is_system_group else ""
            options.append((f"{g.name} ({_plural(reached, 'user')}{system})", g.id))
        self.group.options = options
        self.group.value = group if group in {gid for _, gid in options} else None
        email = self.model.email_of
        humans = sorted(
            (self.model.users[uid] for uid in people),
            key=lambda u: (u.full_name.casefold(), email(u)),
        )
        self.users.options = [(f"{u.full_name} <{email(u)}>", u.user_id) for u in humans]
        self.users.value = tuple(uid for uid in picked if uid in people)
        self.roles.value = roles
        self.emoji.options = self.model.emoji_names()

    def _show_left_out(self, count: int) -> None:
        bots = [u.full_name for u, why in self.left_out if why == "bot"]
        gone = [u.full_name for u, why in self.left_out if why == "deactivated"]
        parts = [f"<b>{_plural(count, 'user')} chosen.</b>"]
        if bots:
            parts.append(f"Left out {_plural(len(bots), 'bot')}: {escape(', '.join(bots))}.")
        if gone:
            names = escape(", ".join(gone))
            parts.append(f"Left out {_plural(len(gone), 'deactivated user')}: {names}.")
        parts.append(
            '<span class="chatops-muted">Bots and deactivated users never get a status here.</span>'
        )
        self.left_out_note.value = "&nbsp;" + " ".join(parts)

    def _load_targets(self) -> pd.DataFrame:
        # Refresh fetches the statuses again: someone may have changed theirs meanwhile.
        self.model.forget_statuses()
        return self.targets_frame()

    def show_targets(self) -> None:
        """Show the chosen users (statuses already fetched are not fetched again)."""
        self.targets_table.show(self.targets_frame())

    def choose_nobody(self) -> None:
        """Reset the four choices."""
        self._quiet = True
        try:
            self.group.value = None
            self.roles.value = ()
            self.users.value = ()
            self.model.forget_csv()
        finally:
            self._quiet = False
        self._inputs_changed()
        self.show_targets()

    def forget_csv(self) -> None:
        """Stop choosing the users of the uploaded CSV file."""
        self.model.forget_csv()
        self._inputs_changed()
        self.show_targets()

    def read_csv(self, data: bytes, name: str = "the file") -> list[int]:
        """Choose the users an uploaded CSV file names (emails or user IDs); returns their IDs."""
        found = self.model.read_csv(data, name)
        self._inputs_changed()
        self.show_targets()
        return found

    @property
    def text_count_text(self) -> str:
        """The live count shown beside the status text, e.g. ``23 / 60``."""
        return f"{self.text_length(self.status_text.value)} / {MAX_STATUS_TEXT}"

    @property
    def text_over_limit(self) -> bool:
        return self.text_length(self.status_text.value) > MAX_STATUS_TEXT

    def _show_count(self) -> None:
        over = self.text_over_limit
        css = "chatops-field-error" if over else "chatops-field-hint"
        extra = " characters: too long" if over else " characters"
        self.text_count.value = f'&nbsp;<span class="{css}">{self.text_count_text}{extra}</span>'

    def _show_emoji_hint(self) -> None:
        value = self.emoji.value
        if not _normalise_emoji(value):
            self.emoji_hint = "No emoji."
        else:
            try:
                picked = self.resolve_emoji(value)
            except FieldError as exc:
                self.emoji_hint = exc.message
            else:
                kinds = {REALM: "custom emoji", EXTRA: "extra emoji", UNICODE: "Unicode emoji"}
                self.emoji_hint = f"{picked.describe()} {kinds[picked.reaction_type]}"
        self.emoji_field.hint(self.emoji_hint)

    def _load_preview(self) -> pd.DataFrame:
        self.model.forget_statuses(self.target_ids())
        return self.preview(clear=self.model.previewed_clear)

    # -- callbacks --------------------------------------------------------------------------------
    def _on_choice(self, _change: dict[str, Any]) -> None:
        if self._quiet:
            return
        self._inputs_changed()
        self.guard(self.show_targets)

    def _on_upload(self, change: dict[str, Any]) -> None:
        files = change["new"]
        if not files:
            return
        upload = files[0]
        content = bytes(upload["content"])
        name = str(upload.get("name") or "the file")
        self.csv_field.clear()
        self.guard(lambda: self.read_csv(content, name))
        # Emptied so that choosing the same file again (after editing it) reads it again.
        self.upload.value = ()

    def _on_status_input(self, _change: dict[str, Any]) -> None:
        self._show_count()
        self._show_emoji_hint()
        self._inputs_changed()

    def _inputs_changed(self) -> None:
        # A pending question was about other users or another status: ask again.
        if self.confirm.pending:
            self.confirm.no.click()
        if not self.preview_table.frame.empty:
            self.preview_table.show(frame([], PREVIEW_COLUMNS))

    def _ask_apply(self) -> None:
        new = self.new_status()
        shown = self.preview()
        ids = self.target_ids()
        replaced = shown[shown["change"] == "replaced"]
        note = f" It replaces the status {len(replaced)} of them have now:" if len(replaced) else ""
        self.confirm.ask(
            f"Set the status “{new.describe()}” for {_plural(len(ids), 'user')}?{note}",
            lambda: self.run_long(lambda: self.model.update(ids, new)),
            yes="Apply status",
            items=[f"{r['name']}: {r['current status']}" for _, r in replaced.iterrows()],
        )

    def _ask_clear(self) -> None:
        shown = self.preview(clear=True)
        ids = self.target_ids()
        removed = shown[shown["change"] == "removed"]
        self.confirm.ask(
            f"Remove the status of {_plural(len(ids), 'user')}?"
            + (f" {len(removed)} of them have one now:" if len(removed) else ""),
            lambda: self.run_long(lambda: self.model.update(ids, NewStatus())),
            yes="Clear status",
            items=[f"{r['name']}: {r['current status']}" for _, r in removed.iterrows()],
        )

    def ask_restore(self) -> str:
        """Ask to put back the statuses the panel's last Apply or Clear replaced, listing each
        person with the status they get back; Yes restores them (a status someone changed
        since is left as it is). Returns the question."""
        changes = self.session.changes
        action = changes.last_action(f"{self.title}: ")
        if action is None:
            self.status.info("Nothing to restore: no status was set or cleared here yet.")
            return ""
        items, _cannot = changes.undo_preview(action)
        question = (
            f"Restore the previous status of {_plural(len(items), 'user')} "
            f"(before “{changes.label(action).removeprefix(self.title + ': ')}”)?"
        )
        self.confirm.ask(
            question,
            lambda: self.run_long(lambda: self._restore(action)),
            yes="Restore",
            items=[undo_words(i) for i in items],
        )
        return question

    def _restore(self, action: int) -> None:
        tally = self.session.changes.undo_action(action)
        done, left = undo_counts(tally)
        text = f"Restored the previous status of {_plural(done, 'user')}"
        if left:
            self.status.error(f"{text}; {left} left as they are (changed since, or refused).")
        else:
            self.status.ok(text + ".")
        self.refresh()

    # -- the model's choosing, checks and actions, as they are -----------------------------------
    fetch = forwarded(StatusModel.fetch)
    why_not = forwarded(StatusModel.why_not)
    users_in_group = forwarded(StatusModel.users_in_group)
    users_with_roles = forwarded(StatusModel.users_with_roles)
    chosen_user_ids = forwarded(StatusModel.chosen_user_ids)
    targets = forwarded(StatusModel.targets)
    target_ids = forwarded(StatusModel.target_ids)
    current_status = forwarded(StatusModel.current_status)
    targets_frame = forwarded(StatusModel.targets_frame)
    text_length = staticmethod(StatusModel.text_length)
    resolve_emoji = forwarded(StatusModel.resolve_emoji)
    new_status = forwarded(StatusModel.new_status)
    preview = forwarded(StatusModel.preview)
    apply = forwarded(StatusModel.apply)
    clear = forwarded(StatusModel.clear)
