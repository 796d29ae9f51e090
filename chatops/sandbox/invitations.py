"""Invitations: reusable links (spec 4.8), email invitations, and joining through either.

An invitation records the role, channels and groups the new account gets. Its key is the last
part of the join URL ``{realm_url}/join/<key>/``; :func:`join` creates the account, refusing
expired, revoked and (for email invitations) already used keys.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
from typing import Any

from . import channels, clock, users
from . import realm as realm_mod
from . import user_groups as groups_mod
from .bus import event_bus
from .emails import valid_email
from .errors import ApiError
from .messages import send_message
from .store import Row, Store

DEFAULT_EXPIRY_MINUTES = 14400  # server setting INVITATION_LINK_VALIDITY_MINUTES
MAX_WELCOME_TEXT = 8000


def new_key() -> str:
    """24 lowercase base32 characters from 15 random bytes, like the real server's keys."""
    return base64.b32encode(secrets.token_bytes(15)).decode().lower()


def now() -> int:
    return int(clock.now())


# -- shared checks -------------------------------------------------------------------------------
def can_add_subscribers(store: Store, user: Row, stream: Row) -> bool:
    """Whether ``user`` may subscribe others to ``stream`` (channel, then realm permissions)."""
    if realm_mod.is_admin(user):
        return True
    settings = channels.channel_settings(store, stream)
    for name in ("can_add_subscribers_group", "can_administer_channel_group"):
        if realm_mod.user_has_setting(store, user, settings[name]):
            return True
    if stream["invite_only"] and channels.subscription(store, user["id"], stream["id"]) is None:
        return False
    return realm_mod.realm_permits(store, user, "can_add_subscribers_group")


def _check_common(
    store: Store,
    user: Row,
    *,
    invite_as: int,
    expires_in_minutes: int | None,
    stream_ids: list[int],
    group_ids: list[int],
    welcome_message_custom_text: str | None,
) -> str | None:
    """Rules shared by both kinds of invitation; returns the welcome text actually stored."""
    if invite_as not in realm_mod.ROLES:
        raise ApiError("Invalid invite_as", var_name="invite_as")
    if invite_as < int(user["role"]):
        raise ApiError("Insufficient permission")
    if expires_in_minutes is not None and expires_in_minutes <= 0:
        raise ApiError("Invalid invite_expires_in_minutes", var_name="invite_expires_in_minutes")
    for sid in stream_ids:
        stream = channels.get_stream(store, sid)
        if stream is None or stream["is_archived"] or not channels.can_read(store, user, stream):
            raise ApiError(f"Invalid channel ID {sid}. No invites were sent.")
    if stream_ids and not (
        realm_mod.is_admin(user)
        or realm_mod.realm_permits(store, user, "can_add_subscribers_group")
    ):
        raise ApiError("You do not have permission to subscribe other users to channels.")
    for sid in stream_ids:
        stream = channels.get_stream(store, sid)
        assert stream is not None
        if not stream["is_default"] and not can_add_subscribers(store, user, stream):
            raise ApiError(
                f"You do not have permission to subscribe other users to channel '{stream['name']}'."
            )
    for gid in group_ids:
        group = store.one("SELECT * FROM user_groups WHERE id = ? AND name IS NOT NULL", [gid])
        if group is None or group["deactivated"] or group["is_system_group"]:
            raise ApiError(f"Invalid user group ID: {gid}")
        if not groups_mod.can_add_members(store, user, group):
            raise ApiError("Insufficient permission")
    if not realm_mod.is_admin(user):
        return None  # only administrators set a custom welcome text
    if (
        welcome_message_custom_text is not None
        and len(welcome_message_custom_text) > MAX_WELCOME_TEXT
    ):
        raise ApiError(
            f"welcome_message_custom_text is too long (limit: {MAX_WELCOME_TEXT} characters)",
            var_name="welcome_message_custom_text",
        )
    return welcome_message_custom_text


def _expiry(expires_in_minutes: int | None, start: int) -> int | None:
    return None if expires_in_minutes is None else start + expires_in_minutes * 60


