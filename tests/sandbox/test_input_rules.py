"""Input rules every parameter obeys: integers the store can hold (inside JSON values too), the
real server's character rules for topics, messages and names, realm settings that are all
settable, bots kept out of invitations, and a client that hangs up mid-body.
"""

from __future__ import annotations

import base64
import json
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from chatops.sandbox import Sandbox
from tests.conftest import unchanged

BIG = 2**63  # one past SQLite's signed 64 bits


@pytest.fixture(scope="module")
def sb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A sandbox of the module's own: the realm-setting test changes organization settings."""
    with Sandbox.start(tmp_path_factory.mktemp("input-rules"), size="small", seed=11) as sandbox:
        yield sandbox


def _api(sandbox: Sandbox, account: str = "owner") -> httpx.Client:
    acc = sandbox.accounts[account]
    return httpx.Client(
        base_url=f"{sandbox.site}/api/v1", auth=(acc.email, acc.api_key), timeout=30
    )


def _refused(r: httpx.Response, msg: str | None = None, fragment: str | None = None) -> None:
    assert r.status_code == 400, (r.status_code, r.text[:300])
    body = r.json()
    assert body["result"] == "error" and body["code"] == "BAD_REQUEST", body
    if msg is not None:
        assert body["msg"] == msg, body
    if fragment is not None:
        assert fragment in body["msg"], body


def _anonymous(members: list[int]) -> str:
    return json.dumps({"direct_members": members, "direct_subgroups": []})


# -- integers ---------------------------------------------------------------------------------
INTEGER_CASES: list[tuple[str, str, dict[str, str], str]] = [
    ("PATCH", "/streams/1", {"message_retention_days": str(BIG)}, "message_retention_days"),
    ("PATCH", "/streams/1", {"message_retention_days": str(10**30)}, "message_retention_days"),
    (
        "POST",
        "/users/me/subscriptions",
        {"subscriptions": '[{"name": "retained"}]', "message_retention_days": str(BIG)},
        "message_retention_days",
    ),
    (
        "POST",
        "/user_groups/create",
        {"name": "g1", "description": "d", "members": "[]", "can_join_group": str(BIG)},
        "can_join_group",
    ),
    (
        "POST",
        "/user_groups/create",
        {"name": "g2", "description": "d", "members": "[]", "can_join_group": _anonymous([BIG])},
        "can_join_group",
    ),
    (
        "PATCH",
        "/streams/1",
        {"can_administer_channel_group": json.dumps({"new": BIG})},
        "can_administer_channel_group",
    ),
    (
        "PATCH",
        "/streams/1",
        {"can_administer_channel_group": '{"new": ' + _anonymous([BIG]) + "}"},
        "can_administer_channel_group",
    ),
    (
        "PATCH",
        "/streams/1",
        {"can_administer_channel_group": '{"new": 2, "old": ' + str(BIG) + "}"},
        "can_administer_channel_group",
    ),
    ("PATCH", "/realm", {"can_create_groups": json.dumps({"new": BIG})}, "can_create_groups"),
    (
        "PATCH",
        "/realm",
        {"can_create_groups": '{"new": ' + _anonymous([2, BIG]) + "}"},
        "can_create_groups",
    ),
    (
        "PATCH",
        "/user_groups/{group}",
        {"can_join_group": json.dumps({"new": BIG})},
        "can_join_group",
    ),
    ("GET", f"/users/{BIG}/presence", {}, "user_id_or_email"),
    (
        "POST",
        "/messages/{message}/reactions",
        {"emoji_name": "x", "emoji_code": str(BIG), "reaction_type": "realm_emoji"},
        "emoji_code",
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "data", "name"),
    INTEGER_CASES,
    ids=[f"{m} {p} {n}" for m, p, _, n in INTEGER_CASES],
)
def test_integers_past_64_bits_are_refused_in_every_family(
    sb: Sandbox, method: str, path: str, data: dict[str, str], name: str
) -> None:
    group = int(sb.store.scalar("SELECT min(id) FROM user_groups WHERE is_system_group = 0"))
    message = int(sb.store.scalar("SELECT max(id) FROM messages WHERE stream_id IS NOT NULL"))
    path = path.format(group=group, message=message)
    with _api(sb) as api, unchanged(sb.store):
        r = api.request(
            method,
            path,
            params=data if method == "GET" else None,
            data=None if method == "GET" else data,
        )
    _refused(r)
    assert name in r.json()["msg"], r.json()  # the refusal names the parameter


# -- realm settings ---------------------------------------------------------------------------
def test_every_realm_permission_setting_the_server_offers_is_settable(sb: Sandbox) -> None:
    with _api(sb) as api:
        state = api.post("/register", data={"fetch_event_types": '["realm"]'}).json()
        offered: dict[str, dict[str, Any]] = state["server_supported_permission_settings"]["realm"]
        groups = {g["name"]: g["id"] for g in api.get("/user_groups").json()["user_groups"]}
        assert {"can_manage_billing_group", "can_summarize_topics_group"} <= set(offered)
        for name, config in offered.items():
            wanted = groups[config["default_group_name"]]
            r = api.patch("/realm", data={name: json.dumps({"new": wanted})})
            assert r.status_code == 200, (name, r.status_code, r.text[:300])
        after = api.post("/register", data={"fetch_event_types": '["realm"]'}).json()
    for name, config in offered.items():
        assert after[f"realm_{name}"] == groups[config["default_group_name"]], name


