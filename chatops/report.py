"""The report of one run: a page per audit, ``index.html``, ``summary.json`` and the trends.

``write_report`` is one readable sequence of named steps::

    findings  = read_findings(...)                     # <audit>/findings.csv of every audit
    previous  = previous_summary(run_dir)              # the last report in the same folder
    trends    = compare(findings, previous, ...)       # new, resolved, still open
    payload   = summary_payload(...)                   # summary.json, schema SCHEMA_VERSION
    index     = render_index(payload)                  # index.html

A finding's identity is its audit, its subject and its *kind*: the finding's text with every
number replaced by ``#`` (``no message in 93 days`` and ``no message in 94 days`` are the same
finding a day apart). See ``docs/report-schema.md``.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import html
import io
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "SCHEMA_VERSION",
    "Finding",
    "PostTarget",
    "finding_id",
    "finding_kind",
    "parse_post_target",
    "post_message",
    "read_findings",
    "render_audit_page",
    "write_report",
]

#: Version of the layout of ``summary.json``; raised when a field changes meaning or goes away.
SCHEMA_VERSION = 1
#: How many runs the counts over time keep.
HISTORY_LENGTH = 50
_REPR = re.compile(
    r"^\s*(<[\w.]+ (object )?at 0x[0-9a-f]+>|\w+\(.*\)|<Axes.*>|<Figure.*>|\{.*\}|\[.*\])\s*$", re.S
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_REMOTE_SCRIPT = re.compile(r"<script[^>]*\bsrc=[^>]*>\s*</script>", re.I)

Scrub = Callable[[str], str]


@dataclass(frozen=True)
class Finding:
    """One finding of one audit, as the report and the plans know it."""

    audit: str
    severity: str
    subject: str
    finding: str
    recommended_action: str
    api_call: str

    @property
    def kind(self) -> str:
        """The finding's text with its numbers replaced by ``#``."""
        return finding_kind(self.finding)

    @property
    def id(self) -> str:
        """Stable between runs: a digest of audit, subject and kind."""
        return finding_id(self.audit, self.subject, self.kind)

    def record(self) -> dict[str, str]:
        """The JSON form, with ``id`` and ``kind``."""
        return {"id": self.id, "kind": self.kind, **asdict(self)}


def finding_kind(text: str) -> str:
    """``"no message in 93 days (more than 90)"`` -> ``"no message in # days (more than #)"``."""
    return " ".join(_NUMBER.sub("#", text).split())


def finding_id(audit: str, subject: str, kind: str) -> str:
    """The identity of a finding between runs: 16 hex digits of audit, subject and kind."""
    return hashlib.sha256(f"{audit}\x1f{subject}\x1f{kind}".encode()).hexdigest()[:16]


def read_findings(audit: str, audit_dir: Path) -> list[Finding]:
    """The findings an audit notebook wrote to ``<audit_dir>/findings.csv`` (none when absent)."""
    path = audit_dir / "findings.csv"
    if not path.is_file():
        return []
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            Finding(
                audit=audit,
                severity=row.get("severity") or "",
                subject=row.get("subject") or "",
                finding=row.get("finding") or "",
                recommended_action=row.get("recommended_action") or "",
                api_call=row.get("api_call") or "",
            )
            for row in csv.DictReader(handle)
        ]


# -- audit pages ------------------------------------------------------------------------------


