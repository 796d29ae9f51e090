"""The report's words, shared by its pages and the posted summary: the verdict, an audit's
change since the last run, and its counts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...audits._result import Status

__all__ = ["STATUS_TEXT", "change_text", "counts_text", "verdict_sentence"]

STATUS_TEXT = {s.value: s.text for s in Status}


def counts_text(counts: Mapping[str, Any], limit: int = 4) -> str:
    """An audit's first counts in words: ``channels 12, archived 3``."""
    shown = [(k, v) for k, v in counts.items() if k != "findings" and not isinstance(v, dict)]
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in shown[:limit])


def verdict_sentence(payload: Mapping[str, Any]) -> str:
    """``All 3 audits passed`` / ``Threshold crossed in 1 of 3 audits: bots`` / ..."""
    audits: Mapping[str, Any] = payload["audits"]
    total = len(audits)
    failed = [n for n, a in audits.items() if a["status"] == Status.ERROR]
    crossed = [n for n, a in audits.items() if a["status"] == Status.THRESHOLD_CROSSED]
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
    gone = f", {trend['gone']} gone" if trend.get("gone") else ""
    text = (
        f"+{trend['new']} new, {trend['resolved']} resolved{gone}, {trend['still_open']} still open"
    )
    if trend["previous_status"] != audit["status"]:
        text += f" (was {trend['previous_status'].replace('_', ' ')})"
    return text
