"""The explorer's filter-change latency on a dataset (medium by default).

    .venv/bin/python bench/bench_explorer.py DATASET_FOLDER [--append bench/RESULTS.md]

Opens an Explorer on the dataset, draws every view once (the first load), then for each view
opens its tab and changes each kind of filter in turn (a channel, the period "last 30 days",
one person, and the people search box typed into), clearing it after, timing each change: what
a person waits for (the view on screen is redrawn at a change; the others when their tab is
opened). Each time is the view's computation, its figure as PNG and its table. Target: at most
1 s. The machine is often shared: each change's CPU time (this process) is given beside its
wall time, and an anchor (a fixed piece of Python arithmetic) is timed at the start and the
end of the run, so that a run can be compared with another by its ratio to the anchor.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("agg")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chatops.widgets.explorer import VIEWS, Explorer  # noqa: E402

TARGET_S = 1.0


def anchor() -> float:
    """Seconds of a fixed piece of arithmetic (the run's yardstick)."""
    t = time.perf_counter()
    sum(i * i % 7 for i in range(3_000_000))
    return time.perf_counter() - t


def timed(change: object) -> tuple[float, float]:
    """Wall and CPU seconds of ``change()``."""
    t, c = time.perf_counter(), time.process_time()
    change()  # type: ignore[operator]
    return time.perf_counter() - t, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--append", type=Path)
    ap.add_argument("--views", nargs="*", default=list(VIEWS), help="default: all ten")
    args = ap.parse_args()
    yard = [anchor()]
    t0 = time.perf_counter()
    ex = Explorer(args.folder, export_dir=Path("/tmp/chatops-bench-exports"))
    ex.render_all()
    first = time.perf_counter() - t0
    channel = str(ex.frames.messages["channel"].value_counts().index[1])
    users = ex.frames.users.set_index("user_id")
    person = str(
        users.loc[int(ex.frames.messages["sender_id"].value_counts().index[0]), "full_name"]
    )
    word = person.split()[0][:3]

    def setter(widget: object, value: object) -> object:
        return lambda: setattr(widget, "value", value)

    kinds = {
        "channel": (setter(ex.channels, (channel,)), setter(ex.channels, ())),
        "period": (setter(ex.period, "last 30 days"), setter(ex.period, "all")),
        "person": (setter(ex.people, (person,)), setter(ex.people, ())),
        "search": (setter(ex.people_search, word), setter(ex.people_search, "")),
    }
    load = os.getloadavg()[0]
    rows = []
    for name in args.views:
        ex.tabs.selected_index = list(VIEWS).index(name)
        cells = []
        for set_it, clear in kinds.values():
            wall, cpu = timed(set_it)
            assert ex._drawn[name] == ex.state(), name
            back, _ = timed(clear)
            cells.append((wall, cpu, back))
        rows.append((name, cells))
        print(name, [f"{w:.2f}/{c:.2f}/{b:.2f}" for w, c, b in cells], flush=True)
    yard.append(anchor())
    unit = statistics.mean(yard)
    lines = [
        f"\n## Explorer filter changes, every view ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})\n",
        f"Dataset: {ex.dataset.message_count:,} messages ({args.folder.name}); machine: "
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; load "
        f"average {load:.1f} when the changes began and {os.getloadavg()[0]:.1f} at the end. First "
        f"load (frames and all ten views): {first:.1f} s. Anchor (fixed arithmetic): "
        f"{yard[0]:.3f} s at the start, {yard[1]:.3f} s at the end.",
        f"Each view on screen, each filter set (a channel: #{channel}; the period last 30 days; "
        "one person; a name typed in the people search box) then cleared. Cells: wall seconds of "
        "the change / CPU seconds of this process / wall seconds of clearing it (the kept "
        f"drawing shown again). Target: at most {TARGET_S:g} s.\n",
        "| view | " + " | ".join(kinds) + " | worst wall / anchor | within target (wall) |",
        "| --- | " + " | ".join("---:" for _ in kinds) + " | ---: | --- |",
    ]
    for name, cells in rows:
        worst = max(max(w, b) for w, _, b in cells)
        lines.append(
            f"| {name} | "
            + " | ".join(f"{w:.2f} / {c:.2f} / {b:.2f}" for w, c, b in cells)
            + f" | {worst / unit:.1f} | {'yes' if worst <= TARGET_S else 'NO'} |"
        )
    print("\n".join(lines), flush=True)
    if args.append:
        with args.append.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
