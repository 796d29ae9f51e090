"""Event queues' rules (spec section 6): what ``POST /register`` answers.

The initial state gathers every area's blocks for the user; the queue comes from the event bus
(:mod:`.bus`), which the areas publish to when something changes.
"""

from __future__ import annotations

from typing import Any

from . import initial_state
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store


def register(
    store: Store,
    user: Row,
    *,
    event_types: Any,
    fetch_event_types: Any = None,
    client_capabilities: Any,
    apply_markdown: bool,
    client_gravatar: bool,
    slim_presence: bool = False,
    include_subscribers: Any = False,
    all_public_streams: bool,
    realm_url: str,
    feature_level: int,
) -> dict[str, Any]:
    """``POST /register``: the initial state plus a live event queue.

    ``event_types`` chooses the events the queue gets; ``fetch_event_types`` (or, when it is
    not given, ``event_types``) chooses the blocks of the initial state, all of them when
    neither is given.
    """
    types = _event_types(event_types, "event_types")
    fetch_types = _event_types(fetch_event_types, "fetch_event_types")
    if not isinstance(client_capabilities, dict):
        raise ApiError("client_capabilities is not a dict", var_name="client_capabilities")
    if include_subscribers not in (True, False, "partial"):
        raise ApiError("Invalid include_subscribers", var_name="include_subscribers")
    bus = event_bus(store)
    queue = bus.register(
        user["id"],
        types,
        apply_markdown=apply_markdown,
        client_gravatar=client_gravatar,
        all_public_streams=all_public_streams,
        client_capabilities=client_capabilities,
        slim_presence=slim_presence,
    )
    ctx = initial_state.Context(
        store=store,
        user=user,
        realm_url=realm_url,
        feature_level=feature_level,
        client_gravatar=client_gravatar,
        slim_presence=slim_presence,
        include_subscribers=include_subscribers,
        capabilities=dict(client_capabilities),
        longpoll_timeout_seconds=int(bus.heartbeat_seconds) + 40,
    )
    wanted = fetch_types if fetch_types is not None else types
    body = initial_state.build(ctx, None if wanted is None else set(wanted))
    body["queue_id"] = queue.queue_id
    body["last_event_id"] = queue.last_event_id
    return body


def _event_types(raw: Any, name: str) -> list[str] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ApiError(f"{name} is not a list", var_name=name)
    for i, item in enumerate(raw):
        if not isinstance(item, str):
            raise ApiError(f"{name}[{i}] is not a string", var_name=name)
    return raw
