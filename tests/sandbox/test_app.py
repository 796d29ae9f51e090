"""The app factory: every route module's routes, none defined twice."""

from __future__ import annotations

import http.client
import importlib
import json
import sys
import threading
import time
import types
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.routing import Route

import chatops
from chatops.sandbox import (
    Sandbox,
    SandboxState,
    Store,
    app,
    create_app,
    demo,
    messages,
    outgoing_webhooks,
    routes,
    users,
)
from chatops.sandbox.app import DuplicateRouteError, check_unique
from chatops.sandbox.server import bind_socket
from chatops.sandbox.store import Row


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
    assert {module.__name__.rsplit(".", 1)[1] for module in app.ROUTE_MODULES} == {
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


def test_the_old_views_path_still_imports_and_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    """``chatops.sandbox.views.<area>`` is the route module itself, with a DeprecationWarning."""
    from chatops.sandbox.routes import messages

    for name in [n for n in sys.modules if n.startswith("chatops.sandbox.views")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.warns(DeprecationWarning, match="chatops.sandbox.routes"):
        old = importlib.import_module("chatops.sandbox.views.messages")
    assert old is messages
    state = types.SimpleNamespace()
    with pytest.warns(DeprecationWarning, match="modules="):
        made = app.create_app(state, views=[messages])  # type: ignore[arg-type]
    assert {r.path for r in made.routes} == {r.path for r in messages.ROUTES}


def _organization() -> tuple[Store, Row, int]:
    """A store with an organization of two people: the sender's row and the other's id."""
    store = Store()
    demo.bootstrap(store)
    sender = users.create_user(store, email="ada@hooks.test", full_name="Ada")
    other = users.create_user(store, email="bo@hooks.test", full_name="Bo")
    row = users.get_user(store, sender)
    assert row is not None
    return store, row, other


def _send(org: tuple[Store, Row, int]) -> int:
    store, sender, other = org
    return messages.send_message(
        store, sender, message_type="direct", to=json.dumps([other]), content="hello"
    )


def test_send_hooks_belong_to_each_sandbox(tmp_path: Path) -> None:
    """Each app adds its areas' hooks to its own organization; two sandboxes share none."""
    first, second = _organization(), _organization()
    create_app(SandboxState(store=first[0], upload_dir=tmp_path), [routes.messages])
    create_app(SandboxState(store=second[0], upload_dir=tmp_path))
    assert messages.send_hooks(first[0]) == ()  # no bots area served: no trigger
    assert messages.send_hooks(second[0]) == (outgoing_webhooks.trigger,)
    create_app(SandboxState(store=second[0], upload_dir=tmp_path))  # a second app on one store
    assert messages.send_hooks(second[0]) == (outgoing_webhooks.trigger,)

    heard: list[tuple[str, int]] = []
    messages.on_send(first[0], lambda store, sender, mid, *_: heard.append(("first", mid)))
    _send(second)
    assert heard == []
    sent = _send(first)
    assert heard == [("first", sent)]
    assert messages.send_hooks(second[0]) == (outgoing_webhooks.trigger,)
    first[0].close()
    second[0].close()


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


# -- errors keep the connection (issue 10, defect 3), 405 names its methods (defect 5) ----------
def _boom(request: Any) -> Any:
    raise RuntimeError("a bug in a handler")


def _serve(application: Any) -> tuple[uvicorn.Server, threading.Thread, int]:
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(application, log_level="critical", lifespan="off"))
    server.config.install_signal_handlers = False  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    return server, thread, int(sock.getsockname()[1])


def test_a_server_error_answers_500_and_keeps_the_connection(sandbox: Sandbox) -> None:
    boom = types.SimpleNamespace(ROUTES=[Route("/api/v1/boom", _boom, methods=["GET"])])
    server, thread, port = _serve(app.create_app(sandbox.state, [boom]))  # type: ignore[list-item]
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        for _ in range(3):
            conn.request("GET", "/api/v1/boom")
            r = conn.getresponse()
            body = json.loads(r.read())
            assert r.status == 500
            assert body == {
                "result": "error",
                "code": "BAD_REQUEST",
                "msg": "Internal server error",
            }
            assert r.getheader("connection") != "close"
            time.sleep(0.1)  # a dropped connection would be gone by now
        sock = conn.sock
        conn.request("GET", "/api/v1/boom")  # the same connection still answers
        assert conn.getresponse().status == 500 and conn.sock is sock
        conn.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_405_names_every_method_of_the_path(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    r = httpx.put(f"{sandbox.site}/api/v1/messages/1", auth=(acc.email, acc.api_key))
    assert r.status_code == 405
    assert r.json()["result"] == "error"
    assert set(r.headers["allow"].split(", ")) >= {"GET", "PATCH", "DELETE"}
    r = httpx.delete(f"{sandbox.site}/api/v1/server_settings")
    assert r.status_code == 405 and "GET" in r.headers["allow"]


def test_405_body_is_the_real_servers(sandbox: Sandbox) -> None:
    """zerver/lib/response.py json_method_not_allowed: msg and allowed_methods, no code."""
    acc = sandbox.accounts["member"]
    r = httpx.put(f"{sandbox.site}/api/v1/messages/1", auth=(acc.email, acc.api_key))
    assert r.status_code == 405
    body = r.json()
    assert body == {
        "result": "error",
        "msg": "Method Not Allowed",
        "allowed_methods": ["DELETE", "GET", "HEAD", "PATCH"],
    }
    assert body["allowed_methods"] == r.headers["allow"].split(", ")
    r = httpx.post(f"{sandbox.site}/api/v1/server_settings")
    assert r.json()["allowed_methods"] == ["GET", "HEAD"]
