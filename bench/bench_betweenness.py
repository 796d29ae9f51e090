"""How far interaction_graph's betweenness estimate (64 sampled sources) is from the exact value.

    .venv/bin/python bench/bench_betweenness.py /tmp/syn1m [--seeds 0 1 2]

Past 300 people the view estimates betweenness from 64 sources drawn with ``seed`` (networkx's
``betweenness_centrality(k=64, seed=seed)`` estimate, computed by igraph). This script runs the
view with ``engine="duckdb"``, computes the exact betweenness of the same graph with igraph
(every source; O(people x links), minutes on millions of links) and prints, per seed: the
largest absolute error, the mean absolute error, the error relative to the largest exact value,
how many of the exact ten highest are among the estimate's ten highest, and the time of each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chatops import analytics  # noqa: E402
from chatops.analytics import Dataset  # noqa: E402
from chatops.analytics._igraph import igraph  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--seeds", type=int, nargs="*", default=[0])
    args = ap.parse_args()
    exact = None
    for seed in args.seeds:
        t0 = time.perf_counter()
        r = analytics.interaction_graph(Dataset(args.folder), seed=seed, engine="duckdb")
        view_s = time.perf_counter() - t0
        nodes = r.nodes.sort_values("user_id")
        got = nodes["betweenness"].to_numpy(float)
        if exact is None:
            ids = nodes["user_id"].astype("int64").to_numpy()
            at = {int(u): i for i, u in enumerate(ids)}
            edges = [(at[int(a)], at[int(b)]) for a, b in r.graph.edges()]
            t1 = time.perf_counter()
            n = len(ids)
            g = igraph().Graph(n=n, edges=edges)
            exact = 2 * np.asarray(g.betweenness(directed=False), float) / ((n - 1) * (n - 2))
            exact_s = time.perf_counter() - t1
            print(f"{n:,} people, {len(edges):,} links; exact betweenness {exact_s:.1f} s")
        err = np.abs(got - exact)
        top_exact = set(np.argsort(-exact)[:10])
        top_got = set(np.argsort(-got)[:10])
        print(
            f"seed {seed}: view {view_s:.1f} s; max abs error {err.max():.2e}, mean {err.mean():.2e}, "
            f"max error / max exact {err.max() / exact.max():.1%}; "
            f"top 10 shared {len(top_exact & top_got)}/10",
            flush=True,
        )


if __name__ == "__main__":
    main()
