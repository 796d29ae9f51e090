"""The app factory: every view module's routes, none defined twice."""

from __future__ import annotations

import types
from collections import Counter
from typing import Any

import pytest
from starlette.routing import Route

import chatops
from chatops.sandbox import Sandbox, app
from chatops.sandbox.app import DuplicateRouteError, check_unique


def _ok(request: Any) -> Any:
    raise AssertionError("not called")


def test_no_two_routes_share_a_method_and_path(sandbox: Sandbox) -> None:
    served = sandbox._server.config.app.routes  # the running app's own route list
    keys = Counter(
        (method, app._path_shape(route.path))
        for route in served
        if isinstance(route, Route)
        for method in route.methods or ()
    )
    assert keys, "the app serves no routes"
    assert [key for key, count in keys.items() if count > 1] == []
    assert {module.__name__.rsplit(".", 1)[1] for module in app.VIEW_MODULES} == {
        "messages",
        "channels",
        "users",
        "user_groups",
        "invitations",
        "realm",
        "uploads",
        "events",
        "scheduled",
        "personal",
        "push",
        "bots",
    }


def test_a_route_defined_twice_stops_the_factory() -> None:
    first = types.SimpleNamespace(ROUTES=[Route("/api/v1/streams", _ok, methods=["GET"])])
    second = types.SimpleNamespace(
        ROUTES=[Route("/api/v1/streams", _ok, methods=["GET", "POST"], name="other")]
    )
    with pytest.raises(DuplicateRouteError, match="GET /api/v1/streams"):
        app.routes([first, second])  # type: ignore[list-item]


def test_routes_differing_only_in_parameter_names_clash() -> None:
    with pytest.raises(DuplicateRouteError):
        check_unique(
            [
                Route("/api/v1/users/{user_id:int}", _ok, methods=["PATCH"]),
                Route("/api/v1/users/{id:int}", _ok, methods=["PATCH"]),
            ]
        )
    check_unique(  # same path, other methods: no clash
        [
            Route("/api/v1/users/{user_id:int}", _ok, methods=["PATCH"]),
            Route("/api/v1/users/{user_id:int}", _ok, methods=["DELETE"]),
        ]
    )


@pytest.mark.parametrize("account", ["admin", "member", "guest"])
def test_register_channel_records_equal_get_streams_records(client_for: Any, account: str) -> None:
    client: chatops.Client = client_for(account)
    registered = {s["stream_id"]: s for s in client.post("/register")["streams"]}
    streams = client.get("/streams", params={"include_archived": True})["streams"]
    listed = {s["stream_id"]: s for s in streams}
    assert registered
    assert registered.keys() == listed.keys()
    for stream_id, record in registered.items():
        assert record == listed[stream_id]
