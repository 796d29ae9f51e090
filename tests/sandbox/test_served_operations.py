"""Every operation of the API description is served by the sandbox, or named here with why
not: an operation added by a newer description (or a route removed) fails this test rather
than going unnoticed. No server is started: the routes are the app factory's own list."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from starlette.routing import Match, Route

from chatops.sandbox.app import routes
from tests.sandbox.conformance import SKIP_WITHOUT_SPEC, SPEC

pytestmark = pytest.mark.skipif(**SKIP_WITHOUT_SPEC)

METHODS = ("get", "post", "put", "patch", "delete")
#: operations of the description the sandbox does not serve, and why
UNSERVED: dict[tuple[str, str], str] = {
    ("POST", "/real-time"): "documentation only: the event system's overview, not an endpoint",
    ("POST", "/rest-error-handling"): "documentation only: how errors are reported",
    ("POST", "/zulip-outgoing-webhook"): (
        "documentation only: what the server posts to a bot's URL (chatops.webhooks serves it)"
    ),
    ("POST", "/dev_fetch_api_key"): "development servers only; the real server has it in dev",
}


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    with SPEC.open(encoding="utf-8") as f:
        description: dict[str, Any] = yaml.safe_load(f)
    return [
        (method.upper(), path, operation)
        for path, item in description["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def _concrete(path: str, operation: dict[str, Any]) -> str:
    """The path with each parameter's example (an integer where there is none), so that
    ``/users/{email}`` is not taken for ``/users/{user_id}``."""
    examples = {
        p.get("name"): p.get("example", p.get("schema", {}).get("example"))
        for p in operation.get("parameters", [])
        if isinstance(p, dict) and p.get("in") == "path"
    }
    parts = [
        str(examples.get(part.strip("{}")) or 1) if part.startswith("{") else part
        for part in path.split("/")
    ]
    return "/api/v1" + "/".join(parts)


def _served(method: str, path: str, operation: dict[str, Any]) -> bool:
    scope = {"type": "http", "method": method, "path": _concrete(path, operation)}
    return any(
        isinstance(route, Route) and route.matches(scope)[0] is Match.FULL for route in routes()
    )


def test_every_operation_is_served_or_named_with_its_reason() -> None:
    operations = _operations()
    assert len(operations) > 100, "the description was not read whole"
    unserved = {(m, p) for m, p, op in operations if not _served(m, p, op)}
    missed = sorted(unserved - UNSERVED.keys())
    assert not missed, f"operations neither served nor named in UNSERVED: {missed}"
    # the list names only what is still unserved, so it stays short and true
    stale = sorted(UNSERVED.keys() - unserved)
    assert not stale, f"served or gone from the description; drop from UNSERVED: {stale}"
    assert all(reason.strip() for reason in UNSERVED.values())


def test_an_operation_without_a_route_is_caught() -> None:
    """The check itself: a path no route answers, and a method a path does not have."""
    assert _served("GET", "/users/me", {})
    assert not _served("GET", "/no/such/operation", {})
    assert not _served("PUT", "/users/me", {})
