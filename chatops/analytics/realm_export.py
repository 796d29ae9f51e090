"""A Zulip organization data export -> the analytics frames, without the API.

For the largest organizations, where even the API's rate limit makes a full fetch slow, an
administrator downloads the organization's data export (Zulip's documented format: a tarball
of ``realm.json``, ``messages-000001.json``..., ``attachment.json`` and upload folders) and
reads it here into the same :class:`~chatops.analytics.AnalyticsFrames` the API path builds::

    >>> from chatops.analytics.realm_export import read_export
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

- system bots (``zerver_userprofile_crossrealm``) are not users of the organization, as in the
  API's user list; their messages name them (Zulip's own names for its system bots);
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

import ctypes
import errno
import json
import os
import re
import shutil
import tarfile
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from . import _files
from ._pages import _Message as _PageMessage
from ._pages import records_table
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
from .schema import RESOLVED_PREFIX, empty, validate

__all__ = ["MalformedExport", "export_cache", "import_export", "read_export"]

RECIPIENT_PERSONAL = 1
RECIPIENT_STREAM = 2
RECIPIENT_HUDDLE = 3

#: The names of Zulip's system bots, by the local part of their email address.
SYSTEM_BOT_NAMES = {
    "notification-bot": "Notification Bot",
    "welcome-bot": "Welcome Bot",
    "emailgateway": "Email Gateway",
    "reminder-bot": "Reminder Bot",
    "feedback": "Zulip Feedback Bot",
}

#: What ``GET /messages`` calls the empty topic without ``allow_empty_topic_name``, as a sync
#: fetches (Zulip translates it to the organization's language; this is its English name).
EMPTY_TOPIC_DISPLAY_NAME = "general chat"

# messages turned into frames at once: a frame per file would cost more than the file
_BATCH = 50_000

_MESSAGES_FILE = re.compile(r"messages-(\d+)\.json")
_WANTED = re.compile(r"(realm|attachment)\.json|messages-\d+\.json")


class MalformedExport(ValueError):
    """The export is not in Zulip's format: the message names the file, table and field."""


@dataclass
class _Realm:
    """What the message files are resolved against, from ``realm.json``."""

    users: dict[int, dict[str, Any]]
    system_bots: dict[int, dict[str, Any]]
    streams: dict[int, dict[str, Any]]
    recipients: dict[int, tuple[int, int]]
    huddle_members: dict[int, list[int]]
    stream_members: dict[int, list[int]]
    clients: dict[int, str]
    reactions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


def _field(row: Any, name: str, where: str) -> Any:
    try:
        return row[name]
    except (KeyError, TypeError, IndexError):
        if not isinstance(row, Mapping):
            raise MalformedExport(
                f"{where}: expected an object, got {type(row).__name__}"
            ) from None
        ident = row.get("id", row.get("usergroup_ptr"))
        at = f" (id {ident})" if ident is not None else ""
        raise MalformedExport(f"{where}: a row{at} has no field {name!r}") from None


def _int(row: Any, name: str, where: str, *, optional: bool = False) -> int | None:
    value = _field(row, name, where)
    if type(value) is int:
        return value
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedExport(
            f"{where}: field {name!r} of row {row.get('id')} is {value!r}, expected a number"
        )
    return int(value)


def _req_int(row: Any, name: str, where: str) -> int:
    value = _int(row, name, where)
    assert value is not None
    return value


def _table(data: Mapping[str, Any], name: str, file: str, *, required: bool = True) -> list[Any]:
    rows = data.get(name)
    if rows is None:
        if required:
            raise MalformedExport(f"{file}: table {name!r} is missing")
        return []
    if not isinstance(rows, list):
        raise MalformedExport(f"{file}: table {name!r} is not a list of rows")
    return rows


def _load_json(path: Path, name: str) -> Any:
    try:
        return msgspec.json.decode(path.read_bytes())
    except msgspec.DecodeError as exc:
        raise MalformedExport(f"{name}: not valid JSON ({exc})") from None


def _iso(seconds: Any) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(float(seconds), UTC).isoformat()


