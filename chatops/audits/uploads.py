"""Uploads: the acting account's unlinked and large files, and the files shared in messages.

What the API lets an administrator see is limited, and this audit says so in its summary
(``coverage``): ``GET /attachments`` lists only the acting account's own uploads (with size,
upload time and the messages linking them). Other people's files are found only by scanning
the ``scan_messages`` newest messages the account can read for ``/user_uploads/`` links; for
those the size and upload time are unknown and the uploader is taken to be the first sender
seen sharing the link. Other users' unlinked uploads cannot be seen at all.

Flags (own files only, since only they have a size and a link count):

- unlinked: no message links the file and it is older than ``unlinked_days`` days;
- large: the file is bigger than ``min_size_mb`` megabytes (MiB).

One threshold, with a default the demo organization passes:

- ``max_unlinked_files`` (3): fail when more own files than this are unlinked and older than
  ``unlinked_days``; ``-1`` switches the check off.

Each flagged file's finding carries the call that deletes it (``DELETE /attachments/{id}``),
for ``chatops audit plan`` / ``chatops audit apply``; the audit itself only reads. Deleting a
large file that messages still link breaks those messages, which its finding says.

Three steps: :func:`fetch` reads the account, the users, its attachments and the newest
messages; :func:`judge` (pure) flags each own file and gathers the links seen;
:func:`conclude` turns that into findings, tables and the summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ..changes.kinds import DeleteAttachment
from ._common import api, crossed, finding, newest_messages
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Attachment, Message, User

__all__ = [
    "UPLOAD_LINK",
    "JudgedFile",
    "Judged",
    "Options",
    "Read",
    "conclude",
    "fetch",
    "findings",
    "judge",
    "uploads",
]

#: A link to an uploaded file in message Markdown; group 1 is the ``path_id``.
UPLOAD_LINK = re.compile(r"/user_uploads/(\d+/[^\s()\[\]<>\"'`]+)")
MIB = 1024 * 1024


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`uploads`, checked (ValueError naming the one out of range)."""

    unlinked_days: int = 14
    min_size_mb: float = 10
    scan_messages: int = 5000
    max_unlinked_files: int = 3

    def __post_init__(self) -> None:
        if self.unlinked_days < 0:
            raise ValueError(f"unlinked_days must be 0 or more, not {self.unlinked_days}")
        if not self.min_size_mb > 0:
            raise ValueError(f"min_size_mb must be more than 0, not {self.min_size_mb}")
        if not 0 <= self.scan_messages <= 5000:
            raise ValueError(f"scan_messages must be between 0 and 5000, not {self.scan_messages}")
        if self.max_unlinked_files < -1:
            raise ValueError(
                f"max_unlinked_files must be -1 or more, not {self.max_unlinked_files}"
            )


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    me: User
    users: dict[int, User]
    #: the account's own uploads (``GET /attachments``)
    attachments: list[Attachment]
    #: the ``scan_messages`` newest messages the account can read
    messages: list[Message]


@dataclass(frozen=True)
class JudgedFile:
    """An own file and what is wrong with it (nothing: no flags)."""

    attachment: Attachment
    #: days since it was uploaded, when it is unlinked for longer than ``unlinked_days``
    unlinked_days: float | None
    large: bool
    flags: list[str]

    @property
    def subject(self) -> str:
        """``report.pdf (attachment 7)``."""
        return f"{self.attachment.name} (attachment {self.attachment.id})"


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    at: pd.Timestamp
    #: the own files, by id
    files: list[JudgedFile]
    #: path_id -> (message id, sender id, where) of each scanned message linking it
    shared: dict[str, list[tuple[int, int, str]]]

    @property
    def stale_unlinked(self) -> list[JudgedFile]:
        """The own files unlinked for more than ``unlinked_days``."""
        return [f for f in self.files if f.unlinked_days is not None]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        limit = self.options.max_unlinked_files
        return crossed("max_unlinked_files", limit, len(self.stale_unlinked))


