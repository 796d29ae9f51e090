"""HTTP glue shared by every view module: sandbox state, the endpoint wrapper, JSON responses.

Views are plain functions ``(request, state, user, params) -> dict``; :func:`endpoint` wraps
them with authentication, rate limiting, parameter parsing and the success envelope.
"""

from __future__ import annotations

import inspect
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from . import realm as realm_mod
from . import users
from .errors import ApiError
from .params import Param, Params, parse
from .store import Row, Store

API = "/api/v1"
REALM_HOST = "demo.chatops.test"


@dataclass
class RateLimit:
    """Requests per window per user, as the real server's ``api_by_user`` rule."""

    max_calls: int = 200
    window_seconds: float = 60.0
    _hits: dict[int, list[float]] = field(default_factory=dict)

    def check(self, user_id: int) -> dict[str, str]:
        now = time.monotonic()
        hits = [t for t in self._hits.get(user_id, []) if now - t < self.window_seconds]
        if len(hits) >= self.max_calls:
            retry = max(0.0, self.window_seconds - (now - hits[0]))
            err = ApiError(
                "API usage exceeded rate limit",
                code="RATE_LIMIT_HIT",
                status=429,
                **{"retry-after": round(retry, 3)},
            )
            err.headers.update(
                {
                    "Retry-After": f"{retry:.3f}",
                    "X-RateLimit-Limit": str(self.max_calls),
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": str(int(time.time() + retry)),
                }
            )
            self._hits[user_id] = hits
            raise err
        hits.append(now)
        self._hits[user_id] = hits
        reset = int(time.time() + self.window_seconds - (now - hits[0]))
        return {
            "X-RateLimit-Limit": str(self.max_calls),
            "X-RateLimit-Remaining": str(self.max_calls - len(hits)),
            "X-RateLimit-Reset": str(reset),
        }


@dataclass
class SandboxState:
    """What the handlers share: the store, where uploads live, and server-level settings."""

    store: Store
    upload_dir: Path
    feature_level: int = realm_mod.FEATURE_LEVEL
    rate_limit: RateLimit | None = None
    password_auth: bool = True
    secret: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    base_url: str = ""


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


def endpoint(
    spec: Mapping[str, Param] | None = None,
    *,
    auth: bool = True,
    aliases: Mapping[str, str] | None = None,
) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Wrap a handler: authenticate, rate-limit, parse parameters, render the envelope."""

    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def view(request: Request) -> Response:
            state: SandboxState = request.app.state.sandbox
            user: Row | None = None
            headers: dict[str, str] = {}
            if auth:
                user = users.authenticate_basic(state.store, request.headers.get("authorization"))
                if state.rate_limit is not None:
                    headers = state.rate_limit.check(user["id"])
            params = parse(await _raw_params(request), spec or {}, aliases)
            result: Any = handler(request, state, user, params)
            if inspect.isawaitable(result):
                result = await result
            if isinstance(result, Response):
                return result
            body: dict[str, Any] = {"result": "success", "msg": ""}
            body.update(result or {})
            if params.ignored and state.feature_level >= 167:
                body["ignored_parameters_unsupported"] = params.ignored
            return json_response(body, headers=headers)

        view.__name__ = handler.__name__
        return view

    return wrap


def host_of(state: SandboxState) -> str:
    """The host placed in API placeholder emails."""
    return REALM_HOST