# -- reusable links (4.8) ----------------------------------------------------------------------
def create_multiuse(
    store: Store,
    user: Row,
    *,
    base_url: str,
    invite_expires_in_minutes: int | None = DEFAULT_EXPIRY_MINUTES,
    invite_as: int = realm_mod.ROLE_MEMBER,
    stream_ids: list[int] | None = None,
    group_ids: list[int] | None = None,
    include_realm_default_subscriptions: bool = False,
    welcome_message_custom_text: str | None = None,
) -> str:
    """Spec 4.8: create a reusable invitation link; returns its URL."""
    if not realm_mod.realm_permits(store, user, "create_multiuse_invite_group"):
        raise ApiError("Insufficient permission")
    stream_ids, group_ids = list(stream_ids or []), list(group_ids or [])
    welcome = _check_common(
        store,
        user,
        invite_as=invite_as,
        expires_in_minutes=invite_expires_in_minutes,
        stream_ids=stream_ids,
        group_ids=group_ids,
        welcome_message_custom_text=welcome_message_custom_text,
    )
    key = new_key()
    start = now()
    with store.atomic():
        invite_id = store.insert(
            "invites",
            {
                "is_multiuse": 1,
                "invite_key": key,
                "referrer_id": user["id"],
                "invited": start,
                "expiry": _expiry(invite_expires_in_minutes, start),
                "invited_as": invite_as,
                "stream_ids": json.dumps(stream_ids),
                "group_ids": json.dumps(group_ids),
                "include_realm_default_subscriptions": int(include_realm_default_subscriptions),
                "welcome_message_custom_text": welcome,
            },
        )
    _announce(store, invite_id)
    return join_url(base_url, key)


def join_url(base_url: str, key: str) -> str:
    return f"{realm_mod.realm_url(base_url)}/join/{key}/"


# -- email invitations ----------------------------------------------------------------------------
def split_emails(raw: str) -> list[str]:
    """The addresses of ``invitee_emails``: comma or newline separated, ``Name <addr>`` allowed."""
    out: list[str] = []
    for part in re.split(r"[,\n]", raw):
        part = part.strip()
        m = re.search(r"<([^>]*)>", part)
        email = (m.group(1) if m else part).strip()
        if email and email.lower() not in (e.lower() for e in out):
            out.append(email)
    return out


def invite_by_email(
    store: Store,
    user: Row,
    *,
    base_url: str,
    invitee_emails: str,
    stream_ids: list[int],
    invite_expires_in_minutes: int | None = DEFAULT_EXPIRY_MINUTES,
    invite_as: int = realm_mod.ROLE_MEMBER,
    group_ids: list[int] | None = None,
    include_realm_default_subscriptions: bool = False,
    notify_referrer_on_join: bool = True,
    welcome_message_custom_text: str | None = None,
) -> None:
    """``POST /invites``; failures per address become INVITATION_FAILED with ``errors``."""
    if not realm_mod.realm_permits(store, user, "can_invite_users_group"):
        raise ApiError("Insufficient permission")
    emails = split_emails(invitee_emails)
    if not emails:
        raise ApiError("You must specify at least one email address.")
    group_ids = list(group_ids or [])
    welcome = _check_common(
        store,
        user,
        invite_as=invite_as,
        expires_in_minutes=invite_expires_in_minutes,
        stream_ids=stream_ids,
        group_ids=group_ids,
        welcome_message_custom_text=welcome_message_custom_text,
    )
    invalid = [[e, "Invalid address.", False] for e in emails if not valid_email(e)]
    if invalid:
        raise ApiError(
            "Some emails did not validate, so we didn't send any invitations.",
            code="INVITATION_FAILED",
            errors=invalid,
            sent_invitations=False,
            license_limit_reached=False,
            daily_limit_reached=False,
        )
    skipped: list[list[Any]] = []
    valid: list[str] = []
    for email in emails:
        existing = store.one(
            "SELECT is_active FROM users WHERE lower(delivery_email) = lower(?)", [email]
        )
        if existing is None:
            valid.append(email)
        elif existing["is_active"]:
            skipped.append([email, "Already has an account.", False])
        else:
            skipped.append([email, "Account has been deactivated.", True])
    if skipped and not valid:
        raise ApiError(
            "We weren't able to invite anyone.",
            code="INVITATION_FAILED",
            errors=skipped,
            sent_invitations=False,
            license_limit_reached=False,
            daily_limit_reached=False,
        )
    start = now()
    realm_name = realm_mod.realm_row(store)["name"]
    new_ids: list[int] = []
    with store.atomic():
        for email in valid:
            key = new_key()
            new_ids.append(
                store.insert(
                    "invites",
                    {
                        "is_multiuse": 0,
                        "email": email,
                        "invite_key": key,
                        "referrer_id": user["id"],
                        "invited": start,
                        "expiry": _expiry(invite_expires_in_minutes, start),
                        "invited_as": invite_as,
                        "stream_ids": json.dumps(stream_ids),
                        "group_ids": json.dumps(group_ids),
                        "include_realm_default_subscriptions": int(
                            include_realm_default_subscriptions
                        ),
                        "welcome_message_custom_text": welcome,
                        "notify_referrer_on_join": int(notify_referrer_on_join),
                    },
                )
            )
            _send_email(store, email, realm_name, user, join_url(base_url, key))
    for invite_id in new_ids:
        _announce(store, invite_id)
    if skipped:
        raise ApiError(
            "Some of those addresses are already using Zulip, so we didn't send them an "
            "invitation. We did send invitations to everyone else!",
            code="INVITATION_FAILED",
            errors=skipped,
            sent_invitations=True,
            license_limit_reached=False,
            daily_limit_reached=False,
        )


