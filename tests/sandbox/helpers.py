"""Small helpers for the sandbox rule tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import messages as messages_mod


@contextmanager
def api_error(
    code: str, status: int = 400, **extra: Any
) -> Iterator[pytest.ExceptionInfo[chatops.ApiError]]:
    """Expect an API error with this code, HTTP status and extra fields."""
    with pytest.raises(chatops.ApiError) as info:
        yield info
    err = info.value
    assert err.code == code, f"expected {code}, got {err.code}: {err.msg}"
    assert err.status == status, f"expected HTTP {status}, got {err.status}: {err.msg}"
    for name, value in extra.items():
        assert getattr(err, name) == value, f"{name}: {getattr(err, name)!r} != {value!r}"


def fetch(client: chatops.Client, message_id: int, **kw: Any) -> Any:
    """The message as ``client`` sees it, with raw Markdown content."""
    kw.setdefault("apply_markdown", False)
    page = client.messages.get(anchor=message_id, num_before=0, num_after=0, **kw)
    assert [m.id for m in page.messages] == [message_id]
    return page.messages[0]


def post(
    sandbox: Sandbox, account_or_user: str | int, channel: str, topic: str, content: str
) -> int:
    """Send a message as any user, through the domain layer (test set-up)."""
    store = sandbox.store
    uid = (
        sandbox.accounts[account_or_user].user_id
        if isinstance(account_or_user, str)
        else account_or_user
    )
    user = store.one("SELECT * FROM users WHERE id = ?", [uid])
    assert user is not None
    return messages_mod.send_message(
        store,
        user,
        message_type="stream",
        to=channel,
        topic=topic,
        content=content,
    )


def topic_ids(sandbox: Sandbox, channel: str, topic: str) -> list[int]:
    rows = sandbox.store.query(
        "SELECT m.id FROM messages m JOIN streams s ON s.id = m.stream_id "
        "WHERE s.name = ? AND m.topic = ? ORDER BY m.id",
        [channel, topic],
    )
    return [r["id"] for r in rows]


def stream_id(sandbox: Sandbox, name: str) -> int:
    return int(sandbox.store.scalar("SELECT id FROM streams WHERE name = ?", [name]))


def raw(sandbox: Sandbox, account: str, method: str, path: str, **params: Any) -> Any:
    """A request over HTTP without the client's own checks; returns the decoded body and status."""
    import httpx

    acc = sandbox.accounts[account]
    url = f"{sandbox.site}/api/v1{path}"
    if method == "GET":
        r = httpx.get(url, params=params, auth=(acc.email, acc.api_key))
    else:
        r = httpx.request(method, url, data=params, auth=(acc.email, acc.api_key))
    return r.status_code, r.json()


def assert_error(
    result: tuple[int, dict[str, Any]], code: str, status: int = 400
) -> dict[str, Any]:
    got_status, body = result
    assert body["result"] == "error", body
    assert (got_status, body["code"]) == (status, code), body
    return body
