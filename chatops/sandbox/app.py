"""The sandbox's HTTP application: :func:`create_app` builds it from the route modules.

Each API area's handlers live in ``routes/<area>.py`` and list their ``ROUTES`` (and, where the
area has work to do in the background, ``BACKGROUND`` jobs; where it acts on each message sent,
``SEND_HOOKS``). This module only assembles them, refuses two routes with the same method and
path, and renders every error as the API's JSON envelope.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import warnings
from collections import defaultdict
from collections.abc import AsyncIterator, Iterable
from types import ModuleType
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Route, Router
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import ApiError
from .messages import on_send
from .routes import (
    bots,
    channels,
    events,
    invitations,
    messages,
    personal,
    push,
    realm,
    scheduled,
    uploads,
    user_groups,
    users,
)
from .routes._http import json_response
from .state import RateLimit, SandboxState

__all__ = ["RateLimit", "SandboxState", "create_app", "routes"]

#: every route module, one per API area
ROUTE_MODULES: tuple[ModuleType, ...] = (
    messages,
    channels,
    users,
    user_groups,
    invitations,
    realm,
    uploads,
    events,
    scheduled,
    personal,
    push,
    bots,
)

log = logging.getLogger("chatops.sandbox")


class DuplicateRouteError(RuntimeError):
    """Two routes answer the same method and path: the second would never run."""


def _path_shape(path: str) -> str:
    """The path with parameter names dropped: ``/users/{user_id:int}`` -> ``/users/{:int}``."""
    return re.sub(r"\{[^}:]*(:[^}]*)?\}", lambda m: "{" + (m.group(1) or "") + "}", path)


def check_unique(routes: Iterable[BaseRoute]) -> None:
    """Raise :class:`DuplicateRouteError` when two routes share a method and a path."""
    seen: dict[tuple[str, str], str] = {}
    clashes: list[str] = []
    for route in routes:
        if not isinstance(route, Route):
            continue
        for method in sorted(route.methods or ()):
            key = (method, _path_shape(route.path))
            if key in seen:
                clashes.append(f"{method} {route.path}: {seen[key]} and {route.name}")
            else:
                seen[key] = route.name
    if clashes:
        raise DuplicateRouteError("routes defined twice: " + "; ".join(clashes))


def routes(modules: Iterable[ModuleType] = ROUTE_MODULES) -> list[Route]:
    """Every route of the sandbox, checked for duplicates."""
    out: list[Route] = [route for module in modules for route in module.ROUTES]
    check_unique(out)
    return out


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    body = exc.envelope()
    level = request.app.state.sandbox.feature_level
    since = _CODE_SINCE.get(body.get("code", ""))
    if since is not None and level < since:  # older servers sent the generic code
        body["code"] = "BAD_REQUEST"
    return json_response(body, status=exc.status, headers=exc.headers)


#: error codes introduced after the first feature level (spec 9)
_CODE_SINCE = {
    "REACTION_DOES_NOT_EXIST": 193,
    "STREAM_WILDCARD_MENTION_NOT_ALLOWED": 229,
    "TOPIC_WILDCARD_MENTION_NOT_ALLOWED": 229,
}


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    msg = "Not found" if exc.status_code == 404 else str(exc.detail)
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        # the real server's shape (zerver/lib/response.py json_method_not_allowed): no code,
        # and the methods the path answers in the body as well as in the Allow header
        methods = _allowed_methods(request)
        headers["Allow"] = ", ".join(methods)
        return json_response(
            {"result": "error", "msg": "Method Not Allowed", "allowed_methods": methods},
            status=405,
            headers=headers,
        )
    return json_response(
        {"result": "error", "code": "BAD_REQUEST", "msg": msg},
        status=exc.status_code,
        headers=headers,
    )


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route answers on this path (Starlette names only the first route's)."""
    methods: set[str] = set()
    for route in request.app.routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches({**request.scope, "method": "\0"})
            if match is not Match.NONE:
                methods |= route.methods
    return sorted(methods)


