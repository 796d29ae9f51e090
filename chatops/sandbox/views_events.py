"""HTTP views: Bots, event queues and resumable uploads (spec 4.22, 4.23 tus, section 6)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from . import outgoing_webhooks, tus, uploads, users
from .app import REGISTER_SPEC, register_body
from .errors import ApiError
from .http import API, SandboxState, endpoint, host_of, json_response
from .params import P, Params, boolean, integer
from .store import Row

TUS_FEATURE_LEVEL = 296


# -- event queues ----------------------------------------------------------------------------------
def _event_types(raw: Any) -> list[str] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise ApiError("event_types is not a list", var_name="event_types")
    for i, item in enumerate(raw):
        if not isinstance(item, str):
            raise ApiError(f"event_types[{i}] is not a string", var_name="event_types")
    return raw


@endpoint(REGISTER_SPEC)
def register(request: Request, state: SandboxState, user: Row | None, p: Params) -> dict[str, Any]:
    """``POST /register``: the initial state plus a live event queue."""
    assert user is not None
    event_types = _event_types(p["event_types"])
    capabilities = p["client_capabilities"]
    if not isinstance(capabilities, dict):
        raise ApiError("client_capabilities is not a dict", var_name="client_capabilities")
    body = register_body(request, state, user, p)
    bus = state.store.events
    queue = bus.register(
        user["id"],
        event_types,
        apply_markdown=p["apply_markdown"],
        client_gravatar=p["client_gravatar"],
        all_public_streams=p["all_public_streams"],
        client_capabilities=capabilities,
    )
    body["queue_id"] = queue.queue_id
    body["last_event_id"] = queue.last_event_id
    body["event_queue_longpoll_timeout_seconds"] = int(bus.heartbeat_seconds) + 40
    body["max_message_id"] = int(
        state.store.scalar(
            "SELECT coalesce(max(message_id), -1) FROM message_flags WHERE user_id = ?",
            [user["id"]],
        )
    )
    return body


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
    bus = state.store.events
    queue = bus.get(p["queue_id"], user["id"])
    events = await bus.wait(queue, p["last_event_id"], dont_block=p["dont_block"])
    return {"events": events, "queue_id": queue.queue_id}


@endpoint({"queue_id": P(required=True)})
def delete_queue(
    request: Request, state: SandboxState, user: Row | None, p: Params
) -> dict[str, Any]:
    """``DELETE /events``: drop a queue (a poll waiting on it gets ``BAD_EVENT_QUEUE_ID``)."""
    assert user is not None
    state.store.events.delete(p["queue_id"], user["id"])
    return {}


async def expire_queues(state: SandboxState) -> None:
    """Background job: garbage-collect queues nobody polled for ``queue_timeout`` seconds."""
    while True:
        bus = state.store.events
        await asyncio.sleep(max(0.05, min(1.0, bus.queue_timeout / 4)))
        bus.expire()


async def deliver_outgoing_webhooks(state: SandboxState) -> None:
    """Background job: POST outgoing-webhook payloads and post the bots' replies."""
    await outgoing_webhooks.run_deliveries(
        state.store, host_of(state), feature_level=state.feature_level
    )


# -- tus resumable upload ----------------------------------------------------------------------
def _tus_headers(**extra: str) -> dict[str, str]:
    return {"Tus-Resumable": tus.TUS_VERSION, "Cache-Control": "no-store", **extra}


def _tus_error(exc: ApiError) -> Response:
    headers = {**_tus_headers(), **exc.headers}
    if exc.status == 412:
        headers["Tus-Version"] = tus.TUS_VERSION
    return json_response(exc.envelope(), status=exc.status, headers=headers)


TusHandler = Callable[[Request, SandboxState, Row], Awaitable[Response]]


def tus_view(handler: TusHandler) -> Callable[[Request], Awaitable[Response]]:
    """Authenticate by API key, check ``Tus-Resumable``, answer errors with tus headers."""

    async def view(request: Request) -> Response:
        state: SandboxState = request.app.state.sandbox
        try:
            if state.feature_level < TUS_FEATURE_LEVEL:
                raise ApiError("Not found", status=404)
            user = users.authenticate_basic(state.store, request.headers.get("authorization"))
            if request.headers.get("tus-resumable") != tus.TUS_VERSION:
                raise ApiError("Unsupported tus version", status=412)
            return await handler(request, state, user)
        except ApiError as exc:
            return _tus_error(exc)

    view.__name__ = handler.__name__
    return view


