"""A Zulip organization data export -> the analytics frames, without the API.

For the largest organizations, where even the API's rate limit makes a full fetch slow, an
administrator downloads the organization's data export (Zulip's documented format: a tarball
of ``realm.json``, ``messages-000001.json``..., ``attachment.json`` and upload folders) and
reads it here into the same :class:`~chatops.analytics.AnalyticsFrames` the API path builds::

    >>> from chatops.analytics.dataset.realm_export import read_export
    >>> frames = read_export("zulip-export-abc123.tar.gz")
    >>> frames.messages.groupby("channel", observed=True).size()

or writes it, file by file, into the Parquet layout of the incremental dataset
(``docs/dataset-layout.md``), which then reads like a synced one::

    >>> ds = Dataset.from_export("zulip-export-abc123.tar.gz", cache="~/chatops-data/acme")

Message files are read one at a time (a tarball is streamed once; its message files wait in a
private temporary folder), so memory holds the organization's tables and the frames, never
the whole export.

What the export has and the API path does not (an export is taken by the server, not seen
through one account):

- a system bot (``zerver_userprofile_crossrealm``) is listed by its id and email only: the
  users frame has it as a bot with Zulip's name for it, but not when it joined or its time
  zone;
- every message: private channels the account is not subscribed to and other people's direct
  messages are in the frames, with their reactions and edits;
- ``topic_links`` are missing (the server computes them from its linkifiers when asked);
- ``stream_weekly_traffic`` is missing (the API computes it; the export does not hold it);
- ``content_length`` is the length of the Markdown source (the API path counts what it
  fetched: fetch with ``apply_markdown=False`` for the same numbers);
- ``last_edit_timestamp`` and ``last_moved_timestamp`` come from the message's edit history as
  the server computes them (the last content edit; the last move or rename, resolving and
  unresolving a topic excluded); without an edit history, ``last_edit_time`` is taken as a
  content edit.

Nothing secret is read: API keys and passwords are not in a Zulip export's user rows, and the
frames take named fields only.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from ..schema import empty, validate
from . import _files
from ._export_build import build, check_target, exchange
from ._export_tables import (
    MalformedExport,
    api_message,
    export_files,
    load_json,
    parse_realm,
    table_rows,
)
from ._tables import (
    dm_recipients_from_table,
    edits_from_table,
    messages_from_table,
    reactions_from_table,
)
from .records import (
    AnalyticsFrames,
    channels_frame,
    messages_table,
    subscriptions_frame,
    users_frame,
)

__all__ = ["MalformedExport", "export_cache", "import_export", "read_export"]

# messages turned into frames at once: a frame per file would cost more than the file
_BATCH = 50_000


def _concat(parts: list[pd.DataFrame], kind: str) -> pd.DataFrame:
    if not parts:
        return empty(kind)
    frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    return validate(frame, kind)


def _add_frames(parts: dict[str, list[pd.DataFrame]], records: list[dict[str, Any]]) -> None:
    """Turn a batch of records into frames (then forgotten: memory holds one batch)."""
    if records:
        table = messages_table(records)
        parts["messages"].append(messages_from_table(table))
        parts["reactions"].append(reactions_from_table(table))
        parts["edits"].append(edits_from_table(table))
        parts["dm_recipients"].append(dm_recipients_from_table(table))
        records.clear()


def read_export(path: str | Path, *, progress: bool = True) -> AnalyticsFrames:
    """Read a Zulip organization data export into the analytics frames.

    Args:
        path: the export's tarball (``.tar.gz``) or its unpacked folder.
        progress: show a progress bar over the message files.

    Raises :class:`MalformedExport` (a ``ValueError``) naming the file, table and field when the
    export is not in Zulip's format. The frames are those of
    :meth:`AnalyticsFrames.from_records` over the same organization's API records, up to what
    the module docstring lists.
    """
    from tqdm import tqdm  # type: ignore[import-untyped]  # a progress bar only when reading

    with export_files(Path(path)) as (realm_file, message_files):
        realm = parse_realm(load_json(realm_file, "realm.json"))
        if not message_files:
            raise MalformedExport(f"{path}: the export has no messages-NNNNNN.json file")
        parts: dict[str, list[pd.DataFrame]] = {
            k: [] for k in ("messages", "reactions", "edits", "dm_recipients")
        }
        records: list[dict[str, Any]] = []
        for name, file in tqdm(
            message_files, desc="Reading export", unit="file", disable=not progress, leave=False
        ):
            data = load_json(file, name)
            if not isinstance(data, Mapping):
                raise MalformedExport(f"{name}: expected an object of tables")
            records.extend(
                api_message(m, realm, name) for m in table_rows(data, "zerver_message", name)
            )
            del data
            if len(records) >= _BATCH:
                _add_frames(parts, records)
        _add_frames(parts, records)
    messages = _concat(parts["messages"], "messages").sort_values("id", ignore_index=True)
    return AnalyticsFrames(
        messages=messages,
        users=validate(users_frame(realm.accounts()), "users"),
        channels=validate(channels_frame(realm.streams.values()), "channels"),
        subscriptions=subscriptions_frame(realm.stream_members),
        reactions=_concat(parts["reactions"], "reactions"),
        edits=_concat(parts["edits"], "edits"),
        dm_recipients=_concat(parts["dm_recipients"], "dm_recipients"),
    )


def export_cache(path: str | os.PathLike[str]) -> Path:
    """``$XDG_CACHE_HOME/chatops/datasets/exports/<name of the export>`` (``~/.cache``...)."""
    name = Path(path).name
    for suffix in (".tar.gz", ".tgz", ".tar"):
        name = name.removesuffix(suffix)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name).lstrip(".") or "export"
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return root / "chatops" / "datasets" / "exports" / name


def import_export(
    path: str | os.PathLike[str],
    cache: str | os.PathLike[str],
    *,
    content: bool = False,
    flush_rows: int = 100_000,
    progress: bool = True,
) -> Path:
    """Write the Zulip data export ``path`` into ``cache`` as the dataset's Parquet layout.

    See :meth:`chatops.analytics.Dataset.from_export`, which calls this and returns the dataset.
    """
    if flush_rows < 1:
        raise ValueError(f"flush_rows must be at least 1, got {flush_rows}")
    source = Path(path).expanduser()
    target = Path(cache).expanduser().absolute()
    if not source.exists():
        raise MalformedExport(f"{source}: no such file or folder")
    check_target(target)
    _files.private_dir(target)
    with _files.locked(target):
        check_target(target)  # another import or sync may have written it meanwhile
        for leftover in target.parent.glob(f".{target.name}.import-*"):
            shutil.rmtree(leftover, ignore_errors=True)  # of an import that was killed
        staging = target.parent / f".{target.name}.import-{os.getpid()}"
        try:
            _files.private_dir(staging)
            build(source, staging, content=content, flush_rows=flush_rows, progress=progress)
            exchange(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target
