"""Every view's time and peak memory as the history grows: 1M, 10M and 100M messages.

    .venv/bin/python bench/synthetic_dataset.py /tmp/syn1m --messages 1000000
    .venv/bin/python bench/synthetic_dataset.py /tmp/syn10m --messages 10000000
    .venv/bin/python bench/synthetic_dataset.py /tmp/syn100m --messages 100000000
    .venv/bin/python bench/bench_scale.py /tmp/syn1m /tmp/syn10m /tmp/syn100m [--views ...]
        [--append bench/RESULTS.md] [--json out.json]
    .venv/bin/python bench/bench_scale.py --from-json out.json --append bench/RESULTS.md

Each view runs with ``engine="duckdb"`` in a fresh Python process per dataset (as
``bench_engines.py`` runs it: the options of the engine-equality test, the peak as the kernel's
maximum resident set size of the child, imports included, the time of the view call alone).
Beside each view, the anchor: a fresh process that scans the same dataset's message ids and
times in DuckDB (the least any view does), so a view's time can be read against the machine's
speed at that moment; the load average is taken as each view starts. While a view runs, the
size of DuckDB's spill folder is sampled (the largest size seen is shown: DuckDB spills there
past its ``memory_limit``).

The table gives, per view, seconds and peak GB at each size, the growth factor from the
second-largest to the largest size (10M to 100M when run with the three), and the targets at
the largest size: at most 60 s, at most 2 GB, and a peak at most 1.5 times the peak at the
size before.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_engines import CALLS, LIMIT_S, ROOT, TARGET_GB, TARGET_S, run  # noqa: E402

#: the most the peak may grow from one size to the next (ten times the messages)
TARGET_GROWTH = 1.5

ANCHOR = """
import sys, time
import duckdb
from chatops.analytics import Dataset
files = [str(p) for p in Dataset(sys.argv[1])._files()]
t0 = time.perf_counter()
con = duckdb.connect()
con.execute("SET enable_progress_bar = false")
con.execute("SELECT sum(id), max(timestamp) FROM read_parquet(?)", [files]).fetchall()
print(time.perf_counter() - t0)
"""

SPILL = Path(tempfile.gettempdir()) / "chatops-duckdb"


def _folder_bytes(folder: Path) -> int:
    total = 0
    try:
        with os.scandir(folder) as it:
            for entry in it:
                try:
                    if entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
                    elif entry.is_dir(follow_symlinks=False):
                        total += _folder_bytes(Path(entry.path))
                except FileNotFoundError:
                    continue
    except FileNotFoundError:
        return 0
    return total


class SpillWatch:
    """The largest size of DuckDB's spill folder seen while it runs (sampled every 0.2 s)."""

    def __init__(self, folder: Path = SPILL) -> None:
        self.folder = folder
        self.start = _folder_bytes(folder)
        self.most = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            self.most = max(self.most, _folder_bytes(self.folder) - self.start)

    def __enter__(self) -> SpillWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def anchor(folder: Path) -> float:
    """Seconds of a bare DuckDB scan of the dataset's message ids and times, fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", ANCHOR, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    # the last word: DuckDB may draw its progress bar on the same line
    return float(out.stdout.split()[-1])


def messages_in(folder: Path) -> int:
    meta = json.loads((folder / "manifest.json").read_text())
    return int(sum(f["rows"] for n in meta["narrows"].values() for f in n["files"]))


def short(n: int) -> str:
    return f"{n / 1e6:g}M" if n >= 1_000_000 else f"{n:,}"


def measure(folders: list[Path], views: list[str]) -> dict[str, Any]:
    """Every view on every folder; the anchor and load average with each."""
    sizes: list[int] = []
    runs: dict[str, dict[str, dict[str, float]]] = {v: {} for v in views}
    anchors: dict[str, float] = {}
    for folder in folders:
        sizes.append(messages_in(folder))
        label = short(sizes[-1])
        anchors[label] = anchor(folder)
        print(f"{label}: anchor {anchors[label]:.2f} s", flush=True)
        for view in views:
            load = os.getloadavg()[0]
            with SpillWatch() as spill:
                r = run(view, "duckdb", folder)
            r["load"] = load
            r["spill_gb"] = spill.most / 1024**3
            runs[view][label] = r
            print(
                f"{label} {view}: {r['seconds']:.1f} s, {r['peak_gb']:.2f} GB, "
                f"spill {r['spill_gb']:.2f} GB, load {load:.1f}"
                + (" FAILED" if "failed" in r else ""),
                flush=True,
            )
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "sizes": [short(s) for s in sizes],
        "anchors": anchors,
        "runs": runs,
    }


def table(data: dict[str, Any]) -> list[str]:
    """The Markdown lines of the results: per view, each size, growth and targets."""
    sizes: list[str] = data["sizes"]
    last = sizes[-1]
    prev = sizes[-2] if len(sizes) > 1 else None
    head = ["view"] + [f"{s}: s / GB (load)" for s in sizes]
    if prev:
        head += [f"growth {prev}->{last}: time / peak"]
    head += [f"spill at {last} (GB)", f"targets at {last}"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for view, per in data["runs"].items():
        cells = [view]
        for s in sizes:
            r = per.get(s)
            cells.append(
                "-"
                if r is None
                else (
                    f"failed ({r['peak_gb']:.2f} GB)"
                    if "failed" in r
                    else f"{r['seconds']:.1f} / {r['peak_gb']:.2f} ({r['load']:.1f})"
                )
            )
        top = per.get(last)
        before = per.get(prev) if prev else None
        growth = None
        if prev:
            if top and before and "failed" not in top and "failed" not in before:
                growth = top["peak_gb"] / before["peak_gb"]
                cells.append(f"{top['seconds'] / before['seconds']:.1f}x / {growth:.2f}x")
            else:
                cells.append("-")
        cells.append("-" if top is None else f"{top['spill_gb']:.2f}")
        if top is None or "failed" in top:
            cells.append("NO (failed or stopped)")
        else:
            marks = [
                f"time {'yes' if top['seconds'] <= TARGET_S else 'NO'}",
                f"2 GB {'yes' if top['peak_gb'] <= TARGET_GB else 'NO'}",
            ]
            if growth is not None:
                marks.append(
                    f"peak x{TARGET_GROWTH:g} {'yes' if growth <= TARGET_GROWTH else 'NO'}"
                )
            cells.append(", ".join(marks))
        lines.append("| " + " | ".join(cells) + " |")
    anchors = ", ".join(f"{s}: {data['anchors'][s]:.2f} s" for s in sizes)
    lines += ["", f"Anchor (a bare DuckDB scan of ids and times, fresh process): {anchors}."]
    return lines


def merged(saved: list[dict[str, Any]]) -> dict[str, Any]:
    """Runs saved with ``--json`` as one (sizes in the order given; the first run's date and
    starting load, the last one's ending load)."""
    data: dict[str, Any] = {
        "date": saved[0]["date"],
        "sizes": [],
        "anchors": {},
        "runs": {},
        "load_start": saved[0]["load_start"],
        "load_end": saved[-1]["load_end"],
    }
    for one in saved:
        data["sizes"] += [s for s in one["sizes"] if s not in data["sizes"]]
        data["anchors"].update(one["anchors"])
        for view, per in one["runs"].items():
            data["runs"].setdefault(view, {}).update(per)
    return data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", type=Path, nargs="*", help="dataset folders, smallest first")
    ap.add_argument("--views", nargs="*", default=list(CALLS), choices=list(CALLS))
    ap.add_argument("--append", type=Path, help="append the table to this Markdown file")
    ap.add_argument("--json", type=Path, help="write the raw figures to this file")
    ap.add_argument(
        "--from-json",
        type=Path,
        nargs="*",
        help="measure nothing: the table of runs saved with --json (smallest sizes first)",
    )
    args = ap.parse_args()
    if args.from_json:
        data = merged([json.loads(p.read_text()) for p in args.from_json])
    else:
        start_load = os.getloadavg()
        data = measure(args.folders, args.views)
        data["load_start"], data["load_end"] = start_load, os.getloadavg()
    if args.json:
        args.json.write_text(json.dumps(data, indent=1))
    lines = [
        f"\n## Every view at {', '.join(data['sizes'])} messages, engine=duckdb "
        f"(`bench/bench_scale.py`, {data['date']})\n",
        f"Machine: {platform.node()} ({platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}); load average "
        f"{' / '.join(f'{x:.1f}' for x in data['load_start'])} (1/5/15 min) at the start, "
        f"{' / '.join(f'{x:.1f}' for x in data['load_end'])} at the end. One fresh process per "
        f"view and size; views stopped after {LIMIT_S:g} s. Targets at the largest size: "
        f"{TARGET_S:g} s, {TARGET_GB:g} GB, peak at most {TARGET_GROWTH:g}x the size before.\n",
        *table(data),
    ]
    print("\n".join(lines), flush=True)
    if args.append:
        with args.append.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
