"""``chatops report analytics`` against a real sandbox: one self-contained HTML file, every
name escaped, bad arguments refused before anything is written; and the pieces it is made of
(the period, the tables, the sentences' arguments) on known frames."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from chatops.analytics import Dataset
from chatops.analytics.report import (
    CSP,
    Period,
    build_report,
    readable,
    render_html,
    resolve_period,
    write_html,
)
from chatops.analytics.views import REGISTRY
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops, chatops_here

SCRIPT = "<script>alert(1)</script>"
PERSON = "<img src=x onerror=alert(2)>"


class Page(HTMLParser):
    """Every element of a page with its attributes, and the text of its style elements."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in_style = False
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        (self.styles if self._in_style else self.text).append(data)

    def all(self, tag: str) -> list[dict[str, str]]:
        return [a for t, a in self.tags if t == tag]


def outside_references(page: Page) -> list[str]:
    """Everything in the page that would make a browser ask for something: any ``src``,
    ``href``, ``srcset``, ``action``, ``data`` or ``poster`` not a ``data:`` URL or an anchor in
    the page, any script, link, frame or object element, any ``url(``/``@import`` in a style."""
    found = [
        t
        for t, _ in page.tags
        if t in ("script", "link", "iframe", "frame", "object", "embed", "base")
    ]
    for tag, attrs in page.tags:
        for name in ("src", "href", "srcset", "action", "data", "poster", "background"):
            value = attrs.get(name)
            if value is not None and not value.startswith(("data:", "#")):
                found.append(f"<{tag} {name}={value[:60]}>")
        style = attrs.get("style", "")
        if "url(" in style or "@import" in style:
            found.append(f"<{tag} style={style[:60]}>")
    for css in page.styles:
        if re.search(r"url\(|@import|//", css):
            found.append(f"style: {css[:60]}")
    return found


@pytest.fixture(scope="module")
def hostile_org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """The small demo organization with its busiest channel named ``<script>...`` and its
    busiest poster named ``<img src=x onerror=...>`` (written into the store, as a server that
    does not check names would hand them out)."""
    with Sandbox.start(tmp_path_factory.mktemp("report-org"), size="small", seed=5) as sb:
        owner = sb.accounts["owner"].user_id
        sb.store.execute("UPDATE streams SET name = ? WHERE name = ?", [SCRIPT, "general"])
        sb.store.execute("UPDATE users SET full_name = ? WHERE id = ?", [PERSON, owner])
        yield sb


@pytest.fixture(scope="module")
def written(
    hostile_org: Sandbox, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, Any]:
    """The report of the hostile organization written by the command: its folder, the file,
    and the finished process."""
    base = tmp_path_factory.mktemp("report")
    out = base / "out"
    out.mkdir()
    proc = chatops(
        "report", "analytics",
        "--zuliprc", str(hostile_org.zuliprc("admin")),
        "--cache", str(base / "cache"),
        "--out", str(out / "analytics.html"),
        "--no-progress",
    )  # fmt: skip
    return out, base / "cache", proc


def test_the_command_writes_one_self_contained_page(written: tuple[Path, Path, Any]) -> None:
    out, _, proc = written
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["analytics.html"]  # no temporary left
    path = out / "analytics.html"
    assert proc.stdout.strip() == str(path)
    assert os.stat(path).st_mode & 0o077 == 0  # it names people: its owner's to share
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    assert outside_references(page) == []
    assert not re.search(r"https?://|(?<![:\w])//\w", "".join(page.styles))
    (csp,) = [m for m in page.all("meta") if m.get("http-equiv") == "Content-Security-Policy"]
    assert csp["content"] == CSP and "default-src 'none'" in CSP
    figures = [i for i in page.all("img") if "view-figure" in i.get("class", "")]
    assert len(figures) == len(REGISTRY) == len(page.all("img"))
    assert all(i["src"].startswith("data:image/png;base64,") for i in figures)
    assert all(int(i["width"]) >= 400 for i in figures)
    # a title with the organization, the period and the time; the coverage note; each view
    body = " ".join(page.text)
    assert "Analytics: Chatops Demo" in body
    assert re.search(r"All messages: \d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d", body)
    assert re.search(r"generated \d{4}-\d\d-\d\d \d\d:\d\d UTC", body)
    assert "Whose messages this covers." in body and "admin@demo.chatops.test" in body
    for view in REGISTRY.values():
        assert view.title in body
    assert "could not be computed" not in body
    assert len(page.all("table")) == len(REGISTRY)
    # what changed against the week before, and who moved the most (messages over time)
    assert re.search(
        r"\d[\d,]* messages in the week of \d{4}-\d\d-\d\d, (up \d|down \d|the same as)", text
    )
    assert "Against the 7 days before the last 7:" in text
    assert re.search(r"(Fell|Rose) the most: |No channel, group or person changed", text)


