"""The Channel folders panel (spec 4.6): create, rename, describe, archive, reorder channel folders
and put channels in them. The logic is :class:`~chatops.widgets.channel_folders_model.FoldersModel`;
this module lays it out and binds it.

Only organization administrators may change folders; anyone else sees the lists read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as w
import pandas as pd

from chatops import Channel
from chatops.types import ChannelFolder

from ._base import Confirm, Field, Panel, TableView, forwarded, from_model
from ._controls import markdown_cell
from ._model import plural as _plural
from .channel_folders_model import (
    FOLDERS_FEATURE_LEVEL,
    REORDER_FEATURE_LEVEL,
    FolderPermissionError,
    FoldersModel,
    length_hint,
)

__all__ = ["ChannelFoldersPanel", "FolderPermissionError", "FoldersModel"]


class ChannelFoldersPanel(Panel):
    """Channel folders: the list in the server's order, create, rename, change the description,
    archive and unarchive, move up and down, and assign channels to a folder or take them out.

    Example::

        panel = ChannelFoldersPanel(chatops.Client.from_zuliprc("~/.zuliprc"))
        panel                                   # shows the panel in JupyterLab
        folder_id = panel.create_folder("Engineering", description="Build and ship")
        panel.assign_channels(folder_id, [panel.channel_id("design")])
        panel.move_folder(folder_id, -1)        # one place up
    """

    title = "Channel folders"
    slug = "folders"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._syncing = False
        self.model = FoldersModel(
            self.session, status=self.status, progress=self.progress, changed=self._reload
        )
        self.root.add_class(f"chatops-{self.slug}")

    # the model's state, as the panel shows it
    folders = from_model[list[ChannelFolder]]()
    channels = from_model[list[Channel]]()

    # -- building ---------------------------------------------------------------------------------
    def build(self) -> w.Widget:
        """Make the lists, the create form, the folder actions and the channel assignment."""
        self.folders_table = self.table(
            "Channel folders (in the server's order; archived ones marked)",
            self._load_folders,
            slug="list",
            empty="No channel folders yet.",
            cells={"Description": markdown_cell},
        )
        self.channels_table = self.table(
            "Channels and their folder",
            self._load_channels,
            slug="channels",
            empty="No channels.",
        )
        self.results_table = self.table(
            "Result per channel (last assignment)",
            self.results_frame,
            slug="results",
            empty="No channels assigned or taken out yet.",
            problem=lambda row: str(row["Result"]).startswith(("failed", "not done")),
        )
        # every column of the list stays in view beside the forms: the rows are in the server's
        # order, the date is the creator's tooltip; Export CSV keeps order, date and ID
        self.folders_table.hidden = ("Order", "Created (UTC)", "Folder ID")
        self.folders_table.tips["Created by"] = "Created (UTC)"
        self.folders_table.widget.add_class("chatops-folders-list")
        self.channels_table.widget.add_class("chatops-folders-channel-list")
        self.results_table.widget.add_class("chatops-folders-results")

        create = self._build_create()
        edit = self._build_edit()
        assign = self._build_assign()
        return self.columns(
            [self.folders_table.widget, self.channels_table.widget],
            [
                w.HTML(value='<div class="chatops-section">Create a channel folder</div>'),
                create,
                w.HTML(value='<div class="chatops-section">Change a channel folder</div>'),
                edit,
                w.HTML(value='<div class="chatops-section">Channels in the folder</div>'),
                assign,
            ],
        )

    def _text(self, name: str, label: str, *, area: bool = False, placeholder: str = "") -> Field:
        widget: w.ValueWidget
        if area:
            widget = w.Textarea(
                value="", placeholder=placeholder, layout=w.Layout(width="460px", height="60px")
            )
        else:
            widget = w.Text(value="", placeholder=placeholder, layout=w.Layout(width="460px"))
        widget.add_class(f"chatops-folders-{name.replace('_', '-')}")
        made = self.field(name, widget, label=label)
        self.actions.append(widget)
        return made

    def _button(
        self, description: str, role: str, action: Callable[[], Any], **kw: str
    ) -> w.Button:
        button = self.action_button(description, **kw)
        button.add_class(f"chatops-folders-{role}")
        self.on_click(button, action)
        return button

    def _build_create(self) -> w.Widget:
        self.name_field = self._text("name", "Name", placeholder="e.g. Engineering")
        self.description_field = self._text(
            "description", "Description", area=True, placeholder="optional; Markdown"
        )
        self._live_hint(self.name_field, "name")
        self._live_hint(self.description_field, "description")
        self.watch(self.name_field.input)
        self.create_button = self._button(
            "Create folder", "create", self._on_create, icon="plus", style="success"
        )
        return w.VBox([self.name_field.box, self.description_field.box, self.create_button])

    def _build_edit(self) -> w.Widget:
        picker = w.Dropdown(options=[], value=None, layout=w.Layout(width="460px"))
        picker.add_class("chatops-folders-folder")
        self.folder_field = self.field("folder", picker, label="Folder")
        picker.observe(self._on_pick, "value")
        self.new_name_field = self._text("new_name", "New name")
        self.new_description_field = self._text("new_description", "New description", area=True)
        self._live_hint(self.new_name_field, "name")
        self._live_hint(self.new_description_field, "description")
        self.rename_button = self._button("Rename", "rename", self._on_rename, icon="pencil")
        self.describe_button = self._button(
            "Change description", "describe", self._on_describe, icon="pencil"
        )
        self.archive_button = self._button(
            "Archive…", "archive", self._on_archive, icon="archive", style="warning"
        )
        self.unarchive_button = self._button(
            "Unarchive", "unarchive", self._on_unarchive, icon="undo"
        )
        self.move_up_button = self._button("Move up", "move-up", self._on_move_up, icon="arrow-up")
        self.move_down_button = self._button(
            "Move down", "move-down", self._on_move_down, icon="arrow-down"
        )
        self.watch(picker)
        self.confirm = Confirm()
        self.confirm.widget.add_class("chatops-folders-confirm")
        self.confirm.yes.add_class("chatops-folders-confirm-yes")
        self.confirm.no.add_class("chatops-folders-confirm-no")
        return w.VBox(
            [
                self.folder_field.box,
                w.HBox([self.move_up_button, self.move_down_button]),
                self.new_name_field.box,
                self.rename_button,
                self.new_description_field.box,
                self.describe_button,
                w.HBox([self.archive_button, self.unarchive_button]),
                self.confirm.widget,
            ]
        )

    def _build_assign(self) -> w.Widget:
        select = w.SelectMultiple(options=[], value=(), rows=8, layout=w.Layout(width="460px"))
        select.add_class("chatops-folders-channels")
        self.channels_field = self.field(
            "channels",
            select,
            label="Channels",
            hint="Shown as “name (current folder)”; Ctrl/Shift-click to pick several.",
        )
        self.actions.append(select)
        self.assign_button = self._button(
            "Assign to folder", "assign", self._on_assign, icon="folder-open", style="primary"
        )
        self.take_out_button = self._button(
            "Take out of folder", "take-out", self._on_take_out, icon="sign-out"
        )
        self.watch(select)
        self.move_confirm = Confirm()
        self.move_confirm.widget.add_class("chatops-folders-move-confirm")
        self.move_confirm.yes.add_class("chatops-folders-move-yes")
        for picker in (select, self.folder_field.input):  # it asked about what was picked
            picker.observe(lambda _change: self.move_confirm.cancel(), "value")
        self.outcome_of(self.assign_button, self.move_confirm.widget, self.results_table)
        self.outcome_of(self.take_out_button, self.move_confirm.widget, self.results_table)
        return w.VBox([self.channels_field.box, w.HBox([self.assign_button, self.take_out_button])])

    def _live_hint(self, field: Field, kind: str) -> None:
        def update(_change: Any = None) -> None:
            field.hint(length_hint(str(field.value), self.model.limit(kind)))

        field.input.observe(update, "value")
        update()

    def control_reasons(self) -> list[tuple[w.DOMWidget, str]]:
        """Why each folder control cannot act on the folder and channels picked ("" if it can)."""
        folder = self.model.find(self.folder_field.value)
        pick = "" if folder is not None else "Pick a channel folder first."
        order = [f.id for f in self.folders]
        first = last = archived = active = ""
        if folder is not None:
            at = order.index(folder.id)
            first = f"'{folder.name}' is already the first folder." if at == 0 else ""
            last = f"'{folder.name}' is already the last folder." if at == len(order) - 1 else ""
            archived = f"'{folder.name}' is archived." if folder.is_archived else ""
            held = self.model.active_count(folder.id)
            if held:
                active = (
                    f"'{folder.name}' holds {_plural(held, 'active channel')}; take them out "
                    "first: only an empty folder can be archived."
                )
        channels = "" if self.channels_field.value else "Pick at least one channel."
        level = self.session.capabilities.feature_level
        reorder = (
            f"This server (feature level {level}) cannot reorder channel folders."
            if level < REORDER_FEATURE_LEVEL
            else ""
        )
        return [
            (self.create_button, "" if str(self.name_field.value).strip() else "Type a name."),
            (self.rename_button, pick or archived),
            (self.describe_button, pick),
            (self.archive_button, pick or archived or active),
            (
                self.unarchive_button,
                pick or ("" if folder is not None and folder.is_archived else "Not archived."),
            ),
            (self.move_up_button, pick or reorder or first),
            (self.move_down_button, pick or reorder or last),
            (self.assign_button, pick or archived or channels),
            (self.take_out_button, pick or channels),
        ]

    # -- permission -------------------------------------------------------------------------------
    def missing_permission(self) -> str | None:
        """Why the acting account may not change channel folders, or None when it may."""
        return self.model.read_only_reason

    # -- reading ----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fetch the folders and channels again and show them."""
        if self.session.capabilities.feature_level < FOLDERS_FEATURE_LEVEL:
            self.status.info("This server has no channel folders.")
            return
        self.folders_table.refresh()

    def _load_folders(self) -> pd.DataFrame:
        self.model.fetch()
        self._sync_pickers()
        self.channels_table.show(self.model.channels_frame())
        return self.model.folders_frame()

    def _load_channels(self) -> pd.DataFrame:
        self.model.fetch()
        self._sync_pickers()
        self.folders_table.show(self.model.folders_frame())
        return self.model.channels_frame()

    def _reload(self) -> None:
        self.folders_table.refresh()

    def _sync_pickers(self) -> None:
        picked = self.folder_field.value
        options = []
        for folder in self.folders:
            state = (
                "archived"
                if folder.is_archived
                else _plural(self.model.active_count(folder.id), "channel")
            )
            options.append((f"{folder.name} · {state}", folder.id))
        ids = [folder_id for _label, folder_id in options]
        # New options reset the Dropdown's value; that must not overwrite what the admin typed.
        self._syncing = True
        try:
            self.folder_field.input.options = options
            self.folder_field.value = picked if picked in ids else (ids[0] if ids else None)
        finally:
            self._syncing = False
        if self.folder_field.value != picked:
            self._prefill(self.folder_field.value)

        chosen = set(self.channels_field.value)
        active = sorted(
            (c for c in self.channels if not c.is_archived), key=lambda c: c.name.lower()
        )
        self.channels_field.input.options = [
            (f"{c.name} ({self.model.folder_name(c.folder_id)})", c.stream_id) for c in active
        ]
        self.channels_field.value = tuple(c.stream_id for c in active if c.stream_id in chosen)

    def _on_pick(self, change: dict[str, Any]) -> None:
        if not self._syncing:
            self._prefill(change["new"])

    def _prefill(self, folder_id: Any) -> None:
        folder = self.model.find(folder_id)
        if folder is not None:
            self.new_name_field.value = folder.name
            self.new_description_field.value = folder.description

    # -- what the model does as it is ---------------------------------------------------------------
    folders_frame = forwarded(FoldersModel.folders_frame)
    channels_frame = forwarded(FoldersModel.channels_frame)
    results_frame = forwarded(FoldersModel.results_frame)
    channel_id = forwarded(FoldersModel.channel_id)
    rename_folder = forwarded(FoldersModel.rename_folder)
    change_description = forwarded(FoldersModel.change_description)
    archive_folder = forwarded(FoldersModel.archive_folder)
    unarchive_folder = forwarded(FoldersModel.unarchive_folder)
    move_folder = forwarded(FoldersModel.move_folder)

    # -- actions: the model acts, the panel shows ---------------------------------------------------
    def create_folder(self, name: str, *, description: str = "") -> int:
        """Create a channel folder; returns its ID. The description may be empty."""
        folder_id = self.model.create_folder(name, description=description)
        self.folder_field.value = folder_id
        return folder_id

    def ask_archive(self, folder_id: int) -> str:
        """Check that the folder can be archived and ask for confirmation; returns the question."""
        question = self.model.archive_question(folder_id)
        folder = self.model.picked(folder_id)
        self.confirm.ask(
            question, lambda: self._answered(lambda: self.archive_folder(folder.id)), yes="Archive"
        )
        return question

    def _answered(self, action: Callable[[], Any]) -> None:
        self.clear_errors()
        self.guard(action)
        self.update_controls()

    def assign_channels(self, folder_id: int, channel_ids: Sequence[int]) -> pd.DataFrame:
        """Put the channels in the folder, one at a time; returns the result per channel."""
        try:
            return self.model.assign_channels(folder_id, channel_ids)
        finally:
            self.results_table.show(self.model.results_frame())

    def take_out_channels(self, folder_id: int, channel_ids: Sequence[int]) -> pd.DataFrame:
        """Take the channels out of the folder (they are then in no folder); result per channel."""
        try:
            return self.model.take_out_channels(folder_id, channel_ids)
        finally:
            self.results_table.show(self.model.results_frame())

    # -- callbacks: read the widgets, call the methods --------------------------------------------
    def _on_create(self) -> None:
        self.create_folder(self.name_field.value, description=self.description_field.value)
        self.name_field.value = ""
        self.description_field.value = ""

    def _on_rename(self) -> None:
        self.rename_folder(self.folder_field.value, self.new_name_field.value)

    def _on_describe(self) -> None:
        self.change_description(self.folder_field.value, self.new_description_field.value)

    def _on_archive(self) -> None:
        self.ask_archive(self.folder_field.value)

    def _on_unarchive(self) -> None:
        self.unarchive_folder(self.folder_field.value)

    def _on_move_up(self) -> None:
        self.move_folder(self.folder_field.value, -1)

    def _on_move_down(self) -> None:
        self.move_folder(self.folder_field.value, +1)

    def _on_assign(self) -> None:
        self.ask_move(assign=True)

    def _on_take_out(self) -> None:
        self.ask_move(assign=False)

    def ask_move(self, *, assign: bool) -> str:
        """Ask before putting the channels picked in the folder picked (or taking them out),
        listing where each is now and where it goes; Yes moves them. Returns the question."""
        folder_id, picked = self.folder_field.value, tuple(self.channels_field.value)
        question, items = self.model.describe_move(folder_id, picked, assign=assign)
        move = self.assign_channels if assign else self.take_out_channels

        def confirmed() -> None:
            self.clear_errors()
            self.run_long(lambda: move(folder_id, picked))

        yes = "Put them in" if assign else "Take them out"
        self.move_confirm.ask(question, confirmed, yes=yes, items=items)
        return question

    @property
    def tables(self) -> tuple[TableView, ...]:
        """The panel's lists: folders, results of the last assignment, channels."""
        return (self.folders_table, self.results_table, self.channels_table)
