"""Presence: when each person was last connected and last active, as the real server keeps it.

A client reports ``active`` or ``idle`` every minute or so (``POST /users/me/presence``). The
server keeps two times per person, ``last_connected_time`` (any report) and
``last_active_time`` (``active`` reports), and a realm-wide ``last_update_id`` so that pollers
fetch only what changed. Answers come in the modern shape (``{user_id: {active_timestamp,
idle_timestamp}}``) or the legacy one (``{email: {"aggregated": ..., "website": ...}}``).
"""

from __future__ import annotations

from typing import Any

from . import bounds, clock, user_settings, users
from . import realm as realm_mod
from .bus import EventQueue, event_bus
from .errors import ApiError
from .store import Row, Store

STATUSES = ("active", "idle")
#: a person with no report for this long is offline (the real server's OFFLINE_THRESHOLD_SECS)
OFFLINE_THRESHOLD_SECONDS = 140
#: how often clients are told to report (PRESENCE_PING_INTERVAL_SECS)
PING_INTERVAL_SECONDS = 60
#: an ``active`` report this close to the last connection still reads as active in the legacy
#: shape (PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS)
LEGACY_ACTIVITY_OFFSET_SECONDS = 70
DEFAULT_HISTORY_DAYS = 14


def _now() -> int:
    return int(clock.now())


def modern(row: Row) -> dict[str, int]:
    """``{active_timestamp, idle_timestamp}`` of one presence row."""
    connected = int(row["last_connected_time"])
    active = row["last_active_time"]
    return {
        "active_timestamp": int(active) if active is not None else 0,
        "idle_timestamp": connected,
    }


def legacy_status(row: Row) -> tuple[str, int]:
    """The legacy ``(status, timestamp)`` of one presence row."""
    connected = int(row["last_connected_time"])
    active = row["last_active_time"]
    if active is not None and int(active) + LEGACY_ACTIVITY_OFFSET_SECONDS >= connected:
        return "active", int(active)
    return "idle", connected


def legacy(row: Row) -> dict[str, dict[str, Any]]:
    """``{"aggregated": ..., "website": ...}`` of one presence row (one client since FL 178)."""
    status, timestamp = legacy_status(row)
    return {
        "aggregated": {"client": "website", "status": status, "timestamp": timestamp},
        "website": {
            "client": "website",
            "status": status,
            "timestamp": timestamp,
            "pushable": False,
        },
    }


def _visible_rows(store: Store, *, since: int, after_update_id: int) -> list[Row]:
    """Presence rows of active humans sharing their presence, newer than ``since``."""
    return [
        r
        for r in store.query(
            "SELECT p.* FROM user_presence p JOIN users u ON u.id = p.user_id "
            "WHERE u.is_active = 1 AND u.is_bot = 0 AND p.last_connected_time >= ? "
            "AND p.last_update_id > ? ORDER BY p.user_id",
            [since, after_update_id],
        )
        if _presence_enabled(store, int(r["user_id"]))
    ]


def _presence_enabled(store: Store, user_id: int) -> bool:
    return bool(user_settings.setting(store, user_id, "presence_enabled"))


def realm_presences(
    store: Store,
    viewer: Row,
    *,
    slim: bool,
    last_update_id: int | None = None,
    history_limit_days: int | None = None,
) -> tuple[dict[str, Any], int]:
    """Everyone's presence and the newest ``last_update_id`` in it.

    Every member sees everyone's presence, as on a real server that does not limit it to the
    people a guest can see; ``viewer`` is who asks.
    """
    if realm_mod.settings(store).get("presence_disabled"):
        return {}, -1
    days = DEFAULT_HISTORY_DAYS if history_limit_days is None else history_limit_days
    if last_update_id is not None and last_update_id > 0:
        since = 0
    else:
        since = _now() - days * 86400
    rows = _visible_rows(store, since=since, after_update_id=max(last_update_id or -1, -1))
    newest = max([int(r["last_update_id"]) for r in rows], default=-1)
    if last_update_id is not None:
        newest = max(newest, last_update_id)
    out: dict[str, Any] = {}
    for r in rows:
        if slim:
            out[str(r["user_id"])] = modern(r)
        else:
            target = users.get_user(store, int(r["user_id"]))
            assert target is not None
            out[users.api_email(store, target)] = legacy(r)
    return out, newest


