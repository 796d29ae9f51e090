"""Parameters no input can turn into a server error (issue 10): integers and JSON, bounded."""

from __future__ import annotations

import time

import httpx
import pytest

from chatops.sandbox import Sandbox

HUGE = 99999999999999999999  # past SQLite's signed 64 bits


def _admin(sandbox: Sandbox) -> httpx.Client:
    acc = sandbox.accounts["admin"]
    return httpx.Client(base_url=f"{sandbox.site}/api/v1", auth=(acc.email, acc.api_key))


@pytest.mark.parametrize(
    ("method", "path", "data"),
    [
        ("GET", f"/messages/{HUGE}", None),
        ("PATCH", f"/messages/{HUGE}", {"content": "x"}),
        ("GET", f"/users/{HUGE}", None),
        ("GET", f"/streams/{HUGE}", None),
        ("DELETE", f"/invites/multiuse/{HUGE}", None),
        ("POST", f"/user_groups/{HUGE}/members", {"add": "[1]"}),
        ("POST", "/user_groups/1/members", {"add": f"[{HUGE}]"}),
        ("DELETE", f"/scheduled_messages/{HUGE}", None),
        ("GET", "/messages", {"anchor": str(HUGE)}),
        ("GET", "/messages", {"anchor": "10", "num_before": str(2**63)}),
        ("POST", "/messages", {"type": "direct", "to": f"[{10**30}]", "content": "hi"}),
        (
            "POST",
            "/messages",
            {"type": "stream", "to": f"[{10**30}]", "topic": "t", "content": "x"},
        ),
        (
            "POST",
            "/scheduled_messages",
            {
                "type": "direct",
                "to": f"[{10**30}]",
                "content": "x",
                "scheduled_delivery_timestamp": str(int(time.time()) + 3600),
            },
        ),
        (
            "POST",
            "/scheduled_messages",
            {
                "type": "stream",
                "to": "1",
                "topic": "t",
                "content": "x",
                "scheduled_delivery_timestamp": str(HUGE),
            },
        ),
    ],
)
def test_integers_beyond_64_bits_are_refused_not_a_server_error(
    sandbox: Sandbox, method: str, path: str, data: dict[str, str] | None
) -> None:
    with _admin(sandbox) as api:
        if method == "GET":
            r = api.request(method, path, params=data)
        else:
            r = api.request(method, path, data=data)
    assert 400 <= r.status_code < 500, (r.status_code, r.text)
    assert r.json()["result"] == "error"


@pytest.mark.parametrize("depth", [500, 1000, 5000])
def test_deeply_nested_json_is_refused_not_a_server_error(sandbox: Sandbox, depth: int) -> None:
    nested = "[" * depth + "]" * depth
    with _admin(sandbox) as api:
        for r in (
            api.get("/messages", params={"narrow": nested}),
            api.post("/messages", data={"type": "direct", "to": nested, "content": "x"}),
            api.post("/users/me/subscriptions", data={"subscriptions": nested}),
        ):
            assert r.status_code == 400, (r.status_code, r.text[:200])
            assert r.json()["result"] == "error"


def test_json_within_the_limits_still_parses(sandbox: Sandbox) -> None:
    with _admin(sandbox) as api:
        r = api.get("/messages", params={"anchor": "newest", "num_before": "1", "narrow": "[]"})
        assert r.status_code == 200
        r = api.get("/messages", params={"narrow": '[{"operator": "id", "operand": "[[[[["}]'})
        assert r.status_code in (200, 400) and r.json()["result"] in ("success", "error")
