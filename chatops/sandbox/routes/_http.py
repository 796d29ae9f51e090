"""HTTP glue shared by every route module: the endpoint wrapper, JSON responses, path helpers.

Handlers are plain functions ``(request, state, user, params) -> dict``; :func:`endpoint` wraps
them with authentication, rate limiting, parameter parsing and the success envelope.
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from .. import clock, users, workers
from ..errors import ApiError
from ..params import Param, Params, in_range, parse
from ..roles import Guard
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


def _authenticate(
    state: SandboxState, authorization: str | None, role: Guard | None = None
) -> tuple[Row, dict[str, str]]:
    """The user of the request's credentials, and the rate-limit headers of their answer;
    refused when ``role`` is given and they lack it."""
    with state.store.reading():
        user = users.authenticate_basic(state.store, authorization)
    headers = {} if state.rate_limit is None else state.rate_limit.check(user["id"])
    if role is not None:
        with state.store.reading():
            role(state.store, user)
    return user, headers


async def authenticate(request: Request) -> Row:
    """The user of the request's credentials; the store is read off the event loop."""
    state: SandboxState = request.app.state.sandbox
    return await run_in_threadpool(_authenticate_only, state, request.headers.get("authorization"))


def _authenticate_only(state: SandboxState, authorization: str | None) -> Row:
    with state.store.reading():
        return users.authenticate_basic(state.store, authorization)


def _success(
    result: Any, state: SandboxState, params: Params, headers: Mapping[str, str]
) -> Response:
    """The success envelope around a handler's dict (a handler may also return a Response)."""
    if isinstance(result, Response):
        return result
    return json_response(_envelope(result, state, params), headers=headers)


def _envelope(result: Any, state: SandboxState, params: Params) -> dict[str, Any]:
    body: dict[str, Any] = {"result": "success", "msg": ""}
    body.update(result or {})
    if params.ignored and state.feature_level >= 167:
        body["ignored_parameters_unsupported"] = params.ignored
    return body


#: a predicate on a request's parameters: answer it in a read worker process
InWorker = Callable[[Params], bool]


def endpoint(
    spec: Mapping[str, Param] | None = None,
    *,
    auth: bool = True,
    aliases: Mapping[str, str] | None = None,
    in_worker: InWorker | None = None,
    on_loop: bool = False,
    role: Guard | None = None,
) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler: authenticate, rate-limit, check the role, parse parameters, render
    the envelope.

    A plain function handler runs in the threadpool, as Starlette runs its sync endpoints,
    inside :meth:`Store.reading`: its reads use a connection of their own and one snapshot, so
    that requests read in parallel; the store serialises writes (one connection, one lock held
    for a whole transaction), and the event loop stays free for long-polls. A coroutine
    handler runs on the loop and must not block it.

    ``in_worker``: for a read-only plain handler that returns a dict and reads nothing of the
    request but its parameters, path parameters and user; when it holds for a request's
    parameters and the sandbox has :class:`~chatops.sandbox.workers.ReadWorkers`, the handler
    runs in one of those processes (a large page: its Python work then uses another core).

    ``on_loop``: for a plain handler whose GET reads a few rows by key (``/users/me``), the
    whole answer is made on the event loop. A trip to the threadpool costs about twice such
    an answer, and in WAL a read never waits for a writer, so the loop is held only for the
    answer's own tens of microseconds.

    ``role``: the real server's role decorator on this view (:mod:`chatops.sandbox.roles`),
    checked right after authentication, before the path and the parameters are read.
    """

    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        blocking = not inspect.iscoroutinefunction(handler)
        key = f"{handler.__module__}:{handler.__name__}"
        if role is not None and not auth:
            raise TypeError(f"{key}: a role needs an authenticated endpoint")
        if on_loop and (not blocking or in_worker is not None):
            raise TypeError(
                f"{key}: only a plain function handler without a worker runs on the loop"
            )
        if in_worker is not None:
            if not blocking:
                raise TypeError(f"{key}: only a plain function handler can run in a worker")
            _WORKER_HANDLERS[key] = (handler, spec or {}, aliases)

        def answer_here(
            request: Request, state: SandboxState, authorization: str | None, raw: dict[str, str]
        ) -> Response | tuple[Row | None, dict[str, str], Params]:
            """A GET's answer; or its user, headers and parameters, for a read worker."""
            with state.store.reading():
                user, headers = _authenticate(state, authorization, role) if auth else (None, {})
                _check_path(request)
                params = parse(raw, spec or {}, aliases)
                if in_worker is not None and state.read_workers is not None and in_worker(params):
                    return user, headers, params
                return _success(handler(request, state, user, params), state, params, headers)

        async def respond(request: Request) -> Response:
            state: SandboxState = request.app.state.sandbox
            authorization = request.headers.get("authorization")
            if blocking and request.method in ("GET", "HEAD"):
                # no body to read: one trip to the threadpool authenticates and answers,
                # from one snapshot of the store (each trip costs as much as a small answer)
                raw = dict(request.query_params) if request.scope["query_string"] else {}
                if on_loop:
                    done = answer_here(request, state, authorization, raw)
                else:
                    done = await run_in_threadpool(answer_here, request, state, authorization, raw)
                if isinstance(done, Response):
                    return done
                user, headers, params = done
            else:
                user, headers = None, {}
                if auth:
                    user, headers = await run_in_threadpool(
                        _authenticate, state, authorization, role
                    )
                _check_path(request)
                raw = await _raw_params(request)
                params = parse(raw, spec or {}, aliases)
            if in_worker is not None and state.read_workers is not None and in_worker(params):
                try:
                    body, refused = await run_in_threadpool(
                        state.read_workers.call,
                        _answer_in_worker,
                        key,
                        dict(request.path_params),
                        raw,
                        user,
                        _worker_settings(state),
                    )
                except workers.WorkerUnavailable:  # none free yet, or it died: answer here
                    pass
                else:
                    if refused is not None:
                        msg, code, status, extra = refused
                        raise ApiError(msg, code=code, status=status, **extra)
                    return Response(body, media_type="application/json", headers=headers)
            if blocking:  # off the event loop, so a slow request never stalls a long-poll
                # the answer is encoded there too: a page of 5,000 messages is megabytes
                return await run_in_threadpool(_run, handler, request, state, user, params, headers)
            result = await handler(request, state, user, params)
            return _success(result, state, params, headers)

        respond.__name__ = handler.__name__
        if role is not None:
            _GUARDS[respond] = role
        return respond

    return wrap


