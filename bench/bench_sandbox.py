"""Sandbox benchmarks (run by hand; results go in bench/RESULTS.md).

    .venv/bin/python bench/bench_sandbox.py generate      # time to generate each demo size
    .venv/bin/python bench/bench_sandbox.py page          # 1,000-message GET /messages on 'large'
    .venv/bin/python bench/bench_sandbox.py rps           # GET /users/me vs a bare Starlette endpoint

Large organizations are generated once into bench/.data/<size>/ and reused.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from chatops.sandbox import Sandbox, Store, demo, open_data_dir

DATA = Path(__file__).parent / ".data"


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}"


def bench_generate(sizes: list[str]) -> None:
    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            store = Store(Path(tmp) / "db.sqlite3")
            demo.generate(store, size=size, seed=1)
            elapsed = time.perf_counter() - t0
            count = store.scalar("SELECT count(*) FROM messages")
            store.close()
        print(
            f"generate {size}: {elapsed:.1f} s for {count:,} messages ({count / elapsed:,.0f} msg/s)"
        )


def bench_page(size: str = "large", rounds: int = 30) -> None:
    data = DATA / size
    t0 = time.perf_counter()
    store, _, created = open_data_dir(data, size=size, seed=1)
    store.close()
    if created:
        print(f"(generated {size} in {time.perf_counter() - t0:.1f} s)")
    with Sandbox.start(data) as sb:
        acc = sb.accounts["admin"]
        with httpx.Client(
            base_url=sb.site + "/api/v1", auth=(acc.email, acc.api_key), timeout=60
        ) as c:
            cases = {
                "newest, all channels": {"anchor": "newest", "num_before": 1000, "num_after": 0},
                "oldest, all channels": {"anchor": "oldest", "num_before": 0, "num_after": 1000},
                "newest, channel narrow": {
                    "anchor": "newest",
                    "num_before": 1000,
                    "num_after": 0,
                    "narrow": '[{"operator": "channel", "operand": "general"}]',
                },
            }
            for label, params in cases.items():
                times = []
                for _ in range(rounds):
                    t = time.perf_counter()
                    r = c.get("/messages", params=params)
                    times.append(time.perf_counter() - t)
                    assert r.status_code == 200 and len(r.json()["messages"]) == 1000, r.text[:200]
                print(
                    f"GET /messages 1000 ({label}) on {size}: median {statistics.median(times) * 1000:.1f} ms, "
                    f"p90 {sorted(times)[int(rounds * 0.9)] * 1000:.1f} ms"
                )


def _bare_app_server(port: int, body: bytes) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import Response
    from starlette.routing import Route

    async def me(request: object) -> Response:
        return Response(body, media_type="application/json")

    app = Starlette(routes=[Route("/api/v1/users/me", me)])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def _sandbox_server(port: int, data: str) -> None:
    from chatops.sandbox import serve

    serve(Path(data), port=port, echo=lambda *_: None)


async def _load(url: str, auth: tuple[str, str] | None, seconds: float, concurrency: int) -> float:
    done = 0
    deadline = time.perf_counter() + seconds
    async with httpx.AsyncClient(
        auth=auth, limits=httpx.Limits(max_connections=concurrency)
    ) as client:

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < deadline:
                r = await client.get(url)
                assert r.status_code == 200
                done += 1

        t0 = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return done / (time.perf_counter() - t0)


def _wait(url: str) -> None:
    for _ in range(300):
        try:
            httpx.get(url)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError(f"server at {url} did not start")


def _wrk(url: str, auth: tuple[str, str] | None, seconds: float, concurrency: int) -> float:
    """Requests per second from wrk pinned to CPU 1 (the server runs on CPU 0)."""
    import base64
    import re
    import subprocess

    cmd = ["taskset", "-c", "1", "wrk", "-t1", f"-c{concurrency}", f"-d{seconds:.0f}s"]
    if auth is not None:
        token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
        cmd += ["-H", f"Authorization: Basic {token}"]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"{errors.group(1)} failed requests against {url}")
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    assert match, out
    return float(match.group(1))


def _measure(
    target: Any,
    args: tuple[Any, ...],
    url: str,
    auth: tuple[str, str] | None,
    seconds: float,
    concurrency: int,
) -> float:
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=target, args=args, daemon=True)
    proc.start()
    try:
        os.sched_setaffinity(proc.pid, {0})
        _wait(url if auth is None else url.replace("/users/me", "/server_settings"))
        if shutil.which("wrk"):
            return _wrk(url, auth, seconds, concurrency)
        return asyncio.run(_load(url, auth, seconds, concurrency))
    finally:
        proc.terminate()
        proc.join()


def bench_rps(seconds: float = 5.0, concurrency: int = 8) -> None:
    tmp = tempfile.mkdtemp()
    store, accounts, _ = open_data_dir(Path(tmp), size="small", seed=1)
    store.close()
    acc = accounts["member"]
    auth = (acc.email, acc.api_key)
    sandbox_url = "http://127.0.0.1:18771/api/v1/users/me"
    bare_url = "http://127.0.0.1:18772/api/v1/users/me"
    proc = multiprocessing.get_context("spawn").Process(
        target=_sandbox_server, args=(18771, tmp), daemon=True
    )
    proc.start()
    _wait("http://127.0.0.1:18771/api/v1/server_settings")
    body = httpx.get(sandbox_url, auth=auth).content
    proc.terminate()
    proc.join()
    results: dict[str, list[float]] = {"bare": [], "sandbox": []}
    for _ in range(2):
        results["bare"].append(
            _measure(_bare_app_server, (18772, body), bare_url, None, seconds, concurrency)
        )
        results["sandbox"].append(
            _measure(_sandbox_server, (18771, tmp), sandbox_url, auth, seconds, concurrency)
        )
    bare, sand = max(results["bare"]), max(results["sandbox"])
    tool = "wrk" if shutil.which("wrk") else "httpx"
    print(
        f"GET /users/me: sandbox {sand:,.0f} req/s, bare Starlette {bare:,.0f} req/s, "
        f"ratio {sand / bare:.2f} (best of 2 runs of {seconds:.0f} s, {concurrency} connections, "
        f"{tool} on CPU 1, server on CPU 0)"
    )


if __name__ == "__main__":
    print(machine(), time.strftime("%Y-%m-%d"))
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what in ("generate", "all"):
        bench_generate(sys.argv[2:] or ["small", "medium", "large"])
    if what in ("page", "all"):
        bench_page()
    if what in ("rps", "all"):
        bench_rps()