def _parse_realm(data: Any) -> _Realm:
    file = "realm.json"
    if not isinstance(data, Mapping):
        raise MalformedExport(f"{file}: expected an object of tables")
    where = f"{file} zerver_userprofile"
    users: dict[int, dict[str, Any]] = {}
    for u in _table(data, "zerver_userprofile", file):
        uid = _req_int(u, "id", where)
        is_bot = bool(_field(u, "is_bot", where))
        users[uid] = {
            "user_id": uid,
            "full_name": _field(u, "full_name", where),
            "email": _field(u, "email", where),
            "role": _int(u, "role", where, optional=True),
            "is_active": bool(_field(u, "is_active", where)),
            "is_bot": is_bot,
            "bot_type": u.get("bot_type") if is_bot else None,
            "bot_owner_id": u.get("bot_owner") if is_bot else None,
            "date_joined": _iso(_field(u, "date_joined", where)),
            "timezone": u.get("timezone", ""),
        }
    # System bots (the notification bot...) belong to no organization: the API does not list
    # them among the users, but they send messages.
    where = f"{file} zerver_userprofile_crossrealm"
    system_bots: dict[int, dict[str, Any]] = {}
    for u in _table(data, "zerver_userprofile_crossrealm", file, required=False):
        uid = _req_int(u, "id", where)
        email = str(_field(u, "email", where))
        known = users.pop(uid, None)
        name = SYSTEM_BOT_NAMES.get(email.partition("@")[0], email)
        system_bots[uid] = {"full_name": known["full_name"] if known else name, "email": email}
    for u in users.values():
        u["is_system_bot"] = False

    where = f"{file} zerver_recipient"
    recipients: dict[int, tuple[int, int]] = {}
    for r in _table(data, "zerver_recipient", file):
        recipients[_req_int(r, "id", where)] = (
            _req_int(r, "type", where),
            _req_int(r, "type_id", where),
        )
    huddle_recipient = {
        _req_int(h, "id", f"{file} zerver_huddle"): _int(
            h, "recipient", f"{file} zerver_huddle", optional=True
        )
        for h in _table(data, "zerver_huddle", file, required=False)
    }
    # a huddle recipient whose huddle row lacks "recipient": find it by type_id
    for rid, (rtype, type_id) in recipients.items():
        if rtype == RECIPIENT_HUDDLE and huddle_recipient.get(type_id) is None:
            huddle_recipient[type_id] = rid

    where = f"{file} zerver_subscription"
    huddle_members: dict[int, list[int]] = {}
    stream_members: dict[int, list[int]] = {}
    for s in _table(data, "zerver_subscription", file):
        rid = _req_int(s, "recipient", where)
        uid = _req_int(s, "user_profile", where)
        kind = recipients.get(rid)
        if kind is None:
            raise MalformedExport(f"{where}: row {s.get('id')} names unknown recipient {rid}")
        if kind[0] == RECIPIENT_HUDDLE:
            huddle_members.setdefault(rid, []).append(uid)
        elif kind[0] == RECIPIENT_STREAM:
            if s.get("active", True) and s.get("is_user_active", True):
                stream_members.setdefault(kind[1], []).append(uid)

    defaults = {
        _req_int(d, "stream", f"{file} zerver_defaultstream")
        for d in _table(data, "zerver_defaultstream", file, required=False)
    }
    where = f"{file} zerver_stream"
    streams: dict[int, dict[str, Any]] = {}
    for s in _table(data, "zerver_stream", file):
        sid = _req_int(s, "id", where)
        created = s.get("date_created")
        streams[sid] = {
            "stream_id": sid,
            "name": _field(s, "name", where),
            "description": s.get("description", ""),
            "invite_only": bool(s.get("invite_only", False)),
            "is_web_public": bool(s.get("is_web_public", False)),
            "is_archived": bool(s.get("deactivated", False)),
            "is_default": sid in defaults,
            "subscriber_count": len(stream_members.get(sid, [])),
            "stream_weekly_traffic": None,
            "date_created": None if created is None else int(created),
            "creator_id": s.get("creator"),
            "first_message_id": s.get("first_message_id"),
            "folder_id": s.get("folder"),
        }
    clients = {
        _req_int(c, "id", f"{file} zerver_client"): str(_field(c, "name", f"{file} zerver_client"))
        for c in _table(data, "zerver_client", file, required=False)
    }
    realm = _Realm(
        users=users,
        system_bots=system_bots,
        streams=streams,
        recipients=recipients,
        huddle_members={rid: sorted(set(m)) for rid, m in huddle_members.items()},
        stream_members=stream_members,
        clients=clients,
    )
    where = f"{file} zerver_reaction"
    for r in _table(data, "zerver_reaction", file, required=False):
        realm.reactions.setdefault(_req_int(r, "message", where), []).append(
            {
                "user_id": _req_int(r, "user_profile", where),
                "emoji_name": _field(r, "emoji_name", where),
                "emoji_code": r.get("emoji_code"),
                "reaction_type": r.get("reaction_type", "unicode_emoji"),
            }
        )
    return realm


