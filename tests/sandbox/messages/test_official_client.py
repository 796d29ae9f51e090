"""The official ``zulip`` client, which nobody here wrote, works against the sandbox.

If one of these fails, the sandbox is wrong.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import zulip

from chatops.sandbox import Sandbox

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def official(sandbox: Sandbox) -> zulip.Client:
    return zulip.Client(config_file=str(sandbox.zuliprc("member")), client="OfficialTest/1.0")


def test_get_profile(official: zulip.Client, sandbox: Sandbox) -> None:
    profile = official.get_profile()
    assert profile["result"] == "success"
    assert profile["email"] == sandbox.accounts["member"].email
    assert profile["role"] == 400
    assert "is_billing_admin" not in profile


def test_send_fetch_edit_resolve_react_unreact(official: zulip.Client) -> None:
    sent = official.send_message(
        {
            "type": "stream",
            "to": "general",
            "topic": "official client",
            "content": "hello from zulip",
        }
    )
    assert sent["result"] == "success", sent
    mid = sent["id"]

    fetched = official.get_messages(
        {
            "anchor": mid,
            "num_before": 0,
            "num_after": 0,
            "narrow": [{"operator": "channel", "operand": "general"}],
            "apply_markdown": False,
        }
    )
    assert fetched["result"] == "success", fetched
    assert [m["content"] for m in fetched["messages"]] == ["hello from zulip"]

    edited = official.update_message({"message_id": mid, "content": "hello, edited"})
    assert edited["result"] == "success", edited

    resolved = official.update_message(
        {"message_id": mid, "topic": "\u2714 official client", "propagate_mode": "change_all"}
    )
    assert resolved["result"] == "success", resolved
    after = official.get_messages(
        {"anchor": mid, "num_before": 0, "num_after": 0, "apply_markdown": False}
    )
    message = after["messages"][0]
    assert message["subject"] == "\u2714 official client"
    assert message["content"] == "hello, edited"

    assert (
        official.add_reaction({"message_id": mid, "emoji_name": "octopus"})["result"] == "success"
    )
    with_reaction = official.get_messages({"anchor": mid, "num_before": 0, "num_after": 0})
    assert [r["emoji_name"] for r in with_reaction["messages"][0]["reactions"]] == ["octopus"]
    removed = official.remove_reaction({"message_id": mid, "emoji_name": "octopus"})
    assert removed["result"] == "success", removed
    again = official.remove_reaction({"message_id": mid, "emoji_name": "octopus"})
    assert again["result"] == "error" and again["code"] == "REACTION_DOES_NOT_EXIST"


def test_upload_file(official: zulip.Client, sandbox: Sandbox, tmp_path: Path) -> None:
    path = tmp_path / "notes from official.txt"
    path.write_bytes(b"uploaded by the official client\n")
    with path.open("rb") as fp:
        result = official.upload_file(fp)
    assert result["result"] == "success", result
    url = result.get("url") or result["uri"]
    acc = sandbox.accounts["member"]
    body = httpx.get(sandbox.site + url, auth=(acc.email, acc.api_key)).content
    assert body == b"uploaded by the official client\n"


def test_flags_history_render_and_matches(official: zulip.Client, sandbox: Sandbox) -> None:
    """The official client's calls of these endpoints, with its own encodings."""
    sent = official.send_message(
        {"type": "stream", "to": "general", "topic": "official flags", "content": "first"}
    )
    mid = sent["id"]
    assert official.update_message({"message_id": mid, "content": "second"})["result"] == "success"
    history = official.get_message_history(mid)
    assert history["result"] == "success", history
    assert [h["content"] for h in history["message_history"]] == ["first", "second"]
    starred = official.update_message_flags({"messages": [mid], "op": "add", "flag": "starred"})
    assert starred == {"result": "success", "msg": "", "messages": [mid]}
    sid = int(sandbox.store.scalar("SELECT id FROM streams WHERE name = 'general'"))
    assert official.mark_topic_as_read(sid, "official flags")["result"] == "success"
    assert official.mark_stream_as_read(sid)["result"] == "success"
    rendered = official.render_message({"content": "foo **bar**"})
    assert rendered["rendered"] == "<p>foo <strong>bar</strong></p>"
    matched = official.check_messages_match_narrow(
        msg_ids=[mid], narrow=[{"operator": "topic", "operand": "official flags"}]
    )
    assert matched["result"] == "success", matched
    assert list(matched["messages"]) == [str(mid)]