def update_presence(
    store: Store,
    user: Row,
    *,
    status: str,
    ping_only: bool,
    slim_presence: bool,
    last_update_id: int | None,
    history_limit_days: int | None,
    now: int | None = None,
) -> dict[str, Any]:
    """``POST /users/me/presence``: record the report; answer with everyone's presence."""
    if status not in STATUSES:
        raise ApiError(f"Invalid status: {status}", var_name="status")
    if history_limit_days is not None and history_limit_days < 0:
        raise ApiError("Invalid history_limit_days", var_name="history_limit_days")
    with store.atomic():
        if _presence_enabled(store, int(user["id"])) and not user["is_bot"]:
            record(store, user, status=status, now=now)
    if ping_only:
        return {}
    slim = slim_presence or last_update_id is not None
    presences, newest = realm_presences(
        store,
        user,
        slim=slim,
        last_update_id=last_update_id,
        history_limit_days=history_limit_days,
    )
    return {
        "presences": presences,
        "server_timestamp": clock.now(),
        "presence_last_update_id": newest,
    }


def record(store: Store, user: Row, *, status: str, now: int | None = None) -> None:
    """Store one report and announce it when the person's shown state changes."""
    at = _now() if now is None else now
    old = store.one("SELECT * FROM user_presence WHERE user_id = ?", [user["id"]])
    next_id = int(store.scalar("SELECT coalesce(max(last_update_id), 0) + 1 FROM user_presence"))
    active = at if status == "active" else (old["last_active_time"] if old else None)
    store.execute(
        "INSERT OR REPLACE INTO user_presence "
        "(user_id, last_active_time, last_connected_time, last_update_id) VALUES (?, ?, ?, ?)",
        [user["id"], active, at, next_id],
    )
    new = store.one("SELECT * FROM user_presence WHERE user_id = ?", [user["id"]])
    assert new is not None
    if old is not None:
        was_online = at - int(old["last_connected_time"]) <= OFFLINE_THRESHOLD_SECONDS
        if was_online and legacy_status(old)[0] == legacy_status(new)[0]:
            return
    _announce(store, user, new)


def _announce(store: Store, user: Row, row: Row) -> None:
    email = users.api_email(store, user)
    website = legacy(row)["website"]
    modern_entry = {str(user["id"]): modern(row)}
    server_timestamp = clock.now()

    def make(queue: EventQueue) -> dict[str, Any]:
        if queue.client_capabilities.get("simplified_presence_events"):
            return {"type": "presence", "presences": modern_entry}
        event: dict[str, Any] = {"type": "presence", "user_id": user["id"]}
        if not queue.slim_presence:
            event["email"] = email
        event["server_timestamp"] = server_timestamp
        event["presence"] = {"website": website}
        return event

    ids = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
    event_bus(store).publish_each(ids, "presence", make)


def user_presence(store: Store, viewer: Row, user_id_or_email: str) -> dict[str, Any]:
    """``GET /users/{user_id_or_email}/presence``: the legacy shape, ``offline`` when stale."""
    user_id = bounds.digits("user_id_or_email", user_id_or_email)
    target = (
        users.get_user(store, user_id)
        if user_id is not None
        else users.user_by_email(store, user_id_or_email)
    )
    if target is None or target["is_system_bot"]:
        raise ApiError("No such user")
    if target["is_bot"]:
        raise ApiError("Presence is not supported for bot users.")
    row = store.one("SELECT * FROM user_presence WHERE user_id = ?", [target["id"]])
    if row is None or not _presence_enabled(store, int(target["id"])):
        raise ApiError(f"No presence data for {user_id_or_email}")
    status, timestamp = legacy_status(row)
    if _now() - timestamp > OFFLINE_THRESHOLD_SECONDS:
        status = "offline"
    entry = {"status": status, "timestamp": timestamp}
    return {"presence": {"aggregated": dict(entry), "website": dict(entry)}}


def last_active(store: Store) -> dict[int, int]:
    """``{user_id: last active time}`` of everyone the server has seen active."""
    return {
        int(r["user_id"]): int(r["last_active_time"])
        for r in store.query(
            "SELECT user_id, last_active_time FROM user_presence WHERE last_active_time IS NOT NULL"
        )
    }