def _is_move(entry: Mapping[str, Any]) -> bool:
    if entry.get("prev_stream") is not None:
        return True
    prev = entry.get("prev_topic", entry.get("prev_subject"))
    if prev is None:
        return False
    topic = entry.get("topic", entry.get("subject")) or ""
    # resolving or unresolving a topic is not a move
    return str(prev).removeprefix(RESOLVED_PREFIX) != str(topic).removeprefix(RESOLVED_PREFIX)


def _api_message(m: Any, realm: _Realm, file: str) -> dict[str, Any]:
    """A ``zerver_message`` row as the API would have returned it."""
    where = f"{file} zerver_message"
    mid = _req_int(m, "id", where)
    sender = _req_int(m, "sender", where)
    rid = _req_int(m, "recipient", where)
    kind = realm.recipients.get(rid)
    if kind is None:
        raise MalformedExport(f"{where}: message {mid} names unknown recipient {rid}")
    user = realm.users.get(sender) or realm.system_bots.get(sender)
    if user is None:
        raise MalformedExport(f"{where}: message {mid} names unknown sender {sender}")
    sent = _field(m, "date_sent", where) if "date_sent" in m else _field(m, "pub_date", where)
    if isinstance(sent, bool) or not isinstance(sent, int | float):
        raise MalformedExport(f"{where}: field 'date_sent' of message {mid} is not a number")
    history = m.get("edit_history")
    if isinstance(history, str):
        try:
            history = json.loads(history)
        except json.JSONDecodeError:
            raise MalformedExport(
                f"{where}: field 'edit_history' of message {mid} is not JSON"
            ) from None
    if history is not None and not (
        isinstance(history, list) and all(isinstance(e, Mapping) for e in history)
    ):
        raise MalformedExport(f"{where}: field 'edit_history' of message {mid} is not a list")
    record: dict[str, Any] = {
        "id": mid,
        "timestamp": int(sent),
        "sender_id": sender,
        "sender_full_name": user["full_name"],
        "sender_email": user["email"],
        "recipient_id": rid,
        "content": _field(m, "content", where),
        "client": realm.clients.get(m.get("sending_client")),
        "reactions": realm.reactions.get(mid, []),
        "edit_history": history,
    }
    if kind[0] == RECIPIENT_STREAM:
        stream = realm.streams.get(kind[1])
        if stream is None:
            raise MalformedExport(f"{where}: message {mid} is in unknown channel {kind[1]}")
        record.update(
            type="stream",
            stream_id=kind[1],
            display_recipient=stream["name"],
            subject=_field(m, "subject", where),
        )
    else:
        if kind[0] == RECIPIENT_HUDDLE:
            members = realm.huddle_members.get(rid, [])
        else:
            members = [kind[1]]
        people = sorted({sender, *members})
        record.update(type="private", display_recipient=[{"id": u} for u in people], subject="")
    if history:
        edits = [int(e["timestamp"]) for e in history if "prev_content" in e]
        moves = [int(e["timestamp"]) for e in history if _is_move(e)]
        record["last_edit_timestamp"] = max(edits, default=None)
        record["last_moved_timestamp"] = max(moves, default=None)
    else:
        last = m.get("last_edit_time")
        record["last_edit_timestamp"] = None if last is None else int(last)
        record["last_moved_timestamp"] = None
    return record


