"""A Zulip organization data export's files and tables, read into API message records.

The importer (:mod:`.realm_export`) reads ``realm.json`` once (:func:`parse_realm`: users,
channels, recipients, reactions) and turns each row of the message files into the record
``GET /messages`` would give (:func:`api_message`).
"""

from __future__ import annotations

import json
import os
import re
import tarfile
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import pandas as pd

from ..schema import RESOLVED_PREFIX

__all__ = [
    "EMPTY_TOPIC_DISPLAY_NAME",
    "MalformedExport",
    "Realm",
    "api_message",
    "export_files",
    "load_json",
    "parse_realm",
    "realm_identity",
    "every_member",
    "table_rows",
    "user_groups",
]

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

_MESSAGES_FILE = re.compile(r"messages-(\d+)\.json")
_WANTED = re.compile(r"(realm|attachment)\.json|messages-\d+\.json")


class MalformedExport(ValueError):
    """The export is not in Zulip's format: the message names the file, table and field."""


@dataclass
class Realm:
    """What the message files are resolved against, from ``realm.json``."""

    users: dict[int, dict[str, Any]]
    system_bots: dict[int, dict[str, Any]]
    streams: dict[int, dict[str, Any]]
    recipients: dict[int, tuple[int, int]]
    huddle_members: dict[int, list[int]]
    stream_members: dict[int, list[int]]
    clients: dict[int, str]
    reactions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    def accounts(self) -> list[dict[str, Any]]:
        """The organization's accounts and the system bots that post in it, as the ``users``
        frame takes them: a system bot is a bot (a member's role, as Zulip gives it)."""
        bots = [
            {
                "user_id": uid,
                "full_name": bot["full_name"],
                "email": bot["email"],
                "role": 400,
                "is_active": True,
                "is_bot": True,
                "bot_type": 1,
                "is_system_bot": True,
            }
            for uid, bot in self.system_bots.items()
        ]
        return sorted([*self.users.values(), *bots], key=lambda u: int(u["user_id"]))


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


def table_rows(
    data: Mapping[str, Any], name: str, file: str, *, required: bool = True
) -> list[Any]:
    rows = data.get(name)
    if rows is None:
        if required:
            raise MalformedExport(f"{file}: table {name!r} is missing")
        return []
    if not isinstance(rows, list):
        raise MalformedExport(f"{file}: table {name!r} is not a list of rows")
    return rows


def load_json(path: Path, name: str) -> Any:
    try:
        return msgspec.json.decode(path.read_bytes())
    except msgspec.DecodeError as exc:
        raise MalformedExport(f"{name}: not valid JSON ({exc})") from None


def _iso(seconds: Any) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(float(seconds), UTC).isoformat()


def parse_realm(data: Any) -> Realm:
    file = "realm.json"
    if not isinstance(data, Mapping):
        raise MalformedExport(f"{file}: expected an object of tables")
    where = f"{file} zerver_userprofile"
    users: dict[int, dict[str, Any]] = {}
    for u in table_rows(data, "zerver_userprofile", file):
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
    # System bots (the notification bot...) belong to no organization (``GET /users`` does not
    # list them), but they send messages: the users frame has them as bots (Realm.accounts).
    where = f"{file} zerver_userprofile_crossrealm"
    system_bots: dict[int, dict[str, Any]] = {}
    for u in table_rows(data, "zerver_userprofile_crossrealm", file, required=False):
        uid = _req_int(u, "id", where)
        email = str(_field(u, "email", where))
        known = users.pop(uid, None)
        name = SYSTEM_BOT_NAMES.get(email.partition("@")[0], email)
        system_bots[uid] = {"full_name": known["full_name"] if known else name, "email": email}
    for u in users.values():
        u["is_system_bot"] = False

    where = f"{file} zerver_recipient"
    recipients: dict[int, tuple[int, int]] = {}
    for r in table_rows(data, "zerver_recipient", file):
        recipients[_req_int(r, "id", where)] = (
            _req_int(r, "type", where),
            _req_int(r, "type_id", where),
        )
    huddle_recipient = {
        _req_int(h, "id", f"{file} zerver_huddle"): _int(
            h, "recipient", f"{file} zerver_huddle", optional=True
        )
        for h in table_rows(data, "zerver_huddle", file, required=False)
    }
    # a huddle recipient whose huddle row lacks "recipient": find it by type_id
    for rid, (rtype, type_id) in recipients.items():
        if rtype == RECIPIENT_HUDDLE and huddle_recipient.get(type_id) is None:
            huddle_recipient[type_id] = rid

    where = f"{file} zerver_subscription"
    huddle_members: dict[int, list[int]] = {}
    stream_members: dict[int, list[int]] = {}
    for s in table_rows(data, "zerver_subscription", file):
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
        for d in table_rows(data, "zerver_defaultstream", file, required=False)
    }
    where = f"{file} zerver_stream"
    streams: dict[int, dict[str, Any]] = {}
    for s in table_rows(data, "zerver_stream", file):
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
        for c in table_rows(data, "zerver_client", file, required=False)
    }
    realm = Realm(
        users=users,
        system_bots=system_bots,
        streams=streams,
        recipients=recipients,
        huddle_members={rid: sorted(set(m)) for rid, m in huddle_members.items()},
        stream_members=stream_members,
        clients=clients,
    )
    where = f"{file} zerver_reaction"
    for r in table_rows(data, "zerver_reaction", file, required=False):
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


