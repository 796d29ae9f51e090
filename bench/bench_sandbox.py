"""Sandbox benchmarks (run by hand; results go in bench/RESULTS.md).

    .venv/bin/python bench/bench_sandbox.py generate      # time to generate each demo size
    .venv/bin/python bench/bench_sandbox.py page          # 1,000-message GET /messages on 'large'
    .venv/bin/python bench/bench_sandbox.py rps           # GET /users/me vs a bare Starlette endpoint
    .venv/bin/python bench/bench_sandbox.py parallel      # 4 concurrent 5,000-message pages vs 1

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
    cpu: list[float] | None = None,
) -> float:
    """Requests per second; with ``cpu``, appends the server's CPU seconds per request.

    CPU time per request barely moves when other work shares the core, where requests per
    second follow the share the scheduler gives the server.
    """
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=target, args=args, daemon=True)
    proc.start()
    try:
        assert proc.pid is not None
        os.sched_setaffinity(proc.pid, {0})
        _wait(url if auth is None else url.replace("/users/me", "/server_settings"))
        before = _cpu_seconds(proc.pid)
        if shutil.which("wrk"):
            rps = _wrk(url, auth, seconds, concurrency)
        else:
            rps = asyncio.run(_load(url, auth, seconds, concurrency))
        if cpu is not None:
            cpu.append((_cpu_seconds(proc.pid) - before) / (rps * seconds))
        return rps
    finally:
        proc.terminate()
        proc.join()


def _cpu_seconds(pid: int) -> float:
    """User and system CPU time of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_rps(seconds: float = 5.0, concurrency: int = 8, rounds: int = 4) -> None:
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
    cpu: dict[str, list[float]] = {"bare": [], "sandbox": []}
    for _ in range(rounds):
        results["bare"].append(
            _measure(
                _bare_app_server, (18772, body), bare_url, None, seconds, concurrency, cpu["bare"]
            )
        )
        results["sandbox"].append(
            _measure(
                _sandbox_server,
                (18771, tmp),
                sandbox_url,
                auth,
                seconds,
                concurrency,
                cpu["sandbox"],
            )
        )
    for i, (b, sb) in enumerate(zip(results["bare"], results["sandbox"], strict=True), 1):
        print(
            f"round {i}: sandbox {sb:,.0f} req/s, bare Starlette {b:,.0f} req/s, ratio {sb / b:.2f}"
        )
    bare, sand = max(results["bare"]), max(results["sandbox"])
    bare_cpu, sand_cpu = min(cpu["bare"]), min(cpu["sandbox"])
    print(
        f"CPU per request: sandbox {sand_cpu * 1e6:.0f} µs, bare Starlette {bare_cpu * 1e6:.0f} µs, "
        f"ratio bare/sandbox {bare_cpu / sand_cpu:.2f} (best of {rounds}; requests per CPU-second)"
    )
    tool = "wrk" if shutil.which("wrk") else "httpx"
    print(
        f"GET /users/me: sandbox {sand:,.0f} req/s, bare Starlette {bare:,.0f} req/s, "
        f"ratio {sand / bare:.2f} (best of {rounds} runs of {seconds:.0f} s, {concurrency} connections, "
        f"{tool} on CPU 1, server on CPU 0)"
    )


def _wrk_page(url: str, auth: tuple[str, str], seconds: float, connections: int) -> float:
    """Pages per second from wrk with ``connections`` requests in flight (no CPU pinning)."""
    import base64
    import re
    import subprocess

    token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{seconds:.0f}s", "--timeout", "60s"]
    cmd += ["-H", f"Authorization: Basic {token}", url]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if errors:
        raise RuntimeError(f"{errors.group(1)} failed requests against {url}")
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    assert match, out
    return float(match.group(1))


def bench_parallel(
    size: str = "medium", rounds: int = 3, seconds: float = 10.0, concurrency: int = 4
) -> None:
    """``GET /messages`` of 5,000: pages per second with 4 requests in flight against 1.

    The sandbox runs in its own process (``chatops sandbox serve``) on every core; wrk (one
    thread, C) sends the same page again and again, one at a time and then ``concurrency`` at a
    time, alternately, ``rounds`` times; each ratio compares the two measurements of one round.
    """
    if not shutil.which("wrk"):
        raise SystemExit("wrk is needed: apt-get install -y wrk")
    data = DATA / size
    t0 = time.perf_counter()
    store, accounts, created = open_data_dir(data, size=size, seed=1)
    store.close()
    if created:
        print(f"(generated {size} in {time.perf_counter() - t0:.1f} s)")
    acc = accounts["admin"]
    auth = (acc.email, acc.api_key)
    port = 18773
    base = f"http://127.0.0.1:{port}/api/v1"
    url = f"{base}/messages?anchor=newest&num_before=5000&num_after=0"
    proc = multiprocessing.get_context("spawn").Process(
        target=_sandbox_server, args=(port, str(data)), daemon=True
    )
    proc.start()
    try:
        _wait(f"{base}/server_settings")
        page = httpx.get(url, auth=auth, timeout=60)
        assert page.status_code == 200 and len(page.json()["messages"]) == 5000, page.text[:200]
        print(f"page: 5,000 messages, {len(page.content) / 1e6:.1f} MB")
        _wrk_page(url, auth, 8, concurrency)  # warm up the caches; the read workers start
        ratios = []
        for n in range(rounds):
            one = _wrk_page(url, auth, seconds, 1)
            many = _wrk_page(url, auth, seconds, concurrency)
            ratios.append(many / one)
            print(
                f"round {n + 1}: one at a time {one:.2f} pages/s, {concurrency} at a time "
                f"{many:.2f} pages/s, ratio {many / one:.2f} (load average {os.getloadavg()[0]:.1f})"
            )
        print(
            f"ratio over {rounds} rounds: median {statistics.median(ratios):.2f}, "
            f"min {min(ratios):.2f}, max {max(ratios):.2f}"
        )
    finally:
        proc.terminate()
        proc.join()


if __name__ == "__main__":
    print(machine(), time.strftime("%Y-%m-%d"))
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what in ("generate", "all"):
        bench_generate(sys.argv[2:] or ["small", "medium", "large"])
    if what in ("page", "all"):
        bench_page()
    if what in ("rps", "all"):
        bench_rps()
    if what in ("parallel", "all"):
        bench_parallel()
