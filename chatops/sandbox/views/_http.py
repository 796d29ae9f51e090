"""HTTP glue shared by every view module: the endpoint wrapper, JSON responses, path helpers.

Views are plain functions ``(request, state, user, params) -> dict``; :func:`endpoint` wraps
them with authentication, rate limiting, parameter parsing and the success envelope.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from .. import users
from ..errors import ApiError
from ..params import Param, Params, in_range, parse
from ..state import SandboxState
from ..store import Row

API = "/api/v1"


Handler = Callable[[Request, SandboxState, Row | None, Params], Awaitable[Any] | Any]
_encoder = msgspec.json.Encoder()


def json_response(
    body: Mapping[str, Any], status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(
        _encoder.encode(body), status_code=status, media_type="application/json", headers=headers
    )


async def _raw_params(request: Request) -> dict[str, str]:
    if request.method == "GET" or request.method == "HEAD":
        return dict(request.query_params)
    values = dict(request.query_params)
    ctype = request.headers.get("content-type", "")
    if ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()
        for key, value in form.multi_items():
            if isinstance(value, str):
                values[key] = value
    return values


def _authenticate(state: SandboxState, authorization: str | None) -> tuple[Row, dict[str, str]]:
    """The user of the request's credentials, and the rate-limit headers of their answer."""
    user = users.authenticate_basic(state.store, authorization)
    headers = {} if state.rate_limit is None else state.rate_limit.check(user["id"])
    return user, headers


async def authenticate(request: Request) -> Row:
    """The user of the request's credentials; the store is read off the event loop."""
    state: SandboxState = request.app.state.sandbox
    return await run_in_threadpool(
        users.authenticate_basic, state.store, request.headers.get("authorization")
    )


def _success(
    result: Any, state: SandboxState, params: Params, headers: Mapping[str, str]
) -> Response:
    """The success envelope around a view's dict (a view may also return its own Response)."""
    if isinstance(result, Response):
        return result
    body: dict[str, Any] = {"result": "success", "msg": ""}
    body.update(result or {})
    if params.ignored and state.feature_level >= 167:
        body["ignored_parameters_unsupported"] = params.ignored
    return json_response(body, headers=headers)


def endpoint(
    spec: Mapping[str, Param] | None = None,
    *,
    auth: bool = True,
    aliases: Mapping[str, str] | None = None,
) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler: authenticate, rate-limit, parse parameters, render the envelope.

    A plain function handler runs in the threadpool, as Starlette runs its sync endpoints:
    the store serialises writes (one connection, one lock held for a whole transaction), and
    the event loop stays free for long-polls. A coroutine handler runs on the loop and must
    not block it.
    """

    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        blocking = not inspect.iscoroutinefunction(handler)

        async def view(request: Request) -> Response:
            state: SandboxState = request.app.state.sandbox
            user: Row | None = None
            headers: dict[str, str] = {}
            if auth:
                user, headers = await run_in_threadpool(
                    _authenticate, state, request.headers.get("authorization")
                )
            for name, value in request.path_params.items():  # ``{id:int}`` has no bound
                if isinstance(value, int):
                    in_range(name, value)
            params = parse(await _raw_params(request), spec or {}, aliases)
            if blocking:  # off the event loop, so a slow request never stalls a long-poll
                # the answer is encoded there too: a page of 5,000 messages is megabytes
                return await run_in_threadpool(
                    lambda: _success(handler(request, state, user, params), state, params, headers)
                )
            result = await handler(request, state, user, params)
            return _success(result, state, params, headers)

        view.__name__ = handler.__name__
        return view

    return wrap


#: a background job of a view module, run while the app serves
Background = Callable[[SandboxState], Awaitable[None]]


def me(user: Row | None) -> Row:
    """The authenticated user of an endpoint that requires authentication."""
    assert user is not None
    return user


def path_int(request: Request, name: str) -> int:
    return int(request.path_params[name])


def since(state: SandboxState, feature_level: int) -> None:
    """Endpoints newer than the feature level the sandbox reports do not exist yet."""
    if state.feature_level < feature_level:
        raise ApiError("Not found", status=404)


def base_url(request: Request, state: SandboxState) -> str:
    """The site's URL as clients reach it."""
    return state.base_url or str(request.base_url).rstrip("/")
