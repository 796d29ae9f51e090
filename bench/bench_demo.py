"""Demo organization generation: time, peak memory and database size of every size.

    .venv/bin/python bench/bench_demo.py                    # every size, table on stdout
    .venv/bin/python bench/bench_demo.py small medium       # some sizes
    .venv/bin/python bench/bench_demo.py --append           # and append the table to RESULTS.md

Each size is generated the way ``chatops sandbox serve --data DIR --size SIZE`` does it
(``open_data_dir`` on a new folder, uploads included), in a fresh process of its own so that
its peak resident memory is its own.
"""

from __future__ import annotations

import argparse
import datetime as dt
import multiprocessing
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from chatops.sandbox import SIZES, open_data_dir

RESULTS = Path(__file__).parent / "RESULTS.md"


def machine() -> str:
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GiB, "
        f"Python {platform.python_version()}, {platform.platform()}"
    )


def _generate(size: str, seed: int, out: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "org"
        usage = resource.getrusage(resource.RUSAGE_SELF)
        cpu0 = usage.ru_utime + usage.ru_stime
        t0 = time.perf_counter()
        store, _, _ = open_data_dir(data, size=size, seed=seed)
        elapsed = time.perf_counter() - t0
        count = int(store.scalar("SELECT count(*) FROM messages"))
        store.close()
        db_bytes = sum(p.stat().st_size for p in data.glob("*.sqlite3*"))
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu0
    out.put((elapsed, cpu, count, usage.ru_maxrss * 1024, db_bytes))  # ru_maxrss: KiB on Linux


def measure(size: str, seed: int = 1) -> tuple[float, float, int, int, int]:
    """(seconds, CPU seconds, messages, peak RSS bytes, database bytes) of generating ``size``."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.SimpleQueue()
    proc = ctx.Process(target=_generate, args=(size, seed, queue))
    proc.start()
    proc.join()
    if proc.exitcode != 0:
        raise SystemExit(f"generating {size} failed (exit {proc.exitcode})")
    elapsed, cpu, count, peak, db = queue.get()
    return float(elapsed), float(cpu), int(count), int(peak), int(db)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", metavar="SIZE", help=f"default: {' '.join(SIZES)}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--append", action="store_true", help="append the table to RESULTS.md")
    args = parser.parse_args()
    unknown = [s for s in args.sizes if s not in SIZES]
    if unknown:
        parser.error(f"unknown size(s) {', '.join(unknown)}; choose from {', '.join(SIZES)}")
    rows = []
    for size in args.sizes or list(SIZES):
        elapsed, cpu, count, peak, db = measure(size, args.seed)
        row = (
            f"| {size} | {count:,} | {elapsed:.1f} s | {cpu:.1f} s | {count / elapsed:,.0f} msg/s "
            f"| {peak / 2**20:,.0f} MiB | {db / 2**20:,.0f} MiB |"
        )
        print(row, flush=True)
        rows.append(row)
    if args.append:
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        text = (
            f"\n## Demo generation, `bench/bench_demo.py` ({when})\n\n"
            f"Machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the end (other "
            "work shares the cores: CPU time is the steadier figure). Each size in a process "
            "of its own, as "
            "`chatops sandbox serve` generates it (uploads included, seed "
            f"{args.seed}). Target: `large` in 3 minutes or less.\n\n"
            "| size | messages | time | CPU time | rate | peak memory | database |\n"
            "|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
        )
        with RESULTS.open("a") as f:
            f.write(text)
        print(f"appended to {RESULTS}", file=sys.stderr)


if __name__ == "__main__":
    main()
