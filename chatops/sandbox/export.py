"""The organization as a Zulip organization data export: the tarball an administrator downloads.

``export_organization(store, out)`` writes ``out`` (``.tar.gz``, 0600) holding one folder with
the files of Zulip's export format, named and shaped as the real server writes them
(``zerver/lib/export.py``; ``docs/production/export-and-import.md``)::

    zulip-export-<id>/
        realm.json            {"zerver_realm": [...], "zerver_userprofile": [...], ...}
        messages-000001.json  {"zerver_message": [...], "zerver_usermessage": [...]}
        messages-000002.json  ...  (``chunk_size`` messages each, in id order)
        attachment.json       {"zerver_attachment": [...]}
        uploads/records.json  and the uploaded files under their ``path_id``
        avatars/records.json, emoji/records.json

Tables are lists of rows keyed by Zulip's field names; foreign keys hold ids (``sender``,
``recipient``, ``user_profile``), datetimes are Unix seconds as floats, ``edit_history`` is the
JSON text Zulip stores (newest first). As in Zulip's export, no row holds an API key or a
password. Direct messages between two or more people are ``zerver_huddle`` conversations
whose members are the subscriptions to the huddle's recipient; a conversation with oneself
is a personal recipient. The notification bot, a system bot, is listed in
``zerver_userprofile_crossrealm`` (id and email only), as Zulip lists its system bots. The
code playgrounds and the settings for new users are ``zerver_realmplayground`` and
``zerver_realmuserdefault`` (:mod:`~chatops.sandbox.export_settings`).

By default the export holds every message, as the server's management command writes it. An
:class:`~chatops.sandbox.export_scope.ExportScope` narrows it as ``POST /export/realm`` does: a
public export holds the messages of public channels only; an export with consent also what the
consenting people may read, with only their ``zerver_usermessage`` rows. Attachments follow
their messages: one none of whose messages is exported is left out.
"""

from __future__ import annotations

import hashlib
import io
import os
import secrets
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from . import group_settings
from . import messages as messages_mod
from . import users as users_mod
from .export_scope import ExportScope
from .export_settings import settings_tables
from .files import private_file
from .store import Row, Store

__all__ = ["RECIPIENT_HUDDLE", "RECIPIENT_PERSONAL", "RECIPIENT_STREAM", "export_organization"]

#: ``zerver_recipient.type`` values.
RECIPIENT_PERSONAL = 1
RECIPIENT_STREAM = 2
RECIPIENT_HUDDLE = 3

#: Zulip's ``UserMessage`` flag bits, in the order of its ``ALL_FLAGS``.
ZULIP_FLAGS = (
    "read",
    "starred",
    "collapsed",
    "mentioned",
    "stream_wildcard_mentioned",
    "topic_wildcard_mentioned",
    "group_mentioned",
    "force_expand",
    "force_collapse",
    "has_alert_word",
    "historical",
    "is_private",
    "active_mobile_push_notification",
)


def _flags_mask(bits: int) -> int:
    names = {name for bit, name in messages_mod.FLAG_NAMES if bits & bit}
    return sum(1 << i for i, name in enumerate(ZULIP_FLAGS) if name in names)


def _seconds(value: Any) -> float | None:
    return None if value is None else float(value)


class _Tar:
    """A gzip tarball written member by member, every member 0600 (folders 0700)."""

    def __init__(self, path: Path, root: str) -> None:
        private_file(path)
        # gzip's own default level, as `tar -czf` (tarfile's 9 costs far more for little)
        self._tar = tarfile.open(path, "w:gz", compresslevel=6)
        self._root = root
        self._mtime = int(time.time())
        self._folders: set[str] = set()
        self._folder(root)

    def _folder(self, name: str) -> None:
        if name in self._folders:
            return
        parent = os.path.dirname(name)
        if parent:
            self._folder(parent)
        info = tarfile.TarInfo(name)
        info.type = tarfile.DIRTYPE
        info.mode = 0o700
        info.mtime = self._mtime
        self._tar.addfile(info)
        self._folders.add(name)

    def add(self, name: str, data: bytes) -> None:
        full = f"{self._root}/{name}"
        self._folder(os.path.dirname(full))
        info = tarfile.TarInfo(full)
        info.size = len(data)
        info.mode = 0o600
        info.mtime = self._mtime
        self._tar.addfile(info, io.BytesIO(data))

    def add_json(self, name: str, data: Any) -> None:
        # indented like Zulip's files; msgspec, as json.dumps with an indent is pure Python
        self.add(name, msgspec.json.format(msgspec.json.encode(data), indent=2))

    def close(self) -> None:
        self._tar.close()


