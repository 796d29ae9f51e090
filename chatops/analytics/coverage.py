"""What a dataset covers: a structured :class:`Coverage` and the short note views print.

:meth:`chatops.analytics.Dataset.frames` puts both on the ``messages`` frame::

    >>> f = ds.frames()
    >>> f.messages.attrs["coverage"]
    'analyst@example.com on https://chat.example.com, 2024-01-02 to 2026-11-25: 12 of 14 channels
    (1 archived; 2 not readable: private, not a member), 37 direct-message conversations; no
    message text'
    >>> f.messages.attrs["coverage_detail"].channels_not_readable
    (ChannelCoverage(stream_id=40, name='hr', archived=False, reason='private, not a member'), ...)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "ChannelCoverage",
    "Coverage",
    "coverage_from_manifest",
    "iso",
    "unnamed",
    "viewpoint_of",
    "without_account",
]

#: where the whole organization's messages come from, as a sentence points to it
EXPORT_HINT = "an organization export (chatops data import-export <export>, Dataset.from_export)"


def iso(seconds: int | float | None) -> str | None:
    """Unix seconds as ISO 8601 in UTC (``2026-11-25T22:40:00Z``); None stays None."""
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def without_account(note: str) -> str:
    """A coverage note without the account that synced (``synced from <site>`` in place of
    ``<email> on <site>``): what a view says when it anonymizes. Other notes are unchanged.

    Args:
        note: a note of :meth:`Coverage.note`, or any text.
    """
    return _ACCOUNT.sub(r"synced from \g<site>, ", note, count=1)


_ACCOUNT = re.compile(r"^\S+@\S+ on (?P<site>\S+), ")


@dataclass(frozen=True)
class ChannelCoverage:
    """One channel of the organization as the dataset saw it."""

    stream_id: int
    name: str
    archived: bool = False
    #: why its messages are not in the dataset (None: they are)
    reason: str | None = None


@dataclass(frozen=True)
class Coverage:
    """What the frames hold, and what they leave out."""

    #: ``sync`` or ``export``
    source: str
    #: the account and site synced (None for an export)
    email: str | None
    site: str | None
    #: when the server (or the export) was last read
    as_of: datetime | None
    channels_readable: tuple[ChannelCoverage, ...]
    channels_not_readable: tuple[ChannelCoverage, ...]
    dm_conversations: int
    #: the first and last message stored (None when there are none)
    first_message: datetime | None
    last_message: datetime | None
    #: whether message text is kept (``content=True``)
    content: bool

    @property
    def channels_archived(self) -> tuple[ChannelCoverage, ...]:
        """Archived channels whose messages are in the dataset."""
        return tuple(c for c in self.channels_readable if c.archived)

    @property
    def viewpoint(self) -> str:
        """Whose view of the organization the messages are: ``the organization export``, or
        the account synced (``iago@zulip.com``), which sees only its own direct messages."""
        if self.source == "export":
            return "the organization export"
        return self.email or "the synced account"

    def note(self) -> str:
        """One line for a figure's footnote or a report."""
        who = (
            f"{self.email} on {self.site}"
            if self.source == "sync"
            else "organization export (every channel and direct message)"
        )
        period = (
            f"{self.first_message:%Y-%m-%d} to {self.last_message:%Y-%m-%d}"
            if self.first_message is not None and self.last_message is not None
            else "no messages"
        )
        total = len(self.channels_readable) + len(self.channels_not_readable)
        extra = []
        if self.channels_archived:
            extra.append(f"{len(self.channels_archived)} archived")
        reasons: dict[str, int] = {}
        for c in self.channels_not_readable:
            reasons[c.reason or "not readable"] = reasons.get(c.reason or "not readable", 0) + 1
        extra += [f"{n} not readable: {why}" for why, n in sorted(reasons.items())]
        channels = f"{len(self.channels_readable)} of {total} channels" + (
            f" ({'; '.join(extra)})" if extra else ""
        )
        text = "with message text" if self.content else "no message text"
        return (
            f"{who}, {period}: {channels}, "
            f"{self.dm_conversations} direct-message conversations; {text}"
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: times as ISO 8601 strings."""

        def chan(c: ChannelCoverage) -> dict[str, Any]:
            return {"stream_id": c.stream_id, "name": c.name, "archived": c.archived} | (
                {"reason": c.reason} if c.reason else {}
            )

        def when(t: datetime | None) -> str | None:
            return None if t is None else t.strftime("%Y-%m-%dT%H:%M:%SZ")

        return {
            "source": self.source,
            "email": self.email,
            "site": self.site,
            "as_of": when(self.as_of),
            "channels_readable": [chan(c) for c in self.channels_readable],
            "channels_not_readable": [chan(c) for c in self.channels_not_readable],
            "dm_conversations": self.dm_conversations,
            "first_message": when(self.first_message),
            "last_message": when(self.last_message),
            "content": self.content,
            "note": self.note(),
        }


def unnamed(viewpoint: str | None, anonymize: bool) -> str | None:
    """``viewpoint`` with the synced account left unnamed when ``anonymize`` (an anonymized
    result names nobody: "the synced account")."""
    if anonymize and viewpoint not in (None, "the organization export"):
        return "the synced account"
    return viewpoint


def viewpoint_of(attrs: Mapping[Any, Any]) -> str | None:
    """The :attr:`Coverage.viewpoint` a frame's ``attrs`` carry (None when they carry none).

    Args:
        attrs: a messages frame's ``attrs`` (:meth:`~chatops.analytics.Dataset.frames` puts
            ``viewpoint``, a string, and ``coverage_detail`` there).
    """
    if isinstance(attrs.get("viewpoint"), str):
        return str(attrs["viewpoint"])
    detail = attrs.get("coverage_detail")
    if isinstance(detail, Coverage):
        return detail.viewpoint
    if isinstance(detail, Mapping) and detail.get("source") in ("sync", "export"):
        # as written into a file's metadata (:meth:`Coverage.as_dict`) and read back
        if detail["source"] == "export":
            return "the organization export"
        return str(detail.get("email") or "the synced account")
    return None


def _when(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromtimestamp(int(value), UTC)


def coverage_from_manifest(
    manifest: Mapping[str, Any], *, first: Any = None, last: Any = None
) -> Coverage:
    """The coverage a manifest records; ``first``/``last`` are the stored messages' span."""
    cov = manifest.get("coverage") or {}
    source = "export" if manifest.get("source", {}).get("kind") == "export" else "sync"

    def chans(key: str, reason: str | None) -> tuple[ChannelCoverage, ...]:
        return tuple(
            ChannelCoverage(
                stream_id=int(c["stream_id"]),
                name=str(c["name"]),
                archived=bool(c.get("archived", False)),
                reason=c.get("reason", reason) if reason is not None else None,
            )
            for c in cov.get(key, [])
        )

    return Coverage(
        source=source,
        email=manifest.get("email"),
        site=manifest.get("site"),
        as_of=_when(cov.get("as_of")),
        channels_readable=chans("channels_readable", None),
        channels_not_readable=chans("channels_not_readable", "not readable"),
        dm_conversations=int(cov.get("dm_conversations", 0)),
        first_message=_when(first),
        last_message=_when(last),
        content=bool(manifest.get("content")),
    )
