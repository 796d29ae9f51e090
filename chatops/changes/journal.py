"""Journals: what an apply did, line by line, so that it can be resumed, shown and undone.

A journal is a JSON-lines file, owner-only, appended to and flushed to disk as work happens:

- a header (``{"journal": 1, "kind": "apply", "site": ..., "email": ..., "source": ...}``);
- before each change is sent, an *intent* (``{"id": ..., "intent": true, "change": ...,
  "before": ...}``): what it will replace, read from the server just before;
- after it, a *result* (``{"id": ..., "status": "done", "message": ..., "checked": ...,
  "inverse": ...}``): what happened, the read that showed it, and the change that undoes it.

A result's ``status`` is ``done`` (sent and made), ``already_done`` (the server already showed
it: nothing sent), ``refused`` (the server said no for good: not sent again), ``failed`` (no
answer, a 5xx: tried again next time), ``changed_since`` (an undo found the thing changed
again after the apply, and left it), or ``skipped`` (it cannot be undone and was not
confirmed). An intent with no result after it means the run stopped while sending: the next run
reads the server before sending again, so nothing is sent twice.

Every journal is listed in an index in chatops's state folder (``$CHATOPS_STATE_DIR``, else
``$XDG_STATE_HOME/chatops``, else ``~/.local/state/chatops``), so ``chatops undo`` finds the
last apply without being told where its journal is.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

import msgspec

from .._files import new_dir, open_private_log
from ._base import Change
from .kinds import decode_change

__all__ = [
    "DONE",
    "FINAL",
    "Item",
    "Journal",
    "index_entries",
    "journal_index",
    "last_journal",
    "state_dir",
]

#: statuses after which a change is not sent again
FINAL = frozenset({"done", "already_done", "refused"})
#: statuses of a change that made the server as it wanted (nothing left to send)
DONE = frozenset({"done", "already_done"})
VERSION = 1


@dataclass(frozen=True)
class Item:
    """A change with what it is for (``about``: an audit's finding, a panel's action), as a
    plan or a journal lists it."""

    change: Change
    about: Mapping[str, Any] = field(default_factory=dict)
    #: for an undo: the change it undoes, which must still show done on the server
    undoes: Change | None = None

    @property
    def id(self) -> str:
        """Stable for the same call: a digest of its method, path and parameters."""
        call = self.change.call()
        text = json.dumps([call.method, call.path, call.params], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def record(self) -> dict[str, Any]:
        """The item's fields for a plan or journal line."""
        call = self.change.call()
        return {
            "id": self.id,
            "method": call.method,
            "path": call.path,
            "params": call.params,
            "change": msgspec.to_builtins(self.change),
            "finding": dict(self.about),
        }


def state_dir() -> Path:
    """chatops's state folder (journals and their index), made owner-only."""
    root = os.environ.get("CHATOPS_STATE_DIR")
    if root:
        return new_dir(Path(root).expanduser())
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return new_dir(Path(base).expanduser() / "chatops")


def journal_index() -> Path:
    """The index of journals: one line per journal started, oldest first."""
    return state_dir() / "journals.jsonl"


def _now() -> str:
    return datetime.now(UTC).isoformat()