def render_audit_page(
    name: str,
    executed: Path | None,
    summary: Mapping[str, Any] | None,
    error: str | None,
    findings: Sequence[Finding],
    target: Path,
    scrub: Scrub,
) -> Path:
    """Write the reader's page of one audit: verdict, what to do, then tables and plots.

    The executed notebook is exported with its inputs hidden; plain-text reprs of objects
    (``AuditResult(...)``, ``<Axes ...>``, dicts) are left out, and so are errors' tracebacks
    and remote scripts, so the page reads offline as a report, not as code.
    """
    import nbformat
    from nbconvert import HTMLExporter

    if executed is not None and executed.is_file():
        nb = nbformat.read(str(executed), as_version=4)  # type: ignore[no-untyped-call]
    else:
        nb = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    nb.cells = _without_empty_sections([_reader_cell(c) for c in nb.cells if not _is_parameters(c)])
    head = _verdict_html(name, summary, error, findings, target.parent / name)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(head))  # type: ignore[no-untyped-call]
    nb.metadata["title"] = f"Audit: {name}"
    exporter = HTMLExporter(
        exclude_input=True, exclude_input_prompt=True, exclude_output_prompt=True
    )  # type: ignore[no-untyped-call]
    body, _ = exporter.from_notebook_node(nb)  # type: ignore[no-untyped-call]
    target.write_text(scrub(_REMOTE_SCRIPT.sub("", body)), encoding="utf-8")
    return target


def _without_empty_sections(cells: list[Any]) -> list[Any]:
    """Drop a ``##`` heading cell whose code cells, up to the next text cell, show nothing."""
    kept: list[Any] = []
    for i, cell in enumerate(cells):
        if cell.get("cell_type") == "markdown" and str(cell.get("source", "")).startswith("##"):
            following = []
            for later in cells[i + 1 :]:
                if later.get("cell_type") != "code":
                    break
                following.append(later)
            if not any(c.get("outputs") for c in following):
                continue
        kept.append(cell)
    return kept


def _is_parameters(cell: Any) -> bool:
    tags = cell.get("metadata", {}).get("tags", [])
    return bool(set(tags) & {"parameters", "injected-parameters"})


def _reader_cell(cell: Any) -> Any:
    if cell.get("cell_type") != "code":
        return cell
    kept = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "error" or (kind == "stream" and out.get("name") == "stderr"):
            continue
        data = out.get("data", {})
        if kind in ("execute_result", "display_data") and set(data) <= {"text/plain"}:
            if _REPR.match(str(data.get("text/plain", ""))) or kind == "execute_result":
                continue
        kept.append(out)
    cell["outputs"] = kept
    return cell


def _verdict_html(
    name: str,
    summary: Mapping[str, Any] | None,
    error: str | None,
    findings: Sequence[Finding],
    audit_dir: Path,
) -> str:
    e = html.escape
    parts = [
        '<p><a href="index.html">&larr; All audits of this run</a></p>',
        f"<h1>Audit: {e(name)}</h1>",
    ]
    if error is not None or summary is None:
        parts.append(
            '<div style="border-left:6px solid #777;padding:4px 12px;background:#f2f2f2">'
            f"<h2>Could not run</h2><p>{e(error or 'the audit wrote no summary')}</p></div>"
            "<h2>What to do</h2><p>Fix the cause above and run the audit again "
            f"(<code>chatops audit run {e(name)}</code>).</p>"
        )
        return "\n".join(parts)
    failed = list(summary.get("failed_checks") or [])
    limits = summary.get("thresholds") or {}
    critical = [f for f in findings if f.severity == "critical"]
    if failed:
        checks = "".join(
            f"<li><b>{e(c)}</b>: the limit is {e(_show(limits.get(c)))}</li>" for c in failed
        )
        values = "".join(f"<li>{e(f.finding)}</li>" for f in critical)
        parts.append(
            '<div style="border-left:6px solid #c62828;padding:4px 12px;background:#fdecea">'
            f"<h2>Threshold crossed</h2><ul>{checks}</ul>"
            + (f"<p>Found:</p><ul>{values}</ul>" if values else "")
            + "</div>"
        )
    else:
        parts.append(
            '<div style="border-left:6px solid #2e7d32;padding:4px 12px;background:#edf7ed">'
            "<h2>Passed</h2><p>No threshold was crossed"
            + (f" (limits: {e(_limits(limits))})" if _limits(limits) else "")
            + ".</p></div>"
        )
    parts.append("<h2>What to do</h2>")
    actions: dict[str, int] = {}
    for f in sorted(findings, key=lambda f: _SEVERITY_ORDER.get(f.severity, 9)):
        if f.recommended_action:
            actions[f.recommended_action] = actions.get(f.recommended_action, 0) + 1
    if actions:
        items = "".join(
            f"<li>{e(a)}" + (f" ({n} findings)" if n > 1 else "") + "</li>"
            for a, n in list(actions.items())[:8]
        )
        parts.append(
            f"<ul>{items}</ul><p>Each finding below names its API call; "
            "<code>chatops audit plan</code> writes them to a plan and "
            "<code>chatops audit apply</code> carries it out after confirmation.</p>"
        )
    else:
        parts.append("<p>Nothing: this audit has no findings.</p>")
    links = [f'<a href="{e(name)}/findings.csv">findings.csv</a>']
    tables = audit_dir / "tables"
    if tables.is_dir():
        links += [
            f'<a href="{e(name)}/tables/{e(p.name)}">{e(p.name)}</a>'
            for p in sorted(tables.glob("*.csv"))
        ]
    parts.append(f"<p>Download: {' · '.join(links)}</p>")
    counts = summary.get("counts") or {}
    if counts:
        parts.append(f"<p>Counts: {e(_counts(counts, 12))}</p>")
    return "\n".join(parts)