def _realm_tables(store: Store) -> tuple[dict[str, Any], dict[str, int]]:
    """realm.json without the reactions; also the client name -> id map for the messages."""
    realm = store.one("SELECT * FROM realm ORDER BY id LIMIT 1")
    if realm is None:
        raise ValueError("the store holds no organization")
    realm_id = int(realm["id"])
    tables: dict[str, Any] = {
        "zerver_realm": [
            {
                "id": realm_id,
                "string_id": realm["string_id"],
                "name": realm["name"],
                "description": realm["description"],
                "date_created": float(realm["date_created"]),
                "deactivated": False,
            }
        ]
    }
    clients = {
        str(r["client"]): n
        for n, r in enumerate(
            store.query("SELECT DISTINCT client FROM messages ORDER BY client"), start=1
        )
    }
    tables["zerver_client"] = [{"id": i, "name": name} for name, i in clients.items()]
    users = store.query("SELECT * FROM users ORDER BY id")
    tables.update(_user_tables(store, users, realm_id))
    active = {int(u["id"]): bool(u["is_active"]) for u in users}
    recipients = store.query("SELECT id, stream_id, user_set FROM recipients ORDER BY id")
    stream_recipient = {
        int(r["stream_id"]): int(r["id"]) for r in recipients if r["stream_id"] is not None
    }
    subscriptions = store.query("SELECT * FROM subscriptions ORDER BY stream_id, user_id")
    tables.update(_stream_tables(store, realm_id, stream_recipient, subscriptions, active))
    tables.update(_recipient_tables(recipients, stream_recipient, subscriptions, active))
    tables.update(_group_tables(store, realm_id))
    tables.update(settings_tables(store, realm_id))
    return tables, clients


def _user_tables(store: Store, users: list[Row], realm_id: int) -> dict[str, Any]:
    """The people; system bots only by id and address, as Zulip lists its own."""
    return {
        "zerver_userprofile": [
            _user_row(store, u, realm_id) for u in users if not u["is_system_bot"]
        ],
        "zerver_userprofile_mirrordummy": [],
        "zerver_userprofile_crossrealm": [
            {
                "id": u["id"],
                "email": u["delivery_email"],
                "email_domain": str(u["delivery_email"]).rpartition("@")[2],
            }
            for u in users
            if u["is_system_bot"]
        ],
    }


def _stream_tables(
    store: Store,
    realm_id: int,
    stream_recipient: dict[int, int],
    subscriptions: list[Row],
    active: dict[int, bool],
) -> dict[str, Any]:
    """The channels, each with its first message and its count of active subscribers."""
    first_ids = {
        int(r["stream_id"]): int(r["first"])
        for r in store.query(
            "SELECT stream_id, min(id) AS first FROM messages WHERE stream_id IS NOT NULL "
            "GROUP BY stream_id"
        )
    }
    streams = store.query("SELECT * FROM streams ORDER BY id")
    counts: dict[int, int] = {}
    for s in subscriptions:
        if s["active"] and active.get(int(s["user_id"]), False):
            counts[int(s["stream_id"])] = counts.get(int(s["stream_id"]), 0) + 1
    return {
        "zerver_stream": [
            {
                "id": s["id"],
                "realm": realm_id,
                "name": s["name"],
                "description": s["description"],
                "rendered_description": s["rendered_description"],
                "invite_only": bool(s["invite_only"]),
                "is_web_public": bool(s["is_web_public"]),
                "history_public_to_subscribers": bool(s["history_public_to_subscribers"]),
                "deactivated": bool(s["is_archived"]),
                "date_created": float(s["date_created"]),
                "creator": s["creator_id"],
                "first_message_id": first_ids.get(int(s["id"])),
                "message_retention_days": s["message_retention_days"],
                "recipient": stream_recipient.get(int(s["id"])),
                "folder": s["folder_id"],
                "subscriber_count": counts.get(int(s["id"]), 0),
            }
            for s in streams
        ],
        "zerver_defaultstream": [
            {"id": n, "realm": realm_id, "stream": s["id"]}
            for n, s in enumerate((s for s in streams if s["is_default"]), start=1)
        ],
    }


