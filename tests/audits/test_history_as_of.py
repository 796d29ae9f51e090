"""Audits read history as it stood at their ``now``: nothing after it, reading from it."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest

import chatops
from chatops.audits import unresolved_topics
from chatops.audits._common import recent_messages as _recent_messages
from chatops.audits._history import history_until, newest_at_or_before
from chatops.sandbox import Sandbox


@pytest.fixture(scope="module")
def sandbox(fresh_sandbox: Sandbox) -> Sandbox:
    """This module's own organization: its known answers need the demo history untouched,
    and other modules archive channels of the shared one (which module runs first is not
    fixed when the suite runs on several cores)."""
    return fresh_sandbox


@pytest.fixture(scope="module")
def history(sandbox: Sandbox) -> list[chatops.Message]:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as admin:
        return list(admin.messages.iter_history(page_size=5000, apply_markdown=False))


def test_newest_at_or_before_matches_a_scan_of_all_history(
    sandbox: Sandbox, history: list[chatops.Message], admin: chatops.Client
) -> None:
    times = sorted(m.timestamp for m in history)
    channel = next(m.stream_id for m in history if m.stream_id is not None)
    in_channel = [m for m in history if m.stream_id == channel]
    probes = [times[0] - 1, times[0], *(times[len(times) * k // 7] for k in range(1, 7))]
    probes += [times[-1], times[-1] + 86400]
    for until in probes:
        expected = max((m.id for m in history if m.timestamp <= until), default=None)
        assert newest_at_or_before(admin, until) == expected, until
        narrowed = max((m.id for m in in_channel if m.timestamp <= until), default=None)
        got = newest_at_or_before(admin, until, narrow=[("channel", channel)])
        assert got == narrowed, until


def test_history_until_reads_nothing_after_it(
    history: list[chatops.Message], admin: chatops.Client
) -> None:
    times = sorted(m.timestamp for m in history)
    until = times[len(times) // 2]
    got = [m.id for m in history_until(admin, until, page_size=300)]
    assert got == sorted((m.id for m in history if m.timestamp <= until), reverse=True)

    since = pd.Timestamp(times[len(times) // 4], unit="s", tz="UTC")
    at = pd.Timestamp(until, unit="s", tz="UTC")
    recent, cut = _recent_messages(admin, since=since, until=at, limit=10**6)
    assert not cut
    assert {m.id for m in recent} == {
        m.id for m in history if since.timestamp() <= m.timestamp <= until
    }


def test_unresolved_topics_as_of_a_past_day_has_that_days_answer(
    history: list[chatops.Message], client_for: Callable[..., chatops.Client]
) -> None:
    admin = client_for("admin")
    times = sorted(m.timestamp for m in history)
    until = times[len(times) // 2]
    now = pd.Timestamp(until, unit="s", tz="UTC").to_pydatetime()
    result = unresolved_topics(admin, older_than_days=0, max_unresolved_topics=-1, now=now)
    topics = result.tables["topics"]
    assert len(topics) > 0
    assert (topics["age_days"] >= 0).all()
    assert (topics["last_at"] <= pd.Timestamp(until, unit="s", tz="UTC")).all()
    # each topic's numbers are those of the messages sent by then, from a scan of all history
    names = {c.stream_id: c.name for c in admin.channels.list(include_all=True)}
    by_topic: dict[tuple[str, str], list[chatops.Message]] = {}
    for m in history:
        if m.stream_id is not None and m.timestamp <= until:
            by_topic.setdefault((names[m.stream_id], m.topic), []).append(m)
    for row in topics.itertuples():
        sent = by_topic[(row.channel, row.topic)]
        assert row.messages == len(sent)
        assert row.last_at == pd.Timestamp(max(m.timestamp for m in sent), unit="s", tz="UTC")
        assert row.last_message_id == max(m.id for m in sent)
    assert "" not in set(topics["topic"])


def test_org_overview_judges_a_new_channel_by_its_age(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    from chatops.audits import org_overview

    admin = client_for("admin", fresh_sandbox)
    admin.channels.subscribe([{"name": "brand-new", "description": "Opened today"}])
    new_id = admin.channels.get_id("brand-new")
    result = org_overview(admin, days=30)
    subjects = set(result.findings["subject"])
    assert "#brand-new" not in subjects
    assert f"DELETE /api/v1/streams/{new_id}" not in set(result.findings["api_call"])
    # thirty-one days on, the same silent channel is judged idle
    later = pd.Timestamp.now(tz="UTC") + pd.Timedelta(days=31)
    aged = org_overview(admin, days=30, now=later.to_pydatetime())
    assert "#brand-new" in set(aged.findings["subject"])


def test_ages_are_rounded_once(
    history: list[chatops.Message], client_for: Callable[..., chatops.Client]
) -> None:
    """An age of 9.47 days is '9 days' in words and 9.5 in the table, never 10."""
    admin = client_for("admin")
    last = max(m.timestamp for m in history if m.stream_id is not None)
    now = pd.Timestamp(last + 9.47 * 86400, unit="s", tz="UTC").to_pydatetime()
    result = unresolved_topics(admin, older_than_days=9, max_unresolved_topics=-1, now=now)
    topics = result.tables["topics"]
    newest = topics[topics["last_at"] == topics["last_at"].max()].iloc[0]
    assert newest["age_days"] == 9.5
    words = result.findings[
        result.findings["subject"] == f"#{newest['channel']} > {newest['topic']}"
    ]["finding"].iloc[0]
    assert words.startswith("unresolved, last message 9 days ago"), words
