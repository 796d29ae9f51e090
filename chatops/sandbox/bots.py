"""Bots: creating and administering them, and their services (spec 4.22; facts 2.20).

A bot is created by a person who is not a guest, and owned by them. Administering (as the real
server does it): a bot's owner and the organization's administrators may change the bot (name,
owner, role, default channels, its service or configuration) and regenerate its API key; the
old key stops working at once. Each change is told to those who administer the bot in a
``realm_bot`` event, and public changes (name, owner, role) to everyone in a ``realm_user``
event.

An outgoing-webhook bot (bot type 3) has a service: the URL its payloads go to and a fixed
token (registered here; :mod:`.outgoing_webhooks` delivers the payloads). A bot's own
key-value store is :mod:`.bot_storage`.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from . import channels, users
from . import realm as realm_mod
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store
from .user_groups import active_user_ids

BOT_TYPE_OUTGOING_WEBHOOK = 3
BOT_TYPE_INCOMING_WEBHOOK, BOT_TYPE_EMBEDDED = 2, 4
BOT_TYPES = (1, 2, 3, 4)
INTERFACE_TYPES = (1, 2)
#: characters of keys and values together in one bot's configuration (BOT_CONFIG_SIZE_LIMIT)
CONFIG_SIZE_LIMIT = 10_000
URL = re.compile(r"^(?:https?|ftps?)://[^\s/?#@]+(?:[/?#]\S*)?$", re.IGNORECASE)


# -- services ------------------------------------------------------------------------------------
def register_outgoing_webhook(
    store: Store,
    bot_id: int,
    url: str,
    *,
    token: str | None = None,
    interface: int = 1,
    service_name: str = "",
) -> str:
    """Give outgoing-webhook bot ``bot_id`` its receiving ``url``; returns the bot's token.

    The token is fixed per bot: registering again changes the URL and keeps the token.
    """
    bot = users.get_user(store, bot_id)
    if bot is None or not bot["is_bot"] or bot["bot_type"] != BOT_TYPE_OUTGOING_WEBHOOK:
        raise ApiError("Invalid bot")
    if not re.match(r"^https?://[^\s/]+", url):
        raise ApiError("Enter a valid URL.", var_name="payload_url")
    with store.atomic():
        row = store.one("SELECT token FROM outgoing_webhooks WHERE bot_id = ?", [bot_id])
        if row is not None:
            store.execute(
                "UPDATE outgoing_webhooks SET base_url = ?, interface = ? WHERE bot_id = ?",
                [url, interface, bot_id],
            )
            return str(row["token"])
        token = token or secrets.token_urlsafe(24)
        store.insert(
            "outgoing_webhooks",
            {
                "bot_id": bot_id,
                "base_url": url,
                "token": token,
                "interface": interface,
                "service_name": service_name,
            },
        )
    return token


def service(store: Store, bot_id: int) -> Row | None:
    """The bot's ``{bot_id, base_url, token, interface}``, or None."""
    return store.one("SELECT * FROM outgoing_webhooks WHERE bot_id = ?", [bot_id])


# -- administering bots ---------------------------------------------------------------------------
def require_member(actor: Row) -> None:
    """Administering bots is for people who are not guests (the real server's rule)."""
    if actor["is_bot"]:
        raise ApiError("This endpoint does not accept bot requests.")
    if int(actor["role"]) == realm_mod.ROLE_GUEST:
        raise ApiError("Not allowed for guest users")


def can_administer(actor: Row, bot: Row) -> bool:
    return bot["bot_owner_id"] == actor["id"] or realm_mod.is_admin(actor)


def access_bot(store: Store, actor: Row, bot_id: int) -> Row:
    """The bot ``bot_id`` if ``actor`` may administer it: its owner or an administrator."""
    bot = users.get_user(store, bot_id)
    if bot is None or not bot["is_bot"] or bot["is_system_bot"]:
        raise ApiError("No such bot")
    if not can_administer(actor, bot):
        raise ApiError("Insufficient permission")
    return bot


def check_url(name: str, value: Any) -> str:
    """A JSON-decoded URL parameter: a string that is an http(s) or ftp(s) URL."""
    if not isinstance(value, str):
        raise ApiError(f"{name} is not a string", var_name=name)
    if not URL.match(value):
        raise ApiError(f"{name} is not a URL", var_name=name)
    return value