def _recipient_tables(
    recipients: list[Row],
    stream_recipient: dict[int, int],
    subscriptions: list[Row],
    active: dict[int, bool],
) -> dict[str, Any]:
    """Recipients, huddles (direct messages among several) and the subscriptions to both."""
    zerver_recipient: list[dict[str, Any]] = []
    huddles: list[dict[str, Any]] = []
    subs: list[dict[str, Any]] = []
    for r in recipients:
        if r["stream_id"] is not None:
            zerver_recipient.append(
                {"id": r["id"], "type": RECIPIENT_STREAM, "type_id": r["stream_id"]}
            )
            continue
        members = [int(u) for u in str(r["user_set"]).strip(",").split(",") if u]
        if len(members) == 1:
            zerver_recipient.append(
                {"id": r["id"], "type": RECIPIENT_PERSONAL, "type_id": members[0]}
            )
            continue
        huddle_hash = hashlib.sha1(",".join(str(u) for u in members).encode()).hexdigest()
        huddles.append(
            {
                "id": len(huddles) + 1,
                "huddle_hash": huddle_hash,
                "group_size": len(members),
                "recipient": r["id"],
            }
        )
        zerver_recipient.append({"id": r["id"], "type": RECIPIENT_HUDDLE, "type_id": len(huddles)})
        subs.extend(
            {"user_profile": u, "recipient": r["id"], "active": True, "is_user_active": active[u]}
            for u in members
        )
    for s in subscriptions:
        subs.append(
            {
                "user_profile": s["user_id"],
                "recipient": stream_recipient[int(s["stream_id"])],
                "active": bool(s["active"]),
                "is_user_active": active.get(int(s["user_id"]), False),
                "is_muted": bool(s["is_muted"]),
                "color": s["color"],
            }
        )
    return {
        "zerver_recipient": zerver_recipient,
        "zerver_huddle": huddles,
        "zerver_subscription": [{"id": n, **s} for n, s in enumerate(subs, start=1)],
    }


def _group_tables(store: Store, realm_id: int) -> dict[str, Any]:
    """User groups (named ones also in ``zerver_namedusergroup``), members and subgroups."""
    groups = store.query("SELECT * FROM user_groups ORDER BY id")
    return {
        "zerver_usergroup": [{"id": g["id"], "realm": realm_id} for g in groups],
        "zerver_namedusergroup": [
            {
                "usergroup_ptr": g["id"],
                "realm_for_sharding": realm_id,
                "name": g["name"],
                "description": g["description"],
                "is_system_group": bool(g["is_system_group"]),
                "deactivated": bool(g["deactivated"]),
                "creator": g["creator_id"],
                "date_created": float(g["date_created"]),
            }
            for g in groups
            if g["name"] is not None
        ],
        "zerver_usergroupmembership": [
            {"id": n, "user_group": gid, "user_profile": uid}
            for n, (gid, uid) in enumerate(_memberships(store, groups), start=1)
        ],
        "zerver_groupgroupmembership": [
            {"id": n, "supergroup": r["group_id"], "subgroup": r["subgroup_id"]}
            for n, r in enumerate(
                store.query("SELECT * FROM group_subgroups ORDER BY group_id, subgroup_id"),
                start=1,
            )
        ],
    }