_SEVERITY_ORDER = {"critical": 0, "warning": 1, "info": 2}


def _show(value: Any) -> str:
    return "not set" if value is None else str(value)


def _limits(limits: Mapping[str, Any]) -> str:
    scalars = {k: v for k, v in limits.items() if not isinstance(v, list | dict)}
    return ", ".join(f"{k} {_show(v)}" for k, v in scalars.items())


def _counts(counts: Mapping[str, Any], limit: int = 4) -> str:
    shown = [(k, v) for k, v in counts.items() if k != "findings" and not isinstance(v, dict)]
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in shown[:limit])


# -- trends and summary.json ------------------------------------------------------------------


@dataclass(frozen=True)
class AuditOutcome:
    """What the report needs of one executed audit."""

    name: str
    status: str  # passed | threshold_crossed | error
    exit_code: int
    counts: Mapping[str, Any]
    failed_checks: Sequence[str]
    thresholds: Mapping[str, Any]
    error: str | None
    notebook: str | None
    html: str | None
    findings: Sequence[Finding]


def previous_summary(run_dir: Path) -> tuple[str, dict[str, Any]] | None:
    """The newest earlier run in the same report folder with a versioned summary.json."""
    earlier = sorted(
        (
            p
            for p in run_dir.parent.iterdir()
            if p.is_dir()
            and not p.is_symlink()
            and p.name < run_dir.name
            and not p.name.startswith(".")
            and p.name != "latest"
        ),
        key=lambda p: p.name,
        reverse=True,
    )
    for folder in earlier:
        try:
            data = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("schema_version"), int):
            return folder.name, data
    return None


def write_report(
    run_dir: Path, outcomes: Sequence[AuditOutcome], target: str, scrub: Scrub
) -> dict[str, Any]:
    """Write ``summary.json`` and ``index.html`` of a run; returns the summary."""
    previous = previous_summary(run_dir)
    payload = summary_payload(run_dir, outcomes, target, previous)
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    (run_dir / "summary.json").write_text(scrub(text), encoding="utf-8")
    (run_dir / "index.html").write_text(scrub(render_index(payload)), encoding="utf-8")
    return payload


