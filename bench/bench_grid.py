"""How fast the panels' grid answers in the browser: sort by a column and search, on the
Invitations panel over 3,000 invitations and on a grid of 10,000 rows, in JupyterLab in
Debian's Chromium at 1400x900 (``chatops lab`` on a sandbox, as ``tests/browser/test_grid.py``).

Each figure is measured in the page (``performance.now()``), from the click on a header (or the
search text typed) to the grid's rows replaced (drawn) and to the next frame (painted): what an
admin waits. Sorts alternate ascending and descending on one column; searches alternate between
a term matching one row and an empty search (every row back). Medians and the worst of
``--repeat`` rounds. Target: under 200 ms on 3,000 rows.

    PYTHONPATH=. .venv/bin/python bench/bench_grid.py [--rows 3000] [--big 10000] [--repeat 10]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_invitations import machine  # noqa: E402

from chatops.sandbox import Sandbox  # noqa: E402
from tests.browser.conftest import CHROMIUM_FLAGS, chromium_path, running_lab  # noqa: E402
from tests.browser.grid_page import (  # noqa: E402
    BIG,
    INVITATIONS,
    SEARCH_JS,
    SORT_JS,
    info,
    invite_many,
    open_grid_page,
    write_notebook,
)


def measure(page: object, js: str, args_list: list[list[str]], repeat: int) -> list[float]:
    """Painted milliseconds of each run of ``js``, cycling through ``args_list``."""
    times: list[float] = []
    for i in range(repeat):
        result = page.evaluate(js, args_list[i % len(args_list)])  # type: ignore[attr-defined]
        if result["painted"] < 0:
            raise RuntimeError(f"the grid did not redraw within 10 s: {args_list[i % 2]}")
        times.append(float(result["painted"]))
    return times


def line(what: str, times: list[float]) -> str:
    """Median, worst and which run the worst was, then every run (the first sort of a column
    builds DataTables' sort cache, so it is shown apart)."""
    worst = max(range(len(times)), key=times.__getitem__)
    every = " ".join(f"{t:.0f}" for t in times)
    return (
        f"{what}: median {statistics.median(times):.0f} ms, worst {times[worst]:.0f} ms "
        f"(run {worst + 1} of {len(times)}; first {times[0]:.0f} ms; runs: {every})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=3000, help="invitations in the panel")
    parser.add_argument("--big", type=int, default=10_000, help="rows of the plain grid")
    parser.add_argument("--repeat", type=int, default=10, help="sorts and searches each")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    print(machine())
    print(f"date {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp, Sandbox.start(Path(tmp) / "org") as sandbox:
        invite_many(sandbox, args.rows)
        with running_lab(Path(tmp), sandbox) as lab, sync_playwright() as p:
            write_notebook(lab, big_rows=args.big)
            browser = p.chromium.launch(
                executable_path=chromium_path(), headless=True, args=CHROMIUM_FLAGS
            )
            context, page = open_grid_page(browser, lab)
            page.locator(INVITATIONS).scroll_into_view_if_needed()
            print(f"invitations grid: {info(page, INVITATIONS)}")
            sort = measure(page, SORT_JS, [[INVITATIONS, "email or link"]], args.repeat)
            search = measure(
                page, SEARCH_JS, [[INVITATIONS, "grid01234"], [INVITATIONS, ""]], args.repeat
            )
            print(line(f"sort {args.rows:,} invitations by address", sort))
            print(line(f"search {args.rows:,} invitations", search))
            page.locator(BIG).scroll_into_view_if_needed()
            print(f"big grid: {info(page, BIG)}")
            big_sort = measure(page, SORT_JS, [[BIG, "email"]], args.repeat)
            big_search = measure(page, SEARCH_JS, [[BIG, '"person 09999"'], [BIG, ""]], args.repeat)
            print(line(f"sort {args.big:,} rows by email", big_sort))
            print(line(f"search {args.big:,} rows", big_search))
            print(f"load average after {os.getloadavg()}")
            context.close()
            browser.close()


if __name__ == "__main__":
    main()
