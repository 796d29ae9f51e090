"""Each view with engine="spark" in local mode beside engine="duckdb", and Spark on 1 and 2 cores.

    .venv/bin/python bench/synthetic_dataset.py /tmp/syn10m --messages 10000000
    .venv/bin/python bench/bench_spark.py /tmp/syn10m [--views ...] [--append bench/RESULTS.md]

Every run is a fresh Python process (a fresh JVM for Spark), with the options of the engine-
equality test (``tests/analytics/engines.py``). The time is the view call alone, measured inside
the child (Spark's session is started before it, and its start is reported apart). Spark's runs
are held to 1 or 2 CPUs (the process and its JVM, by CPU affinity), with ``local[1]`` or
``local[2]``: without it the JVM's collector and compiler threads use the second core of a
"1 core" run too. For Spark the
first call in a fresh JVM, and a second call in the same JVM, its code compiled. The peak is
the most memory the child and everything it started (Spark's JVM) held at once, sampled every
20 ms from ``/proc``, beside the kernel's own peak for the Python process (``wait4``; for DuckDB
that is the whole of it). Spark runs in its local mode as ``local_session(cores)`` starts it: the
driver's default heap, no web UI, ``max(4, 2 * cores)`` shuffle partitions, every other setting
Spark's own.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.analytics.engines import CALLS  # noqa: E402

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from chatops import analytics
from chatops.analytics import Dataset
from tests.analytics.engines import CALLS
view, engine, folder, cores = sys.argv[1:5]
options, takes = CALLS[view]
fn = getattr(analytics, view)
ds = Dataset(folder)
start = 0.0
if engine == "spark":
    import os
    # the process and the JVM it starts on the first ``cores`` CPUs only: Spark's own threads
    # (its collector's, its compiler's) then share those cores, as on a machine of that size
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[: int(cores)])
    from chatops.analytics.engines._spark import local_session
    t0 = time.perf_counter()
    local_session(int(cores))
    start = time.perf_counter() - t0
t0 = time.perf_counter()
r = fn(ds, **options, engine=engine)
seconds = time.perf_counter() - t0
warm = seconds
if engine == "spark":  # again in the same JVM, its code compiled
    t0 = time.perf_counter()
    fn(ds, **options, engine=engine)
    warm = time.perf_counter() - t0
print(json.dumps({{"seconds": seconds, "warm": warm, "start": start, "rows": len(r.frame)}}))
"""

#: a run still going then is stopped and reported as failed
LIMIT_S = 900.0


def _tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run(view: str, engine: str, folder: Path, cores: int) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(root=str(ROOT)), view, engine, str(folder), str(cores)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    assert proc.stdout is not None
    peak = [0]
    watched = psutil.Process(proc.pid)
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            try:
                peak[0] = max(peak[0], _tree_rss(watched))
            except psutil.Error:
                return
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    timer = threading.Timer(LIMIT_S, proc.kill)
    timer.start()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    done.set()
    timer.cancel()
    sampler.join()
    failed = os.waitstatus_to_exitcode(status) != 0
    result = {"tree_gb": peak[0] / 1024**3, "python_gb": usage.ru_maxrss / 1024**2}
    if failed:
        nan = float("nan")
        return result | {"seconds": nan, "warm": nan, "start": nan, "failed": 1.0}
    text = out.decode()
    got = json.loads(text[text.rindex("{") :])
    return result | {k: float(got[k]) for k in ("seconds", "warm", "start")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--views", nargs="*", default=list(CALLS))
    ap.add_argument("--append", type=Path)
    args = ap.parse_args()
    meta = json.loads((args.folder / "manifest.json").read_text())
    count = sum(f["rows"] for n in meta["narrows"].values() for f in n["files"])
    import pyspark

    lines = [
        f"\n## Views with engine=spark (local mode) beside engine=duckdb on {count:,} messages"
        f" (`bench/bench_spark.py`, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})\n",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores,"
        f" {psutil.virtual_memory().total / 1024**3:.0f} GB, Python {platform.python_version()},"
        f" pyspark {pyspark.__version__}, load average {os.getloadavg()[0]:.1f} at the start."
        " Time: the view call in a fresh process (Spark's session started before it);"
        " peak: the process and its JVM together, sampled. Spark's runs held to 1 or 2 CPUs"
        " (CPU affinity) with local[1] or local[2].\n",
        "| view | duckdb s | duckdb GB | spark 2 cores s (first / again) | spark 1 core s"
        " (first / again) | 1 -> 2 cores (again) | spark GB (2 cores, with JVM) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    print("\n".join(lines), flush=True)
    starts = []
    for view in args.views:
        duck = run(view, "duckdb", args.folder, 2)
        two = run(view, "spark", args.folder, 2)
        one = run(view, "spark", args.folder, 1)
        starts += [two["start"], one["start"]]
        line = (
            f"| {view} | {duck['seconds']:.1f} | {duck['tree_gb']:.2f} |"
            f" {two['seconds']:.1f} / {two['warm']:.1f} | {one['seconds']:.1f} / {one['warm']:.1f} |"
            f" {one['warm'] / two['warm']:.2f}x | {two['tree_gb']:.2f} |"
        )
        if any("failed" in r for r in (duck, two, one)):
            line += " (a run failed or was stopped)"
        print(line, flush=True)
        lines.append(line)
    lines.append(
        f"\nSpark's local session took {min(starts):.1f} to {max(starts):.1f} s to start"
        " (not in the times above)."
    )
    print(lines[-1], flush=True)
    if args.append:
        with args.append.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
