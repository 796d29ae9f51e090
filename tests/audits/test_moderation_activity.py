"""The moderation activity audit against a real sandbox over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pandas as pd
import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, moderation_activity
from chatops.audits.moderation_activity import (
    DELETIONS,
    HIDDEN,
    Options,
    Read,
    conclude,
    findings,
    judge,
)
from chatops.sandbox import Sandbox
from chatops.types import EditHistoryEntry, Message
from tests.audits.records import NOW, ago, kinds, message, user
from tests.conftest import realm_settings, unchanged

REVIEW = (
    "Review these moves in the actions table; if they were not wanted, narrow who may move "
    "messages (can_move_messages_between_topics_group, can_move_messages_between_channels_group)"
)
SHOWN = ["kind", "user", "from_channel", "to_channel", "old_topic", "new_topic", "messages"]


def _rows(frame: pd.DataFrame) -> list[list[object]]:
    """A frame's rows, with None where pandas holds NaN."""
    return [[None if pd.isna(v) else v for v in row] for row in frame.values.tolist()]


def test_moderation_activity_on_the_demo_org_passes(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client, unchanged(sandbox.store):
        result = moderation_activity(client)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    counts = result.summary["counts"]
    # the demo edits, renames, moves and resolves topics, some of it in the last 30 days
    assert counts["actions"] == len(result.tables["actions"]) > 0
    assert counts["topic_moves"] + counts["channel_moves"] > 0
    assert result.tables["by_user"]["moves"].max() <= 10
    assert result.summary["coverage"]["deletions"] == DELETIONS
    assert "dry_run" not in result.summary


def test_moderation_activity_rejects_parameters_out_of_range(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with pytest.raises(ValueError, match="days"):
            moderation_activity(client, days=0)
        with pytest.raises(ValueError, match="max_moves_per_user"):
            moderation_activity(client, max_moves_per_user=-2)


def test_moderation_activity_actions_tables_and_threshold(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    moderator = client_for("moderator", fresh_sandbox)
    store = fresh_sandbox.store
    # set-up the API cannot make: an organization whose history records no edit at all
    store.execute(
        "UPDATE messages SET edit_history = NULL, last_edit_timestamp = NULL, "
        "last_moved_timestamp = NULL"
    )
    with unchanged(store):
        quiet = moderation_activity(admin)
    assert quiet.passed and quiet.findings.empty
    assert quiet.summary["counts"]["actions"] == 0 and quiet.tables["actions"].empty
    assert quiet.tables["by_user"].empty and quiet.tables["per_day"].empty

    edited = member.messages.send_to_channel("general", "audit edits", "teh plan").id
    member.messages.edit(edited, content="the plan")
    first = member.messages.send_to_channel("general", "move me", "one").id
    for text in ("two", "three"):
        member.messages.send_to_channel("general", "move me", text)
    moderator.messages.move_topic(first, topic="moved here")
    moderator.messages.move_topic(first, topic="moved again")
    moderator.messages.resolve_topic(first)
    travelling = member.messages.send_to_channel("general", "to channel", "off topic").id
    member.messages.send_to_channel("general", "to channel", "still off topic")
    engineering = admin.channels.get_id("engineering")
    admin.messages.move_topic(travelling, stream_id=engineering)

    with unchanged(store):
        result = moderation_activity(admin, max_moves_per_user=2)
    assert result.passed and result.findings.empty
    actions = result.tables["actions"]
    # each move leaves a notification in the new topic, which the next move takes along
    assert sorted(_rows(actions[SHOWN]), key=str) == sorted(
        [
            ["edit", "Mei Member", "general", None, None, None, 1],
            ["topic move", "Mona Moderator", "general", "general", "move me", "moved here", 3],
            ["topic move", "Mona Moderator", "general", "general", "moved here", "moved again", 4],
            ["resolve", "Mona Moderator", "general", "general", "moved again", "✔ moved again", 5],
            ["channel move", "Adam Admin", "general", "engineering", None, None, 2],
        ],
        key=str,
    )
    assert set(actions["first_message_id"]) == {edited, first, travelling}
    by_user = result.tables["by_user"]
    moderator_id = fresh_sandbox.accounts["moderator"].user_id
    assert by_user.loc[
        moderator_id, ["topic_moves", "resolves", "moves", "messages_moved"]
    ].tolist() == [2, 1, 2, 7]
    assert by_user.loc[
        fresh_sandbox.accounts["admin"].user_id, ["channel_moves", "moves"]
    ].tolist() == [1, 1]
    assert by_user.loc[fresh_sandbox.accounts["member"].user_id, ["edits", "moves"]].tolist() == [
        1,
        0,
    ]
    renames = result.tables["topic_renames"][["user", "old_topic", "new_topic", "messages"]]
    assert sorted(renames.values.tolist()) == [
        ["Mona Moderator", "move me", "moved here", 3],
        ["Mona Moderator", "moved here", "moved again", 4],
    ]
    assert result.tables["channel_moves"].values.tolist() == [["general", "engineering", 1, 2]]
    assert result.tables["per_day"].to_numpy().sum() == len(actions) == 5
    counts = result.summary["counts"]
    assert [counts[k] for k in ("edits", "topic_moves", "channel_moves", "resolves")] == [
        1,
        2,
        1,
        1,
    ]
    assert counts["messages_moved"] == 9 and "edit_history" not in result.summary["coverage"]

    # the threshold at its edge (the moderator's two moves), and off
    with unchanged(store):
        over = moderation_activity(admin, max_moves_per_user=1)
        off = moderation_activity(admin, max_moves_per_user=-1)
    assert over.summary["failed_checks"] == ["max_moves_per_user"]
    assert over.findings.values.tolist() == [
        [
            "critical",
            "Mona Moderator (moderator@demo.chatops.test)",
            "2 topic or channel moves in 30 days (2 topic, 0 channel, 7 messages); "
            "the threshold is 1",
            REVIEW,
            "",
        ]
    ]
    assert off.passed and off.findings.empty

    # a window that ends before or starts after the actions sees none of them
    with unchanged(store):
        later = moderation_activity(admin, days=30, now=datetime.now(UTC) + timedelta(days=31))
        earlier = moderation_activity(admin, days=1, now=datetime.now(UTC) - timedelta(hours=1))
    assert later.summary["counts"]["actions"] == earlier.summary["counts"]["actions"] == 0

    # with edit history hidden, edits and moves are counted without an author
    with realm_settings(store, allow_edit_history=False), unchanged(store):
        hidden = moderation_activity(admin, max_moves_per_user=0)
    assert hidden.passed  # nobody to blame
    shown = hidden.tables["actions"][["kind", "user", "to_channel", "new_topic", "messages"]]
    assert sorted(_rows(shown), key=str) == sorted(
        [
            ["edit", HIDDEN, None, None, 1],
            ["hidden move", HIDDEN, "general", "✔ moved again", 4],
            ["hidden move", HIDDEN, "engineering", "to channel", 2],
        ],
        key=str,
    )
    assert hidden.summary["counts"]["hidden_actions"] == 3
    note = hidden.summary["coverage"]["edit_history"]
    assert note.startswith("7 messages edited or moved in the window carry no edit_history")
    assert "GET /messages/{id}/history was refused or missing" in note


def test_judge_without_a_server() -> None:
    """Every kind of action from hand-built edit history: a content edit, a topic move of two
    messages (one action), a channel move, a resolve; an edit older than the window left out;
    a hidden move with no author; the one finding, for a user over the threshold."""
    mo = user(2, "Mo Mover")

    def edited(mid: int, *entries: EditHistoryEntry, **fields: Any) -> Message:
        fields = {"display_recipient": "ops", "stream_id": 1, **fields}
        return message(mid, mo, 10, edit_history=list(entries), **fields)

    at = ago(2)
    topic_move = {"user_id": 2, "timestamp": at, "prev_topic": "old", "topic": "new"}
    read = Read(
        site="https://chat.example.org",
        users={2: mo},
        channel_names={1: "ops", 2: "archive"},
        scanned=10,
        messages=[
            edited(1, EditHistoryEntry(user_id=2, timestamp=ago(3), prev_content="typo")),
            edited(2, EditHistoryEntry(**topic_move), subject="new"),
            edited(3, EditHistoryEntry(**topic_move), subject="new"),
            edited(
                4,
                EditHistoryEntry(user_id=2, timestamp=ago(1), prev_stream=1, stream=2),
                stream_id=2,
            ),
            edited(5, EditHistoryEntry(user_id=2, timestamp=ago(1), prev_topic="q", topic="✔ q")),
            edited(6, EditHistoryEntry(user_id=2, timestamp=ago(90), prev_content="long ago")),
            message(7, mo, 10, stream_id=1, subject="t", last_moved_timestamp=ago(1)),
        ],
        histories={},
        history_endpoint="refused or missing (403)",
    )
    judged = judge(read, Options(max_moves_per_user=1), at=NOW)
    actions = judged.actions
    assert actions[["kind", "user", "messages"]].values.tolist() == [
        ["edit", "Mo Mover", 1],
        ["topic move", "Mo Mover", 2],
        ["channel move", "Mo Mover", 1],
        ["resolve", "Mo Mover", 1],
        ["hidden move", HIDDEN, 1],
    ]
    assert judged.hidden_messages == 1 and judged.over == [2]
    assert kinds(findings(judged)) == [
        (
            "critical",
            f"Mo Mover ({mo.email})",
            "2 topic or channel moves in 30 days (1 topic, 1 channel, 3 messages); "
            "the threshold is 1",
        )
    ]
    assert findings(judged)[0].call is None
    result = conclude(judged)
    assert "counted under '(history hidden)'" in result.summary["coverage"]["edit_history"]
    assert result.tables["channel_moves"][["from_channel", "to_channel"]].values.tolist() == [
        ["ops", "archive"]
    ]
    assert judge(read, Options(max_moves_per_user=2), at=NOW).failed == []