def test_hostile_names_are_text(written: tuple[Path, Path, Any]) -> None:
    out, _, proc = written
    assert proc.returncode == 0, proc.stderr
    text = (out / "analytics.html").read_text(encoding="utf-8")
    page = Page(text)
    assert SCRIPT not in text and "<img src=x" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "&lt;img src=x onerror=alert(2)&gt;" in text
    body = " ".join(page.text)
    # the busiest channel and the busiest poster are in the sentences and the tables, as text
    assert f"#{SCRIPT} carries" in body
    assert PERSON in body
    assert page.all("script") == [] and all(i["src"].startswith("data:") for i in page.all("img"))
    assert not [a for _, a in page.tags if any(k.startswith("on") for k in a)]


def test_a_period_keeps_its_messages_and_says_its_days(written: tuple[Path, Path, Any]) -> None:
    _, cache, _ = written
    ds = Dataset(cache)
    stamps = ds.frames().messages["timestamp"]
    newest = stamps.max()
    report = build_report(ds, period="last-7-days", views=["channel_scorecard"], dpi=50)
    assert report.period.until == newest.to_pydatetime() + pd.Timedelta(microseconds=1)
    week = stamps[stamps >= newest - pd.Timedelta(days=7) + pd.Timedelta(microseconds=1)]
    assert report.messages == f"{len(week):,}" and 0 < len(week) < len(stamps)
    assert report.span == f"{newest - pd.Timedelta(days=7):%Y-%m-%d} to {newest:%Y-%m-%d}"
    since, until = "2026-01-01", datetime(2030, 1, 1, tzinfo=UTC)
    between = build_report(ds, since=since, until=until, views=["active_users"], dpi=50)
    assert between.messages == f"{len(stamps):,}"
    assert between.period.label == "2026-01-01 to 2029-12-31"


