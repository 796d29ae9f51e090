"""The analytics report of a demo organization (medium by default): ``chatops report analytics``.

The sandbox serves the organization from a process of its own (``chatops sandbox serve``, as
``bench_dataset.py`` starts it; generated into ``bench/.data/SIZE`` the first time), and
the command runs as a user would run it, in a fresh interpreter each time::

    .venv/bin/python bench/bench_report.py [--size medium] [--rounds 2] [--append bench/RESULTS.md]

Measures, wall seconds of the whole command (start-up, imports, sync, views, figures, page):
1. cold: ``--zuliprc`` into an empty cache (the sync included);
2. synced: ``--zuliprc`` again over the cache the cold run left (a re-sync finding nothing new);
3. dataset: ``--dataset`` over that cache (no server, no sync);
and, in the same run, the anchor: the ten views computed and drawn once at screen resolution
(100 dpi, what the explorer's first load does) in this process over the same dataset, so the
ratio of (3) to it is the report's own cost (figures at 2x, tables, the page, start-up).
Target: the report of the medium organization within 60 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import matplotlib

matplotlib.use("agg")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_dataset import serve  # noqa: E402
from chatops.analytics import Dataset  # noqa: E402
from chatops.analytics.report import compute_sections, resolve_period  # noqa: E402

TARGET_S = 60.0


def command(*args: str) -> float:
    """Seconds ``chatops report analytics ARGS`` takes, in a fresh interpreter."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "chatops.cli", "report", "analytics", "--no-progress", *args],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def anchor(cache: Path) -> float:
    """Seconds to read the frames and compute and draw the ten views at 100 dpi, in-process."""
    started = time.perf_counter()
    frames = Dataset(cache).frames()
    period = resolve_period(None, None, None, frames.messages["timestamp"])
    compute_sections(frames, period, dpi=100)
    return time.perf_counter() - started


def run_rounds(
    zuliprc: Path, tmp: Path, rounds: int, rows: dict[str, list[float]]
) -> tuple[int, int]:
    """Each round: cold, synced and ``--dataset`` runs of the command, then the anchor; returns
    the page's size in bytes and the dataset's messages."""
    rc, size, messages = str(zuliprc), 0, 0
    for i in range(rounds):
        cache, out = tmp / f"cache-{i}", tmp / f"report-{i}.html"
        rows["cold"].append(command("--zuliprc", rc, "--cache", str(cache), "--out", str(out)))
        rows["synced"].append(command("--zuliprc", rc, "--cache", str(cache), "--out", str(out)))
        rows["dataset"].append(command("--dataset", str(cache), "--out", str(out)))
        rows["anchor"].append(anchor(cache))
        messages = Dataset(cache).message_count
        size = out.stat().st_size
        shutil.rmtree(cache)
    return size, messages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="medium")
    ap.add_argument("--data", type=Path, help="sandbox folder (default bench/.data/SIZE)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--append", type=Path)
    args = ap.parse_args()
    data = args.data or Path(__file__).resolve().parent / ".data" / args.size
    load = os.getloadavg()[0]
    rows: dict[str, list[float]] = {"cold": [], "synced": [], "dataset": [], "anchor": []}
    server, _site = serve(data, args.size)
    try:
        with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
            size, messages = run_rounds(
                data / "zuliprc" / "admin.zuliprc", Path(tmp), args.rounds, rows
            )
    finally:
        server.terminate()
        server.wait()
    best = {k: min(v) for k, v in rows.items()}
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"\n## The analytics report, `{args.size}` organization (`bench/bench_report.py`), {stamp}\n",
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load average {load:.1f} at the start (the machine was shared with other work). "
        f"{messages:,} messages; the page is {size / 1e6:.1f} MB. Best of {args.rounds} rounds "
        f"(all: {', '.join(f'{k} ' + '/'.join(f'{x:.1f}' for x in v) for k, v in rows.items())} s). "
        f"Target: {TARGET_S:g} s.\n",
        "| measure | seconds | within target |",
        "| --- | ---: | --- |",
        f"| cold: `--zuliprc`, empty cache (sync included) | {best['cold']:.1f} | "
        f"{'yes' if best['cold'] <= TARGET_S else 'NO'} |",
        f"| synced: `--zuliprc` again (re-sync, nothing new) | {best['synced']:.1f} | "
        f"{'yes' if best['synced'] <= TARGET_S else 'NO'} |",
        f"| `--dataset` (no sync) | {best['dataset']:.1f} | "
        f"{'yes' if best['dataset'] <= TARGET_S else 'NO'} |",
        f"| anchor: frames and the ten views at 100 dpi, in-process | {best['anchor']:.1f} | |",
        f"| **ratio** `--dataset` / anchor | **{best['dataset'] / best['anchor']:.2f}** | |",
    ]
    print("\n".join(lines), flush=True)
    if args.append:
        with args.append.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
