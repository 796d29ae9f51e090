"""The README's in-memory analytics path against the official ``zulip`` client + ``pd.DataFrame``.

The demo organization is served by ``chatops sandbox serve`` in a process of its own (no rate
limit). The path measured is the README's, as written there::

    with chatops.Client.from_zuliprc(rc) as client:
        frames = analytics.AnalyticsFrames.from_records(
            client.messages.iter_history(page_size=5000, apply_markdown=False),
            users=client.users.list(),
            channels=client.channels.list(include_all=True, exclude_archived=False, include_default=True),
        )

1. client side: every response of one run of that path is recorded, then replayed from memory
   (an ``httpx.MockTransport``): the same page bytes decoded into the typed frames (messages,
   reactions, edits, direct-message recipients, topics, topic links, users, channels) against
   ``json.loads`` + ``pd.DataFrame(list_of_dicts)`` over the same message, user and channel
   bodies (what the official client gives: ``requests``' ``.json()``, then untyped frames);
2. end to end over HTTP: the same path against the official ``zulip`` 0.9 client fetching
   5,000-message pages (``get_messages``, ``get_members``, ``get_streams``) + ``pd.DataFrame``;
3. a cold ``Dataset.sync`` into an empty folder + ``frames()`` against the same official-client
   path (the dataset reads the narrows concurrently, which the sandbox serves in parallel).

Rounds alternate between the two sides and each keeps its best (a busy moment on a shared
machine slows one round of each, not all of one side); the ratio is theirs / ours. The script
uses only the public API, so the same file measures an older tree too::

    PYTHONPATH=. .venv/bin/python bench/bench_frames.py --size medium [--append bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pandas as pd

import chatops
from chatops import analytics

PAGE = 5000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(data: Path, size: str) -> subprocess.Popen[bytes]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "chatops.cli", "sandbox", "serve", "--data", str(data)]
        + ["--size", size, "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 1800
    while time.monotonic() < deadline:
        if (data / "zuliprc" / "admin.zuliprc").exists():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return proc
            except OSError:
                pass
        time.sleep(0.5)
    proc.kill()
    raise RuntimeError("the sandbox did not start")


def readme_path(client: chatops.Client) -> analytics.AnalyticsFrames:
    """The README's example, word for word (the client given)."""
    return analytics.AnalyticsFrames.from_records(
        client.messages.iter_history(page_size=PAGE, apply_markdown=False),
        users=client.users.list(),
        channels=client.channels.list(
            include_all=True, exclude_archived=False, include_default=True
        ),
    )


def _key(request: httpx.Request) -> tuple[str, str, bytes]:
    return request.method, str(request.url), request.content