#: the endpoints that declare a role, and their guard
_GUARDS: dict[Callable[[Request], Awaitable[Response]], Guard] = {}


def guard_of(endpoint: Callable[..., Any]) -> Guard | None:
    """The role an endpoint made by :func:`endpoint` declares, if any.

    Args:
        endpoint: a route's endpoint function.

    Returns:
        Its :class:`~chatops.sandbox.roles.Guard`, or None when anyone authenticated may call it.
    """
    return _GUARDS.get(endpoint)


def _check_path(request: Request) -> None:
    for name, value in request.path_params.items():  # ``{id:int}`` has no bound
        if isinstance(value, int):
            in_range(name, value)


def _run(
    handler: Handler,
    request: Request,
    state: SandboxState,
    user: Row | None,
    params: Params,
    headers: Mapping[str, str],
) -> Response:
    """A plain handler and its envelope, reading from one snapshot of the store."""
    with state.store.reading():
        return _success(handler(request, state, user, params), state, params, headers)


#: the handlers that may run in a worker: ``module:name`` -> handler, parameter spec, aliases
_WORKER_HANDLERS: dict[str, tuple[Handler, Mapping[str, Param], Mapping[str, str] | None]] = {}


def _worker_settings(state: SandboxState) -> dict[str, Any]:
    """What a worker needs of the serving process's state, besides the database."""
    return {
        "upload_dir": str(state.upload_dir),
        "feature_level": state.feature_level,
        "password_auth": state.password_auth,
        "secret": state.secret,
        "base_url": state.base_url,
        "clock_offset": clock.now() - time.time(),
    }


def _answer_in_worker(
    key: str,
    path_params: dict[str, Any],
    raw: dict[str, str],
    user: Row | None,
    settings: dict[str, Any],
) -> tuple[bytes, tuple[str, str, int, dict[str, Any]] | None]:
    """In a read worker process: the handler's answer encoded, or what its ``ApiError`` said.

    The parameters are parsed again from the raw strings (the parsed ones hold sentinels that
    do not survive pickling); the serving process has already refused those that do not parse.
    """
    module, name = key.split(":")
    if key not in _WORKER_HANDLERS:  # its route module registers its handlers on import
        importlib.import_module(module)
    handler, spec, aliases = _WORKER_HANDLERS[key]
    offset = settings["clock_offset"]
    if abs(offset) > 1:
        clock.start_at(time.time() + offset)
    else:
        clock.reset()
    store = workers.worker_store()
    state = SandboxState(
        store=store,
        upload_dir=Path(settings["upload_dir"]),
        feature_level=settings["feature_level"],
        password_auth=settings["password_auth"],
        secret=settings["secret"],
        base_url=settings["base_url"],
    )
    params = parse(raw, spec, aliases)
    scope = {"type": "http", "method": "GET", "path": "", "headers": [], "query_string": b""}
    request = Request({**scope, "path_params": path_params})
    try:
        with store.reading():
            result = handler(request, state, user, params)
    except ApiError as exc:  # an exception pickles with its message only
        return b"", (exc.msg, exc.code, exc.status, exc.extra)
    return _encoder.encode(_envelope(result, state, params)), None


#: a background job of a route module, run while the app serves
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
