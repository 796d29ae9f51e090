"""The unresolved_topics audit against a real sandbox: a help desk channel set up on purpose."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, unresolved_topics
from chatops.audits.unresolved_topics import Options, Read, conclude, findings, judge
from chatops.sandbox import Sandbox
from chatops.types import Message, Topic, User
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, channel, kinds, message, user
from tests.conftest import unchanged

DAY = 86400


@pytest.fixture(scope="module")
def sb(fresh_sandbox: Sandbox) -> Sandbox:
    """#helpdesk: "old question" (30 days idle), "new question" (today), "✔ old answered"
    (resolved, 30 days idle) and "bot noise" (only a bot posted, 30 days idle)."""
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin")) as admin:
        admin.channels.subscribe(["helpdesk"])
        with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("member")) as member:
            member.channels.subscribe(["helpdesk"])
            member.messages.send_to_channel("helpdesk", "old question", "how do I log in?")
            admin.messages.send_to_channel("helpdesk", "old question", "try resetting it")
            member.messages.send_to_channel("helpdesk", "new question", "printer?")
            member.messages.send_to_channel("helpdesk", "✔ old answered", "done, thanks")
        bot = admin.bots.create(full_name="Noise Bot", short_name="noise")
        with chatops.Client(site=fresh_sandbox.site, email=bot.email, api_key=bot.api_key) as b:
            b.messages.send_to_channel("helpdesk", "bot noise", "build passed")
    store = fresh_sandbox.store
    store.execute(
        "UPDATE messages SET timestamp = timestamp - ? WHERE topic != 'new question' "
        "AND stream_id = (SELECT id FROM streams WHERE name = 'helpdesk')",
        [30 * DAY],
    )
    return fresh_sandbox


@pytest.fixture
def admin_client(sb: Sandbox) -> Iterator[chatops.Client]:
    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as client:
        yield client


def _last_id(sb: Sandbox, topic: str) -> int:
    return int(sb.store.scalar("SELECT max(id) FROM messages WHERE topic = ?", [topic]))


def test_finds_exactly_the_old_unresolved_topics(sb: Sandbox, admin_client: chatops.Client) -> None:
    with unchanged(sb.store):
        result = unresolved_topics(admin_client, channels=["helpdesk"])
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    rows = result.findings.astype(str).to_dict("records")
    assert rows == [
        {
            "severity": "warning",
            "subject": "#helpdesk > old question",
            "finding": "unresolved, last message 30 days ago (2 messages, 2 participants)",
            "recommended_action": "Resolve the topic if it is answered; otherwise answer it",
            "api_call": f"PATCH /api/v1/messages/{_last_id(sb, 'old question')} "
            "topic='✔ old question' propagate_mode=change_all",
        }
    ]
    topics = result.tables["topics"]
    assert list(topics["topic"]) == ["old question", "new question"]
    assert list(topics["old"]) == [True, False]
    assert topics.loc[0, "last_sender"] == "Adam Admin"
    backlog = result.tables["backlog"].loc["helpdesk"].to_dict()
    assert backlog == {"old_unresolved": 1, "unresolved": 2, "resolved": 1}


def test_options_bot_topics_and_age(admin_client: chatops.Client) -> None:
    with_bots = unresolved_topics(admin_client, channels=["helpdesk"], ignore_bot_only=False)
    assert list(with_bots.findings["subject"]) == [
        "#helpdesk > bot noise",
        "#helpdesk > old question",
    ]
    fresh = unresolved_topics(admin_client, channels=["helpdesk"], older_than_days=60)
    assert fresh.findings.empty
    with pytest.raises(ValueError, match="nowhere"):
        unresolved_topics(admin_client, channels=["nowhere"])


def test_threshold_fails_when_tight(admin_client: chatops.Client) -> None:
    result = unresolved_topics(admin_client, channels=["helpdesk"], max_unresolved_topics=0)
    assert not result.passed
    assert result.summary["failed_checks"] == ["max_unresolved_topics"]
    assert list(result.findings["severity"]) == ["critical", "warning"]
    assert unresolved_topics(admin_client, channels=["helpdesk"], max_unresolved_topics=1).passed


def test_only_questions_and_staff_replies(sb: Sandbox, admin_client: chatops.Client) -> None:
    staff = sb.accounts["moderator"].user_id
    admin_client.user_groups.create("desk-staff", members=[staff])
    admin_client.channels.subscribe(["support-desk"])
    with (
        chatops.Client.from_zuliprc(sb.zuliprc("member")) as member,
        chatops.Client.from_zuliprc(sb.zuliprc("moderator")) as moderator,
    ):
        member.channels.subscribe(["support-desk"])
        moderator.channels.subscribe(["support-desk"])
        member.messages.send_to_channel("support-desk", "outage", "FYI the VPN is down.")
        member.messages.send_to_channel("support-desk", "login help", "how do I log in?")
        moderator.messages.send_to_channel("support-desk", "login help", "use the SSO button")
        member.messages.send_to_channel("support-desk", "unanswered", "anyone around?")
    sb.store.execute(
        "UPDATE messages SET timestamp = timestamp - ? "
        "WHERE stream_id = (SELECT id FROM streams WHERE name = 'support-desk')",
        [30 * DAY],
    )
    with unchanged(sb.store):
        questions = unresolved_topics(
            admin_client, channels=["support-desk"], only_questions=True, staff_group="desk-staff"
        )
        every = unresolved_topics(
            admin_client, channels=["support-desk"], staff_group="@desk-staff"
        )
        plain = unresolved_topics(admin_client, channels=["support-desk"])
    assert questions.findings[["subject", "finding"]].values.tolist() == [
        [
            "#support-desk > login help",
            "unresolved, last message 30 days ago (2 messages, 2 participants)",
        ],
        [
            "#support-desk > unanswered",
            "unresolved, last message 30 days ago (1 messages, 1 participants); "
            "no reply from @desk-staff",
        ],
    ]
    assert questions.summary["counts"]["old_without_staff_reply"] == 1
    assert every.findings["subject"].tolist() == [
        "#support-desk > login help",
        "#support-desk > outage",
        "#support-desk > unanswered",
    ]
    assert every.summary["counts"]["old_without_staff_reply"] == 2
    topics = every.tables["topics"]
    replied = dict(zip(topics["topic"], topics["staff_replied"], strict=True))
    assert replied == {"outage": False, "login help": True, "unanswered": False}
    assert plain.tables["topics"]["staff_replied"].isna().all()  # no staff group: left empty
    assert "no reply" not in " ".join(plain.findings["finding"])
    with pytest.raises(ValueError, match="no user group named 'nobody'"):
        unresolved_topics(admin_client, channels=["support-desk"], staff_group="nobody")


def test_the_plan_of_its_findings_resolves_the_topics(
    sb: Sandbox, admin_client: chatops.Client, tmp_path: Path
) -> None:
    result = unresolved_topics(admin_client, channels=["helpdesk"])
    tally = apply_findings(result, admin_client, tmp_path / "plan.jsonl")
    assert tally == {"done": 1, "already_done": 0, "refused": 0, "failed": 0}
    topics = {
        r["topic"]
        for r in sb.store.query(
            "SELECT DISTINCT topic FROM messages WHERE stream_id = "
            "(SELECT id FROM streams WHERE name = 'helpdesk')"
        )
    }
    assert "✔ old question" in topics and "old question" not in topics
    assert "new question" in topics
    again = unresolved_topics(admin_client, channels=["helpdesk"])
    assert again.findings.empty and again.tables["backlog"].loc["helpdesk", "resolved"] == 2


def test_a_private_channel_the_admin_is_not_in_is_named_not_judged(
    sb: Sandbox, admin_client: chatops.Client
) -> None:
    """The server refuses its topics to an administrator too ("Invalid channel ID"): the audit
    runs on, names the channel as not readable, and refuses it when asked for by name."""
    with chatops.Client.from_zuliprc(sb.zuliprc("member")) as member:
        member.channels.subscribe(["members-only"], invite_only=True)
        member.messages.send_to_channel("members-only", "old private question", "anyone?")
    result = unresolved_topics(admin_client, older_than_days=7)
    assert result.summary["channels_not_readable"] == ["members-only"]
    assert not any("members-only" in s for s in result.summary["subjects"])
    with pytest.raises(ValueError, match="private channels this account is not in: members-only"):
        unresolved_topics(admin_client, channels=["members-only"])


def test_judge_without_a_server() -> None:
    """Every case from hand-built topics: an old unanswered question (no staff reply), an old
    one staff answered, a fresh one; resolved, general-chat and bot-only topics left out;
    only questions; the threshold."""
    ann, mo, bot = user(1, "Ann"), user(2, "Mo Staff"), user(3, "Ci Bot", is_bot=True)
    desk = channel(1, "desk")

    def said(mid: int, who: User, days: float, topic: str, content: str = "ok") -> Message:
        return message(mid, who, days, display_recipient="desk", subject=topic, content=content)

    read = Read(
        site="https://chat.example.org",
        channels=[desk],
        unreadable=["secret"],
        bots={3},
        staff={2},
        topics={
            1: [
                Topic(name=n, max_id=0)
                for n in ("lost?", "answered", "fresh", "✔ done", "", "builds")
            ]
        },
        messages={
            1: [
                said(1, ann, 30, "lost?", "where is it?"),
                said(2, ann, 20, "answered", "help?"),
                said(3, mo, 19, "answered"),
                said(4, ann, 1, "fresh", "new?"),
                said(5, ann, 30, "✔ done"),
                said(6, ann, 30, ""),
                said(7, bot, 30, "builds"),
            ]
        },
    )
    judged = judge(read, Options(staff_group="desk-staff", max_unresolved_topics=1), until=NOW)
    assert [(t.topic, t.old, t.staff_replied) for t in judged.topics] == [
        ("lost?", True, False),
        ("answered", True, True),
        ("fresh", False, False),
    ]
    assert judged.failed == ["max_unresolved_topics"]
    rows = findings(judged)
    assert kinds(rows) == [
        ("critical", "topics", "2 unresolved topics idle for more than 7 days; at most 1 allowed"),
        (
            "warning",
            "#desk > answered",
            "unresolved, last message 19 days ago (2 messages, 2 participants)",
        ),
        (
            "warning",
            "#desk > lost?",
            "unresolved, last message 30 days ago (1 messages, "
            "1 participants); no reply from @desk-staff",
        ),
    ]
    assert rows[1].api_call == (
        "PATCH /api/v1/messages/3 topic='✔ answered' propagate_mode=change_all"
    )
    assert rows[0].call is not None and rows[0].call.needs_input
    questions = judge(read, Options(only_questions=True), until=NOW)
    assert [t.topic for t in questions.topics] == ["lost?", "answered", "fresh"]
    with_bots = judge(read, Options(ignore_bot_only=False), until=NOW)
    assert "builds" in [t.topic for t in with_bots.topics]
    backlog = conclude(judged).tables["backlog"].loc["desk"].to_dict()
    assert backlog == {"old_unresolved": 2, "unresolved": 3, "resolved": 1}
