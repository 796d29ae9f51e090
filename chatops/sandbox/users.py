"""People and bots: authentication, API-key exchange and the user records of 4.17 and 4.18."""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import json
import re
import secrets
from datetime import UTC, datetime
from typing import Any

from . import clock
from . import realm as realm_mod
from .bounds import unprintable_position
from .bus import event_bus
from .emails import valid_email
from .errors import ApiError, unauthorized
from .store import Row, Store

EMAIL_VISIBLE_EVERYONE, EMAIL_VISIBLE_MEMBERS, EMAIL_VISIBLE_ADMINS = 1, 2, 3
EMAIL_VISIBLE_NOBODY, EMAIL_VISIBLE_MODERATORS = 4, 5

API_KEY_LENGTH = 32


#: the longest full name, and the characters no full name may hold (the real server's
#: ``UserProfile.MAX_NAME_LENGTH`` and ``NAME_INVALID_CHARS``)
MAX_NAME_LENGTH = 100
NAME_INVALID_CHARS = frozenset('*`\\>"@')
_AMBIGUOUS_NAME = re.compile(r"\|\d+$")


def check_full_name(raw: str) -> str:
    """A person's or bot's new full name, stripped; the real server's ``check_full_name``:
    bounded, printable (no control character), none of ``NAME_INVALID_CHARS``, and not
    ending in ``|<digits>`` (which a mention's ``@**name|id**`` would misread)."""
    full_name = raw.strip()
    if not full_name:
        raise ApiError("Name too short!")
    if len(full_name) > MAX_NAME_LENGTH:
        raise ApiError("Name too long!")
    if unprintable_position(full_name) is not None or NAME_INVALID_CHARS & set(full_name):
        raise ApiError("Invalid characters in name!")
    if _AMBIGUOUS_NAME.search(raw):
        raise ApiError("Invalid format!")
    return full_name


def new_api_key() -> str:
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(secrets.choice(alphabet) for _ in range(API_KEY_LENGTH))


def hash_password(password: str, *, salt: bytes | None = None, iterations: int = 60_000) -> str:
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str | None) -> bool:
    if not stored:
        return False
    try:
        _, iterations, salt, digest = stored.split("$")
    except ValueError:
        return False
    candidate = hashlib.pbkdf2_hmac(
        "sha256", password.encode(), bytes.fromhex(salt), int(iterations)
    )
    return hmac.compare_digest(candidate.hex(), digest)


def create_user(
    store: Store,
    *,
    email: str,
    full_name: str,
    role: int = realm_mod.ROLE_MEMBER,
    password: str | None = None,
    is_bot: bool = False,
    bot_type: int | None = None,
    bot_owner_id: int | None = None,
    is_system_bot: bool = False,
    timezone: str = "UTC",
    date_joined: int | None = None,
    email_address_visibility: int | None = None,
    api_key: str | None = None,
    password_hash: str | None = None,
) -> int:
    """Add a person or bot; returns the new id.

    They start with the organization's settings for new users
    (``PATCH /realm/user_settings_defaults``); ``email_address_visibility``, when given,
    replaces the organization's default for that one.
    """
    if store.one("SELECT 1 FROM users WHERE lower(delivery_email) = lower(?)", [email]):
        raise ApiError(f"Email '{email}' already in use")
    raw = store.scalar("SELECT settings FROM realm_user_defaults WHERE id = 1")
    defaults: dict[str, Any] = json.loads(raw) if raw else {}
    visibility = defaults.pop("email_address_visibility", EMAIL_VISIBLE_EVERYONE)
    if email_address_visibility is not None:
        visibility = email_address_visibility
    user_id = store.insert(
        "users",
        {
            "delivery_email": email,
            "full_name": full_name,
            "role": role,
            "password_hash": password_hash or (hash_password(password) if password else None),
            "api_key": api_key or new_api_key(),
            "is_bot": int(is_bot),
            "bot_type": bot_type,
            "bot_owner_id": bot_owner_id,
            "is_system_bot": int(is_system_bot),
            "timezone": timezone,
            "date_joined": date_joined if date_joined is not None else int(_now()),
            "email_address_visibility": visibility,
        },
    )
    if defaults:
        store.execute(
            "INSERT INTO user_settings (user_id, settings) VALUES (?, ?)",
            [user_id, json.dumps(defaults)],
        )
    return user_id


def _now() -> float:
    return clock.now()


def get_user(store: Store, user_id: int) -> Row | None:
    return store.one("SELECT * FROM users WHERE id = ?", [user_id])


def user_by_email(store: Store, email: str) -> Row | None:
    """Find a user by real email or by the API placeholder address ``user<ID>@host``."""
    row = store.one("SELECT * FROM users WHERE lower(delivery_email) = lower(?)", [email])
    if row is not None:
        return row
    local, _, _ = email.partition("@")
    if local.startswith("user") and local[4:].isdigit():
        return get_user(store, int(local[4:]))
    return None


def notification_bot(store: Store) -> Row:
    row = store.one("SELECT * FROM users WHERE is_system_bot = 1 ORDER BY id LIMIT 1")
    if row is None:
        raise ApiError("Notification bot is missing", code="SERVER_NOT_READY", status=500)
    return row