def _memberships(store: Store, groups: list[Row]) -> list[tuple[int, int]]:
    """(group, user) rows: a role group's members through their roles (as its API record
    lists them), the others' as added."""
    system = {int(g["id"]) for g in groups if g["is_system_group"]}
    rows = [
        (int(r["group_id"]), int(r["user_id"]))
        for r in store.query("SELECT * FROM group_members ORDER BY group_id, user_id")
        if int(r["group_id"]) not in system
    ]
    rows += [(gid, uid) for gid in system for uid in group_settings.members_of(store, gid)]
    return sorted(rows)


def _user_row(store: Store, u: Row, realm_id: int) -> dict[str, Any]:
    """A ``zerver_userprofile`` row: Zulip's ``email`` is the address others see."""
    return {
        "id": u["id"],
        "realm": realm_id,
        "email": users_mod.api_email(store, u),
        "delivery_email": u["delivery_email"],
        "full_name": u["full_name"],
        "is_bot": bool(u["is_bot"]),
        "bot_type": u["bot_type"],
        "bot_owner": u["bot_owner_id"],
        "role": u["role"],
        "is_active": bool(u["is_active"]),
        "is_mirror_dummy": False,
        "date_joined": float(u["date_joined"]),
        "timezone": u["timezone"],
        "email_address_visibility": u["email_address_visibility"],
        "avatar_source": u["avatar_source"],
        "avatar_version": u["avatar_version"],
    }


def _message_chunks(store: Store, chunk_size: int) -> Iterator[list[Row]]:
    after = 0
    while True:
        rows = store.query(
            "SELECT * FROM messages WHERE id > ? ORDER BY id LIMIT ?", [after, chunk_size]
        )
        if not rows:
            return
        yield rows
        after = int(rows[-1]["id"])


def _message_row(
    m: Row, realm_id: int, clients: dict[str, int], attached: set[int]
) -> dict[str, Any]:
    last_edit = max(
        (t for t in (m["last_edit_timestamp"], m["last_moved_timestamp"]) if t is not None),
        default=None,
    )
    rendered = m["rendered_content"] or ""
    return {
        "id": m["id"],
        "sender": m["sender_id"],
        "recipient": m["recipient_id"],
        "realm": realm_id,
        "subject": m["topic"],
        "content": m["content"],
        "rendered_content": m["rendered_content"],
        "rendered_content_version": 1,
        "date_sent": float(m["timestamp"]),
        "sending_client": clients[str(m["client"])],
        "last_edit_time": _seconds(last_edit),
        "edit_history": m["edit_history"],
        "has_attachment": int(m["id"]) in attached,
        "has_image": "<img" in rendered,
        "has_link": "<a " in rendered,
        "is_channel_message": m["stream_id"] is not None,
        "type": 1,
    }


