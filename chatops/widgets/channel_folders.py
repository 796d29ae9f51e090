"""The Channel folders panel (spec 4.6): create, rename, describe, archive, reorder channel folders
and put channels in them.

Only organization administrators may change folders; anyone else sees the lists read-only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import ipywidgets as w
import pandas as pd

from chatops import ApiError, Channel, ChatopsError
from chatops.types import ChannelFolder

from ._base import Confirm, Field, FieldError, Panel, TableView, describe_error, frame

__all__ = ["ChannelFoldersPanel", "FolderPermissionError"]

#: Channel folders exist from this feature level; their order (and reordering) from the next.
FOLDERS_FEATURE_LEVEL = 389
REORDER_FEATURE_LEVEL = 414

FOLDER_COLUMNS = (
    "Order",
    "Name",
    "Description",
    "Archived",
    "Active channels",
    "Created by",
    "Created (UTC)",
    "Folder ID",
)
CHANNEL_COLUMNS = ("Channel", "Folder", "Private", "Archived", "Channel ID")
RESULT_COLUMNS = ("Channel", "Folder before", "Result")

NO_FOLDER = "no folder"


class FolderPermissionError(ChatopsError):
    """The acting account may not change channel folders (the panel is read-only)."""


@dataclass(frozen=True)
class _Move:
    """One channel of a bulk assignment and what happened to it."""

    channel: str
    before: str
    result: str


def _same_name(a: str, b: str) -> bool:
    """Folder names clash when equal after stripping, ignoring case (as the server compares).

    The server compares case-insensitively over the whole alphabet (``iexact``), so Unicode
    case is folded here too, not only ASCII.
    """
    return a.strip().lower() == b.strip().lower()


def _length_hint(text: str, limit: int | None) -> str:
    if limit is None:
        return f"{len(text)} characters"
    over = len(text) - limit
    extra = f" ({over} too many)" if over > 0 else ""
    return f"{len(text)} / {limit} characters{extra}"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


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
        # build() and refresh() run inside Panel.__init__, so the data they use exists first.
        self.folders: list[ChannelFolder] = []
        self.channels: list[Channel] = []
        self._user_names: dict[int, str] = {}
        self._results: list[_Move] = []
        self._syncing = False
        super().__init__(*args, **kwargs)
        self.root.add_class(f"chatops-{self.slug}")

    # -- building ---------------------------------------------------------------------------------
    def build(self) -> w.Widget:
        """Make the lists, the create form, the folder actions and the channel assignment."""
        self.folders_table = self.table(
            "Channel folders (in the server's order; archived ones marked)",
            self._load_folders,
            slug="list",
            empty="No channel folders yet.",
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
        )
        self.folders_table.widget.add_class("chatops-folders-list")
        self.channels_table.widget.add_class("chatops-folders-channel-list")
        self.results_table.widget.add_class("chatops-folders-results")

        create = self._build_create()
        edit = self._build_edit()
        assign = self._build_assign()
        return w.VBox(
            [
                self.folders_table.widget,
                w.HTML(value='<div class="chatops-section">Create a channel folder</div>'),
                create,
                w.HTML(value='<div class="chatops-section">Change a channel folder</div>'),
                edit,
                w.HTML(value='<div class="chatops-section">Channels in the folder</div>'),
                assign,
                self.results_table.widget,
                self.channels_table.widget,
            ]
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
        return w.VBox([self.channels_field.box, w.HBox([self.assign_button, self.take_out_button])])

    def _live_hint(self, field: Field, kind: str) -> None:
        def update(_change: Any = None) -> None:
            field.hint(_length_hint(str(field.value), self._limit(kind)))

        field.input.observe(update, "value")
        update()

    def _limit(self, kind: str) -> int | None:
        caps = self.session.capabilities
        if kind == "name":
            return caps.max_channel_folder_name_length
        return caps.max_channel_folder_description_length

    # -- permission -------------------------------------------------------------------------------
    def missing_permission(self) -> str | None:
        """Why the acting account may not change channel folders, or None when it may."""
        level = self.session.capabilities.feature_level
        if level < FOLDERS_FEATURE_LEVEL:
            return (
                f"This server (feature level {level}) has no channel folders; they need "
                f"feature level {FOLDERS_FEATURE_LEVEL}."
            )
        if not self.session.is_admin:
            return (
                "Creating and changing channel folders needs an organization administrator; "
                f"you are a {self.session.role_name}."
            )
        return None

    def _require_permission(self) -> None:
        if self.read_only_reason:
            raise FolderPermissionError(f"Read-only: {self.read_only_reason}")

    # -- reading ----------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Fetch the folders and channels again and show them."""
        if self.session.capabilities.feature_level < FOLDERS_FEATURE_LEVEL:
            self.status.info("This server has no channel folders.")
            return
        self.folders_table.refresh()

    def _fetch(self) -> None:
        self.folders = list(self.client.channels.folders(include_archived=True))
        self.channels = list(self.client.channels.list(include_all=True, exclude_archived=False))
        creators = {f.creator_id for f in self.folders if f.creator_id is not None}
        if creators - set(self._user_names):
            self._user_names = {u.user_id: u.full_name for u in self.client.users.list()}

    def _load_folders(self) -> pd.DataFrame:
        self._fetch()
        self._sync_pickers()
        self.channels_table.show(self.channels_frame())
        return self.folders_frame()

    def _load_channels(self) -> pd.DataFrame:
        self._fetch()
        self._sync_pickers()
        self.folders_table.show(self.folders_frame())
        return self.channels_frame()

    def _reload(self) -> None:
        self.folders_table.refresh()

    def _active_count(self, folder_id: int) -> int:
        return sum(1 for c in self.channels if c.folder_id == folder_id and not c.is_archived)

    def _folder_name(self, folder_id: int | None) -> str:
        if folder_id is None:
            return NO_FOLDER
        for folder in self.folders:
            if folder.id == folder_id:
                return folder.name
        return f"folder {folder_id}"

    def folders_frame(self) -> pd.DataFrame:
        """The folders as shown: the server's order, archived ones included and marked."""
        rows = []
        for position, folder in enumerate(self.folders, start=1):
            created = (
                datetime.fromtimestamp(folder.date_created, UTC).strftime("%Y-%m-%d")
                if folder.date_created is not None
                else ""
            )
            creator = (
                self._user_names.get(folder.creator_id, f"user {folder.creator_id}")
                if folder.creator_id is not None
                else ""
            )
            rows.append(
                {
                    "Order": position,
                    "Name": folder.name,
                    "Description": folder.description,
                    "Archived": "archived" if folder.is_archived else "",
                    "Active channels": self._active_count(folder.id),
                    "Created by": creator,
                    "Created (UTC)": created,
                    "Folder ID": folder.id,
                }
            )
        return frame(rows, FOLDER_COLUMNS)

    def channels_frame(self) -> pd.DataFrame:
        """Every channel with its folder, grouped by folder in the folders' order, then by name."""
        position = {f.id: i for i, f in enumerate(self.folders)}
        ordered = sorted(
            self.channels,
            key=lambda c: (
                position.get(c.folder_id, len(position)) if c.folder_id is not None else 1 << 30,
                c.name.lower(),
            ),
        )
        rows = [
            {
                "Channel": c.name,
                "Folder": self._folder_name(c.folder_id),
                "Private": "private" if c.invite_only else "",
                "Archived": "archived" if c.is_archived else "",
                "Channel ID": c.stream_id,
            }
            for c in ordered
        ]
        return frame(rows, CHANNEL_COLUMNS)

    def results_frame(self) -> pd.DataFrame:
        """What the last assignment or taking out did, one row per channel."""
        rows = [
            {"Channel": m.channel, "Folder before": m.before, "Result": m.result}
            for m in self._results
        ]
        return frame(rows, RESULT_COLUMNS)

    def _sync_pickers(self) -> None:
        picked = self.folder_field.value
        options = []
        for folder in self.folders:
            state = (
                "archived"
                if folder.is_archived
                else _plural(self._active_count(folder.id), "channel")
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
            (f"{c.name} ({self._folder_name(c.folder_id)})", c.stream_id) for c in active
        ]
        self.channels_field.value = tuple(c.stream_id for c in active if c.stream_id in chosen)

    def _on_pick(self, change: dict[str, Any]) -> None:
        if not self._syncing:
            self._prefill(change["new"])

    def _prefill(self, folder_id: Any) -> None:
        folder = self._find(folder_id)
        if folder is not None:
            self.new_name_field.value = folder.name
            self.new_description_field.value = folder.description

    def _find(self, folder_id: Any) -> ChannelFolder | None:
        return next((f for f in self.folders if f.id == folder_id), None)

    def _picked(self, folder_id: int | None) -> ChannelFolder:
        if folder_id is None:
            raise FieldError("folder", "Pick a channel folder first.")
        folder = self._find(folder_id)
        if folder is None:
            raise FieldError("folder", f"There is no channel folder with ID {folder_id}.")
        return folder

    def channel_id(self, name: str) -> int:
        """The ID of the channel named ``name`` (as last fetched)."""
        for channel in self.channels:
            if channel.name == name:
                return channel.stream_id
        raise FieldError("channels", f"There is no channel named {name!r}.")

    # -- validation -------------------------------------------------------------------------------
    def _check_name(self, field: str, name: str, *, folder_id: int | None = None) -> str:
        name = name.strip()
        if not name:
            raise FieldError(field, "A channel folder needs a name.")
        limit = self._limit("name")
        if limit is not None and len(name) > limit:
            raise FieldError(
                field,
                f"The name is {len(name)} characters long; the server allows at most {limit}.",
            )
        for position, char in enumerate(name, start=1):
            if not char.isprintable():
                raise FieldError(
                    field,
                    f"The name has an invisible control character ({char!r}) at position "
                    f"{position}; remove it.",
                )
        for folder in self.folders:
            if folder.id != folder_id and _same_name(folder.name, name):
                archived = " (archived)" if folder.is_archived else ""
                raise FieldError(
                    field,
                    f"A channel folder named '{folder.name}'{archived} already exists; "
                    "names must differ in more than upper and lower case.",
                )
        return name

    def _check_description(self, field: str, description: str) -> str:
        limit = self._limit("description")
        if limit is not None and len(description) > limit:
            raise FieldError(
                field,
                f"The description is {len(description)} characters long; the server allows "
                f"at most {limit}.",
            )
        return description

    def _failed(self) -> None:
        # The server refused, so the panel's view may be stale (another admin acted): reload it,
        # keeping the refusal on the status line.
        try:
            self._reload()
        except ChatopsError:
            pass

    # -- folder actions ---------------------------------------------------------------------------
    def create_folder(self, name: str, *, description: str = "") -> int:
        """Create a channel folder; returns its ID. The description may be empty."""
        self._require_permission()
        name = self._check_name("name", name)
        description = self._check_description("description", description)
        try:
            folder_id = self.client.channels.create_folder(name, description=description)
        except ApiError:
            self._failed()
            raise
        self._reload()
        self.folder_field.value = folder_id
        self.status.ok(f"Created the channel folder '{name}'.")
        return folder_id

    def rename_folder(self, folder_id: int, name: str) -> None:
        """Give the folder a new name."""
        self._require_permission()
        folder = self._picked(folder_id)
        name = self._check_name("new_name", name, folder_id=folder.id)
        if name == folder.name:
            raise FieldError("new_name", f"The folder is already named '{name}'.")
        self._update(folder, f"Renamed '{folder.name}' to '{name}'.", name=name)

    def change_description(self, folder_id: int, description: str) -> None:
        """Give the folder a new description (empty clears it)."""
        self._require_permission()
        folder = self._picked(folder_id)
        description = self._check_description("new_description", description)
        if description == folder.description:
            raise FieldError("new_description", "That is already the folder's description.")
        said = "Cleared" if not description else "Changed"
        self._update(folder, f"{said} the description of '{folder.name}'.", description=description)

    def ask_archive(self, folder_id: int) -> str:
        """Check that the folder can be archived and ask for confirmation; returns the question."""
        self._require_permission()
        self._reload()  # the count in the question must be current
        folder = self._picked(folder_id)
        self._check_archivable(folder)
        archived_channels = sum(
            1 for c in self.channels if c.folder_id == folder.id and c.is_archived
        )
        held = "It holds no active channels"
        if archived_channels:
            held += f" ({_plural(archived_channels, 'archived channel')} stay in it)"
        question = f"Archive the channel folder '{folder.name}'? {held}."
        self.confirm.ask(
            question, lambda: self._answered(lambda: self.archive_folder(folder.id)), yes="Archive"
        )
        self.status.info("Confirm or cancel below.")
        return question

    def _answered(self, action: Callable[[], Any]) -> None:
        self.clear_errors()
        self.guard(action)

    def _check_archivable(self, folder: ChannelFolder) -> None:
        if folder.is_archived:
            raise FieldError("folder", f"'{folder.name}' is already archived.")
        active = [c.name for c in self.channels if c.folder_id == folder.id and not c.is_archived]
        if active:
            listed = ", ".join(sorted(active, key=str.lower))
            raise FieldError(
                "folder",
                f"'{folder.name}' holds {_plural(len(active), 'active channel')} ({listed}); "
                "take them out of the folder first: only an empty folder can be archived.",
            )

    def archive_folder(self, folder_id: int) -> None:
        """Archive the folder now, without asking (it must hold no active channels)."""
        self._require_permission()
        folder = self._picked(folder_id)
        self._check_archivable(folder)
        self._update(folder, f"Archived the channel folder '{folder.name}'.", is_archived=True)

    def unarchive_folder(self, folder_id: int) -> None:
        """Make an archived folder active again."""
        self._require_permission()
        folder = self._picked(folder_id)
        if not folder.is_archived:
            raise FieldError("folder", f"'{folder.name}' is not archived.")
        self._update(folder, f"Unarchived the channel folder '{folder.name}'.", is_archived=False)

    def _update(self, folder: ChannelFolder, done: str, **changes: Any) -> None:
        try:
            self.client.channels.update_folder(folder.id, **changes)
        except ApiError:
            self._failed()
            raise
        self._reload()
        self.status.ok(done)

    def move_folder(self, folder_id: int, step: int) -> list[int]:
        """Move the folder ``step`` places (-1 up, +1 down); sends and returns the whole order."""
        self._require_permission()
        level = self.session.capabilities.feature_level
        if level < REORDER_FEATURE_LEVEL:
            raise FieldError(
                "folder",
                f"This server (feature level {level}) cannot reorder channel folders; that "
                f"needs feature level {REORDER_FEATURE_LEVEL}.",
            )
        # The server wants every folder exactly once, so start from its current order.
        self.folders = list(self.client.channels.folders(include_archived=True))
        folder = self._picked(folder_id)
        order = [f.id for f in self.folders]
        here = order.index(folder.id)
        there = here + step
        if there < 0:
            raise FieldError("folder", f"'{folder.name}' is already the first folder.")
        if there >= len(order):
            raise FieldError("folder", f"'{folder.name}' is already the last folder.")
        order.insert(there, order.pop(here))
        try:
            self.client.channels.reorder_folders(order)
        except ApiError:
            self._failed()
            raise
        self._reload()
        where = "up" if step < 0 else "down"
        self.status.ok(
            f"Moved '{folder.name}' {where}; it is now number {there + 1} of {len(order)}."
        )
        return order

    # -- channels ---------------------------------------------------------------------------------
    def assign_channels(self, folder_id: int, channel_ids: Sequence[int]) -> pd.DataFrame:
        """Put the channels in the folder, one at a time; returns the result per channel."""
        self._require_permission()
        folder = self._picked(folder_id)
        if folder.is_archived:
            raise FieldError(
                "folder", f"'{folder.name}' is archived; unarchive it before adding channels."
            )
        return self._move_channels(folder, channel_ids, assign=True)

    def take_out_channels(self, folder_id: int, channel_ids: Sequence[int]) -> pd.DataFrame:
        """Take the channels out of the folder (they are then in no folder); result per channel."""
        self._require_permission()
        folder = self._picked(folder_id)
        return self._move_channels(folder, channel_ids, assign=False)

    def _move_channels(
        self, folder: ChannelFolder, channel_ids: Sequence[int], *, assign: bool
    ) -> pd.DataFrame:
        if not channel_ids:
            raise FieldError("channels", "Pick at least one channel.")
        # Decide what to skip from the server's current state, not from the last refresh.
        self._fetch()
        by_id = {c.stream_id: c for c in self.channels}
        verb = "assigned" if assign else "taken out"
        results: list[_Move] = []
        self.progress.start(len(channel_ids), f"channels {verb}")
        for index, stream_id in enumerate(channel_ids):
            if self.progress.cancelled:
                for rest in channel_ids[index:]:
                    channel = by_id.get(rest)
                    results.append(
                        _Move(
                            channel.name if channel else f"channel {rest}",
                            self._folder_name(channel.folder_id) if channel else "",
                            "not done: cancelled",
                        )
                    )
                break
            move, failed = self._move_one(by_id.get(stream_id), stream_id, folder, assign=assign)
            results.append(move)
            self.progress.advance(failed=int(failed))
        self._results = results
        self.results_table.show(self.results_frame())
        if any(m.result.startswith("failed") for m in results):
            self._failed()
        else:
            self._reload()
        self._report(folder, results, assign=assign)
        return self.results_table.frame

    def _move_one(
        self, channel: Channel | None, stream_id: int, folder: ChannelFolder, *, assign: bool
    ) -> tuple[_Move, bool]:
        if channel is None:
            return _Move(f"channel {stream_id}", "", "skipped: no such channel"), False
        before = self._folder_name(channel.folder_id)
        if channel.is_archived:
            return _Move(channel.name, before, "skipped: the channel is archived"), False
        if assign and channel.folder_id == folder.id:
            return _Move(channel.name, before, f"skipped: already in '{folder.name}'"), False
        if not assign and channel.folder_id != folder.id:
            return _Move(channel.name, before, f"skipped: not in '{folder.name}'"), False
        try:
            self.client.channels.update(stream_id, folder_id=folder.id if assign else None)
        except ChatopsError as exc:
            return _Move(channel.name, before, f"failed: {describe_error(exc)}"), True
        if not assign:
            done = "taken out"
        elif channel.folder_id is None:
            done = "assigned"
        else:
            done = f"assigned (moved from '{before}')"
        return _Move(channel.name, before, done), False

    def _report(self, folder: ChannelFolder, results: list[_Move], *, assign: bool) -> None:
        def count(prefix: str) -> int:
            return sum(1 for m in results if m.result.startswith(prefix))

        skipped, failed, left = count("skipped"), count("failed"), count("not done")
        done = len(results) - skipped - failed - left
        verb = "assigned to" if assign else "taken out of"
        text = f"{_plural(done, 'channel')} {verb} '{folder.name}'"
        for number, words in ((skipped, "skipped"), (failed, "failed"), (left, "not done")):
            if number:
                text += f", {number} {words}"
        if self.progress.cancelled:
            text = f"Cancelled: {text}"
        text += "; the result per channel is below."
        if failed:
            self.status.error(text)
        else:
            self.status.ok(text)

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
        folder_id, picked = self.folder_field.value, tuple(self.channels_field.value)
        self.run_long(lambda: self.assign_channels(folder_id, picked))

    def _on_take_out(self) -> None:
        folder_id, picked = self.folder_field.value, tuple(self.channels_field.value)
        self.run_long(lambda: self.take_out_channels(folder_id, picked))

    @property
    def tables(self) -> tuple[TableView, ...]:
        """The panel's lists: folders, results of the last assignment, channels."""
        return (self.folders_table, self.results_table, self.channels_table)
