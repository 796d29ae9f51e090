"""``GET /messages/{id}/history``, ``POST /messages/render``, ``GET /messages/matches_narrow``,
and mentions rendered as the real server renders them (``data-user-id``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox import realm as realm_mod
from tests.conftest import realm_settings, unchanged
from tests.sandbox.helpers import assert_error, post, raw, stream_id


def ok(result: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    status, body = result
    assert status == 200, body
    return body


# -- history ------------------------------------------------------------------------------------
def test_history_of_an_edited_and_moved_message(sandbox: Sandbox, member: chatops.Client) -> None:
    me = sandbox.accounts["member"].user_id
    mid = member.messages.send_to_channel("general", "history one", "Hello there").id
    member.messages.edit(mid, content="Howdy there")
    member.messages.edit(mid, topic="history two")
    body = ok(raw(sandbox, "member", "GET", f"/messages/{mid}/history"))
    first, edited, moved = body["message_history"]
    sent_at = sandbox.store.scalar("SELECT timestamp FROM messages WHERE id = ?", [mid])
    assert first == {
        "content": "Hello there",
        "rendered_content": "<p>Hello there</p>",
        "timestamp": sent_at,
        "topic": "history one",
        "user_id": me,
    }
    assert edited["content"] == "Howdy there" and edited["prev_content"] == "Hello there"
    assert edited["rendered_content"] == "<p>Howdy there</p>"
    assert edited["prev_rendered_content"] == "<p>Hello there</p>"
    assert edited["topic"] == "history one" and "prev_topic" not in edited
    assert '<span class="highlight_text_inserted">Howdy</span>' in edited["content_html_diff"]
    assert '<span class="highlight_text_deleted">Hello</span>' in edited["content_html_diff"]
    assert moved["topic"] == "history two" and moved["prev_topic"] == "history one"
    assert moved["content"] == "Howdy there"
    assert not {"prev_content", "content_html_diff", "prev_stream"} & set(moved)
    assert edited["user_id"] == moved["user_id"] == me
    assert first["timestamp"] <= edited["timestamp"] <= moved["timestamp"]


def test_history_of_a_message_moved_to_another_channel(
    sandbox: Sandbox, admin: chatops.Client
) -> None:
    mid = admin.messages.send_to_channel("general", "history move", "travelling").id
    target = int(
        sandbox.store.scalar(
            "SELECT id FROM streams WHERE invite_only = 0 AND is_archived = 0 AND name != 'general' "
            "ORDER BY id LIMIT 1"
        )
    )
    admin.messages.edit(mid, stream_id=target)
    history = ok(raw(sandbox, "admin", "GET", f"/messages/{mid}/history"))["message_history"]
    assert len(history) == 2
    assert history[1]["prev_stream"] == stream_id(sandbox, "general")
    assert history[1]["stream"] == target


def test_a_message_never_edited_has_one_snapshot(sandbox: Sandbox) -> None:
    mid = post(sandbox, "admin", "general", "", "in the general chat")
    [snap] = ok(raw(sandbox, "member", "GET", f"/messages/{mid}/history"))["message_history"]
    assert snap["topic"] == realm_mod.EMPTY_TOPIC_DISPLAY_NAME
    [raw_snap] = ok(
        raw(sandbox, "member", "GET", f"/messages/{mid}/history", allow_empty_topic_name="true")
    )["message_history"]
    assert raw_snap["topic"] == ""
    assert set(raw_snap) == {"content", "rendered_content", "timestamp", "topic", "user_id"}


def test_history_refused_when_the_organization_hides_it(sandbox: Sandbox) -> None:
    mid = post(sandbox, "admin", "general", "history hidden", "edit me")
    with realm_settings(sandbox.store, allow_edit_history=False), unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "GET", f"/messages/{mid}/history"), "BAD_REQUEST"
        )
        assert body["msg"] == "Message edit history is disabled in this organization"


def test_history_of_a_message_the_user_cannot_read(sandbox: Sandbox) -> None:
    owner = sandbox.accounts["owner"].user_id
    mid = ok(
        raw(
            sandbox,
            "admin",
            "POST",
            "/messages",
            type="direct",
            to=json.dumps([owner]),
            content="just us",
        )
    )["id"]
    with unchanged(sandbox.store):
        for target in (mid, 10**9):
            body = assert_error(
                raw(sandbox, "member", "GET", f"/messages/{target}/history"), "BAD_REQUEST"
            )
            assert body["msg"] == "Invalid message(s)"


# -- render -------------------------------------------------------------------------------------------
@pytest.fixture
def issue_linkifier(admin: chatops.Client) -> Iterator[None]:
    lid = admin.realm.add_linkifier(r"ACME-(?P<id>[0-9]+)", "https://tracker.example/ACME-{id}")
    yield
    admin.realm.remove_linkifier(lid)


def test_render_applies_linkifiers_and_mentions(sandbox: Sandbox, issue_linkifier: None) -> None:
    admin = sandbox.accounts["admin"]
    name = sandbox.store.scalar("SELECT full_name FROM users WHERE id = ?", [admin.user_id])
    content = f"see ACME-42, @**{name}** and @_**{name}**; @**Nobody At All** stays text"
    with unchanged(sandbox.store):
        body = ok(raw(sandbox, "member", "POST", "/messages/render", content=content))
    rendered = body["rendered"]
    assert '<a href="https://tracker.example/ACME-42"' in rendered
    assert f'<span class="user-mention" data-user-id="{admin.user_id}">@{name}</span>' in rendered
    assert (
        f'<span class="user-mention silent" data-user-id="{admin.user_id}">{name}</span>'
        in rendered
    )
    assert "Nobody At All" in rendered and rendered.count("user-mention") == 2
    assert ok(raw(sandbox, "member", "POST", "/messages/render", content="**bold**"))[
        "rendered"
    ] == ("<p><strong>bold</strong></p>")


def test_render_needs_content(sandbox: Sandbox) -> None:
    body = assert_error(
        raw(sandbox, "member", "POST", "/messages/render"), "REQUEST_VARIABLE_MISSING"
    )
    assert body["var_name"] == "content"


def test_sent_messages_carry_the_real_mention_markup(sandbox: Sandbox) -> None:
    admin = sandbox.accounts["admin"].user_id
    name = sandbox.store.scalar("SELECT full_name FROM users WHERE id = ?", [admin])
    mid = post(
        sandbox, "admin", "general", "mention markup", f"hi @**{name}**, @**all** @**topic**"
    )
    html = sandbox.store.scalar("SELECT rendered_content FROM messages WHERE id = ?", [mid])
    assert f'<span class="user-mention" data-user-id="{admin}">@{name}</span>' in html
    assert (
        '<span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span>' in html
    )
    assert '<span class="topic-mention">@topic</span>' in html
    by_id = post(sandbox, "member", "general", "mention markup", f"hey @**someone|{admin}**")
    html = sandbox.store.scalar("SELECT rendered_content FROM messages WHERE id = ?", [by_id])
    assert f'data-user-id="{admin}">@{name}</span>' in html


def test_group_mentions_carry_the_group_id(sandbox: Sandbox) -> None:
    row = sandbox.store.one(
        "SELECT id, name FROM user_groups WHERE name IS NOT NULL AND deactivated = 0 "
        "AND name NOT LIKE 'role:%' ORDER BY id LIMIT 1"
    )
    if row is None:
        pytest.skip("the demo organization has no user group of its own")
    mid = post(sandbox, "member", "general", "group markup", f"ping @*{row['name']}*")
    html = sandbox.store.scalar("SELECT rendered_content FROM messages WHERE id = ?", [mid])
    assert (
        f'<span class="user-group-mention" data-user-group-id="{row["id"]}">@{row["name"]}</span>'
        in html
    )


# -- matches_narrow ---------------------------------------------------------------------------------
def test_matches_narrow_with_and_without_search(sandbox: Sandbox) -> None:
    banana = post(sandbox, "admin", "general", "matches", "a Banana split")
    apple = post(sandbox, "admin", "general", "matches", "an apple")
    other = post(sandbox, "admin", "general", "elsewhere", "banana bread")
    topic = [
        {"operator": "channel", "operand": "general"},
        {"operator": "topic", "operand": "matches"},
    ]
    ids = json.dumps([banana, apple, other])
    with unchanged(sandbox.store):
        body = ok(
            raw(
                sandbox,
                "member",
                "GET",
                "/messages/matches_narrow",
                msg_ids=ids,
                narrow=json.dumps(topic),
            )
        )
    assert set(body["messages"]) == {str(banana), str(apple)}
    assert body["messages"][str(apple)] == {
        "match_content": "<p>an apple</p>",
        "match_subject": "matches",
    }
    searched = ok(
        raw(
            sandbox,
            "member",
            "GET",
            "/messages/matches_narrow",
            msg_ids=ids,
            narrow=json.dumps([*topic, {"operator": "search", "operand": "banana"}]),
        )
    )["messages"]
    assert list(searched) == [str(banana)]
    assert searched[str(banana)]["match_content"] == (
        '<p>a <span class="highlight">Banana</span> split</p>'
    )


def test_matches_narrow_only_counts_messages_the_user_received(sandbox: Sandbox) -> None:
    uid = sandbox.accounts["member"].user_id
    channel = sandbox.store.scalar(
        "SELECT name FROM streams s WHERE invite_only = 0 AND is_archived = 0 AND NOT EXISTS "
        "(SELECT 1 FROM subscriptions x WHERE x.stream_id = s.id AND x.user_id = ? AND x.active = 1) "
        "ORDER BY id LIMIT 1",
        [uid],
    )
    mid = post(sandbox, "admin", str(channel), "not received", "history only")
    body = ok(
        raw(
            sandbox,
            "member",
            "GET",
            "/messages/matches_narrow",
            msg_ids=json.dumps([mid]),
            narrow=json.dumps([{"operator": "channel", "operand": str(channel)}]),
        )
    )
    assert body["messages"] == {}


def test_matches_narrow_refusals(sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "GET", "/messages/matches_narrow", narrow="[]"),
            "REQUEST_VARIABLE_MISSING",
        )
        assert body["var_name"] == "msg_ids"
        assert_error(
            raw(
                sandbox,
                "member",
                "GET",
                "/messages/matches_narrow",
                msg_ids="[1]",
                narrow=json.dumps([{"operator": "bogus", "operand": "x"}]),
            ),
            "BAD_NARROW",
        )


def test_every_user_mention_in_the_demo_organization_names_its_user(sandbox: Sandbox) -> None:
    rows = sandbox.store.query(
        "SELECT rendered_content FROM messages WHERE rendered_content LIKE '%user-mention%'"
    )
    assert rows, "the demo organization has messages with mentions"
    for row in rows:
        html = row["rendered_content"]
        assert html.count('class="user-mention') == html.count("data-user-id="), html