def uploads(
    client: Client,
    *,
    unlinked_days: Annotated[
        int,
        Param("flag own files that no message links and are older than this many days", low=0),
    ] = 14,
    min_size_mb: Annotated[
        float,
        Param("flag own files bigger than this many MiB", low=0, low_open=True),
    ] = 10,
    scan_messages: Annotated[
        int,
        Param(
            "how many of the newest messages to scan for upload links (0 to 5000)", low=0, high=5000
        ),
    ] = 5000,
    max_unlinked_files: Annotated[
        int,
        Param(
            "fail when more own files than this are unlinked for unlinked_days (-1: off)",
            low=-1,
        ),
    ] = 3,
    now: datetime | None = None,
) -> AuditResult:
    """Fetch own attachments and scan recent messages for upload links, and judge the files.

    Args:
        client: a client; its own uploads are the ones fully visible.
        unlinked_days: flag own files no message links that are older than this (0 or more).
        min_size_mb: flag own files bigger than this many MiB (more than 0).
        scan_messages: how many of the newest messages to scan for links (0 to 5000).
        max_unlinked_files: fail when more own files than this are unlinked and older than
            ``unlinked_days``; ``-1`` disables the check.
        now: the end of the window; default the current time.

    Tables: ``files`` (one row per file seen), ``storage_by_uploader``,
    ``storage_by_channel`` (known bytes and file counts, for what is visible).
    """
    options = Options(
        unlinked_days=unlinked_days,
        min_size_mb=min_size_mb,
        scan_messages=scan_messages,
        max_unlinked_files=max_unlinked_files,
    )
    at = pd.Timestamp(now or datetime.now(UTC))
    at = at.tz_localize("UTC") if at.tzinfo is None else at.tz_convert("UTC")
    return conclude(judge(fetch(client, options), options, at=at))


def fetch(client: Client, options: Options) -> Read:
    """Read the account, the users, its attachments and the newest messages."""
    me = client.users.me()
    users = {u.user_id: u for u in client.users.list()}
    own = client.uploads.attachments()
    messages: list[Message] = []
    if options.scan_messages:
        messages = newest_messages(client, options.scan_messages)[-options.scan_messages :]
    return Read(client.site, me, users, own, messages)


def judge(read: Read, options: Options, *, at: pd.Timestamp) -> Judged:
    """Flag each own file as of ``at`` (an aware UTC time) and gather the links; no I/O."""
    cutoff_ms = (at.timestamp() - options.unlinked_days * 86400) * 1000
    shared: dict[str, list[tuple[int, int, str]]] = {}
    for m in read.messages:
        if m.type == "stream" or m.stream_id is not None:
            where = f"#{m.display_recipient}" if isinstance(m.display_recipient, str) else ""
        else:
            where = "direct messages"
        for path_id in dict.fromkeys(UPLOAD_LINK.findall(m.content)):
            shared.setdefault(path_id, []).append((m.id, m.sender_id, where))
    limit_bytes = options.min_size_mb * MIB
    files: list[JudgedFile] = []
    for a in sorted(read.attachments, key=lambda x: x.id):
        flags: list[str] = []
        days: float | None = None
        if not a.messages and a.create_time and a.create_time < cutoff_ms:
            days = (at.timestamp() * 1000 - a.create_time) / 86400000
            flags.append(f"unlinked for {days:.0f} days")
        large = a.size > limit_bytes
        if large:
            flags.append(f"larger than {options.min_size_mb:g} MiB")
        files.append(JudgedFile(a, days, large, flags))
    return Judged(read, options, at, files, shared)


def findings(judged: Judged) -> list[Finding]:
    """The findings of the flagged own files, each with the call that deletes it."""
    options = judged.options
    rows: list[Finding] = []
    for f in judged.files:
        a = f.attachment
        if f.unlinked_days is not None:
            rows.append(
                finding(
                    "warning",
                    f.subject,
                    f"no message links this file, uploaded {f.unlinked_days:.0f} days ago (more "
                    f"than {options.unlinked_days}); {_size(a.size)}",
                    "Delete the file: nothing links it",
                    DeleteAttachment(attachment_id=a.id),
                )
            )
        if f.large:
            rows.append(
                finding(
                    "info" if a.messages else "warning",
                    f.subject,
                    f"{_size(a.size)}, more than {options.min_size_mb:g} MiB; linked by "
                    f"{len(a.messages)} messages",
                    "Delete the file if it is no longer needed (messages linking it lose it)",
                    DeleteAttachment(attachment_id=a.id),
                )
            )
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "uploads",
                f"{len(judged.stale_unlinked)} own files are unlinked for more than "
                f"{options.unlinked_days} days; the threshold is {options.max_unlinked_files}",
                "Delete the unlinked files listed",
                api("DELETE", "/attachments/{attachment_id}"),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    read, options = judged.read, judged.options
    own = read.attachments
    file_rows = _file_rows(judged)
    files = _files_frame(file_rows)
    scanned = len(read.messages)
    summary = summary_of(
        "uploads",
        # every own file judged (only those are: others' files get no findings) and the
        # threshold's "uploads"
        subjects=[f"{a.name} (attachment {a.id})" for a in own] + ["uploads"],
        failed=judged.failed,
        counts={
            "own_files": len(own),
            "own_bytes": sum(a.size for a in own),
            "own_unlinked": sum(1 for a in own if not a.messages),
            "own_unlinked_stale": len(judged.stale_unlinked),
            "own_large": sum(f.large for f in judged.files),
            "others_files_seen": len(files) - len(own),
            "messages_scanned": scanned,
            "findings": len(rows),
        },
        thresholds={
            "max_unlinked_files": options.max_unlinked_files,
            "unlinked_days": options.unlinked_days,
            "min_size_mb": options.min_size_mb,
        },
        coverage={
            "own_uploads": f"complete for {read.me.email}: GET /attachments lists only the "
            "acting account's own uploads",
            "others_uploads": f"only files linked from the {scanned} newest messages the "
            "account can read; their size, upload time and real uploader are not visible "
            "(uploader = first sender seen sharing the link)",
            "not_visible": "other users' unlinked uploads, the sizes of other users' files, "
            "and links in older messages or in conversations the account cannot read",
        },
        site=read.site,
        generated_at=judged.at.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "files": files,
            "storage_by_uploader": _by_uploader(files),
            "storage_by_channel": _by_channel(file_rows),
        },
    )


