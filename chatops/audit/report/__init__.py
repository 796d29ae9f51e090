"""The report of one run: a page per audit, ``index.html``, ``summary.json`` and the trends.

``write_report`` is one readable sequence of named steps::

    previous  = previous_summary(run_dir)              # the last report in the same folder
    payload   = summary_payload(run_dir, runs, ...)    # summary.json (summary.py), compared
    index     = render_index(payload)                  # index.html (pages.py, templates/)

Each audit's page is written as its notebook finishes (``pages.render_audit_page``); the
summary a run posts (``--post-to``) is ``post.post_message``. See ``docs/report-schema.md``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..._files import write_private_text
from ...audits._result import Finding, finding_id, finding_kind, read_finding_lines
from ..outcome import AuditRun
from .pages import render_audit_page, render_index
from .post import PostTarget, parse_post_target, post_message
from .summary import HISTORY_LENGTH, SCHEMA_VERSION, previous_summary, summary_payload
from .words import change_text, verdict_sentence

__all__ = [
    "HISTORY_LENGTH",
    "SCHEMA_VERSION",
    "Finding",
    "PostTarget",
    "change_text",
    "finding_id",
    "finding_kind",
    "parse_post_target",
    "post_message",
    "previous_summary",
    "read_findings",
    "render_audit_page",
    "render_index",
    "summary_payload",
    "verdict_sentence",
    "write_report",
]

Scrub = Callable[[str], str]


def read_findings(audit: str, audit_dir: Path) -> list[Finding]:
    """The findings an audit notebook wrote to ``<audit_dir>/findings.jsonl`` (none when absent)."""
    return read_finding_lines(audit_dir / "findings.jsonl", audit)


def write_report(
    run_dir: Path, runs: Sequence[AuditRun], target: str, scrub: Scrub
) -> dict[str, Any]:
    """Write ``summary.json`` and ``index.html`` of a run; returns the summary."""
    payload = summary_payload(run_dir, runs, target, previous_summary(run_dir))
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    write_private_text(run_dir / "summary.json", scrub(text))
    write_private_text(run_dir / "index.html", scrub(render_index(payload)))
    return payload
