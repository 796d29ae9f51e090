"""Hand-built records for the audits' judges: what a fetch would have read, made without a
server. Only the fields a judge reads are given; the rest keep the records' defaults."""

from __future__ import annotations

from typing import Any

import pandas as pd

from chatops.audits import Finding
from chatops.types import Channel, Message, User

#: the audits' "now" in these tests, and the same as seconds
NOW = pd.Timestamp("2026-06-01T12:00:00Z")
DAY = 86400


def ago(days: float) -> int:
    """Seconds since the epoch, ``days`` before :data:`NOW`."""
    return int(NOW.timestamp() - days * DAY)


def user(user_id: int, name: str, **fields: Any) -> User:
    """A person (or, with ``is_bot=True``, a bot) named ``name``."""
    email = name.lower().replace(" ", ".") + "@example.org"
    return User(user_id=user_id, email=email, full_name=name, **fields)


def channel(stream_id: int, name: str, **fields: Any) -> Channel:
    """A channel created a year before :data:`NOW` unless told otherwise."""
    return Channel(stream_id=stream_id, name=name, **{"date_created": ago(365), **fields})


def message(message_id: int, sender: User, days_ago: float, **fields: Any) -> Message:
    """A message of ``sender``, ``days_ago`` days before :data:`NOW` (a channel message when
    ``display_recipient`` names one)."""
    return Message(
        id=message_id,
        type="stream" if isinstance(fields.get("display_recipient"), str) else "private",
        sender_id=sender.user_id,
        sender_full_name=sender.full_name,
        timestamp=ago(days_ago),
        **fields,
    )


def kinds(findings: list[Finding]) -> list[tuple[str, str, str]]:
    """(severity, subject, finding) of each finding, as the audit wrote them."""
    return [(f.severity.value, f.subject, f.finding) for f in findings]


def calls(findings: list[Finding]) -> dict[str, list[str]]:
    """Subject -> the calls of its findings, in words."""
    out: dict[str, list[str]] = {}
    for f in findings:
        out.setdefault(f.subject, []).append(f.api_call)
    return out