def _send_email(store: Store, to: str, realm_name: str, referrer: Row, link: str) -> None:
    store.insert(
        "email_outbox",
        {
            "to_address": to,
            "subject": f"{referrer['full_name']} invited you to join {realm_name}",
            "body": f"Join {realm_name}: {link}",
            "sent": now(),
        },
    )


# -- listing and revoking ------------------------------------------------------------------------
def _active(row: Row, at: int) -> bool:
    return row["status"] == "active" and (row["expiry"] is None or row["expiry"] > at)


def invite_record(row: Row, base_url: str) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": row["id"],
        "invited_by_user_id": row["referrer_id"],
        "invited": row["invited"],
        "expiry_date": row["expiry"],
        "invited_as": row["invited_as"],
        "is_multiuse": bool(row["is_multiuse"]),
    }
    if row["is_multiuse"]:
        record["link_url"] = join_url(base_url, row["invite_key"])
    else:
        record["email"] = row["email"]
        record["notify_referrer_on_join"] = bool(row["notify_referrer_on_join"])
    return record


def list_invites(store: Store, user: Row, *, base_url: str) -> list[dict[str, Any]]:
    """``GET /invites``: active invitations; administrators see all, others their own."""
    at = now()
    rows = store.query("SELECT * FROM invites ORDER BY id")
    admin = realm_mod.is_admin(user)
    return [
        invite_record(r, base_url)
        for r in rows
        if _active(r, at) and (admin or r["referrer_id"] == user["id"])
    ]


def _access(store: Store, user: Row, invite_id: int, *, multiuse: bool) -> Row:
    row = store.one(
        "SELECT * FROM invites WHERE id = ? AND is_multiuse = ? AND status = 'active'",
        [invite_id, int(multiuse)],
    )
    if row is None or (row["expiry"] is not None and row["expiry"] <= now()):
        raise ApiError("No such invitation")
    if row["referrer_id"] != user["id"]:
        realm_mod.require_admin(user)
    return row


def revoke(store: Store, user: Row, invite_id: int, *, multiuse: bool) -> None:
    """``DELETE /invites/{id}`` and ``DELETE /invites/multiuse/{id}``."""
    _access(store, user, invite_id, multiuse=multiuse)
    with store.atomic():
        store.execute("UPDATE invites SET status = 'revoked' WHERE id = ?", [invite_id])
    _announce(store, invite_id)


def revoke_sent_by(store: Store, user_id: int) -> None:
    """Revoke every active invitation and link ``user_id`` made: the real server does so when it
    deactivates them (``revoke_invites_generated_by_user``), and tells whom it concerns."""
    with store.atomic():
        rows = store.query(
            "SELECT id FROM invites WHERE referrer_id = ? AND status = 'active'", [user_id]
        )
        store.execute(
            "UPDATE invites SET status = 'revoked' WHERE referrer_id = ? AND status = 'active'",
            [user_id],
        )
    if rows:
        _announce(store, int(rows[0]["id"]))


