"""Each view on frames in memory (the pandas engine) against engine="duckdb" on the same
dataset's folder: the README's in-memory use, for which the pandas engine stays.

    .venv/bin/python bench/bench_in_memory.py ~/chatops-data/medium

Times are the median of three calls after a first one, in one process, in milliseconds, with
the options of the engine-equality test (``tests/analytics/engines.py``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from chatops import analytics  # noqa: E402
from chatops.analytics import Dataset  # noqa: E402
from tests.analytics.engines import CALLS  # noqa: E402


def _median_ms(call: Callable[[], object]) -> float:
    call()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    args = ap.parse_args()
    ds = Dataset(args.folder)
    f = ds.frames()
    print(f"{ds.message_count:,} messages\n")
    print("| view | pandas (frames in memory) | duckdb (the folder) |")
    print("| --- | ---: | ---: |")
    total_p = total_d = 0.0
    for view, (options, takes) in CALLS.items():
        fn = getattr(analytics, view)
        frames = {n: getattr(f, n) for n in takes}
        p = _median_ms(lambda: fn(f.messages, **frames, **options))  # noqa: B023
        d = _median_ms(lambda: fn(ds, **options, engine="duckdb"))  # noqa: B023
        total_p, total_d = total_p + p, total_d + d
        print(f"| {view} | {p:.0f} | {d:.0f} |", flush=True)
    print(f"| all ten | {total_p:,.0f} | {total_d:,.0f} |")


if __name__ == "__main__":
    main()
