"""The stale_channels audit against a real sandbox: channels made stale on purpose."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, stale_channels
from chatops.audits.stale_channels import Options, Read, conclude, findings, judge
from chatops.sandbox import Sandbox
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, ago, calls, channel, kinds, message, user
from tests.conftest import unchanged

DAY = 86400


@pytest.fixture(scope="module")
def sb(fresh_sandbox: Sandbox) -> Sandbox:
    """The demo org plus: #quiet-corner (last message 200 days ago), #empty-corner (no message,
    created 300 days ago), #new-corner (no message, created today)."""
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin")) as client:
        client.channels.subscribe(["quiet-corner", "empty-corner", "new-corner"])
        client.messages.send_to_channel("quiet-corner", "hello", "anyone here?")
    store = fresh_sandbox.store
    for name in ("quiet-corner", "empty-corner"):
        sid = store.scalar("SELECT id FROM streams WHERE name = ?", [name])
        store.execute(
            "UPDATE streams SET date_created = date_created - ? WHERE id = ?", [300 * DAY, sid]
        )
        store.execute(
            "UPDATE messages SET timestamp = timestamp - ? WHERE stream_id = ?", [200 * DAY, sid]
        )
    return fresh_sandbox


@pytest.fixture
def admin_client(sb: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as client:
        yield client


def _sid(sb: Sandbox, name: str) -> int:
    return int(sb.store.scalar("SELECT id FROM streams WHERE name = ?", [name]))


def test_finds_exactly_the_stale_channels_and_changes_nothing(
    sb: Sandbox, admin_client: chatops.Client
) -> None:
    with unchanged(sb.store):
        result = stale_channels(admin_client)
    assert result.passed
    assert result.summary["stale"] == ["empty-corner", "quiet-corner"]
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    rows = result.findings.astype(str).to_dict("records")
    assert [(r["severity"], r["subject"], r["api_call"]) for r in rows] == [
        ("warning", "#empty-corner", f"DELETE /api/v1/streams/{_sid(sb, 'empty-corner')}"),
        ("warning", "#quiet-corner", f"DELETE /api/v1/streams/{_sid(sb, 'quiet-corner')}"),
    ]
    assert "no messages since it was created" in rows[0]["finding"]
    assert "200 days since the last message" in rows[1]["finding"]
    table = result.tables["channels"]
    assert bool(table.loc["quiet-corner", "stale"]) and not bool(table.loc["new-corner", "stale"])
    assert table.loc["quiet-corner", "last_sender"] == "Adam Admin"
    assert result.summary["counts"]["stale_channels"] == 2


def test_options_exclude_and_private(admin_client: chatops.Client) -> None:
    result = stale_channels(admin_client, exclude=["quiet-corner"])
    assert result.summary["stale"] == ["empty-corner"]
    public_only = stale_channels(admin_client, include_private=False)
    assert "marketing" not in public_only.tables["channels"].index
    assert "marketing" in stale_channels(admin_client).tables["channels"].index


def test_threshold_fails_when_tight(admin_client: chatops.Client) -> None:
    result = stale_channels(admin_client, max_stale_channels=1)
    assert not result.passed
    assert result.summary["failed_checks"] == ["max_stale_channels"]
    assert result.findings["severity"].iloc[0] == "critical"
    assert result.findings["subject"].iloc[0] == "channels"
    assert stale_channels(admin_client, max_stale_channels=-1).passed
    with pytest.raises(ValueError):
        stale_channels(admin_client, inactive_days=0)


def test_min_subscribers_reports_underused_channels_at_its_edge(
    sb: Sandbox, admin_client: chatops.Client
) -> None:
    # new-corner: one subscriber (the admin), not stale; stale ones are never "underused"
    one = _sid(sb, "new-corner")
    with unchanged(sb.store):
        off = stale_channels(admin_client, min_subscribers=0)
        at_edge = stale_channels(admin_client, min_subscribers=1)
        above = stale_channels(admin_client, min_subscribers=2)
    assert off.summary["counts"]["underused_channels"] == 0
    assert at_edge.summary["counts"]["underused_channels"] == 0  # 1 is not fewer than 1
    rows = above.findings[above.findings["severity"] == "info"]
    assert rows[["subject", "finding", "api_call"]].values.tolist() == [
        [
            "#new-corner",
            "1 subscribers, fewer than min_subscribers=2",
            f"DELETE /api/v1/streams/{one}",
        ]
    ]
    table = above.tables["channels"]
    assert bool(table.loc["new-corner", "underused"])
    assert not bool(table.loc["quiet-corner", "underused"])  # stale, reported as such
    assert table.loc["new-corner", "creator"] == "Adam Admin"
    with pytest.raises(ValueError, match="min_subscribers"):
        stale_channels(admin_client, min_subscribers=-1)


def test_the_plan_of_its_findings_archives_the_stale_channels(
    sb: Sandbox, admin_client: chatops.Client, tmp_path: Path
) -> None:
    result = stale_channels(admin_client)
    ids = sorted([_sid(sb, "empty-corner"), _sid(sb, "quiet-corner")])
    tally = apply_findings(result, admin_client, tmp_path / "plan.jsonl")
    assert tally == {"done": 2, "already_done": 0, "refused": 0, "failed": 0}
    archived = sb.store.query(
        "SELECT name FROM streams WHERE is_archived = 1 AND id IN (?, ?)", ids
    )
    assert sorted(r["name"] for r in archived) == ["empty-corner", "quiet-corner"]
    again = stale_channels(admin_client)
    assert again.summary["stale"] == [] and again.passed


def test_judge_without_a_server() -> None:
    """Every kind of finding from hand-built channels: stale with and without messages,
    underused, unreadable, the threshold; a young channel is never stale."""
    ada = user(1, "Ada Admin")
    read = Read(
        site="https://chat.example.org",
        channels=[
            channel(1, "quiet", subscriber_count=5),
            channel(2, "empty", subscriber_count=5),
            channel(3, "young", date_created=ago(3), subscriber_count=5),
            channel(4, "small", subscriber_count=1),
            channel(5, "locked", first_message_id=9),
        ],
        names={1: "Ada Admin"},
        last_messages={
            1: message(10, ada, 200, display_recipient="quiet"),
            2: None,
            3: None,
            4: message(11, ada, 1, display_recipient="small"),
            5: None,
        },
    )
    options = Options(max_stale_channels=1, min_subscribers=2)
    judged = judge(read, options, until=NOW)
    assert [c.channel.name for c in judged.stale] == ["empty", "quiet"]
    assert judged.failed == ["max_stale_channels"]
    assert kinds(findings(judged)) == [
        (
            "critical",
            "channels",
            "2 of 5 channels had no message in the last 90 days; at most 1 allowed",
        ),
        ("warning", "#empty", "no message in the last 90 days (no messages since it was created)"),
        ("warning", "#quiet", "no message in the last 90 days (200 days since the last message)"),
        ("info", "#small", "1 subscribers, fewer than min_subscribers=2"),
        ("info", "#locked", "has messages this account cannot read; not judged"),
    ]
    assert calls(findings(judged))["#quiet"] == ["DELETE /api/v1/streams/1"]
    assert judge(read, Options(), until=NOW).failed == []
    result = conclude(judged)
    assert result.summary["stale"] == ["empty", "quiet"]
    assert result.summary["site"] == "https://chat.example.org"