def check_interface(interface: int) -> None:
    if interface not in INTERFACE_TYPES:
        raise ApiError("Invalid interface type", var_name="interface_type")


def administrator_ids(store: Store, bot: Row) -> set[int]:
    """Who hears of a bot's configuration: its owner and, unless the bot is private, admins."""
    private = False
    for column in ("default_sending_stream_id", "default_events_register_stream_id"):
        if bot[column] is not None:
            stream = channels.get_stream(store, bot[column])
            private = private or bool(stream is not None and stream["invite_only"])
    ids: set[int] = set()
    if not private:
        rows = store.query(
            "SELECT id FROM users WHERE role <= ? AND is_active = 1 AND is_bot = 0",
            [realm_mod.ROLE_ADMIN],
        )
        ids = {int(r["id"]) for r in rows}
    if bot["bot_owner_id"] is not None:
        ids.add(int(bot["bot_owner_id"]))
    return ids


def _everyone(store: Store) -> list[int]:
    return [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]


def _stream_name(store: Store, stream_id: int | None) -> str | None:
    if stream_id is None:
        return None
    stream = channels.get_stream(store, stream_id)
    return None if stream is None else str(stream["name"])


def bot_config(store: Store, bot_id: int) -> dict[str, str]:
    rows = store.query("SELECT key, value FROM bot_config WHERE bot_id = ? ORDER BY key", [bot_id])
    return {str(r["key"]): str(r["value"]) for r in rows}


def services(store: Store, bot: Row) -> list[dict[str, Any]]:
    """The ``services`` of a bot record: an outgoing webhook's URL or an embedded bot's config."""
    row = service(store, bot["id"])
    if bot["bot_type"] == BOT_TYPE_OUTGOING_WEBHOOK and row is not None:
        return [{"base_url": row["base_url"], "interface": row["interface"], "token": row["token"]}]
    if bot["bot_type"] == BOT_TYPE_EMBEDDED and row is not None:
        return [{"service_name": row["service_name"], "config_data": bot_config(store, bot["id"])}]
    return []


def bot_record(store: Store, bot: Row) -> dict[str, Any]:
    """The ``Bot`` object of ``realm_bot`` events and ``realm_bots``."""
    return {
        "email": users.api_email(store, bot),
        "user_id": bot["id"],
        "full_name": bot["full_name"],
        "bot_type": bot["bot_type"],
        "is_active": bool(bot["is_active"]),
        "api_key": bot["api_key"],
        "default_sending_stream": _stream_name(store, bot["default_sending_stream_id"]),
        "default_events_register_stream": _stream_name(
            store, bot["default_events_register_stream_id"]
        ),
        "default_all_public_streams": bool(bot["default_all_public_streams"]),
        "avatar_url": users.avatar_url(bot, client_gravatar=False, email_visible=True),
        "services": services(store, bot),
        "owner_id": bot["bot_owner_id"],
    }


def announce_created(store: Store, bot_id: int) -> None:
    """``realm_bot``/``add`` to those who administer the new bot."""
    bot = users.get_user(store, bot_id)
    assert bot is not None
    event = {"type": "realm_bot", "op": "add", "bot": bot_record(store, bot)}
    event_bus(store).publish(event, administrator_ids(store, bot))


def announce_active(store: Store, user_id: int) -> None:
    """``realm_bot``/``update`` with ``is_active`` when a bot is deactivated or reactivated."""
    bot = users.get_user(store, user_id)
    if bot is not None and bot["is_bot"]:
        _bot_update(store, bot, is_active=bool(bot["is_active"]))


def _bot_update(store: Store, bot: Row, **changed: Any) -> None:
    _bot_update_to(store, bot, administrator_ids(store, bot), **changed)


def _bot_update_to(store: Store, bot: Row, to: set[int], **changed: Any) -> None:
    event = {"type": "realm_bot", "op": "update", "bot": {"user_id": bot["id"], **changed}}
    event_bus(store).publish(event, to)


def _user_update(store: Store, bot: Row, **changed: Any) -> None:
    event = {"type": "realm_user", "op": "update", "person": {"user_id": bot["id"], **changed}}
    event_bus(store).publish(event, _everyone(store))


