"""The explore notebook as an analyst sends it on: ``jupyter nbconvert --to chatops_html`` of
the committed notebook (one self-contained file), opened in Chromium at 1400x900.

What a reader must see is checked in the page: the ten figures drawn (images that loaded, at a
readable width, inside the page), the sync's last line rather than a widget's first text, every
figure with the coverage footnote in its caption text, nothing wider than the window, and no
request leaving the file (no CDN script: require.js, MathJax, the widgets' manager). With
``CHATOPS_SCREENSHOTS=docs/screenshots`` the page is also saved there, top and whole.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.hostile import outside_requests

from .conftest import screenshot

pytestmark = pytest.mark.slow

NOTEBOOK = Path(__file__).parents[2] / "notebooks" / "explore" / "organization.ipynb"
SHOTS = os.environ.get("CHATOPS_SCREENSHOTS", "")


@pytest.fixture(scope="module")
def page(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("render")
    # the exporter as an analyst runs it: jupyter nbconvert, by the name the package registers
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "jupyter",
            "nbconvert",
            "--to",
            "chatops_html",
            "--output-dir",
            str(folder),
            str(NOTEBOOK),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    path = folder / "organization.html"
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    p = context.new_page()
    p.requests = []
    p.on("request", lambda request: p.requests.append(request.url))
    p.goto(path.as_uri())
    p.wait_for_load_state("load")
    yield p
    context.close()


def test_the_rendered_notebook_loads_nothing_from_elsewhere(page: Any) -> None:
    assert outside_requests(page.requests) == []
    assert not page.evaluate("() => [...document.scripts].filter(s => s.src).map(s => s.src)")


def test_the_rendered_notebook_shows_ten_figures_at_a_readable_size(page: Any) -> None:
    figures = page.evaluate(
        """() => [...document.querySelectorAll('img')]
            .filter(i => i.src.startsWith('data:image/png'))
            .map(i => ({w: i.naturalWidth, h: i.naturalHeight, shown: i.getBoundingClientRect().width,
                        right: i.getBoundingClientRect().right}))"""
    )
    assert len(figures) >= 10, figures
    for f in figures:
        assert f["w"] > 0 and f["h"] > 0, f  # the image decoded
        assert f["shown"] >= 400, f  # drawn at a width a person reads
        assert f["right"] <= 1400, f  # inside the window
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 1400, width


def test_the_rendered_notebook_says_where_the_sync_ended(page: Any) -> None:
    text = page.inner_text("body")
    assert "0msg" not in text
    assert "sync: 100%" in text


def test_the_rendered_notebook_is_saved_for_the_readme(page: Any) -> None:
    path = screenshot(page, "explore-notebook")
    assert path.stat().st_size > 50_000  # a page of figures, not a blank one
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "explore-notebook-top.png"))
        page.screenshot(path=str(Path(SHOTS) / "explore-notebook.png"), full_page=True)