@contextmanager
def _export_files(path: Path) -> Iterator[tuple[Path, list[tuple[str, Path]]]]:
    """(realm.json, [(name, messages file), ...] in order) of a folder or a tarball."""
    if path.is_dir():
        folder = path
        if not (folder / "realm.json").exists():
            inner = [p for p in folder.iterdir() if (p / "realm.json").is_file()]
            if len(inner) != 1:
                raise MalformedExport(f"{path}: no realm.json in the folder or one folder below")
            folder = inner[0]
        yield (
            folder / "realm.json",
            _message_files([(p.name, p) for p in folder.glob("messages-*.json")]),
        )
        return
    if not path.is_file():
        raise MalformedExport(f"{path}: no such file or folder")
    if not tarfile.is_tarfile(path):
        raise MalformedExport(f"{path}: not a tarball nor a folder of a Zulip export")
    with tempfile.TemporaryDirectory(prefix="chatops-export-") as tmp:  # 0700
        found: dict[str, Path] = {}
        with tarfile.open(path, "r|*") as tar:
            for member in tar:
                arcname = member.name.removeprefix("./")
                name = arcname.rsplit("/", 1)[-1]
                # only the top folder's own files; uploads and avatars are not read
                if not member.isfile() or arcname.count("/") > 1 or not _WANTED.fullmatch(name):
                    continue
                source = tar.extractfile(member)
                assert source is not None
                target = Path(tmp) / name
                with target.open("xb") as out:
                    while chunk := source.read(1 << 20):
                        out.write(chunk)
                os.utime(target, (member.mtime, member.mtime))  # when the export was written
                found[name] = target
        if "realm.json" not in found:
            raise MalformedExport(f"{path}: the tarball has no realm.json")
        yield (
            found["realm.json"],
            _message_files([(n, p) for n, p in found.items() if _MESSAGES_FILE.fullmatch(n)]),
        )


def _message_files(files: Iterable[tuple[str, Path]]) -> list[tuple[str, Path]]:
    numbered = []
    for name, p in files:
        match = _MESSAGES_FILE.fullmatch(name)
        if match:
            numbered.append((int(match.group(1)), name, p))
    return [(name, p) for _, name, p in sorted(numbered)]


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

    with _export_files(Path(path)) as (realm_file, message_files):
        realm = _parse_realm(_load_json(realm_file, "realm.json"))
        if not message_files:
            raise MalformedExport(f"{path}: the export has no messages-NNNNNN.json file")
        parts: dict[str, list[pd.DataFrame]] = {
            k: [] for k in ("messages", "reactions", "edits", "dm_recipients")
        }
        records: list[dict[str, Any]] = []
        for name, file in tqdm(
            message_files, desc="Reading export", unit="file", disable=not progress, leave=False
        ):
            data = _load_json(file, name)
            if not isinstance(data, Mapping):
                raise MalformedExport(f"{name}: expected an object of tables")
            records.extend(
                _api_message(m, realm, name) for m in _table(data, "zerver_message", name)
            )
            del data
            if len(records) >= _BATCH:
                _add_frames(parts, records)
        _add_frames(parts, records)
    messages = _concat(parts["messages"], "messages").sort_values("id", ignore_index=True)
    return AnalyticsFrames(
        messages=messages,
        users=validate(users_frame(realm.users.values()), "users"),
        channels=validate(channels_frame(realm.streams.values()), "channels"),
        subscriptions=subscriptions_frame(realm.stream_members),
        reactions=_concat(parts["reactions"], "reactions"),
        edits=_concat(parts["edits"], "edits"),
        dm_recipients=_concat(parts["dm_recipients"], "dm_recipients"),
    )


# -- into the dataset's Parquet layout ------------------------------------------------------


def _realm_identity(data: Mapping[str, Any]) -> dict[str, Any]:
    rows = _table(data, "zerver_realm", "realm.json")
    if not rows:
        raise MalformedExport("realm.json: table 'zerver_realm' has no row")
    where = "realm.json zerver_realm"
    row = rows[0]
    return {
        "id": _req_int(row, "id", where),
        "string_id": str(_field(row, "string_id", where)),
        "name": str(_field(row, "name", where)),
    }