def own_bots(store: Store, actor: Row) -> list[dict[str, Any]]:
    """``GET /bots``: the requester's active bots, oldest first (also for administrators)."""
    require_member(actor)
    rows = store.query(
        "SELECT * FROM users WHERE is_bot = 1 AND is_active = 1 AND bot_owner_id = ? "
        "ORDER BY date_joined, id",
        [actor["id"]],
    )
    return [
        {
            "username": users.api_email(store, bot),
            "full_name": bot["full_name"],
            "api_key": bot["api_key"],
            "avatar_url": users.avatar_url(bot, client_gravatar=False, email_visible=True),
            "default_sending_stream": _stream_name(store, bot["default_sending_stream_id"]),
            "default_events_register_stream": _stream_name(
                store, bot["default_events_register_stream_id"]
            ),
            "default_all_public_streams": bool(bot["default_all_public_streams"]),
        }
        for bot in rows
    ]


def channel_by_name(store: Store, actor: Row, name: str) -> int:
    """The id of a channel the actor can reach by ``name`` (a bot's default channel)."""
    stream = channels.stream_by_name(store, name)
    if stream is None or not channels.can_read(store, actor, stream):
        raise ApiError(f"Invalid channel name '{name}'")
    return int(stream["id"])


def check_full_name(store: Store, bot: Row, full_name: str) -> str | None:
    """The bot's new name, or None when it is unchanged; a name in use by another is refused."""
    full_name = users.check_full_name(full_name)
    if full_name == bot["full_name"]:
        return None
    taken = store.one(
        "SELECT 1 FROM users WHERE full_name = ? AND is_active = 1 AND id != ?",
        [full_name, bot["id"]],
    )
    if taken:
        raise ApiError("Name is already in use!")
    return full_name


def set_config(store: Store, bot_id: int, config: dict[str, str]) -> None:
    """Store configuration entries; refused past :data:`CONFIG_SIZE_LIMIT` characters."""
    merged = {**bot_config(store, bot_id), **config}
    size = sum(len(k) + len(v) for k, v in merged.items())
    if size > CONFIG_SIZE_LIMIT:
        raise ApiError(
            f"Cannot store configuration. Request would require {size} characters. "
            f"The current configuration size limit is {CONFIG_SIZE_LIMIT} characters.",
            var_name="config_data",
        )
    store.executemany(
        "INSERT INTO bot_config (bot_id, key, value) VALUES (?, ?, ?) "
        "ON CONFLICT (bot_id, key) DO UPDATE SET value = excluded.value",
        [(bot_id, k, v) for k, v in config.items()],
    )


def _change_owner(store: Store, actor: Row, bot: Row, owner_id: int) -> None:
    owner = users.get_user(store, owner_id)
    if owner is None or owner["is_system_bot"]:
        raise ApiError("Failed to change owner, no such user")
    if not owner["is_active"]:
        raise ApiError("Failed to change owner, user is deactivated")
    if owner["is_bot"]:
        raise ApiError("Failed to change owner, bots can't own other bots")
    previous = None if bot["bot_owner_id"] is None else users.get_user(store, bot["bot_owner_id"])
    if previous is not None and previous["id"] == owner_id:
        return
    store.execute("UPDATE users SET bot_owner_id = ? WHERE id = ?", [owner_id, bot["id"]])
    moved = users.get_user(store, bot["id"])
    assert moved is not None
    told = administrator_ids(store, moved)
    # administrators keep the bot in their list: they get an update; the old owner loses it
    # and the new owner gains it
    if previous is not None and not realm_mod.is_admin(previous):
        gone = {"type": "realm_bot", "op": "delete", "bot": {"user_id": bot["id"]}}
        event_bus(store).publish(gone, [previous["id"]])
        told.discard(int(previous["id"]))
    if not realm_mod.is_admin(owner):
        added = {"type": "realm_bot", "op": "add", "bot": bot_record(store, moved)}
        event_bus(store).publish(added, [owner_id])
        told.discard(owner_id)
    _bot_update_to(store, moved, told, owner_id=owner_id)
    _user_update(store, moved, bot_owner_id=owner_id)


def _change_role(store: Store, actor: Row, bot: Row, role: int) -> None:
    if role not in realm_mod.ROLES:
        raise ApiError("Invalid role", var_name="role")
    if role == bot["role"]:
        return
    if realm_mod.ROLE_OWNER in (role, int(bot["role"])):
        if int(actor["role"]) != realm_mod.ROLE_OWNER:
            raise ApiError("Must be an organization owner", code="UNAUTHORIZED_PRINCIPAL")
    else:
        realm_mod.require_admin(actor)
    store.execute("UPDATE users SET role = ? WHERE id = ?", [role, bot["id"]])
    _user_update(store, bot, role=role)


