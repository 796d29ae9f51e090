"""Each view on frames in memory (the README's in-memory use, ``engine="pandas"``), beside
``engine="duckdb"`` on the same dataset's folder; with ``--before``, the same calls on another
checkout of chatops (an older version of the views), in the same run.

    git worktree add /tmp/chatops-before <commit>
    .venv/bin/python bench/bench_in_memory.py ~/chatops-data/medium --before /tmp/chatops-before

Each checkout runs in a process of its own. Times are the median of three calls after a first
one, in milliseconds, with the options of the engine-equality test (``tests/analytics/engines.py``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _median_ms(call: Callable[[], object]) -> float:
    call()
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return 1000 * statistics.median(times)


def measure(root: Path, folder: Path, folder_too: bool) -> dict[str, dict[str, float]]:
    """Each view's times with the chatops of ``root`` (run in this process)."""
    sys.path.insert(0, str(root))
    from chatops import analytics
    from chatops.analytics import Dataset

    sys.path.insert(0, str(ROOT))
    from tests.analytics.engines import CALLS

    ds = Dataset(folder)
    f = ds.frames()
    out: dict[str, dict[str, float]] = {}
    for view, (options, takes) in CALLS.items():
        fn = getattr(analytics, view)
        frames = {n: getattr(f, n) for n in takes}
        out[view] = {"memory": _median_ms(lambda: fn(f.messages, **frames, **options))}  # noqa: B023
        if folder_too:
            out[view]["folder"] = _median_ms(lambda: fn(ds, **options, engine="duckdb"))  # noqa: B023
    return out


def _run(root: Path, folder: Path, folder_too: bool) -> dict[str, dict[str, float]]:
    args = [sys.executable, __file__, str(folder), "--measure", str(root)]
    done = subprocess.run(
        [*args, *(["--folder-too"] if folder_too else [])],
        check=True,
        capture_output=True,
        text=True,
        cwd=root,
    )
    result: dict[str, dict[str, float]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--before", type=Path, help="another checkout of chatops to compare with")
    ap.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--folder-too", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.folder, args.folder_too)))
        return
    now = _run(ROOT, args.folder, True)
    before = _run(args.before, args.folder, False) if args.before else None
    head = "| view | frames in memory | duckdb (the folder) |"
    rule = "| --- | ---: | ---: |"
    if before is not None:
        head = "| view | frames in memory, before | frames in memory | duckdb (the folder) |"
        rule = "| --- | ---: | ---: | ---: |"
    print(head)
    print(rule)
    totals = [0.0, 0.0, 0.0]
    for view, t in now.items():
        cells = [t["memory"], t["folder"]]
        if before is not None:
            cells.insert(0, before[view]["memory"])
        for i, c in enumerate(cells):
            totals[i] += c
        print(f"| {view} | " + " | ".join(f"{c:,.0f}" for c in cells) + " |")
    print("| all ten | " + " | ".join(f"{c:,.0f}" for c in totals[: len(cells)]) + " |")


if __name__ == "__main__":
    main()
