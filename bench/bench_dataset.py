"""The analytics dataset: cold sync, incremental re-sync, and page decoding against the usual way.

The sandbox serves the demo organization from a process of its own (``chatops sandbox serve``,
no rate limit, as an administrator can set for a bulk account), so the client's work is not
slowed by the server's in the same interpreter::

    .venv/bin/python bench/bench_dataset.py --size medium [--append bench/RESULTS.md]

Measures, on the admin account:
1. cold sync into an empty cache, then ``frames()``: seconds and peak memory of this process;
2. incremental re-sync after 1,000 new messages and 100 edits (default ``recheck=1000``), then
   three re-syncs with no change;
3. decoding the same ``GET /messages`` pages (5,000 messages each) into a messages frame:
   the page decoder into Arrow columns and the typed frame (the dataset's path) against ``json.loads``
   (what the official ``zulip`` client does with a response: ``requests``' ``.json()``) plus
   ``pd.DataFrame(list_of_dicts)`` (untyped: object columns, nested lists as Python objects),
   in rounds that alternate between the two, each keeping its best; once in a fresh interpreter
   (``--decode PAGES``, the decoding alone) and once in this process, after the syncs.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pyarrow as pa

import chatops
from chatops.analytics import Dataset
from chatops.analytics.dataset._pages import decode_page, page_table
from chatops.analytics.dataset._tables import messages_from_table


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(data: Path, size: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chatops.cli",
            "sandbox",
            "serve",
            "--data",
            str(data),
            "--size",
            size,
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    site = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 1800
    while time.monotonic() < deadline:
        if (data / "zuliprc" / "admin.zuliprc").exists():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return proc, site
            except OSError:
                pass
        time.sleep(0.5)
    proc.kill()
    raise RuntimeError("the sandbox did not start")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def decode_rounds(bodies: list[bytes], rounds: int = 15) -> tuple[float, float]:
    """Best seconds of the dataset's decoding and of ``json.loads`` + ``pd.DataFrame``.

    Rounds alternate between the two, and each keeps its best: a busy moment on a shared
    machine then slows one round of each, not all of one side.
    """

    def ours() -> pd.DataFrame:
        tables = [page_table(decode_page(b)) for b in bodies]
        return messages_from_table(pa.concat_tables(tables))

    def theirs() -> pd.DataFrame:
        rows = [m for b in bodies for m in json.loads(b)["messages"]]
        return pd.DataFrame(rows)

    t_ours = t_theirs = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        ours()
        t_ours = min(t_ours, time.perf_counter() - t)
        t = time.perf_counter()
        theirs()
        t_theirs = min(t_theirs, time.perf_counter() - t)
    return t_ours, t_theirs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="medium", choices=("small", "medium", "large"))
    ap.add_argument("--append", type=Path, help="append the results to this Markdown file")
    ap.add_argument("--decode", type=Path, help=argparse.SUPPRESS)  # the fresh interpreter
    args = ap.parse_args()
    if args.decode:
        t_ours, t_theirs = decode_rounds(pickle.loads(args.decode.read_bytes()))
        print(json.dumps({"ours": t_ours, "theirs": t_theirs}))
        return
    work = Path(tempfile.mkdtemp(prefix="bench-dataset-"))
    proc, _site = serve(work / "org", args.size)
    rc = work / "org" / "zuliprc" / "admin.zuliprc"
    try:
        cache = work / "cache"
        rss0 = peak_mb()
        t0 = time.perf_counter()
        ds = Dataset.sync(rc, cache=cache, progress=False)
        t_sync = time.perf_counter() - t0
        frames = ds.frames()
        t_cold = time.perf_counter() - t0
        rss = peak_mb()
        n = len(frames.messages)
        stats = ds.manifest["last_sync"]
        del frames

        with chatops.Client.from_zuliprc(rc) as c:
            chans = [ch.name for ch in c.channels.list()][:10]
            sent = [
                c.messages.send_to_channel(chans[i % len(chans)], "bench", f"new {i}").id
                for i in range(1000)
            ]
            for mid in sent[:100]:
                c.messages.edit(mid, content="edited")
        t0 = time.perf_counter()
        ds = Dataset.sync(rc, cache=cache, progress=False)
        t_inc = time.perf_counter() - t0
        inc = ds.manifest["last_sync"]
        # nothing changed since: what every re-sync costs at least (three runs, each kept)
        t_same = []
        for _ in range(3):
            t0 = time.perf_counter()
            ds = Dataset.sync(rc, cache=cache, progress=False)
            t_same.append(time.perf_counter() - t0)
        same = ds.manifest["last_sync"]

        # the same pages, raw
        bodies: list[bytes] = []
        with chatops.Client.from_zuliprc(rc) as c:
            anchor: int | str = "oldest"
            while len(bodies) < 20:
                body = c._request(
                    "GET",
                    "/messages",
                    params={
                        "anchor": anchor,
                        "num_before": 0,
                        "num_after": 5000,
                        "include_anchor": anchor == "oldest",
                        "apply_markdown": False,
                    },
                    cast_to=bytes,
                )
                bodies.append(body)
                page = json.loads(body)
                if page["found_newest"] or not page["messages"]:
                    break
                anchor = page["messages"][-1]["id"]
        decoded = sum(len(json.loads(b)["messages"]) for b in bodies)

        pages = work / "pages.pickle"
        pages.write_bytes(pickle.dumps(bodies))
        fresh = json.loads(
            subprocess.run(
                [sys.executable, __file__, "--decode", str(pages)],
                check=True,
                capture_output=True,
            ).stdout
        )
        t_ours, t_theirs = decode_rounds(bodies)
    finally:
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(work, ignore_errors=True)

    machine = f"{platform.node()} ({os.cpu_count()} cores, Python {platform.python_version()})"
    lines = [
        f"## Analytics dataset, `{args.size}` organization (`bench/bench_dataset.py`)",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {machine}; sandbox in its own process, no "
        "rate limit.",
        "",
        "| measure | result |",
        "| --- | --- |",
        f"| cold sync of {n:,} messages ({stats['requests']} requests) | {t_sync:.1f} s |",
        f"| cold sync + `frames()` | {t_cold:.1f} s, peak memory {rss:,.0f} MB "
        f"(process before: {rss0:,.0f} MB) |",
        f"| re-sync after 1,000 new messages and 100 edits ({inc['fetched']:,} fetched, "
        f"{inc['new']:,} new) | {t_inc:.2f} s |",
        f"| re-sync with no change ({same['requests']} requests, {same['fetched']:,} fetched, "
        f"changes from {same['changes_from']}), three runs | "
        f"{', '.join(f'{t:.2f}' for t in t_same)} s |",
        f"| {len(bodies)} pages, {decoded:,} messages: page decoder -> Arrow -> typed messages frame, "
        f"fresh interpreter | {fresh['ours']:.3f} s |",
        f"| same pages: `json.loads` + `pd.DataFrame(list_of_dicts)`, fresh interpreter | "
        f"{fresh['theirs']:.3f} s ({fresh['theirs'] / fresh['ours']:.1f}x slower) |",
        f"| the two again, in this process after the syncs | {t_ours:.3f} s against "
        f"{t_theirs:.3f} s ({t_theirs / t_ours:.1f}x) |",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.append:
        with open(args.append, "a", encoding="utf-8") as fh:
            fh.write("\n" + text)


if __name__ == "__main__":
    main()