def update_bot(
    store: Store,
    actor: Row,
    bot_id: int,
    *,
    full_name: str | None = None,
    role: int | None = None,
    bot_owner_id: int | None = None,
    config_data: dict[str, str] | None = None,
    service_payload_url: str | None = None,
    service_interface: int = 1,
    default_sending_stream: str | None = None,
    default_events_register_stream: str | None = None,
    default_all_public_streams: bool | None = None,
) -> dict[str, Any]:
    """``PATCH /bots/{bot_id}``: the bot's owner or an administrator changes it.

    A refused part refuses the whole request: nothing is changed.
    """
    with store.atomic():
        bot = access_bot(store, actor, bot_id)
        if full_name is not None:
            new_name = check_full_name(store, bot, full_name)
            if new_name is not None:
                store.execute("UPDATE users SET full_name = ? WHERE id = ?", [new_name, bot_id])
                _bot_update(store, bot, full_name=new_name)
                _user_update(store, bot, full_name=new_name)
        if role is not None:
            _change_role(store, actor, bot, role)
        if bot_owner_id is not None:
            _change_owner(store, actor, bot, bot_owner_id)
            moved = users.get_user(store, bot_id)
            assert moved is not None
            bot = moved  # later changes are told to the new owner
        for param, column in (
            (default_sending_stream, "default_sending_stream"),
            (default_events_register_stream, "default_events_register_stream"),
        ):
            if param is None:
                continue
            stream_id = None if param == "" else channel_by_name(store, actor, param)
            store.execute(f"UPDATE users SET {column}_id = ? WHERE id = ?", [stream_id, bot_id])
            _bot_update(store, bot, **{column: _stream_name(store, stream_id)})
        if default_all_public_streams is not None:
            store.execute(
                "UPDATE users SET default_all_public_streams = ? WHERE id = ?",
                [int(default_all_public_streams), bot_id],
            )
            _bot_update(store, bot, default_all_public_streams=default_all_public_streams)
        if service_payload_url is not None:
            check_interface(service_interface)
            if bot["bot_type"] != BOT_TYPE_OUTGOING_WEBHOOK or service(store, bot_id) is None:
                raise ApiError("This bot has no outgoing webhook service")
            store.execute(
                "UPDATE outgoing_webhooks SET base_url = ?, interface = ? WHERE bot_id = ?",
                [service_payload_url, service_interface, bot_id],
            )
            _bot_update(store, bot, services=services(store, bot))
        if config_data is not None:
            set_config(store, bot_id, config_data)
            row = service(store, bot_id)
            name = "" if row is None else row["service_name"]
            _bot_update(
                store,
                bot,
                services=[{"config_data": bot_config(store, bot_id), "service_name": name}],
            )
        final = users.get_user(store, bot_id)
    assert final is not None
    result: dict[str, Any] = {
        "full_name": final["full_name"],
        "avatar_url": users.avatar_url(final, client_gravatar=False, email_visible=True),
        "service_interface": service_interface,
        "service_payload_url": service_payload_url,
        "config_data": config_data,
        "default_sending_stream": _stream_name(store, final["default_sending_stream_id"]),
        "default_events_register_stream": _stream_name(
            store, final["default_events_register_stream_id"]
        ),
        "default_all_public_streams": bool(final["default_all_public_streams"]),
    }
    if final["bot_owner_id"] is not None:
        owner = users.get_user(store, final["bot_owner_id"])
        if owner is not None:
            result["bot_owner"] = users.api_email(store, owner)
    return result


def regenerate_api_key(store: Store, actor: Row, bot_id: int) -> str:
    """``POST /bots/{bot_id}/api_key/regenerate``: a new key; the old one stops working now."""
    with store.atomic():
        bot = access_bot(store, actor, bot_id)
        key = users.new_api_key()
        store.execute("UPDATE users SET api_key = ? WHERE id = ?", [key, bot_id])
        _bot_update(store, bot, api_key=key)
    return key


