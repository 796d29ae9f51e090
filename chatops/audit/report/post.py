"""The short summary a run posts to a channel or in direct messages (``--post-to``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...audits._result import Status
from .words import STATUS_TEXT, verdict_sentence

__all__ = ["PostTarget", "parse_post_target", "post_message"]


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

    icon = {
        Status.PASSED: ":check:",
        Status.THRESHOLD_CROSSED: ":warning:",
        Status.ERROR: ":cross_mark:",
    }
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
            f"{STATUS_TEXT[a['status']]}{f' ({detail})' if detail else ''}; "
            f"{a['findings']} findings, +{a['trend']['new']} new"
        )
    lines += [
        "",
        f"New findings: {counts['new']} · resolved: {counts['resolved']} · "
        f"gone: {counts.get('gone', 0)} · "
        f"still open: {counts['still_open']}",
        "Report: " + (link("index.html", "index.html") if base else f"`{index}`"),
    ]
    return "\n".join(lines)