def test_an_interrupted_write_leaves_the_old_file(
    written: tuple[Path, Path, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, cache, _ = written
    report = build_report(Dataset(cache), views=["client_and_dm_mix"], dpi=50)
    path = tmp_path / "r.html"
    path.write_text("the report of last week")

    def interrupted(*_a: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_html(report, path)
    assert path.read_text() == "the report of last week"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--period", "last-8-days"], "--period"),
        (["--since", "last tuesday"], "not a date or time"),
        (["--period", "all", "--since", "2026-01-01"], "not both"),
        (["--since", "2026-02-01", "--until", "2026-01-01"], "is not before --until"),
        (["--out", "{tmp}/r.pdf"], "HTML page"),
        (["--notebook", "--out", "{tmp}/r.html"], ".ipynb"),
        (["--out", "{tmp}"], "is a folder"),
        (["--out", "{tmp}/missing-file/in/a/file.html"], None),
        (["--zuliprc", "{tmp}/nope"], "no such file"),
        (["--dataset", "{tmp}"], "holds no dataset"),
        (["--dataset", "{tmp}", "--cache", "{tmp}/c"], "nothing is synced"),
        (["--zuliprc", "x", "--dataset", "{tmp}"], "not allowed with"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(
    args: list[str], needle: str | None, tmp_path: Path
) -> None:
    (tmp_path / "missing-file").write_text("a file where a folder would be")
    before = sorted(tmp_path.rglob("*"))
    proc = chatops_here("report", "analytics", *[a.replace("{tmp}", str(tmp_path)) for a in args])
    _one_line_error(proc, *([needle] if needle else []))
    assert sorted(tmp_path.rglob("*")) == before
    assert not Path("analytics-report.html").exists()


# -- the pieces, on known frames --------------------------------------------------------------


def test_the_command_offers_the_periods_the_report_knows() -> None:
    from chatops.analytics.report import PERIODS
    from chatops.cli.report import PERIOD_NAMES

    assert PERIOD_NAMES == tuple(PERIODS)


def test_a_named_period_ends_with_the_newest_message() -> None:
    stamps = pd.Series(pd.to_datetime(["2026-01-01 00:00", "2026-03-10 12:00"], utc=True))
    p = resolve_period("last-30-days", None, None, stamps)
    assert p.until == datetime(2026, 3, 10, 12, 0, 0, 1, tzinfo=UTC)
    assert p.since == datetime(2026, 2, 8, 12, 0, 0, 1, tzinfo=UTC)
    assert p.days == 30 and p.label == "last 30 days of the data"
    assert resolve_period(None, None, None, stamps) == Period("all messages", None, None)
    with pytest.raises(ValueError, match="not before"):
        resolve_period(None, p.until, p.since, stamps)
    with pytest.raises(ValueError, match="not both"):
        resolve_period("all", p.since, None, stamps)
    with pytest.raises(ValueError, match="unknown period"):
        resolve_period("last-year", None, None, stamps)


def test_tables_read_as_words_names_and_rounded_numbers() -> None:
    users = pd.DataFrame({"user_id": [7, 9], "full_name": ["Ada <b>", "Bo"]})
    df = pd.DataFrame(
        {
            "source": pd.array([7, 9, 7], dtype="Int64"),
            "stream_id": [1, 2, 3],
            "share": [0.123456, 0.5, 0.376544],
            "change_pct": [12.3456, -3.0, None],
            "at": pd.to_datetime(["2026-11-28 22:40:37", "2026-11-27 01:02:03", None], utc=True),
            "day": pd.to_datetime(["2026-11-28", "2026-11-27", "2026-11-26"], utc=True),
            "channel": pd.Categorical(["a", "b", None]),
        }
    )
    out = readable(df, users, rows=2)
    assert list(out.columns) == ["source", "share (%)", "change (%)", "at", "day", "channel"]
    assert out["source"].tolist() == ["Ada <b>", "Bo"]
    assert out["share (%)"].tolist() == [12.3, 50.0]
    assert out["change (%)"].tolist() == [12.3, -3.0]
    assert out["at"].tolist() == ["2026-11-28 22:40 UTC", "2026-11-27 01:02 UTC"]
    assert out["day"].tolist() == ["2026-11-28", "2026-11-27"]


def test_a_failing_view_is_said_in_its_section_and_the_rest_is_drawn(
    written: tuple[Path, Path, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, cache, _ = written
    view = REGISTRY["active_users"]

    def broken(*_a: Any, **_k: Any) -> Any:
        raise RuntimeError("no <b>data</b>")

    monkeypatch.setitem(REGISTRY, "active_users", dataclasses.replace(view, function=broken))
    report = build_report(Dataset(cache), views=["active_users", "client_and_dm_mix"], dpi=50)
    failed, drawn = report.sections
    assert failed.error == "RuntimeError: no <b>data</b>" and failed.png == ""
    assert drawn.error is None and drawn.png and drawn.sentence
    html = render_html(report)
    assert "could not be computed: RuntimeError: no &lt;b&gt;data&lt;/b&gt;" in html


def test_a_sentence_gets_its_arguments_by_name(
    written: tuple[Path, Path, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, cache, _ = written
    seen: dict[str, Any] = {}

    def sentence(
        messages: pd.DataFrame, *, users: Any = None, days: int = 90, end: Any = None
    ) -> str:
        seen.update(messages=messages, users=users, days=days, end=end)
        return "said"

    def needs_more(result: Any, weather: str) -> str:
        return "never"

    view = REGISTRY["newcomer_cohorts"]
    monkeypatch.setitem(REGISTRY, view.name, dataclasses.replace(view, sentence=sentence))
    ds = Dataset(cache)
    stamps = ds.frames().messages["timestamp"]
    (section,) = build_report(ds, period="last-7-days", views=[view.name], dpi=50).sections
    assert section.sentence == "said" and seen["days"] == 7 and seen["users"] is not None
    # a dated sentence reads the history up to the period's end, not only the period
    assert len(seen["messages"]) == len(stamps) and seen["end"] == stamps.max()
    monkeypatch.setitem(REGISTRY, view.name, dataclasses.replace(view, sentence=needs_more))
    (section,) = build_report(ds, views=[view.name], dpi=50).sections
    assert section.sentence == "" and section.error is None and section.png


def test_the_notebook_for_schedules(written: tuple[Path, Path, Any], tmp_path: Path) -> None:
    """``--notebook`` executes notebooks/reports/analytics.ipynb with papermill: the same
    sections, each with its figure, and the page too when the notebook's ``out`` is set."""
    import nbformat

    _, cache, _ = written
    out = tmp_path / "weekly.ipynb"
    proc = chatops(
        "report", "analytics", "--notebook", "--dataset", str(cache), "--period", "last-30-days",
        "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["weekly.ipynb"]
    nb = nbformat.read(out, as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == len(REGISTRY)
    said = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "last 30 days of the data" in said and f"#{SCRIPT} carries" in said
    tables = "".join(o["data"].get("text/html", "") for o in outputs if "data" in o)
    assert "&lt;img src=x onerror=alert(2)&gt;" in tables and "<img src=x" not in tables


def test_a_period_without_messages_says_so(written: tuple[Path, Path, Any]) -> None:
    _, cache, _ = written
    report = build_report(
        Dataset(cache),
        since="2099-01-01",
        views=["active_users", "channel_scorecard", "newcomer_cohorts"],
        dpi=50,
    )
    assert report.messages == "0" and report.span == "2099-01-01 to the last message"
    active, channels, newcomers = report.sections
    assert [s.error for s in report.sections] == [None, None, None]
    # dated sentences do not report on the days before the period
    assert active.sentence == newcomers.sentence == "No messages in this period."
    # the period's channels only: none posted, so no quietest channel
    assert channels.sentence == "No channel messages."