def export_organization(
    store: Store,
    out: Path,
    *,
    upload_dir: Path | None = None,
    chunk_size: int = 1000,
    progress: bool = True,
    scope: ExportScope | None = None,
) -> Path:
    """Write the organization of ``store`` to ``out`` as a Zulip data export tarball.

    Args:
        store: the sandbox's store.
        out: the ``.tar.gz`` to write (replaced; 0600). It appears only when complete: the
            tarball is written beside it under a ``.partial`` name first.
        upload_dir: the sandbox's upload folder, to include the uploaded files.
        chunk_size: messages per ``messages-NNNNNN.json`` file (Zulip writes 1,000).
        progress: show a progress bar of the messages written.
        scope: which messages to export (default: every one).

    Returns ``out``.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, not {chunk_size}")
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    root = f"zulip-export-{secrets.token_hex(4)}"
    tar = _Tar(partial, root)
    try:
        tables, clients = _realm_tables(store)
        realm_id = int(tables["zerver_realm"][0]["id"])
        attachments = store.query("SELECT * FROM attachments ORDER BY id")
        links: dict[int, list[int]] = {}
        for r in store.query("SELECT * FROM attachment_messages ORDER BY message_id"):
            links.setdefault(int(r["attachment_id"]), []).append(int(r["message_id"]))
        attached = {mid for ids in links.values() for mid in ids}
        kept = _write_messages(
            tar, store, (realm_id, chunk_size, progress), clients, attached, scope
        )
        if scope is not None:
            links = {a: [m for m in ids if m in kept] for a, ids in links.items()}
            attachments = [a for a in attachments if links.get(int(a["id"]))]
        tables["zerver_reaction"] = [
            {
                "id": r["id"],
                "message": r["message_id"],
                "user_profile": r["user_id"],
                "emoji_name": r["emoji_name"],
                "emoji_code": r["emoji_code"],
                "reaction_type": r["reaction_type"],
            }
            for r in store.query("SELECT * FROM reactions ORDER BY id")
        ]
        tables["import_source"] = "zulip"
        tar.add_json("realm.json", tables)
        _write_attachments(tar, attachments, links, realm_id, upload_dir)
        tar.add_json("avatars/records.json", [])
        tar.add_json("emoji/records.json", [])
        tar.close()
    except BaseException:
        tar.close()
        partial.unlink(missing_ok=True)
        raise
    partial.replace(out)
    return out


def _write_messages(
    tar: _Tar,
    store: Store,
    settings: tuple[int, int, bool],
    clients: dict[str, int],
    attached: set[int],
    scope: ExportScope | None,
) -> set[int]:
    """``messages-NNNNNN.json``: up to ``chunk_size`` messages each, with who has them and how.

    ``settings`` is (realm id, chunk size, progress bar). Returns the ids of the messages
    written."""
    from tqdm import tqdm  # type: ignore[import-untyped]  # only when exporting

    realm_id, chunk_size, progress = settings
    kept: set[int] = set()
    number = 0
    total = int(store.scalar("SELECT count(*) FROM messages"))
    with tqdm(total=total, desc="Exporting", unit="msg", disable=not progress, leave=False) as bar:
        for rows in _message_chunks(store, chunk_size):
            first, last = int(rows[0]["id"]), int(rows[-1]["id"])
            flags = store.query(
                "SELECT user_id, message_id, flags FROM message_flags "
                "WHERE message_id BETWEEN ? AND ? ORDER BY message_id, user_id",
                [first, last],
            )
            bar.update(len(rows))
            if scope is not None:
                rows, flags = scope.narrow(store, rows, flags)
                if not rows:
                    continue
            kept.update(int(m["id"]) for m in rows)
            number += 1
            tar.add_json(
                f"messages-{number:06d}.json",
                {
                    "zerver_message": [_message_row(m, realm_id, clients, attached) for m in rows],
                    "zerver_usermessage": [
                        {
                            "id": f["message_id"] * 100_000 + f["user_id"],
                            "user_profile": f["user_id"],
                            "message": f["message_id"],
                            "flags_mask": _flags_mask(int(f["flags"])),
                        }
                        for f in flags
                    ],
                },
            )
    return kept


def _write_attachments(
    tar: _Tar,
    attachments: list[Row],
    links: dict[int, list[int]],
    realm_id: int,
    upload_dir: Path | None,
) -> None:
    """``attachment.json``, and the uploaded files with ``uploads/records.json``."""
    tar.add_json(
        "attachment.json",
        {
            "zerver_attachment": [
                {
                    "id": a["id"],
                    "owner": a["owner_id"],
                    "realm": realm_id,
                    "path_id": a["path_id"],
                    "file_name": a["name"],
                    "size": a["size"],
                    "content_type": a["content_type"],
                    "create_time": a["create_time"] / 1000,
                    "messages": links.get(int(a["id"]), []),
                    "scheduled_messages": [],
                }
                for a in attachments
            ]
        },
    )
    records = []
    for a in attachments:
        source = None if upload_dir is None else upload_dir / str(a["path_id"])
        if source is None or not source.is_file():
            continue
        tar.add(f"uploads/{a['path_id']}", source.read_bytes())
        records.append(
            {
                "path": a["path_id"],
                "s3_path": a["path_id"],
                "size": a["size"],
                "last_modified": a["create_time"] / 1000,
                "user_profile_id": a["owner_id"],
                "realm_id": realm_id,
                "content_type": a["content_type"],
            }
        )
    tar.add_json("uploads/records.json", records)