# -- authentication (spec section 5) ----------------------------------------------------
def authenticate_basic(store: Store, header: str | None) -> Row:
    """The user of an ``Authorization: Basic`` header; 401 UNAUTHORIZED otherwise."""
    if not header:
        raise unauthorized("Missing authorization header for basic auth")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "basic":
        raise unauthorized("This endpoint requires HTTP basic authentication.")
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise unauthorized("Invalid authorization header for basic auth") from None
    email, sep, api_key = decoded.partition(":")
    if not sep:
        raise unauthorized("Invalid authorization header for basic auth")
    api_key = api_key.strip()
    if len(api_key) != API_KEY_LENGTH or not api_key.isalnum():
        raise unauthorized("Malformed API key")
    user = store.one("SELECT * FROM users WHERE api_key = ?", [api_key])
    if user is None or user["delivery_email"].lower() != email.strip().lower():
        raise unauthorized("Invalid API key")
    if not user["is_active"]:
        raise unauthorized("Account is deactivated")
    return user


def fetch_api_key(store: Store, username: str, password: str) -> dict[str, Any]:
    """Spec 4.5: exchange an email and password for the API key."""
    if not valid_email(username):  # validate_login_email, when LDAP is not in use
        raise ApiError("Enter a valid email address.")
    user = store.one("SELECT * FROM users WHERE lower(delivery_email) = lower(?)", [username])
    if user is None or not check_password(password, user["password_hash"]):
        raise ApiError(
            "Your username or password is incorrect", code="AUTHENTICATION_FAILED", status=401
        )
    if not user["is_active"]:
        raise ApiError("Account is deactivated", code="USER_DEACTIVATED", status=401)
    return {"api_key": user["api_key"], "email": user["delivery_email"], "user_id": user["id"]}


# -- the user record -------------------------------------------------------------------
def can_see_email(store: Store, viewer: Row, target: Row) -> bool:
    if viewer["id"] == target["id"]:
        return True
    policy = int(target["email_address_visibility"])
    role = int(viewer["role"])
    if policy == EMAIL_VISIBLE_EVERYONE:
        return True
    if policy == EMAIL_VISIBLE_MEMBERS:
        return role <= realm_mod.ROLE_MEMBER
    if policy == EMAIL_VISIBLE_MODERATORS:
        return role <= realm_mod.ROLE_MODERATOR
    if policy == EMAIL_VISIBLE_ADMINS:
        return role <= realm_mod.ROLE_ADMIN
    return False


def api_email(store: Store, target: Row) -> str:
    """The address a client sees: real when visible to everyone, else a placeholder."""
    if target["is_bot"] or int(target["email_address_visibility"]) == EMAIL_VISIBLE_EVERYONE:
        return str(target["delivery_email"])
    return f"user{target['id']}@{realm_mod.REALM_HOST}"


def avatar_url(target: Row, *, client_gravatar: bool, email_visible: bool) -> str | None:
    if target["is_system_bot"]:
        name = "notification-bot"
        return f"/static/images/static_avatars/{name}.png"
    if target["avatar_source"] == "U":
        avatar_hash = hashlib.sha256(f"{target['id']}:{target['avatar_version']}:sandbox".encode())
        return f"/user_avatars/1/{avatar_hash.hexdigest()[:40]}.png"
    if client_gravatar and email_visible:
        return None
    email = (
        target["delivery_email"] if email_visible else f"user{target['id']}@{realm_mod.REALM_HOST}"
    )
    digest = hashlib.md5(email.lower().encode(), usedforsecurity=False).hexdigest()
    return f"https://secure.gravatar.com/avatar/{digest}?d=identicon&version={target['avatar_version']}"


@functools.lru_cache(maxsize=4096)
def date_joined_iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat()


def profile_data(store: Store, user_id: int) -> dict[str, Any]:
    rows = store.query(
        "SELECT v.field_id, v.value, v.rendered_value FROM custom_profile_values v "
        "WHERE v.user_id = ? ORDER BY v.field_id",
        [user_id],
    )
    out: dict[str, Any] = {}
    for r in rows:
        entry: dict[str, Any] = {"value": r["value"]}
        if r["rendered_value"] is not None:
            entry["rendered_value"] = r["rendered_value"]
        out[str(r["field_id"])] = entry
    return out