def _server_error_response() -> Response:
    return json_response(
        {"result": "error", "code": "BAD_REQUEST", "msg": "Internal server error"}, status=500
    )


class CatchServerErrors:
    """Answer an unhandled exception with the 500 envelope, and keep the connection.

    Starlette's own handler for ``Exception`` runs in ``ServerErrorMiddleware``, which re-raises
    after responding: uvicorn then drops the keep-alive connection without ``Connection:
    close``, and the client's next request on it fails. Here the exception ends with the
    response; it only propagates when the response had already started.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except ClientDisconnect:
            # the client went away before its body arrived: nobody to answer, nothing broken
            log.warning(
                "client disconnected before sending the whole body of %s %s",
                scope.get("method"),
                scope.get("path"),
            )
        except Exception:
            log.exception("unhandled error in %s %s", scope.get("method"), scope.get("path"))
            if started:
                raise
            await _server_error_response()(scope, receive, send)


def _lifespan(modules: tuple[ModuleType, ...]) -> Any:
    """Run the route modules' background work (``BACKGROUND``) while the app serves."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state: SandboxState = app.state.sandbox
        tasks = [
            asyncio.create_task(job(state), name=getattr(job, "__name__", "background"))
            for module in modules
            for job in getattr(module, "BACKGROUND", [])
        ]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    return lifespan


def _route_key(path: str) -> str | None:
    """The first three path segments when all are literal (``/api/v1/messages``), else None."""
    parts = path.split("/")[1:4]
    if len(parts) < 3 or any("{" in p for p in parts):
        return None
    return "/".join(parts)


class IndexedRouter(Router):
    """Dispatches a request to a small router of the routes that can match its path.

    Starlette tests routes one by one; with every API area served that is dozens of regular
    expressions per request, the largest cost of a small request. A path that is some route's
    literal path (``/api/v1/users/me``) goes to the routes matching exactly that path, in their
    order; any other path to the routes sharing its first three literal segments.
    """

    def __init__(self, routes: list[Route], lifespan: Any) -> None:
        super().__init__(routes=routes, lifespan=lifespan)
        buckets: dict[str, list[Route]] = defaultdict(list)
        loose: list[Route] = []
        for route in routes:
            key = _route_key(route.path)
            (loose if key is None else buckets[key]).append(route)
        self._by_key = {key: Router(routes=[*bucket, *loose]) for key, bucket in buckets.items()}
        literal = {route.path for route in routes if "{" not in route.path}
        self._by_path = {
            path: Router(routes=[r for r in routes if r.path_regex.match(path)]) for path in literal
        }

    async def app(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            path = scope["path"]
            sub = self._by_path.get(path) or self._by_key.get(_route_key(path) or "")
            if sub is not None:
                scope.setdefault("router", self)
                await sub.app(scope, receive, send)
                return
        await super().app(scope, receive, send)


def create_app(
    state: SandboxState,
    modules: Iterable[ModuleType] = ROUTE_MODULES,
    *,
    views: Iterable[ModuleType] | None = None,
) -> Starlette:
    """Build the app around an existing store; nothing global, one app per sandbox.

    Args:
        state: the store and settings the handlers share.
        modules: the route modules (``chatops.sandbox.routes.<area>``) whose ``ROUTES`` it
            serves, whose ``BACKGROUND`` jobs it runs and whose ``SEND_HOOKS`` it adds to the
            store's organization (every API area unless a test says otherwise).
        views: the old name of ``modules``; deprecated.
    """
    if views is not None:
        warnings.warn(
            "create_app(views=...) is deprecated; pass the route modules as modules=...",
            DeprecationWarning,
            stacklevel=2,
        )
        modules = views
    served = tuple(modules)
    app = Starlette(
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
        },
        middleware=[Middleware(CatchServerErrors)],
    )
    app.router = IndexedRouter(routes(served), lifespan=_lifespan(served))
    app.state.sandbox = state
    for module in served:
        for hook in getattr(module, "SEND_HOOKS", ()):
            on_send(state.store, hook)
    return app
