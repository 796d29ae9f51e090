"""Channel folders without widgets (spec 4.6): the lists, the checks the server would make, and
every change, reporting to a :class:`~chatops.widgets._model.Reporter` and a
:class:`~chatops.widgets._model.Tracker`. :class:`ChannelFoldersPanel` lays it out.

    model = FoldersModel(chatops.Client.from_zuliprc("~/.zuliprc"))
    model.fetch()
    folder_id = model.create_folder("Engineering", description="Build and ship")
    model.assign_channels(folder_id, [model.channel_id("design")])
    model.status.text        # "1 channel assigned to 'Engineering'; ..."
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from chatops import ApiError, Channel, ChatopsError, Client
from chatops.changes.kinds import CreateFolder, ReorderFolders, UpdateChannel, UpdateFolder
from chatops.types import ChannelFolder

from ._model import (
    Counter,
    FieldError,
    Reporter,
    Said,
    Session,
    Tracker,
    describe_error,
    frame,
)
from ._model import plural as _plural

__all__ = [
    "CHANNEL_COLUMNS",
    "FOLDER_COLUMNS",
    "FOLDERS_FEATURE_LEVEL",
    "NO_FOLDER",
    "REORDER_FEATURE_LEVEL",
    "RESULT_COLUMNS",
    "FolderPermissionError",
    "FoldersModel",
    "length_hint",
]

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
class Move:
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


def length_hint(text: str, limit: int | None) -> str:
    if limit is None:
        return f"{len(text)} characters"
    over = len(text) - limit
    extra = f" ({over} too many)" if over > 0 else ""
    return f"{len(text)} / {limit} characters{extra}"


class FoldersModel:
    """The channel folders of an organization as one account sees and changes them.

    ``status`` receives each outcome in words, ``progress`` counts bulk work (and carries its
    Cancel), and ``changed`` runs after the server changed something (the panel reloads its
    lists there; alone, the model fetches again).
    """

    def __init__(
        self,
        client: Client | Session,
        *,
        status: Reporter | None = None,
        progress: Tracker | None = None,
        changed: Callable[[], None] | None = None,
    ) -> None:
        self.session = client if isinstance(client, Session) else Session(client)
        self.client = self.session.client
        self.status: Reporter = status if status is not None else Said()
        self.progress: Tracker = progress if progress is not None else Counter()
        self.changed: Callable[[], None] = changed if changed is not None else self.fetch
        self.folders: list[ChannelFolder] = []
        self.channels: list[Channel] = []
        self._user_names: dict[int, str] = {}
        self.results: list[Move] = []
        self._reason: str | None = None
        self._reason_known = False

    def limit(self, kind: str) -> int | None:
        """The server's length limit for a folder's ``name`` or ``description``."""
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

    @property
    def read_only_reason(self) -> str | None:
        """Why this account may not change folders (asked once), or None."""
        if not self._reason_known:
            self._reason = self.missing_permission()
            self._reason_known = True
        return self._reason

    def _require_permission(self) -> None:
        if self.read_only_reason:
            raise FolderPermissionError(f"Read-only: {self.read_only_reason}")

    # -- reading ----------------------------------------------------------------------------------
    def fetch(self) -> None:
        """Fetch the folders, the channels and the names of the folders' creators."""
        self.folders = list(self.client.channels.folders(include_archived=True))
        self.channels = list(self.client.channels.list(include_all=True, exclude_archived=False))
        creators = {f.creator_id for f in self.folders if f.creator_id is not None}
        if creators - set(self._user_names):
            self._user_names = {u.user_id: u.full_name for u in self.client.users.list()}

    def active_count(self, folder_id: int) -> int:
        return sum(1 for c in self.channels if c.folder_id == folder_id and not c.is_archived)

    def folder_name(self, folder_id: int | None) -> str:
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
                    "Active channels": self.active_count(folder.id),
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
                "Folder": self.folder_name(c.folder_id),
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
            for m in self.results
        ]
        return frame(rows, RESULT_COLUMNS)

    def find(self, folder_id: Any) -> ChannelFolder | None:
        return next((f for f in self.folders if f.id == folder_id), None)

    def picked(self, folder_id: int | None) -> ChannelFolder:
        if folder_id is None:
            raise FieldError("folder", "Pick a channel folder first.")
        folder = self.find(folder_id)
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
    def check_name(self, field: str, name: str, *, folder_id: int | None = None) -> str:
        name = name.strip()
        if not name:
            raise FieldError(field, "A channel folder needs a name.")
        limit = self.limit("name")
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

    def check_description(self, field: str, description: str) -> str:
        limit = self.limit("description")
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
            self.changed()
        except ChatopsError:
            pass

    # -- folder actions ---------------------------------------------------------------------------
    def create_folder(self, name: str, *, description: str = "") -> int:
        """Create a channel folder; returns its ID. The description may be empty."""
        self._require_permission()
        name = self.check_name("name", name)
        description = self.check_description("description", description)
        try:
            made = self.session.changes.make(
                CreateFolder(name=name, description=description), {"subject": name}
            )
            folder_id = int(made["channel_folder_id"])
        except ApiError:
            self._failed()
            raise
        self.changed()
        self.status.ok(f"Created the channel folder '{name}'.")
        return folder_id

    def rename_folder(self, folder_id: int, name: str) -> None:
        """Give the folder a new name."""
        self._require_permission()
        folder = self.picked(folder_id)
        name = self.check_name("new_name", name, folder_id=folder.id)
        if name == folder.name:
            raise FieldError("new_name", f"The folder is already named '{name}'.")
        self._update(folder, f"Renamed '{folder.name}' to '{name}'.", name=name)

    def change_description(self, folder_id: int, description: str) -> None:
        """Give the folder a new description (empty clears it)."""
        self._require_permission()
        folder = self.picked(folder_id)
        description = self.check_description("new_description", description)
        if description == folder.description:
            raise FieldError("new_description", "That is already the folder's description.")
        said = "Cleared" if not description else "Changed"
        self._update(folder, f"{said} the description of '{folder.name}'.", description=description)

    def archive_question(self, folder_id: int) -> str:
        """Check that the folder can be archived now; returns the question to confirm."""
        self._require_permission()
        self.changed()  # the count in the question must be current
        folder = self.picked(folder_id)
        self.check_archivable(folder)
        archived_channels = sum(
            1 for c in self.channels if c.folder_id == folder.id and c.is_archived
        )
        held = "It holds no active channels"
        if archived_channels:
            held += f" ({_plural(archived_channels, 'archived channel')} stay in it)"
        return f"Archive the channel folder '{folder.name}'? {held}."

    def check_archivable(self, folder: ChannelFolder) -> None:
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
        folder = self.picked(folder_id)
        self.check_archivable(folder)
        self._update(folder, f"Archived the channel folder '{folder.name}'.", is_archived=True)

    def unarchive_folder(self, folder_id: int) -> None:
        """Make an archived folder active again."""
        self._require_permission()
        folder = self.picked(folder_id)
        if not folder.is_archived:
            raise FieldError("folder", f"'{folder.name}' is not archived.")
        self._update(folder, f"Unarchived the channel folder '{folder.name}'.", is_archived=False)

    def _update(self, folder: ChannelFolder, done: str, **changes: Any) -> None:
        try:
            self.session.changes.make(
                UpdateFolder(folder_id=folder.id, settings=changes), {"subject": folder.name}
            )
        except ApiError:
            self._failed()
            raise
        self.changed()
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
        folder = self.picked(folder_id)
        order = [f.id for f in self.folders]
        here = order.index(folder.id)
        there = here + step
        if there < 0:
            raise FieldError("folder", f"'{folder.name}' is already the first folder.")
        if there >= len(order):
            raise FieldError("folder", f"'{folder.name}' is already the last folder.")
        order.insert(there, order.pop(here))
        try:
            self.session.changes.make(ReorderFolders(order=order), {"subject": folder.name})
        except ApiError:
            self._failed()
            raise
        self.changed()
        where = "up" if step < 0 else "down"
        self.status.ok(
            f"Moved '{folder.name}' {where}; it is now number {there + 1} of {len(order)}."
        )
        return order

    # -- channels ---------------------------------------------------------------------------------
    def assign_channels(self, folder_id: int, channel_ids: Sequence[int]) -> pd.DataFrame:
        """Put the channels in the folder, one at a time; returns the result per channel."""
        self._require_permission()
        folder = self.picked(folder_id)
        if folder.is_archived:
            raise FieldError(
                "folder", f"'{folder.name}' is archived; unarchive it before adding channels."
            )
        return self._move_channels(folder, channel_ids, assign=True)

    def take_out_channels(self, folder_id: int, channel_ids: Sequence[int]) -> pd.DataFrame:
        """Take the channels out of the folder (they are then in no folder); result per channel."""
        self._require_permission()
        folder = self.picked(folder_id)
        return self._move_channels(folder, channel_ids, assign=False)

    def describe_move(
        self, folder_id: int | None, channel_ids: Sequence[int], *, assign: bool
    ) -> tuple[str, list[str]]:
        """What assigning (taking out) the channels will do, before anything is sent: the
        question, and one line per channel (where it is now and where it goes, or why it is
        left as it is)."""
        self._require_permission()
        folder = self.picked(folder_id)
        if assign and folder.is_archived:
            raise FieldError(
                "folder", f"'{folder.name}' is archived; unarchive it before adding channels."
            )
        if not channel_ids:
            raise FieldError("channels", "Pick at least one channel.")
        by_id = {c.stream_id: c for c in self.channels}
        items: list[str] = []
        moving = 0
        for stream_id in channel_ids:
            channel = by_id.get(stream_id)
            if channel is None:
                items.append(f"channel {stream_id}: no such channel (skipped)")
                continue
            now = (
                "no folder"
                if channel.folder_id is None
                else f"'{self.folder_name(channel.folder_id)}'"
            )
            if channel.is_archived:
                items.append(f"#{channel.name}: archived (skipped)")
            elif assign and channel.folder_id == folder.id:
                items.append(f"#{channel.name}: already in '{folder.name}' (left as it is)")
            elif not assign and channel.folder_id != folder.id:
                items.append(f"#{channel.name}: not in '{folder.name}' (left as it is)")
            else:
                moving += 1
                goes = f"'{folder.name}'" if assign else "no folder"
                items.append(f"#{channel.name}: {now} → {goes}")
        if assign:
            question = f"Put {_plural(moving, 'channel')} in '{folder.name}'?"
        else:
            question = f"Take {_plural(moving, 'channel')} out of '{folder.name}'?"
        return question + " Everyone sees them there in the channel list.", items

    def _move_channels(
        self, folder: ChannelFolder, channel_ids: Sequence[int], *, assign: bool
    ) -> pd.DataFrame:
        if not channel_ids:
            raise FieldError("channels", "Pick at least one channel.")
        # Decide what to skip from the server's current state, not from the last refresh.
        self.fetch()
        by_id = {c.stream_id: c for c in self.channels}
        verb = "assigned" if assign else "taken out"
        results: list[Move] = []
        self.progress.start(len(channel_ids), f"channels {verb}")
        for index, stream_id in enumerate(channel_ids):
            if self.progress.cancelled:
                for rest in channel_ids[index:]:
                    channel = by_id.get(rest)
                    results.append(
                        Move(
                            channel.name if channel else f"channel {rest}",
                            self.folder_name(channel.folder_id) if channel else "",
                            "not done: cancelled",
                        )
                    )
                break
            move, failed = self._move_one(by_id.get(stream_id), stream_id, folder, assign=assign)
            results.append(move)
            self.progress.advance(failed=int(failed))
        self.results = results
        if any(m.result.startswith("failed") for m in results):
            self._failed()
        else:
            self.changed()
        self._report(folder, results, assign=assign)
        return self.results_frame()

    def _move_one(
        self, channel: Channel | None, stream_id: int, folder: ChannelFolder, *, assign: bool
    ) -> tuple[Move, bool]:
        if channel is None:
            return Move(f"channel {stream_id}", "", "skipped: no such channel"), False
        before = self.folder_name(channel.folder_id)
        if channel.is_archived:
            return Move(channel.name, before, "skipped: the channel is archived"), False
        if assign and channel.folder_id == folder.id:
            return Move(channel.name, before, f"skipped: already in '{folder.name}'"), False
        if not assign and channel.folder_id != folder.id:
            return Move(channel.name, before, f"skipped: not in '{folder.name}'"), False
        try:
            self.session.changes.make(
                UpdateChannel(
                    stream_id=stream_id, settings={"folder_id": folder.id if assign else None}
                ),
                {"subject": f"#{channel.name}"},
            )
        except ChatopsError as exc:
            return Move(channel.name, before, f"failed: {describe_error(exc)}"), True
        if not assign:
            done = "taken out"
        elif channel.folder_id is None:
            done = "assigned"
        else:
            done = f"assigned (moved from '{before}')"
        return Move(channel.name, before, done), False

    def _report(self, folder: ChannelFolder, results: list[Move], *, assign: bool) -> None:
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
