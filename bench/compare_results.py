"""Save three views' results on a dataset, and later compare new results with the saved ones.

    .venv/bin/python bench/compare_results.py save /tmp/syn10m /tmp/i38-before
    .venv/bin/python bench/compare_results.py compare /tmp/syn10m /tmp/i38-before

``save`` runs ``topic_lifecycle``, ``interaction_graph`` and ``reactions_and_engagement`` with
``engine="duckdb"`` (the options of the engine-equality test, ``tests/analytics/engines.py``)
and pickles each result's frames, numbers and graphs (nodes and edges with their data, in
order). ``compare`` runs them again and checks that every
frame is equal to the saved one (values, dtypes, row order and index: ``assert_frame_equal``
with its exact defaults) and every number too; it prints one line per view and exits 1 when
any differs. Each view runs in its own process, so the peak of one is not another's.

A list that the view now bounds (``reactions_and_engagement``'s ``most_reacted``, the first
``most_reacted_limit`` messages) is compared with the first rows of the saved list, as many as
the new one holds; the line says so.
"""

from __future__ import annotations

import argparse
import math
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VIEWS = ("topic_lifecycle", "interaction_graph", "reactions_and_engagement")

#: frames a view now lists the first rows of: compared with the saved frame's first rows
BOUNDED = {("reactions_and_engagement", "most_reacted")}


def _result(view: str, folder: Path) -> dict[str, Any]:
    from chatops import analytics
    from chatops.analytics import Dataset
    from tests.analytics.engines import CALLS

    options, _ = CALLS[view]
    r = getattr(analytics, view)(Dataset(folder), **options, engine="duckdb")
    graphs = {}
    for name in ("graph", "channel_graph"):
        g = getattr(r, name, None)
        if g is not None:  # nodes and edges with their data, in the graph's own order
            graphs[name] = (list(g.nodes(data=True)), list(g.edges(data=True)))
    return {"frames": r.frames(), "summary": r.summary(), "graphs": graphs}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _differences(view: str, got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    import pandas as pd

    out = []
    if list(got["frames"]) != list(want["frames"]):
        out.append(f"frames {list(got['frames'])} != {list(want['frames'])}")
    for name, expected in want["frames"].items():
        if name not in got["frames"]:
            continue
        if (view, name) in BOUNDED:
            expected = expected.head(len(got["frames"][name]))
        try:
            pd.testing.assert_frame_equal(got["frames"][name], expected, obj=name)
        except AssertionError as e:
            out.append(f"{name}: {str(e).splitlines()[0]} ...")
    for name, (nodes, edges) in want.get("graphs", {}).items():
        got_nodes, got_edges = got["graphs"].get(name, ([], []))
        if got_nodes != nodes:
            out.append(f"{name}: nodes differ (or their order)")
        if got_edges != edges:
            out.append(f"{name}: edges differ (or their order, or weights)")
    for key, value in want["summary"].items():
        if not _same(got["summary"].get(key), value):
            out.append(f"{key}: {got['summary'].get(key)!r} != {value!r}")
    return out


def _child(mode: str, view: str, folder: Path, store: Path) -> int:
    result = _result(view, folder)
    path = store / f"{view}.pkl"
    if mode == "save":
        with path.open("wb") as fh:
            pickle.dump(result, fh)
        rows = {n: len(f) for n, f in result["frames"].items()}
        print(f"{view}: saved {rows}")
        return 0
    with path.open("rb") as fh:
        want = pickle.load(fh)
    diff = _differences(view, result, want)
    rows = sum(len(f) for f in want["frames"].values())
    if diff:
        print(f"{view}: DIFFERENT")
        for line in diff:
            print(f"  {line}")
        return 1
    numbers = len(want["summary"])
    graphs = "".join(
        f", {name} ({len(e):,} edges)" for name, (_, e) in want.get("graphs", {}).items()
    )
    bounded = "".join(
        f"; {name}: its {len(result['frames'][name]):,} rows equal the first of the saved "
        f"{len(want['frames'][name]):,}"
        for v, name in sorted(BOUNDED)
        if v == view and len(result["frames"][name]) < len(want["frames"][name])
    )
    print(
        f"{view}: equal ({len(want['frames'])} frames, {rows:,} rows, {numbers} numbers{graphs})"
        f"{bounded}"
    )
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=("save", "compare"))
    ap.add_argument("folder", type=Path, help="the dataset folder")
    ap.add_argument("store", type=Path, help="where the saved results are (or go)")
    ap.add_argument("--views", nargs="*", default=list(VIEWS), choices=VIEWS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        sys.exit(_child(args.mode, args.child, args.folder, args.store))
    args.store.mkdir(parents=True, exist_ok=True)
    failed = 0
    for view in args.views:
        cmd = [sys.executable, __file__, args.mode, str(args.folder), str(args.store)]
        failed |= subprocess.run([*cmd, "--child", view], check=False).returncode
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
