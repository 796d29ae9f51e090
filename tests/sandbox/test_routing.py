"""The sandbox's indexed router sends every request where Starlette's own router would."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from starlette.routing import Route, Router

from chatops.sandbox.app import IndexedRouter, routes

METHODS = ("GET", "HEAD", "POST", "PATCH", "PUT", "DELETE")


def _stub(route: Route) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": f"{route.path} {route.name}".encode()})

    return app


def _paths(all_routes: list[Route]) -> list[str]:
    """Each route's path with its parameters filled in several ways, and a few unknown paths."""
    out = {"/api/v1/nowhere", "/api/v1/users/me/nowhere", "/", "/api/v1/"}
    for route in all_routes:
        for fill in ("7", "me", "someone@example.com"):
            out.add(re.sub(r"\{[^}:]+(:int)?\}", fill, route.path))
            out.add(re.sub(r"\{[^}:]+(:int)?\}", fill, route.path) + "/")
    return sorted(out)


def _answer(router: Router, method: str, path: str) -> tuple[int, bytes, list[Any]]:
    sent: list[Any] = []
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "scheme": "http",
        "server": ("127.0.0.1", 80),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    asyncio.run(router.app(scope, receive, send))
    start = sent[0]
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], body, sorted(start.get("headers", []))


@pytest.fixture(scope="module")
def stubbed() -> tuple[IndexedRouter, Router, list[str]]:
    # copies: the route modules' own routes serve the other tests
    all_routes = [
        Route(r.path, r.endpoint, methods=sorted(r.methods or ()), name=r.name) for r in routes()
    ]
    for route in all_routes:
        route.app = _stub(route)
    return IndexedRouter(all_routes, lifespan=None), Router(routes=all_routes), _paths(all_routes)


def test_every_path_and_method_reaches_the_route_starlette_would_choose(
    stubbed: tuple[IndexedRouter, Router, list[str]],
) -> None:
    indexed, plain, paths = stubbed
    differences = []
    checked = 0
    for path in paths:
        for method in METHODS:
            ours, theirs = _answer(indexed, method, path), _answer(plain, method, path)
            checked += 1
            if ours != theirs:
                differences.append((method, path, ours[:2], theirs[:2]))
    assert checked > 1000
    assert differences == []


def test_a_literal_path_is_not_shadowed_by_a_parameter_route_before_it(
    stubbed: tuple[IndexedRouter, Router, list[str]],
) -> None:
    indexed, _, _ = stubbed
    status, body, _ = _answer(indexed, "GET", "/api/v1/users/me")
    assert status == 200 and body == b"/api/v1/users/me users_me"
    status, body, _ = _answer(indexed, "GET", "/api/v1/users/someone@example.com")
    assert status == 200 and body == b"/api/v1/users/{email} get_user_by_email"
    status, _, headers = _answer(indexed, "PUT", "/api/v1/users/me")
    assert status == 405 and any(name == b"allow" for name, _ in headers)