def _user_groups(data: Mapping[str, Any]) -> pd.DataFrame:
    """``name, user_id``: the direct members of each named, active user group."""
    file = "realm.json"
    where = f"{file} zerver_namedusergroup"
    names: dict[int, str] = {}
    for g in _table(data, "zerver_namedusergroup", file, required=False):
        if not g.get("deactivated", False):
            names[_req_int(g, "usergroup_ptr", where)] = str(_field(g, "name", where))
    where = f"{file} zerver_usergroupmembership"
    pairs = sorted(
        (gid, _req_int(r, "user_profile", where))
        for r in _table(data, "zerver_usergroupmembership", file, required=False)
        if (gid := _req_int(r, "user_group", where)) in names
    )
    return pd.DataFrame([(names[g], u) for g, u in pairs], columns=["name", "user_id"]).astype(
        {"user_id": "Int64"}
    )


class _Parts:
    """Records -> part files of their narrow, holding at most about ``2 * flush_rows`` rows."""

    def __init__(self, root: Path, manifest: dict[str, Any], content: bool, flush_rows: int):
        self.root = root
        self.m = manifest
        self.content = content
        self.flush_rows = flush_rows
        self.buffers: dict[str, list[pa.Table]] = {}
        self.counts: dict[str, int] = {}
        self.conversations: set[int] = set()
        self.messages = 0

    def add(self, records: list[dict[str, Any]]) -> None:
        if not records:
            return
        for r in records:
            if r["type"] == "stream" and r["subject"] == "":
                r["subject"] = EMPTY_TOPIC_DISPLAY_NAME  # as a sync stores it
        table = records_table(msgspec.convert(records, list[_PageMessage]), content=self.content)
        rows: dict[str, list[int]] = {}
        for i, r in enumerate(records):
            if r["type"] == "stream":
                rows.setdefault(f"channel-{r['stream_id']}", []).append(i)
            else:
                rows.setdefault("dm", []).append(i)
                self.conversations.add(int(r["recipient_id"]))
        self.messages += len(records)
        for key, indices in rows.items():
            self.buffers.setdefault(key, []).append(table.take(indices))
            self.counts[key] = self.counts.get(key, 0) + len(indices)
            if self.counts[key] >= self.flush_rows:
                self.flush(key)
        while sum(self.counts.values()) >= 2 * self.flush_rows:
            self.flush(max(self.counts, key=lambda k: self.counts[k]))

    def flush(self, key: str) -> None:
        parts = self.buffers.pop(key, [])
        self.counts.pop(key, None)
        if not parts:
            return
        table = pa.concat_tables(parts).sort_by("id")
        n = int(self.m["next_part"])
        self.m["next_part"] = n + 1
        folder = _files.private_dir(_files.private_dir(self.root / "messages") / f"narrow={key}")
        path = folder / f"part-{n:06d}.parquet"
        _files.write_parquet(table, path)
        ids = table["id"]
        low, high = pc.min(ids).as_py(), pc.max(ids).as_py()
        state = self.m["narrows"][key]
        state["files"] = sorted(
            [
                *state["files"],
                {
                    "path": str(path.relative_to(self.root)),
                    "rows": table.num_rows,
                    "min_id": low,
                    "max_id": high,
                },
            ],
            key=lambda f: (f["max_id"], f["path"]),
        )
        state["watermark"] = max(state["watermark"] or 0, high)

    def close(self) -> None:
        for key in list(self.buffers):
            self.flush(key)


