"""The org_overview audit's judge over hand-built records (its runs against a sandbox are in
tests/test_runner.py and tests/audits/test_history_as_of.py)."""

from __future__ import annotations

import pandas as pd

from chatops.audits.overview import Options, Read, conclude, findings, judge
from tests.audits.records import NOW, ago, channel, kinds, message, user


def test_judge_without_a_server() -> None:
    """Every kind of finding: inactive channels and their threshold (a channel younger than
    the window is never inactive), too many guests, too few channel messages, a cut-short
    history, deactivated accounts."""
    joined = {"date_joined": (NOW - pd.Timedelta(days=365)).isoformat()}
    ada = user(1, "Ada Admin", role=200, **joined)
    gus = user(2, "Gus Guest", role=600, **joined)
    old = user(3, "Olga Old", is_active=False, **joined)
    read = Read(
        site="https://chat.example.org",
        users=[ada, gus, old],
        channels=[
            channel(1, "general"),
            channel(2, "quiet"),
            channel(3, "dusty"),
            channel(4, "young", date_created=ago(2)),
            channel(5, "attic", is_archived=True),
        ],
        messages=[message(1, ada, 3, display_recipient="general", stream_id=1, subject="hi")],
        truncated=True,
    )
    options = Options(max_inactive_channel_share=0.4, max_guest_share=0.25, min_channel_messages=2)
    judged = judge(read, options, until=NOW)
    assert judged.inactive == ["dusty", "quiet"]
    assert judged.failed == [
        "max_inactive_channel_share",
        "max_guest_share",
        "min_channel_messages",
    ]
    rows = findings(judged)
    assert kinds(rows) == [
        (
            "critical",
            "channels",
            "2 of 4 channels (50%) had no messages in the last 30 days; the threshold is 40%",
        ),
        ("warning", "#dusty", "no messages in the last 30 days"),
        ("warning", "#quiet", "no messages in the last 30 days"),
        ("critical", "guests", "1 of 2 active humans (50%) are guests; the threshold is 25%"),
        ("critical", "messages", "1 channel messages in the last 30 days; at least 2 expected"),
        (
            "warning",
            "coverage",
            "history fetch stopped at max_messages=50000 before the window start",
        ),
        ("info", "accounts", "1 deactivated accounts"),
    ]
    assert rows[1].api_call == "DELETE /api/v1/streams/3"
    result = conclude(judged)
    assert result.summary["counts"]["archived_channels"] == 1
    assert result.tables["messages_per_channel"].loc["general", "messages"] == 1
    calm = judge(read, Options(), until=NOW)
    assert calm.failed == ["max_guest_share"]
