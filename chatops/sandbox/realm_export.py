"""Organization data exports made through the API (``/export/realm``), as the real server makes them.

An administrator asks for an export (``POST /export/realm``): the request is recorded as
requested, announced to the administrators by a ``realm_export`` event, and produced in the
background (:func:`produce_requested`, run by the realm routes' background job) as a tarball in
Zulip's data export format (:func:`chatops.sandbox.export.export_organization`), written under
the upload folder at ``exports/<realm id>/<random>/zulip-export-<random>.tar.gz``. When it is
written the export is listed with its URL, the notification bot tells the administrator who
asked in a direct message, and the administrators get a ``realm_export`` event again; if
writing fails, it is listed as failed with the time it failed.

The rules are those of ``zerver/views/realm_export.py``: administrators only; at most five
exports requested in seven days (``Exceeded rate limit.``); an organization of more than
250,000 messages or 20 GiB of uploads is exported by hand; a public export needs an owner who
lets administrators see their email address, an export with consent an owner who consents to
the export of their private data. Who consents is ``GET /export/realm/consents`` (active
people, bots aside), and a change of one's consent is a ``realm_export_consent`` event to the
administrators.
"""

from __future__ import annotations

import json
import logging
import secrets
from pathlib import Path
from typing import Any

from . import clock, user_settings, users
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .export import export_organization
from .export_scope import ExportScope
from .messages import send_message
from .store import Row, Store

__all__ = [
    "EXPORT_FULL_WITH_CONSENT",
    "EXPORT_PUBLIC",
    "consents",
    "export_file",
    "list_exports",
    "produce_requested",
    "request_export",
]

log = logging.getLogger("chatops.sandbox")

#: ``export_type`` values (``RealmExport.EXPORT_*``).
EXPORT_PUBLIC = 1
EXPORT_FULL_WITH_CONSENT = 2

#: ``RealmExport.status`` values.
REQUESTED, STARTED, SUCCEEDED, FAILED, DELETED = 1, 2, 3, 4, 5

#: At most this many exports requested in :data:`LIMIT_WINDOW_SECONDS`.
EXPORT_LIMIT = 5
LIMIT_WINDOW_SECONDS = 7 * 24 * 3600
#: Larger organizations are exported by hand.
MAX_MESSAGE_HISTORY = 250_000
MAX_UPLOAD_QUOTA = 20 * 1024 * 1024 * 1024
#: Where the refusals send the administrator (Zulip's ``FromAddress.SUPPORT``).
SUPPORT_EMAIL = "zulip-admin@example.com"

#: The personal setting of consent.
CONSENT = "allow_private_data_export"
#: ``email_address_visibility`` values that let administrators see the address.
_VISIBLE_TO_ADMINS = (1, 2, 3)


def consented_ids(store: Store) -> set[int]:
    """The people who consent to the export of their private data, and the bots they own."""
    default = bool(user_settings.SETTINGS[CONSENT][0])
    stored = {
        int(r["user_id"]): json.loads(r["settings"])
        for r in store.query("SELECT user_id, settings FROM user_settings")
    }
    people = store.query("SELECT id, is_bot, bot_owner_id FROM users")
    humans = {
        int(u["id"])
        for u in people
        if not u["is_bot"] and stored.get(int(u["id"]), {}).get(CONSENT, default)
    }
    bots = {int(u["id"]) for u in people if u["is_bot"] and u["bot_owner_id"] in humans}
    return humans | bots


def consents(store: Store, user: Row) -> list[dict[str, Any]]:
    """``GET /export/realm/consents``: each active person's consent (the route admits
    administrators only)."""
    consenting = consented_ids(store)
    return [
        {"user_id": int(u["id"]), "consented": int(u["id"]) in consenting}
        for u in store.query("SELECT id FROM users WHERE is_active = 1 AND is_bot = 0 ORDER BY id")
    ]


def _record(row: Row) -> dict[str, Any]:
    status = int(row["status"])
    url = None
    if status == SUCCEEDED:
        url = f"{row['base_url']}/user_avatars/{row['export_path']}"
    return {
        "id": int(row["id"]),
        "export_time": float(row["date_requested"]),
        "acting_user_id": int(row["acting_user_id"]),
        "export_url": url,
        "deleted_timestamp": row["date_deleted"],
        "failed_timestamp": row["date_failed"],
        "pending": status in (REQUESTED, STARTED),
        "export_type": int(row["export_type"]),
    }


def _records(store: Store) -> list[dict[str, Any]]:
    return [_record(r) for r in store.query("SELECT * FROM realm_exports ORDER BY id")]


def list_exports(store: Store, user: Row) -> list[dict[str, Any]]:
    """``GET /export/realm``: every export of the organization (the route admits administrators
    only)."""
    return _records(store)


def _notify(store: Store) -> None:
    """The ``realm_export`` event, with every export, to the active human administrators."""
    admins = store.query(
        "SELECT id FROM users WHERE is_active = 1 AND is_bot = 0 AND role <= ?",
        [realm_mod.ROLE_ADMIN],
    )
    event_bus(store).publish(
        {"type": "realm_export", "exports": _records(store)}, [int(a["id"]) for a in admins]
    )


