"""HTTP handlers of the scheduled area. Scheduled messages and reminders, and the scheduler that delivers them (spec 4.3, 4.16)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    scheduled,
)
from ..params import (
    P,
    Params,
    boolean,
    choice,
    integer,
    json_value,
    message_text,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, Background, endpoint
from ._http import me as _me
from ._http import path_int as _path_int

log = logging.getLogger("chatops.sandbox.scheduler")


SCHEDULER_INTERVAL_SECONDS = 0.5


MESSAGE_TYPES = ("direct", "private", "stream", "channel")


@endpoint(
    {
        "type": P(choice(*MESSAGE_TYPES), required=True),
        "to": P(json_value, required=True),
        "content": P(message_text, required=True),
        "topic": P(message_text),
        "scheduled_delivery_timestamp": P(integer, required=True),
        "read_by_sender": P(boolean),
    },
    aliases={"subject": "topic"},
)
def create_scheduled(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    new_id = scheduled.create(
        state.store,
        _me(user),
        message_type=p["type"],
        to=p["to"],
        content=p["content"],
        topic=p.optional("topic"),
        scheduled_delivery_timestamp=p["scheduled_delivery_timestamp"],
    )
    return {"scheduled_message_id": new_id}


@endpoint()
def list_scheduled(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"scheduled_messages": scheduled.list_scheduled(state.store, _me(user))}


@endpoint(
    {
        "type": P(choice(*MESSAGE_TYPES)),
        "to": P(json_value),
        "content": P(message_text),
        "topic": P(message_text),
        "scheduled_delivery_timestamp": P(integer),
    },
    aliases={"subject": "topic"},
)
def update_scheduled(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    scheduled.update(
        state.store,
        _me(user),
        _path_int(request, "scheduled_id"),
        message_type=p.optional("type"),
        to=p.optional("to"),
        content=p.optional("content"),
        topic=p.optional("topic"),
        scheduled_delivery_timestamp=p.optional("scheduled_delivery_timestamp"),
    )
    return {}


@endpoint()
def delete_scheduled(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    scheduled.delete(state.store, _me(user), _path_int(request, "scheduled_id"))
    return {}


@endpoint(
    {
        "message_id": P(integer, required=True),
        "scheduled_delivery_timestamp": P(integer, required=True),
        "note": P(),
    }
)
def create_reminder(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    new_id = scheduled.create_reminder(
        state.store,
        _me(user),
        message_id=p["message_id"],
        scheduled_delivery_timestamp=p["scheduled_delivery_timestamp"],
        note=p.optional("note"),
        base_url=state.base_url or str(request.base_url),
    )
    return {"reminder_id": new_id}


@endpoint()
def list_reminders(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    return {"reminders": scheduled.list_reminders(state.store, _me(user))}


@endpoint()
def delete_reminder(request: Request, state: SandboxState, user: Row | None, p: Params) -> Any:
    scheduled.delete(state.store, _me(user), _path_int(request, "reminder_id"), scheduled.REMIND)
    return {}


async def deliver_scheduled(state: SandboxState) -> None:
    """Deliver scheduled messages and reminders at their time, every half second."""
    while True:
        try:
            await asyncio.to_thread(scheduled.deliver_due, state.store)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("scheduled delivery failed")
        await asyncio.sleep(SCHEDULER_INTERVAL_SECONDS)


ROUTES: list[Route] = [
    Route(f"{API}/scheduled_messages", create_scheduled, methods=["POST"]),
    Route(f"{API}/scheduled_messages", list_scheduled, methods=["GET"]),
    Route(f"{API}/scheduled_messages/{{scheduled_id:int}}", update_scheduled, methods=["PATCH"]),
    Route(f"{API}/scheduled_messages/{{scheduled_id:int}}", delete_scheduled, methods=["DELETE"]),
    Route(f"{API}/reminders", create_reminder, methods=["POST"]),
    Route(f"{API}/reminders", list_reminders, methods=["GET"]),
    Route(f"{API}/reminders/{{reminder_id:int}}", delete_reminder, methods=["DELETE"]),
]


BACKGROUND: list[Background] = [deliver_scheduled]