def resend(store: Store, user: Row, invite_id: int, *, base_url: str) -> None:
    """``POST /invites/{id}/resend``: send the email again and restart its clock."""
    row = _access(store, user, invite_id, multiuse=False)
    realm_name = realm_mod.realm_row(store)["name"]
    with store.atomic():
        start = now()
        expiry = None if row["expiry"] is None else start + (row["expiry"] - row["invited"])
        store.execute(
            "UPDATE invites SET invited = ?, expiry = ? WHERE id = ?", [start, expiry, invite_id]
        )
        _send_email(store, row["email"], realm_name, user, join_url(base_url, row["invite_key"]))
    _announce(store, invite_id)


def _announce(store: Store, invite_id: int) -> None:
    """The real server sends ``invites_changed`` to the administrators and the referrer."""
    row = store.one("SELECT referrer_id FROM invites WHERE id = ?", [invite_id])
    admins = store.query("SELECT id FROM users WHERE is_active = 1 AND role <= ?", [200])
    ids = {int(r["id"]) for r in admins} | ({int(row["referrer_id"])} if row else set())
    event_bus(store).publish({"type": "invites_changed"}, ids)


# -- joining -------------------------------------------------------------------------------------
def invitation_for_key(store: Store, key: str) -> Row:
    """The active invitation behind a join key; refuses unknown, revoked, used and expired keys."""
    row = store.one("SELECT * FROM invites WHERE invite_key = ?", [key])
    if row is None or row["status"] != "active":
        raise ApiError("The confirmation link has expired or been deactivated.", status=404)
    if row["expiry"] is not None and row["expiry"] <= now():
        raise ApiError("The confirmation link has expired or been deactivated.", status=404)
    return row


def join(store: Store, key: str, *, email: str | None, full_name: str, password: str) -> int:
    """Create the account an invitation promises: its role, channels and groups."""
    invite = invitation_for_key(store, key)
    if not invite["is_multiuse"]:
        email = invite["email"]
    if not email or not valid_email(email.strip()):
        raise ApiError("Enter a valid email address.")
    email = email.strip()
    full_name = full_name.strip()
    if not full_name or len(full_name) > 100:
        raise ApiError("Name too long!" if full_name else "Please enter your full name.")
    if len(password) < 6:
        raise ApiError("The password is too weak.")
    with store.atomic():
        user_id = users.create_user(
            store,
            email=email,
            full_name=full_name,
            role=int(invite["invited_as"]),
            password=password,
        )
        stream_ids = list(json.loads(invite["stream_ids"]))
        if invite["include_realm_default_subscriptions"]:
            stream_ids += [
                int(r["id"])
                for r in store.query(
                    "SELECT id FROM streams WHERE is_default = 1 AND is_archived = 0"
                )
            ]
        for sid in dict.fromkeys(stream_ids):
            if channels.get_stream(store, sid) is not None:
                channels.subscribe(store, user_id, sid)
        for gid in json.loads(invite["group_ids"]):
            store.execute(
                "INSERT OR IGNORE INTO group_members (group_id, user_id) VALUES (?, ?)",
                [gid, user_id],
            )
        if not invite["is_multiuse"]:
            store.execute(
                "UPDATE invites SET status = 'used', used_by = ? "
                "WHERE is_multiuse = 0 AND lower(email) = lower(?) AND status = 'active'",
                [user_id, email],
            )
    new_user = users.get_user(store, user_id)
    assert new_user is not None
    _welcome(store, new_user, invite)
    users.announce_added(store, user_id, groups_mod.active_user_ids(store))
    return user_id


def _welcome(store: Store, new_user: Row, invite: Row) -> None:
    """The notification bot greets the new user (with the invitation's custom text, if any)."""
    text = invite["welcome_message_custom_text"]
    if text == "":
        return
    realm_name = realm_mod.realm_row(store)["name"]
    content = f"Welcome to {realm_name}!" + (f"\n\n{text}" if text else "")
    bot = users.notification_bot(store)
    try:
        send_message(
            store,
            bot,
            message_type="direct",
            to=json.dumps([new_user["id"]]),
            content=content,
        )
    except ApiError:
        pass  # a greeting that cannot be sent never blocks joining