class Journal:
    """One journal file: its header, and the last word on each change in it.

    Example::

        journal = Journal.open(Path("plan.results.jsonl"), kind="apply", site=..., email=...)
        journal.intend(item, before)
        journal.record(item, "done", inverse=...)
    """

    def __init__(self, path: Path, header: dict[str, Any], lines: list[dict[str, Any]]) -> None:
        self.path = path
        self.header = header
        self._lines = lines
        self._out: TextIO | None = None

    @classmethod
    def read(cls, path: Path) -> Journal:
        """The journal at ``path`` as it is (a torn last line is ignored)."""
        header: dict[str, Any] = {}
        lines: list[dict[str, Any]] = []
        for text in path.read_text(encoding="utf-8").splitlines():
            try:
                line = json.loads(text)
            except ValueError:
                continue
            if not isinstance(line, dict):
                continue
            if "journal" in line and not header:
                header = line
            else:
                lines.append(line)
        return cls(path, header, lines)

    @classmethod
    def open(cls, path: Path, **header: Any) -> Journal:
        """The journal at ``path`` to write to: read when it exists (a run resumed), else made
        with ``header`` and listed in the index."""
        if path.exists():
            journal = cls.read(path)
            if not journal.header:
                journal.header = {"journal": VERSION, **header}
        else:
            journal = cls(path, {"journal": VERSION, "started_at": _now(), **header}, [])
            with open_private_log(path) as out:
                out.write(json.dumps(journal.header, ensure_ascii=False) + "\n")
            with open_private_log(journal_index()) as index:
                entry = {"path": str(path.resolve()), **journal.header}
                index.write(json.dumps(entry, ensure_ascii=False) + "\n")
        return journal

    # -- reading --------------------------------------------------------------------------

    def results(self) -> list[dict[str, Any]]:
        """Every result line, in the order written."""
        return [line for line in self._lines if "status" in line]

    def status(self, item_id: str) -> str | None:
        """The last status recorded for a change (None: never finished)."""
        found = None
        for line in self._lines:
            if line.get("id") == item_id and isinstance(line.get("status"), str):
                found = line["status"]
        return found

    def interrupted(self, item_id: str) -> dict[str, Any] | None:
        """The intent of a change whose sending was cut short (no result after it), or None."""
        last = None
        for line in self._lines:
            if line.get("id") != item_id:
                continue
            last = line if line.get("intent") else None
        return last

    def done(self) -> list[tuple[dict[str, Any], Change | None]]:
        """The changes this journal made (status ``done``), in order, with their inverses."""
        out = []
        for line in self.results():
            if line.get("status") != "done":
                continue
            inverse = line.get("inverse")
            out.append((line, decode_change(inverse) if isinstance(inverse, dict) else None))
        return out

    # -- writing --------------------------------------------------------------------------

    def _write(self, line: dict[str, Any]) -> None:
        if self._out is None:
            self._out = open_private_log(self.path)
        self._out.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        self._out.flush()
        os.fsync(self._out.fileno())
        self._lines.append(line)

    def intend(self, item: Item, before: Mapping[str, Any] | None) -> None:
        """Record, before sending, the change and what it will replace."""
        line = {"id": item.id, "intent": True, "change": msgspec.to_builtins(item.change)}
        self._write({**line, "before": before, "at": _now()})

    def record(
        self,
        item: Item,
        status: str,
        *,
        message: str = "",
        checked: str = "",
        inverse: Change | None = None,
    ) -> dict[str, Any]:
        """Record what became of a change; returns the line written."""
        line: dict[str, Any] = {**item.record(), "status": status, "message": message}
        if checked:
            line["checked"] = checked
        if status == "done":
            line["inverse"] = None if inverse is None else msgspec.to_builtins(inverse)
            line["irreversible"] = item.change.irreversible if inverse is None else None
        if item.undoes is not None:
            line["undoes"] = msgspec.to_builtins(item.undoes)
        line["at"] = _now()
        self._write(line)
        return line

    def close(self) -> None:
        """Close the file (the journal can still be read)."""
        if self._out is not None:
            self._out.close()
            self._out = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def index_entries() -> Iterator[dict[str, Any]]:
    """The index's entries, oldest first (a torn line is skipped)."""
    path = journal_index()
    if not path.is_file():
        return
    for text in path.read_text(encoding="utf-8").splitlines():
        with contextlib.suppress(ValueError):
            line = json.loads(text)
            if isinstance(line, dict) and isinstance(line.get("path"), str):
                yield line


def last_journal(kind: str = "apply") -> Path | None:
    """The newest journal of ``kind`` in the index whose file still exists."""
    for line in reversed(list(index_entries())):
        if line.get("kind") == kind and Path(line["path"]).is_file():
            return Path(line["path"])
    return None
