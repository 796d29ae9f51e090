"""The report's pages in Chromium, as an administrator reads them: headers in words, booleans
as marks, an empty table as a sentence, wide tables scrolling inside the page (never the page
itself), patterns and URLs on one line."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pandas as pd
import pytest

from chatops.audit.report.pages import SETUP_TAG, TABLE_MIME, render_audit_page
from chatops.audits._common import api, finding

from .conftest import screenshot

VIEWPORT = {"width": 1000, "height": 800}
LONG = "CVE-(?P<year>[0-9]{4})-(?P<num>[0-9]+)" * 2


def _output(frame: pd.DataFrame) -> Any:
    return nbformat.v4.new_output(  # type: ignore[no-untyped-call]
        "execute_result",
        data={TABLE_MIME: json.loads(frame.to_json(orient="table")), "text/html": "<table>"},
        execution_count=1,
    )


def _code(*outputs: Any, tags: tuple[str, ...] = ()) -> Any:
    cell = nbformat.v4.new_code_cell("result.tables['x']")  # type: ignore[no-untyped-call]
    cell.outputs = list(outputs)
    cell.metadata["tags"] = list(tags)
    return cell


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The linkifiers page of a run: a wide table of long patterns, an empty overlaps table."""
    run = tmp_path_factory.mktemp("run")
    wide = pd.DataFrame(
        {
            "id": [1, 2],
            "pattern": [LONG, "#(?P<id>[0-9]+)"],
            "url_template": ["https://cve.org/CVERecord?id=CVE-{year}-{num}" * 2, "https://x/{id}"],
            "compiles_re2": [True, False],
            "groups_match_template": [True, True],
            "problems": ["", "does not compile in RE2: invalid named capture group"],
            "hits": [3, 0],
            "lost_to_earlier": [0, 12],
        }
    ).set_index("id")
    overlaps = pd.DataFrame(columns=["winner_id", "winner_pattern", "loser_id", "lost_matches"])
    md = nbformat.v4.new_markdown_cell  # type: ignore[attr-defined]
    nb = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    nb.cells = [
        _code(tags=(SETUP_TAG,)),
        md("# Linkifiers"),
        md("## Linkifiers, in the order they apply"),
        _code(_output(wide)),
        md("## Overlaps\n\nWhere two linkifiers match overlapping text, the earlier one wins."),
        _code(_output(overlaps)),
    ]
    executed = run / "linkifiers.ipynb"
    nbformat.write(nb, str(executed))  # type: ignore[no-untyped-call]
    summary = {"name": "linkifiers", "passed": True, "failed_checks": [], "counts": {"hits": 3}}
    findings = [
        finding("warning", "linkifier 2", "does not compile", "Delete it", api("DELETE", "/x/2"))
    ]
    return render_audit_page(
        "linkifiers", executed, summary, None, findings, run / "linkifiers.html", lambda s: s
    )


@pytest.fixture()
def page(browser: Any, page_path: Path) -> Iterator[Any]:
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    tab.goto(page_path.as_uri())
    yield tab
    context.close()


def test_headers_are_words_and_booleans_marks(page: Any) -> None:
    headers = page.locator("th").all_inner_texts()
    assert headers[:4] == ["ID", "Pattern", "URL template", "Compiles in RE2"]
    assert "Lost to earlier" in headers and "Groups match template" in headers
    assert not [h for h in headers if "_" in h]
    column = headers.index("Compiles in RE2")
    marks = page.locator(f"tbody tr td:nth-child({column + 1})").all_inner_texts()
    assert marks == ["✓", "–"]
    assert "True" not in page.locator("table").first.inner_text()


def test_an_empty_table_is_a_sentence(page: Any) -> None:
    assert page.get_by_text("No overlaps.", exact=True).is_visible()
    assert page.locator("table").count() == 1  # the empty one is not drawn


def test_a_wide_table_scrolls_inside_the_page(page: Any) -> None:
    screenshot(page, "report-linkifiers")
    body = page.evaluate("document.documentElement.scrollWidth")
    assert body <= VIEWPORT["width"], f"the page is {body}px wide in a {VIEWPORT['width']}px window"
    wrapper = page.locator(".scroll").first
    inner, outer = wrapper.evaluate("e => [e.scrollWidth, e.clientWidth]")
    assert inner > outer  # the table is wider than the window: its box scrolls...
    wrapper.evaluate("e => e.scrollLeft = e.scrollWidth")
    assert page.get_by_role("columnheader", name="Lost to earlier").is_visible()  # ...to its end


def test_patterns_and_urls_stay_on_one_line(page: Any) -> None:
    for text in (LONG, "https://cve.org/CVERecord?id=CVE-{year}-{num}" * 2):
        cell = page.get_by_role("cell", name=text, exact=True)
        lines = cell.evaluate(
            "e => { const r = document.createRange(); r.selectNodeContents(e);"
            " return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }"
        )
        assert lines == 1, text


@pytest.mark.slow
def test_the_real_pages_read_as_the_index_does(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The linkifiers and channel_hygiene pages of a run on the demo organization."""
    from tests.test_report_trends import chatops_cli

    reports = tmp_path_factory.mktemp("reports")
    proc = chatops_cli(
        "audit", "run", "linkifiers", "channel_hygiene", "--report-dir", str(reports)
    )
    assert proc.returncode == 0, proc.stderr
    run = (reports / "latest").resolve()
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    try:
        for name, empty in (("linkifiers", "No overlaps."), ("channel_hygiene", "No findings.")):
            tab.goto((run / f"{name}.html").as_uri())
            screenshot(tab, f"report-real-{name}")
            width = tab.evaluate("document.documentElement.scrollWidth")
            assert width <= VIEWPORT["width"], f"{name}: the page is {width}px wide"
            headers = tab.locator("th").all_inner_texts()
            assert headers and not [h for h in headers if "_" in h], (name, headers)
            assert tab.get_by_text(empty, exact=True).is_visible(), name
            booleans = tab.locator("td", has_text=re.compile(r"^\s*(True|False)\s*$"))
            assert booleans.count() == 0, name  # marks, not words of Python
        tab.goto((run / "linkifiers.html").as_uri())
        assert "Lost to earlier" in tab.locator("th").all_inner_texts()
    finally:
        context.close()