def summary_payload(
    run_dir: Path,
    outcomes: Sequence[AuditOutcome],
    target: str,
    previous: tuple[str, dict[str, Any]] | None,
) -> dict[str, Any]:
    """The content of ``summary.json`` (see docs/report-schema.md)."""
    worst = max((o.exit_code for o in outcomes), default=0)
    prev_name, prev = previous if previous else (None, {})
    prev_audits: dict[str, Any] = prev.get("audits", {}) if prev else {}
    prev_findings = {f["id"]: f for f in prev.get("findings", [])} if prev else {}
    records: list[dict[str, Any]] = []
    resolved: list[dict[str, Any]] = []
    audits: dict[str, Any] = {}
    for o in outcomes:
        before = prev_audits.get(o.name)
        comparable = before is not None and before.get("status") != "error" and o.error is None
        ids = {f.id for f in o.findings}
        new = still = 0
        for f in o.findings:
            trend = "still_open" if comparable and f.id in prev_findings else "new"
            new += trend == "new"
            still += trend == "still_open"
            records.append({**f.record(), "trend": trend})
        gone = (
            [
                {**r, "trend": "resolved"}
                for r in prev_findings.values()
                if r.get("audit") == o.name and r["id"] not in ids
            ]
            if comparable
            else []
        )
        resolved += gone
        by_severity = {s: sum(f.severity == s for f in o.findings) for s in _SEVERITY_ORDER}
        audits[o.name] = {
            "status": o.status,
            "passed": None if o.status == "error" else o.status == "passed",
            "exit_code": o.exit_code,
            "counts": dict(o.counts),
            "failed_checks": list(o.failed_checks),
            "thresholds": dict(o.thresholds),
            "error": o.error,
            "findings": len(o.findings),
            "by_severity": by_severity,
            "notebook": o.notebook,
            "html": o.html,
            "findings_csv": f"{o.name}/findings.csv" if o.error is None else None,
            "trend": {
                "compared": comparable,
                "previous_status": before.get("status") if before else None,
                "new": new,
                "resolved": len(gone),
                "still_open": still,
            },
        }
    now = datetime.now(UTC).isoformat()
    counts = {
        "audits": len(outcomes),
        "passed": sum(o.status == "passed" for o in outcomes),
        "threshold_crossed": sum(o.status == "threshold_crossed" for o in outcomes),
        "error": sum(o.status == "error" for o in outcomes),
        "findings": len(records),
        "new": sum(r["trend"] == "new" for r in records),
        "resolved": len(resolved),
        "still_open": sum(r["trend"] == "still_open" for r in records),
    }
    point = {
        "run": run_dir.name,
        "generated_at": now,
        "exit_code": worst,
        "findings": counts["findings"],
        "new": counts["new"],
        "resolved": counts["resolved"],
        "audits": {o.name: len(o.findings) for o in outcomes},
    }
    history = [*(prev.get("history", []) if prev else []), point][-HISTORY_LENGTH:]
    return {
        "schema_version": SCHEMA_VERSION,
        "run": run_dir.name,
        "generated_at": now,
        "target": target,
        "verdict": _VERDICTS[worst],
        "passed": worst == 0,
        "exit_code": worst,
        "counts": counts,
        "previous_run": prev_name,
        "audits": audits,
        "findings": records,
        "resolved": resolved,
        "history": history,
    }


_VERDICTS = {0: "passed", 1: "threshold_crossed", 2: "error"}


def verdict_sentence(payload: Mapping[str, Any]) -> str:
    """``All 3 audits passed`` / ``Threshold crossed in 1 of 3 audits: bots`` / ..."""
    audits: Mapping[str, Any] = payload["audits"]
    total = len(audits)
    failed = [n for n, a in audits.items() if a["status"] == "error"]
    crossed = [n for n, a in audits.items() if a["status"] == "threshold_crossed"]
    parts = []
    if failed:
        parts.append(f"{len(failed)} of {total} audits could not run: {', '.join(failed)}")
    if crossed:
        parts.append(f"threshold crossed in {len(crossed)} of {total} audits: {', '.join(crossed)}")
    if not parts:
        return f"All {total} audits passed"
    text = "; ".join(parts)
    return text[0].upper() + text[1:]


def change_text(audit: Mapping[str, Any]) -> str:
    """``+2 new, 1 resolved, 3 still open (was passed)`` or ``first run``."""
    trend = audit["trend"]
    if not trend["compared"]:
        return "no previous run to compare" if trend["previous_status"] is None else "not compared"
    text = f"+{trend['new']} new, {trend['resolved']} resolved, {trend['still_open']} still open"
    if trend["previous_status"] != audit["status"]:
        text += f" (was {trend['previous_status'].replace('_', ' ')})"
    return text


