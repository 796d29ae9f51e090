"""The report's HTML, from Jinja2 templates (``templates/`` beside this module): the index and
audit pages.

An audit page reads as the index does: the verdict, what to do, the counts, then the executed
notebook's text, tables and plots. Tables come from the data behind them (pandas' table schema,
``application/vnd.dataresource+json``, which the runner asks every notebook to emit), not from
pandas' HTML: headers are words, booleans are marks, an empty table is a sentence ("No
overlaps."), and a wide table scrolls inside the page rather than running off its edge.
"""

from __future__ import annotations

import base64
import io
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

from ..._files import write_private_text
from ...audits._result import Finding, Severity, Status
from .words import change_text, counts_text, verdict_sentence

__all__ = [
    "SETUP_TAG",
    "Table",
    "column_words",
    "render_audit_page",
    "render_index",
    "setup_cell_source",
    "table_from_resource",
]

#: The tag of the cell the runner puts first in every notebook it executes (not shown).
SETUP_TAG = "chatops-setup"
TABLE_MIME = "application/vnd.dataresource+json"
#: Rows of new, resolved or gone findings the index shows (all are in summary.json and CSVs).
INDEX_ROWS = 100
Scrub = Callable[[str], str]

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("chatops.audit.report", "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
#: Words for column names that splitting on ``_`` does not give.
_WORDS = {
    "id": "ID",
    "url": "URL",
    "api": "API",
    "re2": "RE2",
    "ms": "(ms)",
    "mb": "(MB)",
    "dm": "DM",
}
_HEADERS = {
    "recommended_action": "What to do",
    "api_call": "API call",
    "url_template": "URL template",
    "compiles_re2": "Compiles in RE2",
    "compiles_python": "Compiles in Python",
}
#: Columns whose values are patterns, templates, URLs or calls: never broken across lines.
_CODE = re.compile(r"pattern|url|template|api_call|regex|path", re.I)


def setup_cell_source() -> str:
    """What the runner runs before a notebook's first cell: pandas also emits its table schema."""
    return 'import pandas\npandas.set_option("display.html.table_schema", True)\ndel pandas'


def column_words(name: str) -> str:
    """``lost_to_earlier`` -> ``Lost to earlier``; ``url_template`` -> ``URL template``."""
    if name in _HEADERS:
        return _HEADERS[name]
    words = [_WORDS.get(w.lower(), w) for w in re.split(r"[_\s]+", str(name).strip()) if w]
    if not words:
        return ""
    first = words[0]
    words[0] = first if first.isupper() or first.startswith("(") else first.capitalize()
    return " ".join(words)


@dataclass(frozen=True)
class Header:
    name: str
    text: str
    kind: str  # num | mark | code | severity | text


@dataclass(frozen=True)
class Cell:
    kind: str
    text: str = ""
    value: bool = False


@dataclass
class Table:
    """A table as people read it: headers in words, typed cells, or a sentence when empty."""

    headers: list[Header]
    rows: list[list[Cell]]
    empty: str
    note: str = ""


_KINDS = {"integer": "num", "number": "num", "boolean": "mark"}


def table_from_resource(resource: Mapping[str, Any], empty: str) -> Table:
    """A :class:`Table` from pandas' table schema (``DataFrame.to_json(orient="table")``)."""
    schema = resource.get("schema") or {}
    fields = list(schema.get("fields") or [])
    data = list(resource.get("data") or [])
    keys = list(schema.get("primaryKey") or [])
    # an unnamed default index (0, 1, 2, ...) says nothing to a reader
    if keys == ["index"] and all(row.get("index") == i for i, row in enumerate(data)):
        fields = [f for f in fields if f.get("name") != "index"]
    headers: list[Header] = []
    for f in fields:
        name = str(f.get("name"))
        kind = _KINDS.get(str(f.get("type")), "text")
        if name == "severity":
            kind = "severity"
        elif kind == "text" and _CODE.search(name):
            kind = "code"
        headers.append(Header(name, column_words(name), kind))
    rows = [[_cell(h, row.get(h.name)) for h in headers] for row in data]
    return Table(headers, rows, empty)


def _cell(header: Header, value: Any) -> Cell:
    if value is None or value == "":
        return Cell("text" if header.kind != "num" else "num", "")
    if isinstance(value, bool) or header.kind == "mark":
        return Cell("mark", value=bool(value))
    if header.kind == "num" and isinstance(value, float):
        return Cell(
            "num", f"{value:,.3f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"
        )
    if header.kind == "num":
        return Cell("num", f"{value:,}" if isinstance(value, int) else str(value))
    text = str(value)
    if re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?", text):
        text = text[:16].replace("T", " ") + " UTC"
    if header.kind == "text" and len(text) <= 32:
        return Cell("short", text)
    return Cell(header.kind, text)


# -- audit pages ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    kind: str  # markdown | table | image | text
    html: str = ""
    table: Table | None = None
    data: str = ""
    alt: str = ""
    text: str = ""


@dataclass
class _Section:
    heading: Any
    blocks: list[Block] = field(default_factory=list)


def _empty_sentence(heading: str) -> str:
    """``## Overlaps`` -> ``No overlaps.``; ``## Linkifiers, in the order they apply`` ->
    ``No linkifiers.``"""
    words = re.sub(r"^#+\s*", "", heading.splitlines()[0] if heading else "").split(",")[0]
    words = words.strip().rstrip(".:")
    return f"No {words[0].lower() + words[1:]}." if words else "Nothing to show."


def notebook_blocks(cells: Sequence[Mapping[str, Any]]) -> list[Block]:
    """The reader's view of executed cells: text, tables, plots; no code, reprs or errors."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    sections: list[_Section] = [_Section(None)]
    heading = ""
    for cell in cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & {"parameters", "injected-parameters", SETUP_TAG}:
            continue
        source = "".join(cell.get("source", ""))
        if cell.get("cell_type") == "markdown":
            block = Block("markdown", html=md.render(source))
            if source.startswith("##"):
                heading = source
                sections.append(_Section(block))
            else:
                if source.startswith("#"):
                    heading = source
                sections[-1].blocks.append(block)
            continue
        for out in cell.get("outputs", []):
            shown = _output_block(out, heading)
            if shown is not None:
                sections[-1].blocks.append(shown)
    blocks: list[Block] = []
    for section in sections:
        # a section whose cells show nothing is left out, heading and all
        shows = any(b.kind != "markdown" for b in section.blocks)
        if section.heading is not None and not shows:
            continue
        if section.heading is not None:
            blocks.append(section.heading)
        blocks += section.blocks
    return blocks


def _output_block(out: Mapping[str, Any], heading: str) -> Block | None:
    kind = out.get("output_type")
    if kind == "stream":
        return (
            Block("text", text=str("".join(out.get("text", ""))))
            if out.get("name") == "stdout"
            else None
        )
    if kind not in ("execute_result", "display_data"):
        return None  # errors: the verdict says the audit could not run
    data = out.get("data", {})
    if TABLE_MIME in data:
        return Block("table", table=table_from_resource(data[TABLE_MIME], _empty_sentence(heading)))
    if "image/png" in data:
        png = (
            "".join(data["image/png"]) if isinstance(data["image/png"], list) else data["image/png"]
        )
        alt = column_words(re.sub(r"^#+\s*", "", heading.splitlines()[0])) if heading else "Plot"
        return Block("image", data=png.replace("\n", ""), alt=alt)
    if "text/markdown" in data:
        from markdown_it import MarkdownIt

        return Block(
            "markdown", html=MarkdownIt("commonmark").render("".join(data["text/markdown"]))
        )
    return None  # object reprs, dicts and plain values: the header shows what matters


def render_audit_page(
    name: str,
    executed: Path | None,
    summary: Mapping[str, Any] | None,
    error: str | None,
    findings: Sequence[Finding],
    target: Path,
    scrub: Scrub,
) -> Path:
    """Write the reader's page of one audit: verdict, what to do, then tables and plots."""
    import nbformat

    cells: list[Any] = []
    if executed is not None and executed.is_file():
        cells = list(nbformat.read(str(executed), as_version=4).cells)  # type: ignore[no-untyped-call]
    limits: Mapping[str, Any] = (summary or {}).get("thresholds") or {}
    actions: dict[str, int] = {}
    for f in sorted(findings, key=lambda f: f.severity.rank):
        if f.recommended_action:
            actions[f.recommended_action] = actions.get(f.recommended_action, 0) + 1
    audit_dir = target.parent / name
    downloads = [("findings.csv", f"{name}/findings.csv")]
    if (audit_dir / "tables").is_dir():
        downloads += [
            (p.name, f"{name}/tables/{p.name}")
            for p in sorted((audit_dir / "tables").glob("*.csv"))
        ]
    counts = [
        (column_words(k), f"{v:,}" if isinstance(v, int) else str(v))
        for k, v in ((summary or {}).get("counts") or {}).items()
        if not isinstance(v, dict | list)
    ]
    coverage = (summary or {}).get("coverage")
    html = _ENV.get_template("audit.html.j2").render(
        name=name,
        error=error if error is not None or summary is not None else "the audit wrote no summary",
        failed=list((summary or {}).get("failed_checks") or []),
        limits=limits,
        limit_text=", ".join(
            f"{k} {'not set' if v is None else '(none)' if v == '' else v}"
            for k, v in limits.items()
            if not isinstance(v, list | dict)
        ),
        critical=[f for f in findings if f.severity is Severity.CRITICAL],
        actions=list(actions.items())[:8],
        downloads=downloads,
        counts=counts,
        coverage=[(column_words(k), str(v)) for k, v in coverage.items()]
        if isinstance(coverage, dict)
        else [],
        blocks=notebook_blocks(cells),
    )
    write_private_text(target, scrub(html))
    return target


# -- the index --------------------------------------------------------------------------------


def render_index(payload: Mapping[str, Any]) -> str:
    """``index.html``: the verdict, a line per audit, new, resolved and gone findings, history."""
    history = list(payload["history"])[-12:]
    return _ENV.get_template("index.html.j2").render(
        p=payload,
        verdict=verdict_sentence(payload),
        status_text={s.value: s.text for s in Status},
        counts=counts_text,
        change=change_text,
        history=history,
        stamp=stamp,
        plot=_history_plot(history),
        limit=INDEX_ROWS,
    )


def stamp(run: str) -> str:
    """``20261123T111617Z`` -> ``11-23 11:16:17`` (run folders are UTC timestamps)."""
    match = re.match(r"\d{4}(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z(-\d+)?$", run)
    if not match:
        return run
    mo, d, h, mi, sec, n = match.groups()
    return f"{mo}-{d} {h}:{mi}:{sec}{n or ''}"


def _history_plot(history: Sequence[Mapping[str, Any]]) -> str | None:
    if len(history) < 2:
        return None
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 2.4), dpi=100)
    ax = fig.subplots()
    labels = [stamp(h["run"]) for h in history]
    ax.plot(labels, [h["findings"] for h in history], marker="o", label="open findings")
    ax.bar(labels, [h["new"] for h in history], alpha=0.4, label="new", color="#c62828")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left", fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")
