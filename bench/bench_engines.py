"""Each view's time and peak memory on a dataset folder, one process per view.

    .venv/bin/python bench/synthetic_dataset.py /tmp/syn10m --messages 10000000
    .venv/bin/python bench/bench_engines.py /tmp/syn10m [--engine duckdb] [--append bench/RESULTS.md]

Every view runs in a fresh Python process (so one view's memory is not another's), with the
options of the engine-equality test (``tests/analytics/engines.py``). The peak is the child's
maximum resident set size as the kernel reports it (``wait4``), imports included; the time is
the view call alone, measured inside the child. Targets: every view at or under 2 GB and 60 s.
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.analytics.engines import CALLS  # noqa: E402

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from chatops import analytics
from chatops.analytics import Dataset
from tests.analytics.engines import CALLS
view, engine, folder = sys.argv[1:4]
options, takes = CALLS[view]
fn = getattr(analytics, view)
ds = Dataset(folder)
t0 = time.perf_counter()
if engine == "duckdb":
    r = fn(ds, **options, engine="duckdb")
else:
    f = ds.frames()
    r = fn(f.messages, **{{n: getattr(f, n) for n in takes}}, **options)
print(json.dumps({{"seconds": time.perf_counter() - t0, "rows": len(r.frame)}}))
"""

TARGET_GB = 2.0
TARGET_S = 60.0
#: a view still running then is stopped and reported as over the limit
LIMIT_S = 900.0


def run(view: str, engine: str, folder: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(root=str(ROOT)), view, engine, str(folder)],
        stdout=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None
    timer = threading.Timer(LIMIT_S, proc.kill)
    timer.start()
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        return {"seconds": float("nan"), "peak_gb": usage.ru_maxrss / 1024**2, "failed": 1.0}
    # from the last "{": DuckDB may draw its progress bar on stdout before it, on the same line
    text = out.decode()
    got = json.loads(text[text.rindex("{") :])
    return {"seconds": float(got["seconds"]), "peak_gb": usage.ru_maxrss / 1024**2}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--engine", default="duckdb", choices=("duckdb", "pandas"))
    ap.add_argument("--views", nargs="*", default=list(CALLS))
    ap.add_argument("--append", type=Path)
    args = ap.parse_args()
    meta = json.loads((args.folder / "manifest.json").read_text())
    count = sum(f["rows"] for n in meta["narrows"].values() for f in n["files"])
    lines = [
        f"\n## Views with engine={args.engine} on {count:,} messages ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})\n",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()},"
        f" shared with other work (load average {os.getloadavg()[0]:.1f} at the start).",
        f"Targets: at most {TARGET_GB:g} GB peak and {TARGET_S:g} s per view.\n",
        "| view | seconds | peak RSS (GB) | within targets |",
        "| --- | ---: | ---: | --- |",
    ]
    print("\n".join(lines), flush=True)
    for view in args.views:
        r = run(view, args.engine, args.folder)
        ok = r["seconds"] <= TARGET_S and r["peak_gb"] <= TARGET_GB and "failed" not in r
        line = f"| {view} | {r['seconds']:.1f} | {r['peak_gb']:.2f} | {'yes' if ok else 'NO'} |"
        if "failed" in r:
            line += f" (failed or stopped after {LIMIT_S:g} s)"
        print(line, flush=True)
        lines.append(line)
    if args.append:
        with args.append.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
