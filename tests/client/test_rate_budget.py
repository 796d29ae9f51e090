"""RateBudget: one budget for every request of a client, from the server's rate-limit headers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import chatops
from chatops._retry import RateBudget
from chatops.sandbox import RateLimit, Sandbox


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def headers(remaining: int, reset: float) -> dict[str, str]:
    return {"x-ratelimit-remaining": str(remaining), "x-ratelimit-reset": str(int(reset))}


def test_unknown_count_lets_one_request_go_first() -> None:
    b = RateBudget(Clock())
    assert b.acquire() == 0
    assert b.acquire() > 0  # waits for the first answer to learn the count
    b.release(headers(3, 1010), 200)
    assert b.acquire() == 0 and b.acquire() == 0 and b.acquire() == 0
    assert b.acquire() > 0  # 3 left, all in flight


def test_spent_budget_waits_until_the_reset_then_probes() -> None:
    clock = Clock()
    b = RateBudget(clock)
    b.acquire()
    b.release(headers(0, 1005), 200)
    wait = b.acquire()
    assert 5 <= wait <= 6.5  # the reset, plus a second for the header's rounding
    clock.now += wait
    assert b.acquire() == 0  # the window passed: one request learns the new count
    assert b.acquire() > 0


def test_answers_that_overtake_each_other_keep_the_lowest_count() -> None:
    b = RateBudget(Clock())
    b.acquire()
    b.release(headers(10, 1010), 200)
    for _ in range(3):
        assert b.acquire() == 0
    b.release(headers(7, 1010), 200)
    b.release(headers(9, 1010), 200)  # sent earlier, answered later
    assert b.remaining == 7


def test_a_429_empties_the_budget_for_retry_after() -> None:
    clock = Clock()
    b = RateBudget(clock)
    b.acquire()
    b.release({"retry-after": "2.5"}, 429)
    assert b.refused == 1
    assert 2.4 <= b.acquire() <= 2.5
    clock.now += 2.5
    assert b.acquire() == 0


def test_transport_failure_frees_its_place() -> None:
    b = RateBudget(Clock())
    b.acquire()
    b.release(None, None)
    assert b.in_flight == 0 and b.acquire() == 0


def test_concurrent_async_requests_share_the_budget_and_are_never_refused(
    tmp_path: Path,
) -> None:
    limit = RateLimit(max_calls=8, window_seconds=1.0)
    with Sandbox.start(tmp_path / "org", size="small", seed=3, rate_limit=limit) as sb:

        async def run() -> RateBudget:
            async with chatops.AsyncClient.from_zuliprc(sb.zuliprc("member")) as client:
                client.rate_budget = RateBudget()
                await asyncio.gather(*(client.users.me() for _ in range(30)))
                return client.rate_budget

        budget = asyncio.run(run())
        assert budget.refused == 0
        assert budget.in_flight == 0


def test_answers_without_rate_limit_headers_let_requests_go_together() -> None:
    b = RateBudget(Clock())
    assert b.acquire() == 0
    assert b.acquire() > 0  # the count is unknown until the first answer
    b.release({}, 200)  # no headers: this account is not limited
    assert b.unlimited
    assert [b.acquire() for _ in range(5)] == [0.0] * 5
    b.release(headers(1, 1010), 200)  # counted again
    assert not b.unlimited
    assert b.acquire() > 0  # 1 left, 4 still in flight


def test_a_server_without_rate_limit_serves_a_clients_requests_concurrently(
    tmp_path: Path,
) -> None:
    with Sandbox.start(tmp_path / "org", size="small", seed=3) as sb:  # no rate limit

        async def run() -> int:
            async with chatops.AsyncClient.from_zuliprc(sb.zuliprc("member")) as client:
                budget = client.rate_budget = RateBudget()
                await client.users.me()  # learns that nothing is counted
                most = 0

                async def one() -> None:
                    nonlocal most
                    task = asyncio.ensure_future(client.users.me())
                    await asyncio.sleep(0)  # let it reserve its place
                    most = max(most, budget.in_flight)
                    await task

                await asyncio.gather(*(one() for _ in range(10)))
                return most

        assert asyncio.run(run()) > 1
