from __future__ import annotations

import email.utils

import httpx
import pytest

from chatops._retry import backoff, parse_retry_after, should_retry

NOW = 1_700_000_000.0


@pytest.mark.parametrize(
    ("headers", "body", "expected"),
    [
        ({"Retry-After": "3"}, None, 3.0),
        ({"retry-after": "0.25"}, None, 0.25),
        ({"Retry-After": email.utils.formatdate(NOW + 10, usegmt=True)}, None, 10.0),
        ({"Retry-After": email.utils.formatdate(NOW - 10, usegmt=True)}, None, 0.0),
        ({}, {"retry-after": 1.5}, 1.5),
        ({}, {"retry-after": "2"}, 2.0),
        ({"Retry-After": "garbage"}, {"retry-after": 4}, 4.0),
        ({}, {"msg": "x"}, None),
        ({}, None, None),
        ({"Retry-After": "-5"}, None, 0.0),
    ],
)
def test_parse_retry_after(
    headers: dict[str, str], body: dict[str, object] | None, expected: float | None
) -> None:
    assert parse_retry_after(headers, body, now=NOW) == expected


@pytest.mark.parametrize(
    ("attempt", "expected"),
    [(0, 0.5), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 8.0), (30, 8.0)],
)
def test_backoff_without_jitter(attempt: int, expected: float) -> None:
    assert backoff(attempt, jitter=None) == expected


@pytest.mark.parametrize("attempt", range(6))
def test_backoff_jitter_bounds(attempt: int) -> None:
    full = backoff(attempt, jitter=None)
    assert backoff(attempt, jitter=lambda: 0.0) == full / 2
    assert backoff(attempt, jitter=lambda: 1.0) == full
    assert full / 2 <= backoff(attempt) <= full


REQ = httpx.Request("GET", "http://x")


@pytest.mark.parametrize(
    ("idempotent", "outcome", "expected"),
    [
        (True, 429, True),
        (False, 429, True),
        (True, 500, True),
        (True, 502, True),
        (True, 503, True),
        (True, 504, True),
        (False, 503, False),
        (True, 400, False),
        (True, 401, False),
        (True, 404, False),
        (True, 501, False),
        (True, httpx.ConnectError("refused", request=REQ), True),
        (True, httpx.RemoteProtocolError("dropped", request=REQ), True),
        (True, httpx.ReadTimeout("slow", request=REQ), True),
        (False, httpx.ConnectError("refused", request=REQ), False),
        (False, httpx.RemoteProtocolError("dropped", request=REQ), False),
        (True, ValueError("not transport"), False),
    ],
)
def test_should_retry(idempotent: bool, outcome: int | BaseException, expected: bool) -> None:
    assert should_retry(idempotent, outcome) is expected