def test_realm_settings_refuse_bad_group_values_without_a_server_error(sb: Sandbox) -> None:
    with _api(sb) as api, unchanged(sb.store):
        for name in ("can_manage_billing_group", "can_summarize_topics_group"):
            _refused(api.patch("/realm", data={name: '{"new": 999999}'}))
            _refused(api.patch("/realm", data={name: '{"new": "x"}'}))


# -- invitations ------------------------------------------------------------------------------
def test_bots_are_refused_from_every_invitation_endpoint(sb: Sandbox) -> None:
    bot_msg = "This endpoint does not accept bot requests."
    with _api(sb, "bot") as bot, unchanged(sb.store):
        _refused(
            bot.post("/invites", data={"invitee_emails": "new@example.com", "stream_ids": "[]"}),
            bot_msg,
        )
        _refused(bot.post("/invites/multiuse", data={"stream_ids": "[]"}), bot_msg)
        _refused(bot.get("/invites"), bot_msg)
    with _api(sb, "admin") as admin:  # a person still may
        r = admin.post("/invites", data={"invitee_emails": "new@example.com", "stream_ids": "[]"})
        assert r.status_code == 200, r.text


# -- characters -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("topic", "position"),
    [("a\x00b", 2), ("editing\nfun", 8), ("Test\ufffeTopic", 5), ("x\x7f", 2), ("\ufdd0", 1)],
)
def test_topics_with_unprintable_characters_are_refused(
    sb: Sandbox, topic: str, position: int
) -> None:
    expected = f"Invalid character in topic, at position {position}!"
    message = int(sb.store.scalar("SELECT max(id) FROM messages WHERE stream_id = 1"))
    with _api(sb) as api, unchanged(sb.store):
        send = {"type": "stream", "to": "1", "topic": topic, "content": "x"}
        _refused(api.post("/messages", data=send), expected)
        _refused(api.patch(f"/messages/{message}", data={"topic": topic}), expected)
        later = str(int(time.time()) + 3600)
        _refused(
            api.post(
                "/scheduled_messages",
                data={**send, "scheduled_delivery_timestamp": later},
            ),
            expected,
        )


def test_printable_topics_still_send(sb: Sandbox) -> None:
    with _api(sb) as api:
        for topic in ("two  spaces", "emoji 🎉", "ünïcödé"):
            r = api.post(
                "/messages", data={"type": "stream", "to": "1", "topic": topic, "content": "x"}
            )
            assert r.status_code == 200, (topic, r.text)


def test_message_content_with_nul_is_refused(sb: Sandbox) -> None:
    message = int(sb.store.scalar("SELECT max(id) FROM messages WHERE stream_id = 1"))
    expected = "Message must not contain null bytes"
    with _api(sb) as api, unchanged(sb.store):
        _refused(
            api.post(
                "/messages", data={"type": "stream", "to": "1", "topic": "t", "content": "a\x00b"}
            ),
            expected,
        )
        _refused(api.patch(f"/messages/{message}", data={"content": "a\x00b"}), expected)
        _refused(
            api.post("/messages", data={"type": "direct", "to": "[3]", "content": "\x00"}),
            expected,
        )


@pytest.mark.parametrize(
    ("method", "path", "data", "name"),
    [
        (
            "POST",
            "/users",
            {"email": "a\x00b@example.com", "password": "pw-pw-pw-pw", "full_name": "Nul"},
            "email",
        ),
        (
            "POST",
            "/user_groups/create",
            {"name": "nul\x00group", "description": "d", "members": "[]"},
            "name",
        ),
        ("PATCH", "/realm", {"name": "Nul\x00Org"}, "name"),
        ("PATCH", "/realm", {"description": "nul \x00"}, "description"),
        (
            "POST",
            "/user_groups/create",
            {"name": "g", "description": "d", "members": '["\\u0000"]'},
            "members",
        ),
    ],
    ids=["email", "group name", "realm name", "realm description", "nul inside JSON"],
)
def test_nul_in_names_and_emails_is_refused_naming_the_parameter(
    sb: Sandbox, method: str, path: str, data: dict[str, str], name: str
) -> None:
    with _api(sb) as api, unchanged(sb.store):
        r = api.request(method, path, data=data)
    _refused(r, fragment=f'"{name}" must not contain null bytes')


# -- disconnects ------------------------------------------------------------------------------
def test_a_client_hanging_up_mid_body_is_one_log_line(
    sb: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    acc = sb.accounts["owner"]
    token = base64.b64encode(f"{acc.email}:{acc.api_key}".encode())
    host, port = sb.site.removeprefix("http://").split(":")
    caplog.set_level(logging.INFO)
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(
            b"POST /api/v1/messages HTTP/1.1\r\n"
            + f"Host: {host}\r\n".encode()
            + b"Authorization: Basic "
            + token
            + b"\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            + b"Content-Length: 10000\r\n\r\ntype=stream&to=1&"
        )
        time.sleep(0.3)
    deadline = time.monotonic() + 10
    ours = []
    while time.monotonic() < deadline:
        ours = [r for r in caplog.records if r.name.startswith("chatops.sandbox")]
        if ours:
            break
        time.sleep(0.05)
    time.sleep(0.3)  # anything else it would log has arrived by now
    ours = [r for r in caplog.records if r.name.startswith("chatops")]
    assert len(ours) == 1, [(r.name, r.getMessage()) for r in ours]
    record = ours[0]
    assert record.exc_info is None and record.exc_text is None
    assert "\n" not in record.getMessage()
    assert record.getMessage() == (
        "client disconnected before sending the whole body of POST /api/v1/messages"
    )
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [(r.name, r.getMessage()) for r in errors]
