"""Spec section 5 (authentication) and 4.5 (fetch an API key), over HTTP."""

from __future__ import annotations

import base64

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error


def raw_get(sandbox: Sandbox, headers: dict[str, str]) -> httpx.Response:
    return httpx.get(f"{sandbox.site}/api/v1/users/me", headers=headers)


@pytest.mark.parametrize(
    ("header", "msg"),
    [
        (None, "Missing authorization header for basic auth"),
        ("Bearer abc", "This endpoint requires HTTP basic authentication."),
        ("Basic !!!notbase64", "Invalid authorization header for basic auth"),
        (
            "Basic " + base64.b64encode(b"no-colon").decode(),
            "Invalid authorization header for basic auth",
        ),
        (
            "Basic " + base64.b64encode(b"member@demo.chatops.test:short").decode(),
            "Malformed API key",
        ),
        (
            "Basic " + base64.b64encode(b"member@demo.chatops.test:" + b"x" * 32).decode(),
            "Invalid API key",
        ),
    ],
)
def test_bad_credentials_get_401_with_challenge(
    sandbox: Sandbox, header: str | None, msg: str
) -> None:
    response = raw_get(sandbox, {"Authorization": header} if header else {})
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Basic realm="zulip"'
    assert response.json() == {"result": "error", "code": "UNAUTHORIZED", "msg": msg}


def test_key_of_another_user_is_refused(sandbox: Sandbox) -> None:
    admin_key = sandbox.accounts["admin"].api_key
    token = base64.b64encode(f"member@demo.chatops.test:{admin_key}".encode()).decode()
    response = raw_get(sandbox, {"Authorization": f"Basic {token}"})
    assert response.status_code == 401
    assert response.json()["msg"] == "Invalid API key"


def test_email_is_case_insensitive(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    response = httpx.get(f"{sandbox.site}/api/v1/users/me", auth=(acc.email.upper(), acc.api_key))
    assert response.status_code == 200
    assert response.json()["user_id"] == acc.user_id


def test_deactivated_user_is_refused(fresh_sandbox: Sandbox) -> None:
    acc = fresh_sandbox.accounts["member"]
    store = fresh_sandbox.store
    store.execute("UPDATE users SET is_active = 0 WHERE id = ?", [acc.user_id])
    try:
        client = chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("member"))
        with api_error("UNAUTHORIZED", 401) as info:
            client.users.me()
        assert info.value.msg == "Account is deactivated"
        with unchanged(store), api_error("USER_DEACTIVATED", 401):
            chatops.fetch_api_key(fresh_sandbox.site, acc.email, fresh_sandbox.password("member"))
    finally:
        store.execute("UPDATE users SET is_active = 1 WHERE id = ?", [acc.user_id])


def test_fetch_api_key(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["moderator"]
    result = chatops.fetch_api_key(sandbox.site, acc.email, sandbox.password("moderator"))
    assert result.api_key == acc.api_key
    assert result.email == acc.email
    assert result.user_id == acc.user_id
    assert acc.api_key not in repr(result)


def test_fetch_api_key_wrong_password(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["moderator"]
    with unchanged(sandbox.store), api_error("AUTHENTICATION_FAILED", 401) as info:
        chatops.fetch_api_key(sandbox.site, acc.email, "not the password")
    assert "not the password" not in str(info.value)
    with api_error("AUTHENTICATION_FAILED", 401):
        chatops.fetch_api_key(sandbox.site, "nobody@demo.chatops.test", "whatever")


def test_fetch_api_key_needs_an_email_username(sandbox: Sandbox) -> None:
    with unchanged(sandbox.store), api_error("BAD_REQUEST", 400):
        chatops.fetch_api_key(sandbox.site, "not-an-email", "x")


def test_fetch_api_key_missing_argument(sandbox: Sandbox) -> None:
    response = httpx.post(f"{sandbox.site}/api/v1/fetch_api_key", data={"username": "a@b.c"})
    assert response.status_code == 400
    assert response.json() == {
        "result": "error",
        "code": "REQUEST_VARIABLE_MISSING",
        "msg": "Missing 'password' argument",
        "var_name": "password",
    }


def test_rate_limit_headers_and_429(tmp_path_factory: pytest.TempPathFactory) -> None:
    from chatops.sandbox import RateLimit

    with Sandbox.start(
        tmp_path_factory.mktemp("rl"), rate_limit=RateLimit(max_calls=3, window_seconds=60)
    ) as sb:
        acc = sb.accounts["member"]
        responses = [
            httpx.get(f"{sb.site}/api/v1/users/me", auth=(acc.email, acc.api_key)) for _ in range(4)
        ]
        assert [r.status_code for r in responses] == [200, 200, 200, 429]
        assert [r.headers["X-RateLimit-Remaining"] for r in responses] == ["2", "1", "0", "0"]
        body = responses[3].json()
        assert body["code"] == "RATE_LIMIT_HIT"
        assert 0 < body["retry-after"] <= 60
        assert 0 < float(responses[3].headers["Retry-After"]) <= 60
