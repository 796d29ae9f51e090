"""HTTP handlers of the bots area: creating and administering bots, bot storage, outgoing webhooks.

Bot parameters are read as the real server reads them: ``payload_url``,
``service_payload_url`` and ``config_data`` are JSON (a URL is sent as a JSON string), and
so are the integers and booleans; names and channel names are plain strings.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    bot_storage,
    bots,
    outgoing_webhooks,
)
from ..errors import ApiError
from ..messages import SendHook
from ..params import (
    P,
    Params,
    boolean,
    integer,
    json_value,
)
from ..roles import MEMBER_OR_ADMIN
from ..state import SandboxState
from ..store import Row
from ._http import API, Background, endpoint, path_int
from ._http import me as _me


def url(name: str, raw: str) -> str:
    """A JSON-encoded URL (``"https://..."`` with the quotes)."""
    return bots.check_url(name, json_value(name, raw))


def string_dict(name: str, raw: str) -> dict[str, str]:
    """A JSON object whose values are strings (``config_data``, ``storage``)."""
    value = json_value(name, raw)
    if not isinstance(value, dict):
        raise ApiError(f"{name} is not a dict", var_name=name)
    for key, item in value.items():
        if not isinstance(item, str):
            raise ApiError(f'{name}["{key}"] is not a string', var_name=name)
    return value


def string_list(name: str, raw: str) -> list[str]:
    """A JSON array of strings (``keys``)."""
    value = json_value(name, raw)
    if not isinstance(value, list):
        raise ApiError(f"{name} is not a list", var_name=name)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ApiError(f"{name}[{index}] is not a string", var_name=name)
    return value


@endpoint(
    {
        "full_name": P(required=True),
        "short_name": P(required=True),
        "bot_type": P(integer, default=1),
        "payload_url": P(url),
        "interface_type": P(integer),
        "service_name": P(),
        "config_data": P(string_dict),
        "default_sending_stream": P(),
        "default_events_register_stream": P(),
        "default_all_public_streams": P(boolean),
    },
    role=MEMBER_OR_ADMIN,
)
def create_bot(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return bots.create_bot(
        state.store,
        _me(user),
        full_name=p["full_name"],
        short_name=p["short_name"],
        bot_type=p["bot_type"],
        payload_url=p.optional("payload_url"),
        interface_type=p.optional("interface_type", 1),
        service_name=p.optional("service_name"),
        config_data=p.optional("config_data"),
        default_sending_stream=p.optional("default_sending_stream"),
        default_events_register_stream=p.optional("default_events_register_stream"),
        default_all_public_streams=p.optional("default_all_public_streams"),
    )


@endpoint()
def list_bots(request: Request, state: SandboxState, user: Row | None, p: Params) -> dict[str, Any]:
    return {"bots": bots.own_bots(state.store, _me(user))}


@endpoint(
    {
        "full_name": P(),
        "role": P(integer),
        "bot_owner_id": P(integer),
        "config_data": P(string_dict),
        "service_payload_url": P(url),
        "service_interface": P(integer, default=1),
        "default_sending_stream": P(),
        "default_events_register_stream": P(),
        "default_all_public_streams": P(boolean),
    },
    role=MEMBER_OR_ADMIN,
)
def update_bot(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return bots.update_bot(
        state.store,
        _me(user),
        path_int(request, "bot_id"),
        full_name=p.optional("full_name"),
        role=p.optional("role"),
        bot_owner_id=p.optional("bot_owner_id"),
        config_data=p.optional("config_data"),
        service_payload_url=p.optional("service_payload_url"),
        service_interface=p["service_interface"],
        default_sending_stream=p.optional("default_sending_stream"),
        default_events_register_stream=p.optional("default_events_register_stream"),
        default_all_public_streams=p.optional("default_all_public_streams"),
    )


@endpoint(role=MEMBER_OR_ADMIN)
def regenerate_bot_api_key(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    bot_id = path_int(request, "bot_id")
    key = bots.regenerate_api_key(state.store, _me(user), bot_id)
    if state.credentials_changed is not None:
        state.credentials_changed(bot_id, key)
    return {"api_key": key}


@endpoint({"keys": P(string_list)})
def get_storage(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return {"storage": bot_storage.get_storage(state.store, _me(user), p.optional("keys"))}


@endpoint({"storage": P(string_dict, required=True)})
def update_storage(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    bot_storage.update_storage(state.store, _me(user), p["storage"])
    return {}


@endpoint({"keys": P(string_list)})
def remove_storage(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    bot_storage.remove_storage(state.store, _me(user), p.optional("keys"))
    return {}


async def deliver_outgoing_webhooks(state: SandboxState) -> None:
    """Background job: POST outgoing-webhook payloads and post the bots' replies."""
    await outgoing_webhooks.run_deliveries(state.store, feature_level=state.feature_level)


ROUTES: list[Route] = [
    Route(f"{API}/bots", create_bot, methods=["POST"]),
    Route(f"{API}/bots", list_bots, methods=["GET"]),
    Route(f"{API}/bots/{{bot_id:int}}", update_bot, methods=["PATCH"]),
    Route(
        f"{API}/bots/{{bot_id:int}}/api_key/regenerate", regenerate_bot_api_key, methods=["POST"]
    ),
    Route(f"{API}/bot_storage", get_storage, methods=["GET"]),
    Route(f"{API}/bot_storage", update_storage, methods=["PUT"]),
    Route(f"{API}/bot_storage", remove_storage, methods=["DELETE"]),
]


BACKGROUND: list[Background] = [deliver_outgoing_webhooks]

#: called with each message sent: one that mentions an outgoing-webhook bot, or a direct message
#: to one, queues the delivery that :data:`BACKGROUND` makes
SEND_HOOKS: list[SendHook] = [outgoing_webhooks.trigger]
