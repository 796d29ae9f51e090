"""Push devices, a simulated push bouncer and its outbox (spec 4.20).

Registering a device stores its token on the server and with the bouncer (its own registry,
``push_bouncer_devices``). A test notification goes through the bouncer, which records what it
would deliver in ``push_outbox``: tests read it with :func:`outbox`. A token the server knows but
the bouncer has forgotten gives ``INVALID_REMOTE_PUSH_DEVICE_TOKEN``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from . import clock
from . import realm as realm_mod
from .errors import ApiError
from .store import Row, Store

APNS, FCM = "apns", "fcm"
MAX_TOKEN_LENGTH = 4096
HEX = re.compile(r"^[0-9a-fA-F]+$")


def _check_token(kind: str, token: str) -> str:
    token = token.strip()
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise ApiError("Empty or invalid length token")
    if kind == APNS and not HEX.match(token):
        raise ApiError("Invalid APNS token")
    return token


def register_device(
    store: Store, user: Row, kind: str, token: str, *, ios_app_id: str | None = None
) -> None:
    """``POST /users/me/apns_device_token`` or ``/users/me/android_gcm_reg_id``."""
    token = _check_token(kind, token)
    with store.atomic():
        store.execute(
            "INSERT OR IGNORE INTO push_devices (user_id, kind, token, ios_app_id, date_created) "
            "VALUES (?, ?, ?, ?, ?)",
            [user["id"], kind, token, ios_app_id, int(clock.now())],
        )
        bouncer_register(store, int(user["id"]), kind, token)


def remove_device(store: Store, user: Row, kind: str, token: str) -> None:
    """``DELETE`` of the same paths: forget the token here and at the bouncer."""
    token = _check_token(kind, token)
    with store.atomic():
        cur = store.execute(
            "DELETE FROM push_devices WHERE user_id = ? AND kind = ? AND token = ?",
            [user["id"], kind, token],
        )
        if cur.rowcount == 0:
            raise ApiError("Token does not exist")
        bouncer_forget(store, int(user["id"]), kind, token)


# -- the simulated bouncer ----------------------------------------------------------------------
def bouncer_register(store: Store, user_id: int, kind: str, token: str) -> None:
    store.execute(
        "INSERT OR IGNORE INTO push_bouncer_devices (user_id, kind, token) VALUES (?, ?, ?)",
        [user_id, kind, token],
    )


def bouncer_forget(store: Store, user_id: int, kind: str, token: str) -> None:
    """The bouncer drops a token (as when the push service reports it invalid)."""
    store.execute(
        "DELETE FROM push_bouncer_devices WHERE user_id = ? AND kind = ? AND token = ?",
        [user_id, kind, token],
    )


def _payload(store: Store, user: Row, base_url: str, feature_level: int) -> dict[str, Any]:
    realm = realm_mod.realm_row(store)
    url = realm_mod.realm_url(base_url)
    data: dict[str, Any] = {
        "server": url.split("://", 1)[-1],
        "realm_id": realm["id"],
        "realm_url": url,
        "realm_uri": url,
        "user_id": user["id"],
        "event": "test" if feature_level >= 234 else "test-by-device-token",
        "time": int(clock.now()),
    }
    if feature_level >= 234:
        data["realm_name"] = realm["name"]
    return data


def send_test_notification(
    store: Store, user: Row, *, token: str | None, base_url: str, feature_level: int
) -> None:
    """Spec 4.20: send a test notification to one device of the user, or to all of them."""
    if token is not None:
        devices = store.query(
            "SELECT kind, token FROM push_devices WHERE user_id = ? AND token = ?",
            [user["id"], token],
        )
        if not devices:
            raise ApiError("Device not recognized", code="INVALID_PUSH_DEVICE_TOKEN")
    else:
        devices = store.query(
            "SELECT kind, token FROM push_devices WHERE user_id = ? ORDER BY id", [user["id"]]
        )
    known = {
        (r["kind"], r["token"])
        for r in store.query(
            "SELECT kind, token FROM push_bouncer_devices WHERE user_id = ?", [user["id"]]
        )
    }
    if token is not None and not all((d["kind"], d["token"]) in known for d in devices):
        raise ApiError(
            "Device not recognized by the push bouncer", code="INVALID_REMOTE_PUSH_DEVICE_TOKEN"
        )
    data = _payload(store, user, base_url, feature_level)
    with store.atomic():
        for d in devices:
            if (d["kind"], d["token"]) not in known:
                continue  # the bouncer skips devices it does not know
            payload: dict[str, Any]
            if d["kind"] == APNS:
                realm = data.get("realm_name", realm_mod.realm_row(store)["name"])
                payload = {
                    "alert": {
                        "title": "Test notification",
                        "body": f"This is a test notification from {realm} ({data['realm_url']}).",
                    },
                    "sound": "default",
                    "custom": {"zulip": data},
                }
            else:
                payload = dict(data)
            store.insert(
                "push_outbox",
                {
                    "user_id": user["id"],
                    "kind": d["kind"],
                    "token": d["token"],
                    "payload": json.dumps(payload),
                    "sent": int(clock.now()),
                },
            )


def outbox(store: Store, user_id: int | None = None) -> list[dict[str, Any]]:
    """What the bouncer delivered, oldest first: ``{user_id, kind, token, payload, sent}``."""
    rows = store.query(
        "SELECT * FROM push_outbox"
        + (" WHERE user_id = ?" if user_id is not None else "")
        + " ORDER BY id",
        [user_id] if user_id is not None else [],
    )
    return [{**r, "payload": json.loads(r["payload"])} for r in rows]