_STATUS_TEXT = {
    "passed": "passed",
    "threshold_crossed": "threshold crossed",
    "error": "could not run",
}
_INDEX = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Audit report {{ p.run }}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto;
       max-width: 1200px; padding: 0 1em; color: #222; }
h1 { margin-bottom: .2em; } .sub { color: #555; margin-top: 0; }
.verdict { padding: .8em 1.2em; border-left: 8px solid; font-size: 1.25em; margin: 1em 0; }
.passed { border-color: #2e7d32; background: #edf7ed; }
.threshold_crossed { border-color: #c62828; background: #fdecea; }
.error { border-color: #555; background: #eee; }
table { border-collapse: collapse; margin: .5em 0 1.5em; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: .35em .6em; text-align: left;
         vertical-align: top; }
th { background: #f5f5f5; } .num { text-align: right; font-variant-numeric: tabular-nums; }
.tag { padding: .1em .5em; border-radius: .8em; font-size: .9em; white-space: nowrap; }
.tag.passed { background: #c8e6c9; } .tag.threshold_crossed { background: #ffcdd2; }
.tag.error { background: #ddd; } .muted { color: #666; }
</style></head><body>
<h1>Audit report</h1>
<p class="sub">{{ p.target }} · run {{ p.run }} · {{ p.generated_at[:19].replace("T", " ") }} UTC
 · exit status {{ p.exit_code }}</p>
<div class="verdict {{ p.verdict }}"><b>{{ verdict }}.</b>
{% if p.previous_run %}Since the previous run ({{ p.previous_run }}): {{ p.counts.new }} new,
{{ p.counts.resolved }} resolved, {{ p.counts.still_open }} still open.
{% else %}First report in this folder: nothing to compare with yet.{% endif %}</div>
<h2>Audits</h2>
<table><tr><th>Audit</th><th>Status</th><th>Key counts</th><th>Findings</th>
<th>Change since the last run</th><th>Data</th></tr>
{% for name, a in p.audits.items() %}<tr>
<td>{% if a.html %}<a href="{{ a.html }}">{{ name }}</a>{% else %}{{ name }}{% endif %}</td>
<td><span class="tag {{ a.status }}">{{ status_text[a.status] }}</span>
{% if a.failed_checks %}<br><span class="muted">{{ a.failed_checks | join(", ") }}</span>{% endif %}
{% if a.error %}<br><span class="muted">{{ a.error }}</span>{% endif %}</td>
<td>{{ counts(a.counts) }}</td>
<td class="num">{{ a.findings }}{% if a.by_severity.critical %}
 ({{ a.by_severity.critical }} critical){% endif %}</td>
<td>{{ change(a) }}</td>
<td>{% if a.findings_csv %}<a href="{{ a.findings_csv }}">findings.csv</a>{% endif %}</td>
</tr>{% endfor %}</table>
{% set new = p.findings | selectattr("trend", "equalto", "new") | list %}
<h2>New findings ({{ new | length }})</h2>
{% if new %}<table><tr><th>Audit</th><th>Severity</th><th>Subject</th><th>Finding</th>
<th>What to do</th></tr>{% for f in new %}<tr><td>{{ f.audit }}</td><td>{{ f.severity }}</td>
<td>{{ f.subject }}</td><td>{{ f.finding }}</td><td>{{ f.recommended_action }}</td></tr>
{% endfor %}</table>{% else %}<p class="muted">None.</p>{% endif %}
<h2>Resolved since the previous run ({{ p.resolved | length }})</h2>
{% if p.resolved %}<table><tr><th>Audit</th><th>Severity</th><th>Subject</th><th>Finding</th>
</tr>{% for f in p.resolved %}<tr><td>{{ f.audit }}</td><td>{{ f.severity }}</td>
<td>{{ f.subject }}</td><td>{{ f.finding }}</td></tr>{% endfor %}</table>
{% else %}<p class="muted">None.</p>{% endif %}
<h2>Findings over time</h2>
{% if plot %}<img alt="Findings per run" src="data:image/png;base64,{{ plot }}">{% endif %}
<table><tr><th>Audit</th>{% for h in history %}<th class="num">{{ stamp(h.run) }}</th>
{% endfor %}</tr>
{% for name in p.audits %}<tr><td>{{ name }}</td>{% for h in history %}
<td class="num">{{ h.audits.get(name, "") }}</td>{% endfor %}</tr>{% endfor %}
<tr><th>All findings</th>{% for h in history %}<th class="num">{{ h.findings }}</th>
{% endfor %}</tr></table>
<p class="muted">A finding is the same between runs when its audit, subject and kind (its text
with numbers replaced by #) are. Exit status: 0 passed, 1 threshold crossed, 2 could not run.
Machine-readable: <a href="summary.json">summary.json</a>.</p>
</body></html>
"""


def render_index(payload: Mapping[str, Any]) -> str:
    """``index.html``: the verdict, a line per audit, new and resolved findings, history."""
    import jinja2

    env = jinja2.Environment(autoescape=True)
    history = list(payload["history"])[-12:]
    return env.from_string(_INDEX).render(
        p=payload,
        verdict=verdict_sentence(payload),
        status_text=_STATUS_TEXT,
        counts=lambda c: _counts(c),
        change=change_text,
        history=history,
        stamp=_stamp,
        plot=_history_plot(history),
    )


def _stamp(run: str) -> str:
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
    labels = [_stamp(h["run"]) for h in history]
    ax.plot(labels, [h["findings"] for h in history], marker="o", label="open findings")
    ax.bar(labels, [h["new"] for h in history], alpha=0.4, label="new", color="#c62828")
    ax.set_ylim(bottom=0)
    ax.legend(loc="upper left", fontsize=8)
    ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


# -- posting the summary ----------------------------------------------------------------------


@dataclass(frozen=True)
class PostTarget:
    """Where ``--post-to`` sends the summary: a channel's topic or a direct message."""

    channel: str = ""
    topic: str = ""
    recipients: tuple[str, ...] = ()


def parse_post_target(text: str) -> PostTarget:
    """``channel:topic`` or ``dm:alice@x.org,bob@y.org``; ValueError when neither."""
    kind, sep, rest = text.partition(":")
    if not sep or not kind.strip() or not rest.strip():
        raise ValueError(
            f"--post-to {text!r} must be 'channel:topic' or 'dm:alice@example.org,...'"
        )
    if kind.strip() == "dm":
        people = tuple(p.strip() for p in rest.split(",") if p.strip())
        bad = [p for p in people if "@" not in p]
        if not people or bad:
            raise ValueError(f"--post-to {text!r}: give the email addresses of the recipients")
        return PostTarget(recipients=people)
    return PostTarget(channel=kind.strip(), topic=rest.strip())


def post_message(payload: Mapping[str, Any], run_dir: Path, report_url: str = "") -> str:
    """The short Markdown summary of a run: verdict, a line per audit, new findings, links."""
    base = report_url.rstrip("/") + "/" if report_url else ""
    index = run_dir / "index.html"

    def link(text: str, rel: str | None) -> str:
        return f"[{text}]({base}{rel})" if base and rel else text

    icon = {"passed": ":check:", "threshold_crossed": ":warning:", "error": ":cross_mark:"}
    counts = payload["counts"]
    lines = [
        f"**Audit report: {verdict_sentence(payload)}** ({payload['target']}, exit status "
        f"{payload['exit_code']})",
        "",
    ]
    for name, a in payload["audits"].items():
        detail = ", ".join(a["failed_checks"]) or (a["error"] or "")
        lines.append(
            f"- {icon.get(a['status'], '')} {link(name, a['html'])}: "
            f"{_STATUS_TEXT[a['status']]}{f' ({detail})' if detail else ''}; "
            f"{a['findings']} findings, +{a['trend']['new']} new"
        )
    lines += [
        "",
        f"New findings: {counts['new']} · resolved: {counts['resolved']} · "
        f"still open: {counts['still_open']}",
        "Report: " + (link("index.html", "index.html") if base else f"`{index}`"),
    ]
    return "\n".join(lines)