# -- creating bots --------------------------------------------------------------------------------
def create_bot(
    store: Store,
    actor: Row,
    *,
    full_name: str,
    short_name: str,
    bot_type: int = 1,
    payload_url: str | None = None,
    interface_type: int = 1,
    service_name: str | None = None,
    config_data: dict[str, str] | None = None,
    default_sending_stream: str | None = None,
    default_events_register_stream: str | None = None,
    default_all_public_streams: bool | None = None,
) -> dict[str, Any]:
    """``POST /bots``: returns ``user_id``, ``api_key`` and ``email`` of the new bot.

    An outgoing-webhook bot (type 3) needs ``payload_url``; its service and fixed token are
    returned under ``services``. Incoming-webhook and embedded bots keep ``config_data``.
    """
    if bot_type not in BOT_TYPES:
        raise ApiError("Invalid bot type")
    if bot_type == BOT_TYPE_OUTGOING_WEBHOOK and not payload_url:
        raise ApiError(
            "Missing 'payload_url' argument",
            code="REQUEST_VARIABLE_MISSING",
            var_name="payload_url",
        )
    check_interface(interface_type)
    full_name = users.check_full_name(full_name)
    short_name = short_name.strip().lower()
    if not short_name or not re.match(r"^[a-z0-9_.\-]+$", short_name):
        raise ApiError("Bad name or username")
    if bot_type != BOT_TYPE_INCOMING_WEBHOOK:
        service_name = service_name or short_name
    email = f"{short_name}-bot@{realm_mod.REALM_HOST}"
    with store.atomic():
        if store.one("SELECT 1 FROM users WHERE lower(delivery_email) = lower(?)", [email]):
            raise ApiError("Username already in use")
        if store.one("SELECT 1 FROM users WHERE full_name = ? AND is_active = 1", [full_name]):
            raise ApiError("Name is already in use!")
        defaults = {
            column: None if not name else channel_by_name(store, actor, name)
            for column, name in (
                ("default_sending_stream_id", default_sending_stream),
                ("default_events_register_stream_id", default_events_register_stream),
            )
        }
        user_id = users.create_user(
            store,
            email=email,
            full_name=full_name,
            is_bot=True,
            bot_type=bot_type,
            bot_owner_id=actor["id"],
        )
        store.execute(
            "UPDATE users SET default_sending_stream_id = ?, "
            "default_events_register_stream_id = ?, default_all_public_streams = ? WHERE id = ?",
            [
                defaults["default_sending_stream_id"],
                defaults["default_events_register_stream_id"],
                int(bool(default_all_public_streams)),
                user_id,
            ],
        )
        services = _set_up_service(
            store, user_id, bot_type, payload_url, interface_type, service_name, config_data
        )
        row = users.get_user(store, user_id)
        assert row is not None
        users.announce_added(store, int(row["id"]), active_user_ids(store))
        announce_created(store, user_id)
    return {
        "user_id": user_id,
        "api_key": row["api_key"],
        "email": email,
        "services": services,
        "avatar_url": users.avatar_url(row, client_gravatar=False, email_visible=True),
        "default_sending_stream": default_sending_stream or None,
        "default_events_register_stream": default_events_register_stream or None,
        "default_all_public_streams": bool(default_all_public_streams),
    }


def _set_up_service(
    store: Store,
    bot_id: int,
    bot_type: int,
    payload_url: str | None,
    interface_type: int,
    service_name: str | None,
    config_data: dict[str, str] | None,
) -> list[dict[str, Any]]:
    """A new bot's service (an outgoing webhook's URL and token, an embedded bot's name) and
    configuration; returns the ``services`` that ``POST /bots`` answers with."""
    services: list[dict[str, Any]] = []
    if bot_type == BOT_TYPE_OUTGOING_WEBHOOK:
        assert payload_url is not None
        token = register_outgoing_webhook(
            store, bot_id, payload_url, interface=interface_type, service_name=service_name or ""
        )
        services.append({"base_url": payload_url, "interface": interface_type, "token": token})
    elif bot_type == BOT_TYPE_EMBEDDED:
        store.insert(
            "outgoing_webhooks",
            {
                "bot_id": bot_id,
                "base_url": "",
                "token": users.new_api_key(),
                "interface": interface_type,
                "service_name": service_name or "",
            },
        )
    if bot_type == BOT_TYPE_INCOMING_WEBHOOK and service_name:
        set_config(store, bot_id, {"integration_id": service_name})
    if bot_type in (BOT_TYPE_INCOMING_WEBHOOK, BOT_TYPE_EMBEDDED) and config_data:
        set_config(store, bot_id, config_data)
    return services
