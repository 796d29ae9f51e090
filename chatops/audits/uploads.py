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

With ``dry_run=False`` every own unlinked file older than ``unlinked_days`` is deleted
(``DELETE /attachments/{id}``). Large files that messages still link are only reported:
deleting them breaks those messages.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd

from ._common import api, finding
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["UPLOAD_LINK", "uploads"]

#: A link to an uploaded file in message Markdown; group 1 is the ``path_id``.
UPLOAD_LINK = re.compile(r"/user_uploads/(\d+/[^\s()\[\]<>\"'`]+)")
MIB = 1024 * 1024


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
    dry_run: Annotated[
        bool,
        Param("when False, delete the own files unlinked for unlinked_days"),
    ] = True,
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
        dry_run: when False, delete the own unlinked files older than ``unlinked_days``.

    Tables: ``files`` (one row per file seen), ``storage_by_uploader``,
    ``storage_by_channel`` (known bytes and file counts, for what is visible).
    """
    if unlinked_days < 0:
        raise ValueError(f"unlinked_days must be 0 or more, not {unlinked_days}")
    if not min_size_mb > 0:
        raise ValueError(f"min_size_mb must be more than 0, not {min_size_mb}")
    if not 0 <= scan_messages <= 5000:
        raise ValueError(f"scan_messages must be between 0 and 5000, not {scan_messages}")
    if max_unlinked_files < -1:
        raise ValueError(f"max_unlinked_files must be -1 or more, not {max_unlinked_files}")
    at = pd.Timestamp(now or datetime.now(UTC))
    at = at.tz_localize("UTC") if at.tzinfo is None else at.tz_convert("UTC")
    cutoff_ms = (at.timestamp() - unlinked_days * 86400) * 1000
    me = client.users.me()
    users = {u.user_id: u for u in client.users.list()}
    own = client.uploads.attachments()

    # path_id -> (message id, sender id, channel) of each scanned message linking it
    shared: dict[str, list[tuple[int, int, str]]] = {}
    scanned = 0
    if scan_messages:
        page = client.messages.get(
            anchor="newest", num_before=scan_messages, num_after=0, apply_markdown=False
        )
        messages = page.messages[-scan_messages:]
        scanned = len(messages)
        for m in messages:
            if m.type == "stream" or m.stream_id is not None:
                where = f"#{m.display_recipient}" if isinstance(m.display_recipient, str) else ""
            else:
                where = "direct messages"
            for path_id in dict.fromkeys(UPLOAD_LINK.findall(m.content)):
                shared.setdefault(path_id, []).append((m.id, m.sender_id, where))

    def name_of(uid: int) -> str:
        return users[uid].full_name if uid in users else f"user {uid}"

    file_rows: list[dict[str, Any]] = []
    rows: list[Finding] = []
    stale_unlinked: list[int] = []
    limit_bytes = min_size_mb * MIB
    own_paths = set()
    for a in sorted(own, key=lambda x: x.id):
        own_paths.add(a.path_id)
        seen = shared.get(a.path_id, [])
        channels = sorted({w for _, _, w in seen if w})
        linked = bool(a.messages)
        created = pd.Timestamp(a.create_time, unit="ms", tz="UTC") if a.create_time else pd.NaT
        flags: list[str] = []
        subject = f"{a.name} (attachment {a.id})"
        if not linked and a.create_time and a.create_time < cutoff_ms:
            days = (at.timestamp() * 1000 - a.create_time) / 86400000
            flags.append(f"unlinked for {days:.0f} days")
            stale_unlinked.append(a.id)
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"no message links this file, uploaded {days:.0f} days ago (more than "
                    f"{unlinked_days}); {_size(a.size)}",
                    "Delete the file: nothing links it",
                    api("DELETE", f"/attachments/{a.id}"),
                )
            )
        if a.size > limit_bytes:
            flags.append(f"larger than {min_size_mb:g} MiB")
            rows.append(
                finding(
                    "info" if linked else "warning",
                    subject,
                    f"{_size(a.size)}, more than {min_size_mb:g} MiB; linked by "
                    f"{len(a.messages)} messages",
                    "Delete the file if it is no longer needed (messages linking it lose it)",
                    api("DELETE", f"/attachments/{a.id}"),
                )
            )
        file_rows.append(
            {
                "path_id": a.path_id,
                "name": a.name,
                "attachment_id": a.id,
                "own": True,
                "uploader": me.full_name,
                "size_bytes": a.size,
                "created_at": created,
                "messages": len(a.messages),
                "channels": ", ".join(channels),
                "linked": linked,
                "flags": "; ".join(flags),
            }
        )
    for path_id, seen in sorted(shared.items()):
        if path_id in own_paths:
            continue
        first = min(seen)
        file_rows.append(
            {
                "path_id": path_id,
                "name": path_id.rsplit("/", 1)[-1],
                "attachment_id": None,
                "own": False,
                "uploader": name_of(first[1]),
                "size_bytes": None,
                "created_at": pd.NaT,
                "messages": len({mid for mid, _, _ in seen}),
                "channels": ", ".join(sorted({w for _, _, w in seen if w})),
                "linked": True,
                "flags": "",
            }
        )
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

    by_uploader = (
        files.groupby("uploader")
        .agg(
            files=("path_id", "size"),
            known_bytes=("size_bytes", "sum"),
            unknown_size_files=("size_bytes", lambda s: int(s.isna().sum())),
        )
        .sort_values(["known_bytes", "files"], ascending=False)
        if len(files)
        else pd.DataFrame(columns=["files", "known_bytes", "unknown_size_files"])
    )
    channel_rows: list[dict[str, Any]] = []
    for r in file_rows:
        for ch in [c for c in str(r["channels"]).split(", ") if c] or ["(not in the scan)"]:
            channel_rows.append({"channel": ch, "path_id": r["path_id"], "size": r["size_bytes"]})
    by_channel_raw = pd.DataFrame(channel_rows, columns=["channel", "path_id", "size"])
    by_channel_raw["size"] = by_channel_raw["size"].astype("Float64")
    by_channel = (
        by_channel_raw.groupby("channel")
        .agg(files=("path_id", "size"), known_bytes=("size", "sum"))
        .sort_values(["known_bytes", "files"], ascending=False)
    )

    failed: list[str] = []
    if max_unlinked_files >= 0 and len(stale_unlinked) > max_unlinked_files:
        failed.append("max_unlinked_files")
        rows.append(
            finding(
                "critical",
                "uploads",
                f"{len(stale_unlinked)} own files are unlinked for more than {unlinked_days} "
                f"days; the threshold is {max_unlinked_files}",
                "Delete the unlinked files listed",
                api("DELETE", "/attachments/{attachment_id}"),
            )
        )

    deleted: list[int] = []
    if not dry_run:
        for attachment_id in stale_unlinked:
            client.uploads.delete_attachment(attachment_id)
            deleted.append(attachment_id)

    summary = summary_of(
        "uploads",
        # every own file judged (only those are: others' files get no findings) and the
        # threshold's "uploads"
        subjects=[f"{a.name} (attachment {a.id})" for a in own] + ["uploads"],
        failed=failed,
        counts={
            "own_files": len(own),
            "own_bytes": sum(a.size for a in own),
            "own_unlinked": sum(1 for a in own if not a.messages),
            "own_unlinked_stale": len(stale_unlinked),
            "own_large": sum(1 for a in own if a.size > limit_bytes),
            "others_files_seen": len(files) - len(own),
            "messages_scanned": scanned,
            "findings": len(rows),
            "deleted_now": len(deleted),
        },
        thresholds={
            "max_unlinked_files": max_unlinked_files,
            "unlinked_days": unlinked_days,
            "min_size_mb": min_size_mb,
        },
        coverage={
            "own_uploads": f"complete for {me.email}: GET /attachments lists only the acting "
            "account's own uploads",
            "others_uploads": f"only files linked from the {scanned} newest messages the "
            "account can read; their size, upload time and real uploader are not visible "
            "(uploader = first sender seen sharing the link)",
            "not_visible": "other users' unlinked uploads, the sizes of other users' files, "
            "and links in older messages or in conversations the account cannot read",
        },
        dry_run=dry_run,
        deleted_attachment_ids=deleted,
        site=client.site,
        generated_at=at.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "files": files,
            "storage_by_uploader": by_uploader,
            "storage_by_channel": by_channel,
        },
    )


def _size(size: int) -> str:
    if size >= MIB:
        return f"{size / MIB:.1f} MiB"
    if size >= 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size} bytes"