def _file_rows(judged: Judged) -> list[dict[str, Any]]:
    """One row per file seen: the own files, then the others' linked in the scan."""
    read, shared = judged.read, judged.shared
    file_rows: list[dict[str, Any]] = []
    for f in judged.files:
        a = f.attachment
        seen = shared.get(a.path_id, [])
        file_rows.append(
            {
                "path_id": a.path_id,
                "name": a.name,
                "attachment_id": a.id,
                "own": True,
                "uploader": read.me.full_name,
                "size_bytes": a.size,
                "created_at": (
                    pd.Timestamp(a.create_time, unit="ms", tz="UTC") if a.create_time else pd.NaT
                ),
                "messages": len(a.messages),
                "channels": ", ".join(sorted({w for _, _, w in seen if w})),
                "linked": bool(a.messages),
                "flags": "; ".join(f.flags),
            }
        )
    own_paths = {a.path_id for a in read.attachments}
    for path_id, seen in sorted(shared.items()):
        if path_id in own_paths:
            continue
        uploader = min(seen)[1]
        file_rows.append(
            {
                "path_id": path_id,
                "name": path_id.rsplit("/", 1)[-1],
                "attachment_id": None,
                "own": False,
                "uploader": (
                    read.users[uploader].full_name if uploader in read.users else f"user {uploader}"
                ),
                "size_bytes": None,
                "created_at": pd.NaT,
                "messages": len({mid for mid, _, _ in seen}),
                "channels": ", ".join(sorted({w for _, _, w in seen if w})),
                "linked": True,
                "flags": "",
            }
        )
    return file_rows


def _files_frame(file_rows: list[dict[str, Any]]) -> pd.DataFrame:
    files = pd.DataFrame(
        file_rows,
        columns=[
            "path_id",
            "name",
            "attachment_id",
            "own",
            "uploader",
            "size_bytes",
            "created_at",
            "messages",
            "channels",
            "linked",
            "flags",
        ],
    )
    files["size_bytes"] = files["size_bytes"].astype("Float64")
    files["attachment_id"] = files["attachment_id"].astype("Int64")
    return files


def _by_uploader(files: pd.DataFrame) -> pd.DataFrame:
    if not len(files):
        return pd.DataFrame(columns=["files", "known_bytes", "unknown_size_files"])
    return (
        files.groupby("uploader")
        .agg(
            files=("path_id", "size"),
            known_bytes=("size_bytes", "sum"),
            unknown_size_files=("size_bytes", lambda s: int(s.isna().sum())),
        )
        .sort_values(["known_bytes", "files"], ascending=False)
    )


def _by_channel(file_rows: list[dict[str, Any]]) -> pd.DataFrame:
    channel_rows: list[dict[str, Any]] = []
    for r in file_rows:
        for ch in [c for c in str(r["channels"]).split(", ") if c] or ["(not in the scan)"]:
            channel_rows.append({"channel": ch, "path_id": r["path_id"], "size": r["size_bytes"]})
    by_channel_raw = pd.DataFrame(channel_rows, columns=["channel", "path_id", "size"])
    by_channel_raw["size"] = by_channel_raw["size"].astype("Float64")
    return (
        by_channel_raw.groupby("channel")
        .agg(files=("path_id", "size"), known_bytes=("size", "sum"))
        .sort_values(["known_bytes", "files"], ascending=False)
    )


def _size(size: int) -> str:
    if size >= MIB:
        return f"{size / MIB:.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"