def _build(source: Path, out: Path, *, content: bool, flush_rows: int, progress: bool) -> None:
    """Write the dataset of the export ``source`` into the empty folder ``out``."""
    from tqdm.auto import tqdm

    began = time.monotonic()
    with _export_files(source) as (realm_file, message_files):
        data = _load_json(realm_file, "realm.json")
        realm = _parse_realm(data)
        identity = _realm_identity(data)
        if not isinstance(data, Mapping):  # _parse_realm checked it
            raise MalformedExport("realm.json: expected an object of tables")
        groups = _user_groups(data)
        del data
        exported_at = int(realm_file.stat().st_mtime)
        if not message_files:
            raise MalformedExport(f"{source}: the export has no messages-NNNNNN.json file")
        manifest = _files.new_manifest("", "", content)
        manifest["site"] = manifest["email"] = None  # an export has neither
        manifest["source"] = {
            "kind": "export",
            "file": source.name,
            "realm": identity,
            "exported_at": exported_at,
        }
        manifest["narrows"] = {
            f"channel-{sid}": {
                "kind": "channel",
                "stream_id": sid,
                "name": s["name"],
                "watermark": None,
                "readable": True,
                "files": [],
            }
            for sid, s in sorted(realm.streams.items())
        }
        manifest["narrows"]["dm"] = {
            "kind": "dm",
            "name": "direct messages",
            "watermark": None,
            "readable": True,
            "files": [],
        }
        parts = _Parts(out, manifest, content, flush_rows)
        with tqdm(
            total=len(message_files), desc="import", unit="file", disable=not progress
        ) as bar:
            for name, file in message_files:
                chunk = _load_json(file, name)
                if not isinstance(chunk, Mapping):
                    raise MalformedExport(f"{name}: expected an object of tables")
                records = [
                    _api_message(m, realm, name) for m in _table(chunk, "zerver_message", name)
                ]
                del chunk
                parts.add(records)
                del records
                bar.update(1)
                bar.set_postfix(messages=parts.messages, refresh=False)
        parts.close()
    tables = {
        "users": users_frame(realm.users.values()),
        "channels": channels_frame(realm.streams.values()),
        "subscriptions": subscriptions_frame(realm.stream_members),
        "user_groups": groups,
    }
    folder = _files.private_dir(out / "tables")
    for name, df in tables.items():
        _files.write_parquet(
            pa.Table.from_pandas(df, preserve_index=False), folder / f"{name}.parquet"
        )
    now = int(time.time())
    for state in manifest["narrows"].values():
        state["synced_at"] = now
    manifest["coverage"] = {
        "as_of": exported_at,
        "source": "export",
        "channels_readable": [
            {"stream_id": sid, "name": s["name"]} for sid, s in sorted(realm.streams.items())
        ],
        "channels_not_readable": [],
        "dm_conversations": len(parts.conversations),
    }
    manifest["source"]["imported"] = {
        "messages": parts.messages,
        "message_files": len(message_files),
        "seconds": round(time.monotonic() - began, 3),
        "finished": now,
    }
    manifest["updated"] = now
    _files.write_json(manifest, out / "manifest.json")


def _exchange(a: Path, b: Path) -> None:
    """Swap two folders: in one step where the system can (Linux ``renameat2``), else three."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is not None:
        at_fdcwd, rename_exchange = -100, 2
        if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), str(b))
    aside = a.with_name(a.name + "-previous")
    os.rename(b, aside)
    os.rename(a, b)
    os.rename(aside, a)


def _check_target(cache: Path) -> None:
    if cache.exists() and not cache.is_dir():
        raise ValueError(f"{cache} is not a folder")
    if not cache.exists():
        return
    manifest = _files.read_manifest(cache)
    if manifest is None:
        if any(p.name != ".lock" for p in cache.iterdir()):
            raise ValueError(
                f"{cache} holds files but no dataset: import into a new or empty folder"
            )
        return
    if manifest.get("source", {}).get("kind") != "export":
        raise ValueError(
            f"{cache} holds a dataset synced from {manifest['site']} as {manifest['email']}: "
            "import into another folder"
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
    _check_target(target)
    _files.private_dir(target)
    with _files.locked(target):
        _check_target(target)  # another import or sync may have written it meanwhile
        for leftover in target.parent.glob(f".{target.name}.import-*"):
            shutil.rmtree(leftover, ignore_errors=True)  # of an import that was killed
        staging = target.parent / f".{target.name}.import-{os.getpid()}"
        try:
            _files.private_dir(staging)
            _build(source, staging, content=content, flush_rows=flush_rows, progress=progress)
            _exchange(staging, target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return target
