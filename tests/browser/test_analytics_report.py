"""The analytics report of the medium demo organization (``chatops report analytics``) opened
in Debian's Chromium from its file: every figure drawn and at least 400 px wide, nothing
requested but the file itself, and the page printed to PDF.

With ``CHATOPS_SCREENSHOTS=docs/screenshots`` (``docs/screenshots/take.sh``) the top of the
report and one figure's section are saved there as ``analytics-report-*.png``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chatops.analytics.views import REGISTRY
from chatops.sandbox import Sandbox
from tests.test_cli import chatops

from .conftest import ARTIFACTS

pytestmark = pytest.mark.slow

SHOTS = os.environ.get("CHATOPS_SCREENSHOTS", "")
VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report of the medium demo organization, written once for the module by the command
    (synced as its administrator)."""
    base = tmp_path_factory.mktemp("analytics-report")
    with Sandbox.start(base / "org", size="medium", seed=1) as sb:
        proc = chatops(
            "report", "analytics",
            "--zuliprc", str(sb.zuliprc("admin")),
            "--cache", str(base / "cache"),
            "--out", str(base / "analytics.html"),
            "--no-progress",
            timeout=900,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return base / "analytics.html"


@pytest.fixture(scope="module")
def opened(browser: Any, report_file: Path) -> Iterator[tuple[Any, list[str]]]:
    """The report open in a 1280x900 page, and every URL the page requested."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(report_file.as_uri())
    page.wait_for_load_state("networkidle")
    yield page, requested
    context.close()


def test_every_figure_is_drawn_at_least_400_px_wide(opened: tuple[Any, list[str]]) -> None:
    page, _ = opened
    figures = page.locator("img.view-figure")
    assert figures.count() == len(REGISTRY)
    for i in range(figures.count()):
        figure = figures.nth(i)
        figure.scroll_into_view_if_needed()
        assert figure.is_visible()
        box = figure.bounding_box()
        assert box is not None and box["width"] >= 400 and box["height"] > 100, box
        natural = figure.evaluate("img => [img.complete, img.naturalWidth, img.naturalHeight]")
        assert natural[0] and natural[1] >= 2 * 400 and natural[2] > 0, natural
    assert page.get_by_text("could not be computed").count() == 0
    page.evaluate("window.scrollTo(0, 0)")
    top = shot(page, "analytics-report-top")
    assert top.stat().st_size > 10_000
    section = page.locator("section#channel_scorecard")
    section.scroll_into_view_if_needed()
    figure_shot = shot(section, "analytics-report-figure")
    assert figure_shot.stat().st_size > 10_000


def test_nothing_is_requested_but_the_file(
    opened: tuple[Any, list[str]], report_file: Path
) -> None:
    page, requested = opened
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_timeout(300)
    assert report_file.as_uri() in requested
    elsewhere = [u for u in requested if u != report_file.as_uri() and not u.startswith("data:")]
    assert elsewhere == []


def test_the_page_prints(opened: tuple[Any, list[str]], tmp_path: Path) -> None:
    page, _ = opened
    page.emulate_media(media="print")
    try:
        # figures and table rows are kept whole on a page, on white
        breaks = page.locator("figure").first.evaluate("f => getComputedStyle(f).breakInside")
        assert breaks == "avoid-page"
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert background in ("rgba(0, 0, 0, 0)", "rgb(255, 255, 255)")
        assert page.locator("nav.contents").is_hidden()
    finally:
        page.emulate_media(media="screen")
    pdf = page.pdf(format="A4", print_background=False)
    assert pdf.startswith(b"%PDF-")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert pages >= 1
    (tmp_path / "analytics.pdf").write_bytes(pdf)


def shot(target: Any, name: str) -> Path:
    """A screenshot of what a page shows or of one element: a test artifact, and in
    ``CHATOPS_SCREENSHOTS`` when set."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    target.screenshot(path=str(path))
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        (Path(SHOTS) / f"{name}.png").write_bytes(path.read_bytes())
    return path
