"""HTTP handlers of the events area. Event queues: ``POST /register`` (initial state and a queue), ``GET``/``DELETE /events`` (section 6)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    events,
)
from ..bus import event_bus
from ..params import (
    P,
    Params,
    boolean,
    integer,
    json_value,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, Background, endpoint, me

REGISTER_SPEC = {
    "apply_markdown": P(boolean, default=False),
    "client_gravatar": P(boolean, default=False),
    "include_subscribers": P(json_value, default=False),
    "slim_presence": P(boolean, default=False),
    "all_public_streams": P(boolean, default=False),
    "client_capabilities": P(json_value, default={}),
    "event_types": P(json_value, default=None),
    "fetch_event_types": P(json_value, default=None),
    "narrow": P(json_value, default=[]),
    "queue_lifespan_secs": P(integer, default=0),
    "user_client": P(),
}


@endpoint(REGISTER_SPEC)
def register(request: Request, state: SandboxState, user: Row | None, p: Params) -> dict[str, Any]:
    """``POST /register``: the initial state plus a live event queue."""
    return events.register(
        state.store,
        me(user),
        event_types=p["event_types"],
        fetch_event_types=p["fetch_event_types"],
        slim_presence=p["slim_presence"],
        include_subscribers=p["include_subscribers"],
        client_capabilities=p["client_capabilities"],
        apply_markdown=p["apply_markdown"],
        client_gravatar=p["client_gravatar"],
        all_public_streams=p["all_public_streams"],
        realm_url=str(request.base_url).rstrip("/"),
        feature_level=state.feature_level,
    )


@endpoint(
    {
        "queue_id": P(required=True),
        "last_event_id": P(integer, default=None),
        "dont_block": P(boolean, default=False),
    }
)
async def get_events(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``GET /events``: the queue's events after ``last_event_id``, waiting for one if none."""
    assert user is not None
    bus = event_bus(state.store)
    queue = bus.get(p["queue_id"], user["id"])
    events = await bus.wait(queue, p["last_event_id"], dont_block=p["dont_block"])
    return {"events": events, "queue_id": queue.queue_id}


@endpoint({"queue_id": P(required=True)})
def delete_queue(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``DELETE /events``: drop a queue (a poll waiting on it gets ``BAD_EVENT_QUEUE_ID``)."""
    assert user is not None
    event_bus(state.store).delete(p["queue_id"], user["id"])
    return {}


async def expire_queues(state: SandboxState) -> None:
    """Background job: garbage-collect queues nobody polled for ``queue_timeout`` seconds."""
    while True:
        bus = event_bus(state.store)
        await asyncio.sleep(max(0.05, min(1.0, bus.queue_timeout / 4)))
        bus.expire()


ROUTES: list[Route] = [
    Route(f"{API}/register", register, methods=["POST"]),
    Route(f"{API}/events", get_events, methods=["GET"]),
    Route(f"{API}/events", delete_queue, methods=["DELETE"]),
]


BACKGROUND: list[Background] = [expire_queues]