async def tus_options(request: Request) -> Response:
    """``OPTIONS /tus``: what this server supports (no authentication, as tus says)."""
    return Response(
        status_code=204,
        headers=_tus_headers(
            **{
                "Tus-Version": tus.TUS_VERSION,
                "Tus-Extension": tus.EXTENSIONS,
                "Tus-Max-Size": str(uploads.max_upload_bytes()),
            }
        ),
    )


def _header_int(request: Request, name: str) -> int | None:
    raw = request.headers.get(name)
    if raw is None or not raw.strip().isdigit():
        return None
    return int(raw)


@tus_view
async def tus_create(request: Request, state: SandboxState, user: Row) -> Response:
    """``POST /tus``: create an upload of ``Upload-Length`` bytes."""
    if "upload-defer-length" in request.headers:
        raise ApiError("Upload-Defer-Length is not supported", status=400)
    length = _header_int(request, "upload-length")
    if length is None:
        raise ApiError("Missing or invalid Upload-Length", status=400)
    metadata = tus.parse_metadata(request.headers.get("upload-metadata"))
    upload_id = tus.create(state.store, user, state.upload_dir, length, metadata)
    location = f"{str(request.base_url).rstrip('/')}{API}/tus/{upload_id}"
    headers = _tus_headers(Location=location, **{"Upload-Offset": "0"})
    if length == 0:
        upload = tus.get(state.store, user, upload_id)
        result = tus.finish(state.store, user, upload, state.upload_dir)
        return json_response({"result": "success", "msg": "", **result}, 201, headers)
    return Response(status_code=201, headers=headers)


@tus_view
async def tus_head(request: Request, state: SandboxState, user: Row) -> Response:
    """``HEAD /tus/{id}``: the offset to resume from."""
    upload = tus.get(state.store, user, request.path_params["upload_id"])
    return Response(
        status_code=200,
        headers=_tus_headers(
            **{
                "Upload-Offset": str(upload["upload_offset"]),
                "Upload-Length": str(upload["length"]),
            }
        ),
    )


@tus_view
async def tus_patch(request: Request, state: SandboxState, user: Row) -> Response:
    """``PATCH /tus/{id}``: append the body at ``Upload-Offset``; the last byte finishes it."""
    store = state.store
    upload = tus.get(store, user, request.path_params["upload_id"])
    if request.headers.get("content-type", "").split(";")[0].strip() != (
        "application/offset+octet-stream"
    ):
        raise ApiError("Content-Type must be application/offset+octet-stream", status=415)
    tus.check_append(upload, _header_int(request, "upload-offset"))
    offset = int(upload["upload_offset"])
    length = int(upload["length"])
    path = tus.storage_path(state.upload_dir, upload["id"])
    if upload["path_id"] is None:
        too_long = False
        try:
            with path.open("r+b") as f:
                f.seek(offset)
                f.truncate()
                async for chunk in request.stream():
                    if offset + len(chunk) > length:
                        too_long = True
                        chunk = chunk[: length - offset]
                    f.write(chunk)
                    offset += len(chunk)
                    if too_long:
                        break
        except ClientDisconnect:
            pass  # keep what arrived: the client resumes from the recorded offset
        finally:
            tus.record_offset(store, upload["id"], offset)
        if too_long:
            raise ApiError("The body goes past Upload-Length", status=413)
    headers = _tus_headers(**{"Upload-Offset": str(offset)})
    if offset == length:
        upload = tus.get(store, user, upload["id"])
        result = tus.finish(store, user, upload, state.upload_dir)
        return json_response({"result": "success", "msg": "", **result}, 200, headers)
    return Response(status_code=204, headers=headers)


ROUTES: list[Route] = [
    Route(f"{API}/register", register, methods=["POST"]),
    Route(f"{API}/events", get_events, methods=["GET"]),
    Route(f"{API}/events", delete_queue, methods=["DELETE"]),
    Route(f"{API}/tus", tus_options, methods=["OPTIONS"]),
    Route(f"{API}/tus", tus_create, methods=["POST"]),
    Route(f"{API}/tus/{{upload_id}}", tus_options, methods=["OPTIONS"]),
    Route(f"{API}/tus/{{upload_id}}", tus_head, methods=["HEAD"]),
    Route(f"{API}/tus/{{upload_id}}", tus_patch, methods=["PATCH"]),
]

BACKGROUND: list[Callable[[SandboxState], Awaitable[None]]] = [
    expire_queues,
    deliver_outgoing_webhooks,
]
