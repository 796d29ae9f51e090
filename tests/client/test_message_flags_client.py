"""The client's wrappers of message flags, edit history, render and matches_narrow (sync and async)."""

from __future__ import annotations

import asyncio

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error, post, stream_id


def flags(client: chatops.Client, message_id: int) -> list[str]:
    page = client.messages.get(anchor=message_id, num_before=0, num_after=0)
    return list(page.messages[0].flags or [])


def test_update_flags_and_its_refusals(sandbox: Sandbox, member: chatops.Client) -> None:
    mid = post(sandbox, "admin", "general", "client flags", "star me")
    result = member.messages.update_flags([mid], op="add", flag="starred")
    assert result.messages == [mid] and result.ignored_because_not_subscribed_channels is None
    assert "starred" in flags(member, mid)
    member.messages.update_flags([mid], op="add", flag="read")
    unread = member.messages.update_flags([mid], op="remove", flag="read")
    assert unread.ignored_because_not_subscribed_channels == []
    assert "read" not in flags(member, mid)
    with unchanged(sandbox.store):
        with pytest.raises(ValueError, match="flag must be one of"):
            member.messages.update_flags([mid], op="add", flag="mentioned")
        with pytest.raises(ValueError, match="op must be"):
            member.messages.update_flags([mid], op="flip", flag="read")  # type: ignore[arg-type]
        with api_error("BAD_REQUEST") as info:
            member.messages.update_flags([10**9], op="add", flag="starred")
        assert info.value.msg == "Invalid message(s)"


def test_flags_over_a_whole_narrow_in_ranges(
    sandbox: Sandbox, member: chatops.Client, twin: str
) -> None:
    topic = f"client narrow {twin}"  # each client's run has a topic of its own
    ids = [post(sandbox, "admin", "general", topic, f"n{i}") for i in range(7)]
    narrow = [("channel", "general"), ("topic", topic)]
    one = member.messages.update_flags_for_narrow(
        narrow=narrow, op="add", flag="starred", num_after=2
    )
    assert (one.processed_count, one.first_processed_id, one.last_processed_id) == (2, *ids[:2])
    assert one.found_oldest and not one.found_newest
    progress: list[tuple[int, int]] = []
    changed = member.messages.update_flags_in_narrow(
        narrow=narrow,
        op="add",
        flag="starred",
        batch_size=3,
        on_progress=lambda *p: progress.append(p),
    )
    assert changed == 5
    assert progress == [(3, 1), (6, 4), (7, 5)]
    assert all("starred" in flags(member, m) for m in ids)
    with pytest.raises(ValueError, match="must not be negative"):
        member.messages.update_flags_for_narrow(narrow=narrow, op="add", flag="read", num_before=-1)


def test_mark_channel_and_topic_as_read(sandbox: Sandbox, member: chatops.Client) -> None:
    sid = stream_id(sandbox, "general")
    a = post(sandbox, "admin", "general", "client mark a", "a")
    b = post(sandbox, "admin", "general", "client mark b", "b")
    member.messages.mark_topic_as_read(sid, "client mark a")
    assert "read" in flags(member, a) and "read" not in flags(member, b)
    member.messages.mark_channel_as_read(sid)
    assert "read" in flags(member, b)
    with api_error("BAD_REQUEST") as info:
        member.messages.mark_topic_as_read(sid, "client mark nowhere")
    assert info.value.msg == "No such topic 'client mark nowhere'"


def test_history_render_and_matches(sandbox: Sandbox, member: chatops.Client) -> None:
    mid = member.messages.send_to_channel("general", "client history", "first words").id
    member.messages.edit(mid, content="second words")
    first, second = member.messages.history(mid)
    assert (first.content, first.prev_content) == ("first words", None)
    assert (second.content, second.prev_content) == ("second words", "first words")
    assert second.content_html_diff and "highlight_text_inserted" in second.content_html_diff
    assert first.topic == second.topic == "client history"
    assert member.messages.render("**hi**") == "<p><strong>hi</strong></p>"
    other = post(sandbox, "admin", "general", "client other", "second words")
    matches = member.messages.matches_narrow(
        [mid, other], narrow=[("topic", "client history"), ("search", "second")]
    )
    assert list(matches) == [mid]
    assert matches[mid].match_subject == "client history"
    assert '<span class="highlight">second</span>' in matches[mid].match_content


def test_async_twins(sandbox: Sandbox) -> None:
    sid = stream_id(sandbox, "general")
    ids = [post(sandbox, "admin", "general", "client async", f"a{i}") for i in range(3)]

    async def run() -> None:
        async with chatops.AsyncClient.from_zuliprc(sandbox.zuliprc("member")) as client:
            msgs = client.messages
            assert (await msgs.update_flags(ids[:1], op="add", flag="collapsed")).messages == ids[
                :1
            ]
            narrow = [("channel", "general"), ("topic", "client async")]
            assert (
                await msgs.update_flags_in_narrow(
                    narrow=narrow, op="add", flag="starred", batch_size=2
                )
                == 3
            )
            ranged = await msgs.update_flags_for_narrow(
                narrow=narrow,
                op="remove",
                flag="starred",
                anchor="newest",
                num_before=5,
                num_after=0,
            )
            assert ranged.updated_count == 3 and ranged.found_oldest
            await msgs.mark_topic_as_read(sid, "client async")
            await msgs.mark_channel_as_read(sid)
            [snapshot] = await msgs.history(ids[0])
            assert snapshot.content == "a0"
            assert await msgs.render("*x*") == "<p><em>x</em></p>"
            found = await msgs.matches_narrow(ids, narrow=[("topic", "client async")])
            assert sorted(found) == ids

    asyncio.run(run())
    member = sandbox.accounts["member"].user_id
    rows = {
        r["message_id"]: r["flags"]
        for r in sandbox.store.query(
            f"SELECT message_id, flags FROM message_flags WHERE user_id = ? "
            f"AND message_id IN ({','.join('?' * len(ids))})",
            [member, *ids],
        )
    }
    assert rows[ids[0]] & 4  # collapsed
    assert all(flags_ & 1 and not flags_ & 2 for flags_ in rows.values())  # read, not starred
