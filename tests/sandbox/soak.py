"""A soak of a running sandbox: concurrent writers, readers and event long-polls over HTTP.

Used by ``tests/sandbox/test_soak.py`` (bounded, asserted) and ``bench/bench_soak.py``
(longer, reported). Every request is timed; afterwards every acknowledged write is looked up.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field

import httpx


@dataclass
class SoakResult:
    """What a soak did and saw."""

    seconds: float = 0.0
    requests: int = 0
    server_errors: int = 0
    failures: list[str] = field(default_factory=list)
    acknowledged: dict[int, str] = field(default_factory=dict)
    found: int = 0
    events: int = 0
    latencies: list[float] = field(default_factory=list)

    def percentile(self, p: float) -> float:
        """The ``p``-th percentile of request latency, in seconds."""
        ordered = sorted(self.latencies)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(len(ordered) * p / 100))]

    def line(self) -> str:
        return (
            f"{self.requests} requests in {self.seconds:.1f}s, {len(self.acknowledged)} writes "
            f"acknowledged, {self.found} found, {self.events} events delivered, "
            f"{self.server_errors} server errors; p50 {self.percentile(50) * 1000:.1f} ms, "
            f"p99 {self.percentile(99) * 1000:.1f} ms"
        )


class _Worker:
    def __init__(
        self, site: str, email: str, api_key: str, result: SoakResult, lock: threading.Lock
    ) -> None:
        self.http = httpx.Client(base_url=f"{site}/api/v1", auth=(email, api_key), timeout=60)
        self.result = result
        self.lock = lock

    def call(self, method: str, path: str, **kw: object) -> httpx.Response | None:
        started = time.monotonic()
        try:
            r = self.http.request(method, path, **kw)  # type: ignore[arg-type]
        except httpx.HTTPError as exc:
            with self.lock:
                self.result.failures.append(f"{method} {path}: {type(exc).__name__} {exc}")
            return None
        elapsed = time.monotonic() - started
        with self.lock:
            self.result.requests += 1
            if path != "/events":  # a long-poll's wait is not latency
                self.result.latencies.append(elapsed)
            if r.status_code >= 500:
                self.result.server_errors += 1
                self.result.failures.append(f"{method} {path}: {r.status_code} {r.text[:200]}")
        return r


def soak(
    site: str,
    email: str,
    api_key: str,
    *,
    seconds: float,
    writers: int = 4,
    readers: int = 4,
    pollers: int = 2,
    channel: str = "general",
) -> SoakResult:
    """Load ``site`` for ``seconds`` as one account, then check every acknowledged write."""
    result = SoakResult()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    run = uuid.uuid4().hex[:8]

    def write(n: int) -> None:
        w = _Worker(site, email, api_key, result, lock)
        i = 0
        while time.monotonic() < deadline:
            content = f"soak {run} writer {n} message {i}"
            r = w.call(
                "POST",
                "/messages",
                data={"type": "stream", "to": channel, "topic": f"soak {n}", "content": content},
            )
            if r is not None and r.status_code == 200:
                with lock:
                    result.acknowledged[int(r.json()["id"])] = content
            i += 1
        w.http.close()

    def read(n: int) -> None:
        w = _Worker(site, email, api_key, result, lock)
        while time.monotonic() < deadline:
            w.call("GET", "/messages", params={"anchor": "newest", "num_before": 50})
            w.call("GET", "/users/me")
        w.http.close()

    def poll(n: int) -> None:
        w = _Worker(site, email, api_key, result, lock)
        r = w.call("POST", "/register", data={"event_types": json.dumps(["message"])})
        if r is None or r.status_code != 200:
            return
        queue_id, last = r.json()["queue_id"], r.json()["last_event_id"]
        while time.monotonic() < deadline:
            r = w.call("GET", "/events", params={"queue_id": queue_id, "last_event_id": last})
            if r is None or r.status_code != 200:
                break
            events = r.json()["events"]
            if events:
                last = max(e["id"] for e in events)
                with lock:
                    result.events += sum(1 for e in events if e["type"] == "message")
        w.call("DELETE", "/events", params={"queue_id": queue_id})
        w.http.close()

    threads = [
        *(threading.Thread(target=write, args=(n,)) for n in range(writers)),
        *(threading.Thread(target=read, args=(n,)) for n in range(readers)),
        *(threading.Thread(target=poll, args=(n,)) for n in range(pollers)),
    ]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads[:-pollers] if pollers else threads:
        t.join()
    # the writers are done: one more message wakes any poll still waiting
    waker = _Worker(site, email, api_key, SoakResult(), threading.Lock())
    waker.call(
        "POST",
        "/messages",
        data={"type": "stream", "to": channel, "topic": "soak end", "content": f"soak {run} done"},
    )
    for t in threads[-pollers:] if pollers else ():
        t.join(timeout=90)
    result.seconds = time.monotonic() - started

    ids = sorted(result.acknowledged)
    for i in range(0, len(ids), 200):
        batch = ids[i : i + 200]
        r = waker.http.get(
            "/messages", params={"message_ids": json.dumps(batch), "apply_markdown": "false"}
        )
        r.raise_for_status()
        result.found += sum(
            1 for m in r.json()["messages"] if result.acknowledged.get(m["id"]) == m["content"]
        )
    waker.http.close()
    return result
