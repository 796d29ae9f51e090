"""The client's own-account wrappers, sync and async: presence, settings, muted users, alert
words and drafts; and the mistakes it refuses before sending anything."""

from __future__ import annotations

import asyncio

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.types import Draft
from tests.conftest import unchanged
from tests.sandbox.helpers import stream_id


def test_sync_wrappers(member: chatops.Client, sandbox: Sandbox) -> None:
    answer = member.users.update_presence("active", last_update_id=-1)
    me = sandbox.accounts["member"]
    assert me.user_id in answer.modern()
    assert member.users.realm_presence().legacy()[me.email].status == "active"
    assert member.users.presence(me.email).aggregated is not None

    words = member.alert_words.add(["client word"])
    assert "client word" in words
    assert "client word" not in member.alert_words.remove(["client word"])

    general = stream_id(sandbox, "general")
    [draft_id] = member.drafts.create(
        [Draft(type="stream", to=[general], topic="typed", content="from a record")]
    )
    assert any(d.id == draft_id and d.content == "from a record" for d in member.drafts.list())
    member.drafts.edit(draft_id, Draft(type="", to=[], topic="", content="loose"))
    member.drafts.delete(draft_id)

    member.users.update_settings(left_side_userlist=True)
    state = member.server.register(fetch_event_types=["user_settings"])
    assert state["user_settings"]["left_side_userlist"] is True
    member.users.update_settings(left_side_userlist=False)

    guest = sandbox.accounts["guest"].user_id
    member.users.mute(guest)
    assert [
        m["id"] for m in member.server.register(fetch_event_types=["muted_users"])["muted_users"]
    ] == [guest]
    member.users.unmute(guest)


def test_async_wrappers(sandbox: Sandbox) -> None:
    me = sandbox.accounts["member"]

    async def main() -> None:
        async with chatops.AsyncClient.from_zuliprc(sandbox.zuliprc("member")) as client:
            answer = await client.users.update_presence("idle", slim_presence=True)
            assert me.user_id in answer.modern()
            assert me.email in (await client.users.realm_presence()).legacy()
            assert (await client.users.presence(me.user_id)).aggregated is not None
            assert "async word" in await client.alert_words.add(["async word"])
            assert "async word" in await client.alert_words.list()
            await client.alert_words.remove(["async word"])
            [draft_id] = await client.drafts.create(
                [{"type": "", "to": [], "topic": "", "content": "async"}]
            )
            await client.drafts.edit(
                draft_id, {"type": "", "to": [], "topic": "", "content": "async 2"}
            )
            assert any(d.content == "async 2" for d in await client.drafts.list())
            await client.drafts.delete(draft_id)
            await client.users.update_settings(enable_sounds=False)
            await client.users.update_settings(enable_sounds=True)
            guest = sandbox.accounts["guest"].user_id
            await client.users.mute(guest)
            await client.users.unmute(guest)

    asyncio.run(main())


def test_mistakes_refused_before_sending(member: chatops.Client, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store):
        with pytest.raises(ValueError, match="'active' or 'idle'"):
            member.users.update_presence("away")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="at least one setting"):
            member.users.update_settings()
        with pytest.raises(TypeError, match="list of alert words"):
            member.alert_words.add("one string")
        with pytest.raises(ValueError, match="alert word"):
            member.alert_words.add(["x" * 101])
        with pytest.raises(ValueError, match="a draft needs content"):
            member.drafts.create([{"type": "", "to": [], "topic": ""}])
        with pytest.raises(ValueError, match="user ID or an email"):
            member.users.presence(" ")