def api_message(m: Any, realm: Realm, file: str) -> dict[str, Any]:
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
def export_files(path: Path) -> Iterator[tuple[Path, list[tuple[str, Path]]]]:
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


def realm_identity(data: Mapping[str, Any]) -> dict[str, Any]:
    rows = table_rows(data, "zerver_realm", "realm.json")
    if not rows:
        raise MalformedExport("realm.json: table 'zerver_realm' has no row")
    where = "realm.json zerver_realm"
    row = rows[0]
    return {
        "id": _req_int(row, "id", where),
        "string_id": str(_field(row, "string_id", where)),
        "name": str(_field(row, "name", where)),
    }


def every_member(
    direct: Mapping[int, Iterable[int]], subgroups: Mapping[int, Iterable[int]]
) -> dict[int, set[int]]:
    """Each group's members, its subgroups' members at any depth included (a group reached
    twice, or by a cycle, counts once).

    Args:
        direct: group id -> its direct members.
        subgroups: group id -> its direct subgroups' ids.
    """
    out: dict[int, set[int]] = {}
    for root in direct:
        seen, todo = {root}, [root]
        members: set[int] = set()
        while todo:
            g = todo.pop()
            members.update(direct.get(g, ()))
            for sub in subgroups.get(g, ()):
                if sub not in seen:
                    seen.add(sub)
                    todo.append(sub)
        out[root] = members
    return out


def user_groups(data: Mapping[str, Any]) -> pd.DataFrame:
    """``name, user_id``: the members of each named, active user group, its subgroups'
    members (at any depth) included, as Zulip counts a group's members."""
    file = "realm.json"
    where = f"{file} zerver_namedusergroup"
    names: dict[int, str] = {}
    for g in table_rows(data, "zerver_namedusergroup", file, required=False):
        if not g.get("deactivated", False):
            names[_req_int(g, "usergroup_ptr", where)] = str(_field(g, "name", where))
    where = f"{file} zerver_usergroupmembership"
    direct: dict[int, set[int]] = {g: set() for g in names}
    for r in table_rows(data, "zerver_usergroupmembership", file, required=False):
        direct.setdefault(_req_int(r, "user_group", where), set()).add(
            _req_int(r, "user_profile", where)
        )
    where = f"{file} zerver_groupgroupmembership"
    subs: dict[int, set[int]] = {}
    for r in table_rows(data, "zerver_groupgroupmembership", file, required=False):
        subs.setdefault(_req_int(r, "supergroup", where), set()).add(_req_int(r, "subgroup", where))
    members = every_member(direct, subs)
    pairs = sorted((g, u) for g in names for u in members[g])
    return pd.DataFrame([(names[g], u) for g, u in pairs], columns=["name", "user_id"]).astype(
        {"user_id": "Int64"}
    )
