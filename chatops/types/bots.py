"""Typed records: bots (see :mod:`chatops.types`)."""

from __future__ import annotations

from ._base import Record

# -- bots: bots ------------------------------------------------------------------------------------


class BotService(Record):
    """An outgoing-webhook bot's receiving URL and its fixed token (kept out of the repr)."""

    base_url: str
    interface: int = 1
    token: str = ""

    def __repr__(self) -> str:
        return f"BotService(base_url={self.base_url!r}, interface={self.interface!r})"


class BotResult(Record):
    """``POST /bots``: the new bot; ``api_key`` is kept out of the repr."""

    user_id: int
    api_key: str = ""
    email: str = ""
    services: list[BotService] = []

    def __repr__(self) -> str:
        return f"BotResult(user_id={self.user_id!r}, email={self.email!r})"


class OwnBot(Record):
    """One of the requester's bots (``GET /bots``); ``api_key`` is kept out of the repr."""

    username: str
    full_name: str
    api_key: str = ""
    avatar_url: str | None = None
    default_sending_stream: str | None = None
    default_events_register_stream: str | None = None
    default_all_public_streams: bool = False

    def __repr__(self) -> str:
        return f"OwnBot(username={self.username!r}, full_name={self.full_name!r})"


class OwnBotsResult(Record):
    """``GET /bots``."""

    bots: list[OwnBot]


class BotUpdateResult(Record):
    """``PATCH /bots/{bot_id}``: the bot after the change; ``bot_owner`` is the owner's email."""

    full_name: str
    avatar_url: str | None = None
    service_interface: int | None = None
    service_payload_url: str | None = None
    config_data: dict[str, str] | None = None
    default_sending_stream: str | None = None
    default_events_register_stream: str | None = None
    default_all_public_streams: bool = False
    bot_owner: str | None = None


class BotApiKeyResult(Record):
    """``POST /bots/{bot_id}/api_key/regenerate``: the new key (kept out of the repr)."""

    api_key: str

    def __repr__(self) -> str:
        return "BotApiKeyResult(api_key=...)"


class BotStorageResult(Record):
    """``GET /bot_storage``: the requested entries."""

    storage: dict[str, str]
