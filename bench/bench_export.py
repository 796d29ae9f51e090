"""Zulip data export of a demo organization: writing the tarball, reading it into frames.

    .venv/bin/python bench/bench_export.py                 # the large organization
    .venv/bin/python bench/bench_export.py medium --append # and append the table to RESULTS.md

The organization is generated once into bench/.data/<size>/ (as bench_sandbox.py does) and
reused. Writing and reading each run in a fresh process of their own, so that the peak
resident memory printed is that step's own.
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_demo import RESULTS, machine

from chatops.sandbox import SIZES, Store, open_data_dir
from chatops.sandbox.server import DB_NAME

DATA = Path(__file__).parent / ".data"


def _write(data: Path, out: Path, queue: Any) -> None:
    from chatops.sandbox.export import export_organization

    store = Store(data / DB_NAME)
    t0 = time.perf_counter()
    export_organization(store, out, upload_dir=data / "uploads", progress=False)
    elapsed = time.perf_counter() - t0
    store.close()
    queue.put((elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024))


def _read(out: Path, queue: Any) -> None:
    from chatops.analytics.dataset.realm_export import read_export

    t0 = time.perf_counter()
    frames = read_export(out, progress=False)
    elapsed = time.perf_counter() - t0
    assert len(frames.messages) > 0
    queue.put((elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024))


def _in_process(target: Any, *args: Any) -> tuple[float, int]:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.SimpleQueue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    proc.join()
    if proc.exitcode != 0:
        raise SystemExit(f"{target.__name__} failed (exit {proc.exitcode})")
    elapsed, peak = queue.get()
    return float(elapsed), int(peak)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("size", nargs="?", default="large", choices=list(SIZES))
    parser.add_argument("--append", action="store_true", help="append the table to RESULTS.md")
    args = parser.parse_args()
    data = DATA / args.size
    store, _, created = open_data_dir(data, size=args.size, seed=1)
    count = int(store.scalar("SELECT count(*) FROM messages"))
    store.close()
    if created:
        print(f"(generated {args.size} into {data})", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "export.tar.gz"
        write_s, write_peak = _in_process(_write, data, out)
        size = out.stat().st_size
        read_s, read_peak = _in_process(_read, out)
    rows = [
        f"| write `export_organization` | {count:,} | {write_s:.1f} s "
        f"| {count / write_s:,.0f} msg/s | {write_peak / 2**20:,.0f} MiB |",
        f"| read `read_export` | {count:,} | {read_s:.1f} s "
        f"| {count / read_s:,.0f} msg/s | {read_peak / 2**20:,.0f} MiB |",
    ]
    print("\n".join(rows))
    print(f"tarball: {size / 2**20:,.0f} MiB", file=sys.stderr)
    if args.append:
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        text = (
            f"\n## Organization data export, `{args.size}` (`bench/bench_export.py`, {when})\n\n"
            f"Machine: {machine()}; load average {os.getloadavg()[0]:.1f}. Each step in a "
            f"process of its own; tarball {size / 2**20:,.0f} MiB (1,000 messages a file).\n\n"
            "| step | messages | time | rate | peak memory |\n|---|---|---|---|---|\n"
            + "\n".join(rows)
            + "\n"
        )
        with RESULTS.open("a") as f:
            f.write(text)


if __name__ == "__main__":
    main()