def user_record(
    store: Store,
    viewer: Row,
    target: Row,
    *,
    client_gravatar: bool = True,
    include_custom_profile_fields: bool = False,
) -> dict[str, Any]:
    """The user object of spec section 2 as ``viewer`` may see it."""
    visible = can_see_email(store, viewer, target)
    role = int(target["role"])
    record: dict[str, Any] = {
        "user_id": target["id"],
        "email": api_email(store, target),
        "delivery_email": target["delivery_email"] if visible else None,
        "full_name": target["full_name"],
        "date_joined": date_joined_iso(target["date_joined"]),
        "is_active": bool(target["is_active"]),
        "is_owner": role == realm_mod.ROLE_OWNER,
        "is_admin": role <= realm_mod.ROLE_ADMIN,
        "is_guest": role == realm_mod.ROLE_GUEST,
        "is_bot": bool(target["is_bot"]),
        "role": role,
        "timezone": target["timezone"],
        "avatar_url": avatar_url(target, client_gravatar=client_gravatar, email_visible=visible),
        "avatar_version": target["avatar_version"],
    }
    # as the real server's format_user_row: the bot fields only for bots, is_system_bot only
    # for system bots, custom profile data only for people
    if target["is_bot"]:
        record["bot_type"] = target["bot_type"]
        if target["is_system_bot"]:
            record["is_system_bot"] = True
        record["bot_owner_id"] = target["bot_owner_id"]
    elif include_custom_profile_fields:
        record["profile_data"] = profile_data(store, target["id"])
    return record


def announce_added(store: Store, user_id: int, recipients: list[int]) -> None:
    """The ``realm_user``/``add`` event: the whole record, as each recipient may see it.

    The real server (``notify_created_user``) sends one event to those who may see the new
    user's real address and another, with ``delivery_email`` null, to the others.
    """
    target = get_user(store, user_id)
    assert target is not None
    by_record: dict[bool, list[int]] = {True: [], False: []}
    for rid in recipients:
        viewer = get_user(store, rid)
        if viewer is not None:
            by_record[can_see_email(store, viewer, target)].append(rid)
    for visible, ids in by_record.items():
        if not ids:
            continue
        viewer = get_user(store, ids[0])
        assert viewer is not None
        person = user_record(store, viewer, target, client_gravatar=False)
        if not target["is_bot"]:
            person["profile_data"] = {}
        assert (person["delivery_email"] is not None) == visible
        event_bus(store).publish({"type": "realm_user", "op": "add", "person": person}, ids)


def own_user(store: Store, user: Row) -> dict[str, Any]:
    """Spec 4.17: the requester's own record, flattened into the response."""
    record = user_record(
        store, user, user, client_gravatar=False, include_custom_profile_fields=True
    )
    record["delivery_email"] = user["delivery_email"]
    record["max_message_id"] = int(store.scalar("SELECT coalesce(max(id), -1) FROM messages"))
    return record


def get_user_record(
    store: Store,
    viewer: Row,
    user_id: int,
    *,
    client_gravatar: bool = True,
    include_custom_profile_fields: bool = False,
) -> dict[str, Any]:
    """Spec 4.18; system bots belong to no organization, so they are not found here."""
    target = get_user(store, user_id)
    if target is None or target["is_system_bot"]:
        raise ApiError("No such user")
    return user_record(
        store,
        viewer,
        target,
        client_gravatar=client_gravatar,
        include_custom_profile_fields=include_custom_profile_fields,
    )


def user_by_api_email(store: Store, viewer: Row, email: str) -> Row | None:
    """The user ``GET /users/{email}`` finds (facts 2.17; the real server since level 302).

    The real address finds its user only when ``viewer`` may see it; the placeholder
    ``user<ID>@<realm host>`` finds any user by the ID it embeds.
    """
    row = store.one("SELECT * FROM users WHERE lower(delivery_email) = lower(?)", [email])
    if row is not None and can_see_email(store, viewer, row) and not row["is_system_bot"]:
        return row
    local, _, host = email.partition("@")
    if host.lower() == realm_mod.REALM_HOST.lower() and local[:4].lower() == "user":
        digits = local[4:]
        if digits.isascii() and digits.isdigit() and len(digits) < 19:
            row = get_user(store, int(digits))
            return None if row is None or row["is_system_bot"] else row
    return None


def get_user_record_by_email(
    store: Store,
    viewer: Row,
    email: str,
    *,
    client_gravatar: bool = True,
    include_custom_profile_fields: bool = False,
) -> dict[str, Any]:
    """``GET /users/{email}``: the record of :func:`user_by_api_email`; 400 "No such user"."""
    target = user_by_api_email(store, viewer, email)
    if target is None:
        raise ApiError("No such user")
    return user_record(
        store,
        viewer,
        target,
        client_gravatar=client_gravatar,
        include_custom_profile_fields=include_custom_profile_fields,
    )


def list_users(
    store: Store,
    viewer: Row,
    *,
    client_gravatar: bool = True,
    include_custom_profile_fields: bool = False,
    user_ids: list[int] | None = None,
) -> list[dict[str, Any]]:
    rows = store.query("SELECT * FROM users WHERE is_system_bot = 0 ORDER BY id")
    if user_ids is not None:
        wanted = set(user_ids)
        rows = [r for r in rows if r["id"] in wanted]
    return [
        user_record(
            store,
            viewer,
            r,
            client_gravatar=client_gravatar,
            include_custom_profile_fields=include_custom_profile_fields,
        )
        for r in rows
    ]


def set_profile_value(store: Store, user_id: int, field_id: int, value: str) -> None:
    store.execute(
        "INSERT OR REPLACE INTO custom_profile_values (user_id, field_id, value, rendered_value) "
        "VALUES (?, ?, ?, ?)",
        [user_id, field_id, value, None],
    )
