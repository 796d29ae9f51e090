"""When a request is tried again and how long it waits first: pure policy, no I/O.

``parse_retry_after`` reads a ``Retry-After`` header (seconds or an HTTP date) or the API's
``retry-after`` body field; ``backoff`` is capped exponential delay with jitter;
``should_retry`` says which outcomes retry without risking a duplicate write; ``RateBudget`` is
the rate-limit budget the requests of one client share. ``Client`` and ``AsyncClient`` only
sleep and loop on what these say.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from typing import Any, Final

import httpx

__all__ = ["RETRYABLE_STATUSES", "RateBudget", "backoff", "parse_retry_after", "should_retry"]

RETRYABLE_STATUSES: Final = frozenset({500, 502, 503, 504})


def parse_retry_after(
    headers: Mapping[str, str],
    body: Mapping[str, Any] | None,
    now: float | None = None,
) -> float | None:
    """Seconds to wait from the ``Retry-After`` header (seconds or HTTP date) or body field."""
    raw = None
    for key, value in headers.items():
        if key.lower() == "retry-after":
            raw = value.strip()
            break
    if raw:
        try:
            return max(0.0, float(raw))
        except ValueError:
            pass
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            when = None
        if when is not None:
            current = time.time() if now is None else now
            return max(0.0, when.timestamp() - current)
    if body is not None:
        value = body.get("retry-after", body.get("retry_after"))
        if isinstance(value, int | float) and not isinstance(value, bool):
            return max(0.0, float(value))
        if isinstance(value, str):
            try:
                return max(0.0, float(value))
            except ValueError:
                return None
    return None


def backoff(
    attempt: int,
    base: float = 0.5,
    cap: float = 8.0,
    jitter: Callable[[], float] | None = random.random,
) -> float:
    """Capped exponential delay for retry ``attempt`` (0-based), with equal jitter.

    Without jitter the delays are base, 2*base, 4*base, ... up to cap; with it each is drawn
    from the upper half of that value.
    """
    delay: float = min(cap, base * float(2 ** max(0, attempt)))
    if jitter is None:
        return delay
    return delay / 2 + jitter() * delay / 2


def should_retry(idempotent: bool, outcome: int | BaseException) -> bool:
    """Whether to try again after a status code or a transport exception.

    429 always retries (the server refused before doing anything). 5xx and connection
    failures retry only when repeating the request cannot duplicate a write.
    """
    if isinstance(outcome, BaseException):
        return idempotent and isinstance(outcome, httpx.TransportError)
    if outcome == 429:
        return True
    return idempotent and outcome in RETRYABLE_STATUSES


class RateBudget:
    """One rate-limit budget shared by every request of a client, however many run at once.

    The server counts requests per user, not per connection, so concurrent requests draw on one
    budget: the last ``X-RateLimit-Remaining`` minus the requests in flight. When it is spent,
    requests wait until ``X-RateLimit-Reset`` (or a 429's ``Retry-After``); when the window has
    passed and the count is unknown, one request goes first to learn it. An answer without
    rate-limit headers means the server does not limit this account (the real server leaves
    them out for an account exempt from rate limiting): requests then go without waiting until
    an answer carries them again. No I/O here: the clients ask :meth:`acquire` how long to wait
    and report responses to :meth:`release`.
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self.remaining: int | None = None
        self.reset: float | None = None
        self.in_flight = 0
        #: the last answer had no rate-limit headers: nothing to count
        self.unlimited = False
        #: requests the server refused with 429 (for benchmarks and tests)
        self.refused = 0

    def acquire(self) -> float:
        """Reserve a request and return 0, or return the seconds to wait before asking again."""
        now = self._clock()
        if self.reset is not None and now >= self.reset:
            self.remaining, self.reset = None, None
        if self.remaining is None:
            if self.in_flight and not self.unlimited:  # one is learning the count: wait for it
                return 0.05
        elif self.remaining - self.in_flight <= 0:
            return max(0.05, (self.reset or now + 1.0) - now)
        self.in_flight += 1
        return 0.0

    def release(self, headers: Mapping[str, str] | None, status: int | None) -> None:
        """Account for a finished request (``headers`` None when it failed in transport)."""
        self.in_flight = max(0, self.in_flight - 1)
        if headers is None:
            return
        remaining = headers.get("x-ratelimit-remaining")
        reset = headers.get("x-ratelimit-reset")
        now = self._clock()
        if status == 429:
            self.refused += 1
            wait = parse_retry_after(headers, None)
            self.remaining = 0
            self.reset = now + (wait if wait is not None else 1.0)
            self.unlimited = False
            return
        if remaining is None:
            self.unlimited = self.remaining is None
            return
        try:
            value = int(remaining)
            when = float(reset) if reset is not None else None
        except ValueError:
            return
        # Answers overtake one another: within a window the count only falls, so the lowest
        # count seen wins. The reset header is whole seconds, rounded down: a second of margin.
        if self.remaining is not None:
            value = min(value, self.remaining)
        self.unlimited = False
        self.remaining = value
        self.reset = max(when + 1.0, now, self.reset or 0.0) if when is not None else now + 1.0
