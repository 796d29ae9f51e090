"""Changes made one at a time, as a person acts in the admin console: each is sent at once
(its refusal reaches the person as the client raised it), and journalled with the change that
undoes it, so ``chatops undo`` reverts a console session as it reverts an apply.

::

    log = ChangeLog(client)                        # the journal is made with the first change
    group_id = log.make(CreateGroup(name="oncall", members=[5]))["group_id"]
    log.make(UpdateGroupMembers(group_id=group_id, add=[7]), about={"subject": "@oncall"})
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._exceptions import ApiError, ChatopsError
from .._files import new_dir
from ._base import Change
from .journal import Item, Journal, state_dir

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["ChangeLog"]


class ChangeLog:
    """The journal of one session's changes, and the one way that session makes them."""

    def __init__(self, client: Client, *, source: str = "console", path: Path | None = None):
        self.client = client
        self.source = source
        self._path = path
        self._journal: Journal | None = None

    @property
    def path(self) -> Path:
        """The session's journal file (made with its first change)."""
        if self._path is None:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            folder = new_dir(state_dir() / "journals")
            self._path = folder / f"{self.source}-{stamp}-{os.getpid()}.jsonl"
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
        item = Item(change, about or {})
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

    def close(self) -> None:
        """Close the journal's file (it can still be read and undone)."""
        if self._journal is not None:
            self._journal.close()