def _check_usable(store: Store, export_type: int) -> None:
    owners = store.query(
        "SELECT id, email_address_visibility FROM users WHERE role = ? AND is_bot = 0",
        [realm_mod.ROLE_OWNER],
    )
    if export_type == EXPORT_FULL_WITH_CONSENT:
        if not consented_ids(store) & {int(o["id"]) for o in owners}:
            raise ApiError(
                "Make sure at least one Organization Owner is consenting to the export "
                f"or contact {SUPPORT_EMAIL} for help."
            )
    elif not any(int(o["email_address_visibility"]) in _VISIBLE_TO_ADMINS for o in owners):
        raise ApiError(
            "Make sure at least one Organization Owner allows other Administrators to see "
            f"their email address or contact {SUPPORT_EMAIL} for help"
        )


def request_export(store: Store, user: Row, export_type: int, base_url: str) -> int:
    """``POST /export/realm``: record a requested export, announce it; returns its id.

    Args:
        store: the sandbox's store.
        user: who asks (an administrator).
        export_type: :data:`EXPORT_PUBLIC` or :data:`EXPORT_FULL_WITH_CONSENT`.
        base_url: the site's URL, which the export's URL starts with.
    """
    if export_type not in (EXPORT_PUBLIC, EXPORT_FULL_WITH_CONSENT):
        raise ApiError("Invalid export_type", var_name="export_type")
    with store.atomic():
        now = clock.now()
        recent = store.scalar(
            "SELECT count(*) FROM realm_exports WHERE date_requested >= ?",
            [now - LIMIT_WINDOW_SECONDS],
        )
        if int(recent) >= EXPORT_LIMIT:
            raise ApiError("Exceeded rate limit.")
        messages = int(store.scalar("SELECT count(*) FROM messages"))
        uploaded = int(store.scalar("SELECT coalesce(sum(size), 0) FROM attachments"))
        if messages > MAX_MESSAGE_HISTORY or uploaded > MAX_UPLOAD_QUOTA:
            raise ApiError(f"Please request a manual export from {SUPPORT_EMAIL}.")
        _check_usable(store, export_type)
        export_id = store.insert(
            "realm_exports",
            {
                "export_type": export_type,
                "status": REQUESTED,
                "acting_user_id": user["id"],
                "date_requested": now,
                "base_url": base_url.rstrip("/"),
            },
        )
        _notify(store)
    return export_id


def _set_status(store: Store, export_id: int, status: int, **fields: Any) -> None:
    names = ", ".join(f"{k} = ?" for k in fields)
    store.execute(
        f"UPDATE realm_exports SET status = ?{', ' if names else ''}{names} WHERE id = ?",
        [status, *fields.values(), export_id],
    )


def _produce(store: Store, row: Row, upload_dir: Path) -> None:
    export_id = int(row["id"])
    with store.atomic():
        _set_status(store, export_id, STARTED, date_started=clock.now())
    scope = ExportScope(
        frozenset() if int(row["export_type"]) == EXPORT_PUBLIC else frozenset(consented_ids(store))
    )
    realm_id = int(realm_mod.realm_row(store)["id"])
    relative = f"exports/{realm_id}/{secrets.token_urlsafe(18)}"
    name = f"zulip-export-{secrets.token_hex(4)}.tar.gz"
    folder = upload_dir / relative
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with store.reading():  # one snapshot of the organization, writes go on meanwhile
            export_organization(
                store, folder / name, upload_dir=upload_dir, progress=False, scope=scope
            )
    except Exception:
        log.exception("data export %s failed", export_id)
        with store.atomic():
            _set_status(store, export_id, FAILED, date_failed=clock.now())
            _notify(store)
        return
    with store.atomic():
        _set_status(
            store,
            export_id,
            SUCCEEDED,
            date_succeeded=clock.now(),
            export_path=f"{relative}/{name}",
        )
        acting = store.one("SELECT * FROM users WHERE id = ?", [row["acting_user_id"]])
        if acting is not None and acting["is_active"]:
            send_message(
                store,
                users.notification_bot(store),
                message_type="direct",
                to=f"[{int(acting['id'])}]",
                content="Your data export is complete. "
                "[View and download exports](/#organization/data-exports-admin).",
            )
        _notify(store)


def produce_requested(store: Store, upload_dir: Path) -> int:
    """Write every requested export, oldest first; returns how many were taken up.

    An export found started (the sandbox stopped while writing it) is marked failed, as the
    real server marks an export it finds started when it retries.
    """
    waiting = store.query(
        "SELECT * FROM realm_exports WHERE status IN (?, ?) ORDER BY id", [REQUESTED, STARTED]
    )
    stale = [int(r["id"]) for r in waiting if r["status"] == STARTED]
    if stale:
        with store.atomic():
            for export_id in stale:
                _set_status(store, export_id, FAILED, date_failed=clock.now())
            _notify(store)
    rows = [r for r in waiting if r["status"] == REQUESTED]
    for row in rows:
        _produce(store, row, upload_dir)
    return len(rows)


def export_file(store: Store, user: Row, path: str, upload_dir: Path) -> Path:
    """The tarball of a written export at ``path`` (under ``user_avatars/``), for an
    administrator; 404 for any other path and for a deleted or unfinished export."""
    realm_mod.require_admin(user)
    row = store.one(
        "SELECT * FROM realm_exports WHERE export_path = ? AND status = ?", [path, SUCCEEDED]
    )
    file = upload_dir / path
    if row is None or not file.is_file():
        raise ApiError("Not found", status=404)
    return file