class Recorder(httpx.BaseTransport):
    """Passes requests to the network and keeps every response body by request."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.bodies: dict[tuple[str, str, bytes], tuple[int, dict[str, str], bytes]] = {}

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        body = response.read()
        headers = {"content-type": response.headers.get("content-type", "application/json")}
        self.bodies[_key(request)] = (response.status_code, headers, body)
        return httpx.Response(response.status_code, headers=headers, content=body)


def replayer(
    bodies: dict[tuple[str, str, bytes], tuple[int, dict[str, str], bytes]],
) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        status, headers, body = bodies[_key(request)]
        return httpx.Response(status, headers=headers, content=body)

    return httpx.MockTransport(handle)


def alternate(
    ours: Callable[[], Any], theirs: Callable[[], Any], rounds: int
) -> dict[str, dict[str, float]]:
    times: dict[str, list[float]] = {"ours": [], "theirs": []}
    for _ in range(rounds):
        for name, fn in (("ours", ours), ("theirs", theirs)):
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return {k: {"best": min(v), "median": statistics.median(v)} for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="medium", choices=("small", "medium", "large"))
    ap.add_argument("--rounds", type=int, default=9, help="client-side rounds of each")
    ap.add_argument("--http-rounds", type=int, default=5, help="end-to-end rounds of each")
    ap.add_argument("--label", default="", help="what tree is measured, for the table")
    ap.add_argument("--append", type=Path, help="append the results to this Markdown file")
    args = ap.parse_args()

    import zulip  # type: ignore[import-untyped]  # the official client, the anchor

    work = Path(tempfile.mkdtemp(prefix="bench-frames-"))
    proc = serve(work / "org", args.size)
    rc = work / "org" / "zuliprc" / "admin.zuliprc"
    try:
        recorder = Recorder()
        with chatops.Client.from_zuliprc(rc, transport=recorder) as c:
            frames = readme_path(c)
        n = len(frames.messages)
        bodies = recorder.bodies
        message_bodies = [b for (m, u, _), (_, _, b) in bodies.items() if "/messages" in u]
        other_bodies = {
            name: next(b for (m, u, _), (_, _, b) in bodies.items() if u.split("?")[0].endswith(p))
            for name, p in (("members", "/users"), ("streams", "/streams"))
        }
        size_mb = sum(len(b) for b in message_bodies) / 1e6

        def ours_replayed() -> analytics.AnalyticsFrames:
            with chatops.Client.from_zuliprc(rc, transport=replayer(bodies)) as client:
                return readme_path(client)

        def theirs_decoded() -> list[pd.DataFrame]:
            rows = [m for b in message_bodies for m in json.loads(b)["messages"]]
            return [pd.DataFrame(rows)] + [
                pd.DataFrame(json.loads(b)[k]) for k, b in other_bodies.items()
            ]

        client_side = alternate(ours_replayed, theirs_decoded, args.rounds)

        def ours_http() -> analytics.AnalyticsFrames:
            with chatops.Client.from_zuliprc(rc) as client:
                return readme_path(client)

        def theirs_http() -> list[pd.DataFrame]:
            client = zulip.Client(config_file=str(rc))
            rows: list[dict[str, Any]] = []
            anchor: int | str = "oldest"
            while True:
                page = client.get_messages(
                    {
                        "anchor": anchor,
                        "num_before": 0,
                        "num_after": PAGE,
                        "include_anchor": anchor == "oldest",
                        "apply_markdown": False,
                    }
                )
                if page["result"] != "success":
                    raise RuntimeError(page)
                rows.extend(page["messages"])
                if page["found_newest"] or not page["messages"]:
                    break
                anchor = page["messages"][-1]["id"]
            members = client.get_members()["members"]
            streams = client.get_streams(include_all_active=True)["streams"]
            return [pd.DataFrame(rows), pd.DataFrame(members), pd.DataFrame(streams)]

        got = theirs_http()
        assert len(got[0]) == n, (len(got[0]), n)
        end_to_end = alternate(ours_http, theirs_http, args.http_rounds)

        def ours_dataset() -> analytics.AnalyticsFrames:
            cache = Path(tempfile.mkdtemp(prefix="cache-", dir=work))
            try:
                return analytics.Dataset.sync(rc, cache=cache, progress=False).frames()
            finally:
                shutil.rmtree(cache, ignore_errors=True)

        assert len(ours_dataset().messages) == n
        dataset = alternate(ours_dataset, theirs_http, args.http_rounds)
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(work, ignore_errors=True)

    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )
    cs, ee, ds = client_side, end_to_end, dataset
    label = f" ({args.label})" if args.label else ""
    lines = [
        f"### `{args.size}` organization{label}: {n:,} messages, {len(message_bodies)} pages "
        f"({size_mb:.1f} MB)",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {machine}; "
        f"zulip {zulip.__version__}, pandas {pd.__version__}. Best (median) of "
        f"{args.rounds} client-side and {args.http_rounds} end-to-end alternating rounds.",
        "",
        "| measure | chatops | json.loads / official client + pd.DataFrame | ratio |",
        "| --- | --- | --- | --- |",
        f"| client side, the recorded bytes | {cs['ours']['best']:.3f} s "
        f"({cs['ours']['median']:.3f}) | {cs['theirs']['best']:.3f} s "
        f"({cs['theirs']['median']:.3f}) | **{cs['theirs']['best'] / cs['ours']['best']:.2f}x** |",
        f"| end to end over HTTP | {ee['ours']['best']:.2f} s ({ee['ours']['median']:.2f}) | "
        f"{ee['theirs']['best']:.2f} s ({ee['theirs']['median']:.2f}) | "
        f"**{ee['theirs']['best'] / ee['ours']['best']:.2f}x** |",
        f"| cold `Dataset.sync` + `frames()` into an empty folder, over HTTP | "
        f"{ds['ours']['best']:.2f} s ({ds['ours']['median']:.2f}) | "
        f"{ds['theirs']['best']:.2f} s ({ds['theirs']['median']:.2f}) | "
        f"**{ds['theirs']['best'] / ds['ours']['best']:.2f}x** |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.append:
        with open(args.append, "a", encoding="utf-8") as fh:
            fh.write("\n" + text)


if __name__ == "__main__":
    main()
