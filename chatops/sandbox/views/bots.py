"""HTTP views of the bots area. Bots: creating bots, and the outgoing-webhook deliveries (spec 4.22)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from .. import (
    bots,
    user_admin,
)
from ..params import (
    P,
    Params,
    integer,
)
from ..state import SandboxState
from ..store import Row
from ._http import API, Background, endpoint
from ._http import me as _me


@endpoint(
    {
        "full_name": P(required=True),
        "short_name": P(required=True),
        "bot_type": P(integer, default=1),
        "payload_url": P(),
        "interface_type": P(integer),
    }
)
def create_bot(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    return user_admin.create_bot(
        state.store,
        _me(user),
        full_name=p["full_name"],
        short_name=p["short_name"],
        bot_type=p["bot_type"],
        payload_url=p.optional("payload_url"),
        interface_type=p.optional("interface_type", 1),
    )


async def deliver_outgoing_webhooks(state: SandboxState) -> None:
    """Background job: POST outgoing-webhook payloads and post the bots' replies."""
    await bots.run_deliveries(state.store, feature_level=state.feature_level)


ROUTES: list[Route] = [
    Route(f"{API}/bots", create_bot, methods=["POST"]),
]


BACKGROUND: list[Background] = [deliver_outgoing_webhooks]
