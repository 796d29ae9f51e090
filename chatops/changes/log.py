"""Changes made one at a time, as a person acts in the admin console: each is sent at once
(its refusal reaches the person as the client raised it), and journalled with the change that
undoes it, so ``chatops undo`` reverts a console session as it reverts an apply.

::

    log = ChangeLog(client)                        # the journal is made with the first change
    group_id = log.make(CreateGroup(name="oncall", members=[5]))["group_id"]
    log.make(UpdateGroupMembers(group_id=group_id, add=[7]), about={"subject": "@oncall"})
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import ApiError, ChatopsError
from .._files import new_dir
from ._base import Change
from .engine import Tally, apply_changes, undo_items
from .journal import Item, Journal, state_dir

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["ChangeLog"]

#: numbers the change logs of this process, so that two begun in the same second (a console
#: cell run again, two panels) never share a journal and one's undo never reverts the other's
_LOGS = itertools.count(1)


class ChangeLog:
    """The journal of one session's changes, and the one way that session makes them."""

    def __init__(self, client: Client, *, source: str = "console", path: Path | None = None):
        self.client = client
        self.source = source
        self._path = path
        self._journal: Journal | None = None
        #: the action the next changes belong to (a click in the console: one number and its
        #: words); :meth:`undo_action` reverts one action's changes
        self.action = 0
        self.action_label = ""
        self.undone: set[int] = set()

    def begin(self, label: str) -> int:
        """Start a new action: the changes made from now on are undone together."""
        self.action += 1
        self.action_label = label
        return self.action

    @property
    def path(self) -> Path:
        """The session's journal file (made with its first change)."""
        if self._path is None:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            folder = new_dir(state_dir() / "journals")
            self._path = folder / f"{self.source}-{stamp}-{os.getpid()}-{next(_LOGS)}.jsonl"
        return self._path

    @property
    def journal(self) -> Journal:
        """The session's journal, opened (and listed in the index) with the first change."""
        if self._journal is None:
            self._journal = Journal.open(
                self.path,
                kind="apply",
                source=self.source,
                site=self.client.site,
                email=self.client.email,
            )
        return self._journal

    def make(self, change: Change, about: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Send ``change`` now and journal it; returns the server's answer. A refusal is
        journalled and raised as the client raised it."""
        item = Item(
            change, {**(about or {}), "action": self.action, "action_label": self.action_label}
        )
        try:
            before = change.before(self.client)
        except ChatopsError:  # nothing read to put back: the change is made, with no inverse
            before = None
        self.journal.intend(item, before)
        try:
            answer = change.send(self.client)
        except ApiError as exc:
            partly = change.salvage(self.client, exc)
            if partly is not None:
                self.journal.record(
                    item, "done", message=str(exc.msg), inverse=change.inverse(before, partly)
                )
            else:
                status = "refused" if 400 <= exc.status < 500 and exc.status != 429 else "failed"
                self.journal.record(item, status, message=str(exc.msg))
            raise
        except ChatopsError as exc:
            self.journal.record(item, "failed", message=str(exc) or type(exc).__name__)
            raise
        self.journal.record(item, "done", inverse=change.inverse(before, answer))
        return answer

    # -- undoing one action --------------------------------------------------------------
    def made(self, action: int) -> list[dict[str, Any]]:
        """The journal lines of the changes ``action`` made, in order (none once undone)."""
        if self._journal is None or action in self.undone:
            return []
        return [
            line
            for line, _inverse in self._journal.done()
            if (line.get("finding") or {}).get("action") == action
        ]

    def label(self, action: int) -> str:
        """The words of ``action`` (the console's "Status: Apply status")."""
        lines = self.made(action)
        return str((lines[0].get("finding") or {}).get("action_label") or "") if lines else ""

    def last_action(self, label: str = "") -> int | None:
        """The newest action that made a change and is not undone (of those whose label starts
        with ``label``), or None."""
        for action in range(self.action, 0, -1):
            if self.made(action) and self.label(action).startswith(label):
                return action
        return None

    def undo_preview(self, action: int) -> tuple[list[Item], list[dict[str, Any]]]:
        """What undoing ``action`` would send (its changes' inverses, newest first) and the
        changes of it nothing can undo."""
        if self._journal is None:
            return [], []
        ids = {line.get("id") for line in self.made(action)}
        items, cannot = undo_items(self._journal)
        return (
            [i for i in items if i.about.get("undoes") in ids],
            [line for line in cannot if line.get("id") in ids],
        )

    def undo_action(self, action: int, *, say: Callable[[str], None] = lambda _t: None) -> Tally:
        """Put back what ``action`` changed, each inverse checked against the server first (a
        thing changed since by someone else is left as it is), journalled in a journal of its
        own; returns the count by status."""
        items, _cannot = self.undo_preview(action)
        target = self.path.with_name(f"{self.path.stem}-undo-{action}.jsonl")
        with Journal.open(
            target,
            kind="undo",
            undoes=str(self.path),
            site=self.client.site,
            email=self.client.email,
        ) as record:
            tally = apply_changes(items, self.client, record, say=say, progress=False)
        self.undone.add(action)
        return tally

    def close(self) -> None:
        """Close the journal's file (it can still be read and undone)."""
        if self._journal is not None:
            self._journal.close()
