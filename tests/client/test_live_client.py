"""The client against a real sandbox over HTTP (fixture ``sandbox`` from tests/conftest.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

import chatops
from chatops import AsyncClient, Client, ReactionDoesNotExist


@pytest.fixture
def _client(make_client: Callable[..., Client]) -> Callable[..., Client]:
    """A client of ``account`` on ``sandbox``: sync, or async behind the blocking wrapper."""

    def make(sandbox: Any, account: str = "member") -> Client:
        return make_client(credentials=sandbox.credentials(account))

    return make


def _some_channel(client: Client) -> chatops.Channel:
    channels = [c for c in client.channels.list() if not c.invite_only and not c.is_archived]
    assert channels, "the demo organization has public channels"
    return channels[0]


def test_me(sandbox: Any, _client: Callable[..., Client]) -> None:
    with _client(sandbox, "admin") as client:
        me = client.users.me()
        assert me.email == client.email
        assert me.is_admin and me.role in (100, 200)
        assert client.users.get(me.user_id).user_id == me.user_id
        assert any(u.user_id == me.user_id for u in client.users.list())
        assert client.get_capabilities().feature_level > 0


def test_server_settings_without_auth(sandbox: Any, _client: Callable[..., Client]) -> None:
    with _client(sandbox) as client:
        assert (
            client.server.settings().zulip_feature_level == client.get_capabilities().feature_level
        )


def test_send_get_edit_react_round_trip(sandbox: Any, _client: Callable[..., Client]) -> None:
    with _client(sandbox) as client:
        channel = _some_channel(client)
        sent = client.messages.send_to_channel(channel.name, "client round trip", "first draft")
        message = client.messages.get_one(sent.id)
        assert message.topic == "client round trip" and message.stream_id == channel.stream_id
        client.messages.edit(sent.id, content="second draft", prev_content="first draft")
        with pytest.raises(chatops.ExpectationMismatch):
            client.messages.edit(sent.id, content="third", prev_content="first draft")
        client.messages.add_reaction(sent.id, "thumbs_up")
        page = client.messages.get(message_ids=[sent.id])
        (fetched,) = page.messages
        assert "second draft" in fetched.content
        assert [r.emoji_name for r in fetched.reactions] == ["thumbs_up"]
        client.messages.remove_reaction(sent.id, "thumbs_up")
        with pytest.raises(ReactionDoesNotExist):
            client.messages.remove_reaction(sent.id, "thumbs_up")
        topics = client.messages.topics(channel.stream_id)
        assert "client round trip" in [t.name for t in topics]


def test_resolve_and_unresolve(sandbox: Any, _client: Callable[..., Client]) -> None:
    with _client(sandbox, "admin") as client:
        channel = _some_channel(client)
        sent = client.messages.send_to_channel(channel.name, "to resolve", "done?")
        client.messages.resolve_topic(sent.id)
        assert client.messages.get_one(sent.id).topic == "✔ to resolve"
        client.messages.unresolve_topic(sent.id)
        assert client.messages.get_one(sent.id).topic == "to resolve"


def test_iter_history_covers_channel_without_duplicates(
    sandbox: Any, _client: Callable[..., Client]
) -> None:
    with _client(sandbox, "admin") as client:
        channel = _some_channel(client)
        narrow = [("channel", channel.stream_id)]
        ids = [m.id for m in client.messages.iter_history(narrow=narrow, page_size=7)]
        assert len(ids) == len(set(ids)) and ids == sorted(ids, reverse=True)
        everything = client.messages.get(anchor="newest", num_before=5000, narrow=narrow)
        assert set(ids) == {m.id for m in everything.messages}
        forward = [
            m.id
            for m in client.messages.iter_history(narrow=narrow, page_size=5, direction="newer")
        ]
        assert forward == sorted(ids)


def test_upload_download_identical_bytes(sandbox: Any, _client: Callable[..., Client]) -> None:
    data = bytes(range(256)) * 50
    with _client(sandbox) as client:
        result = client.uploads.upload(data, "blob [1].bin")
        assert result.url.startswith("/user_uploads/") and result.uri == result.url
        assert client.uploads.download(result.url) == data
        assert client.uploads.download(sandbox.site + result.url) == data
        assert any(a.path_id in result.url for a in client.uploads.attachments())


def test_async_twin(sandbox: Any) -> None:
    async def main() -> None:
        async with AsyncClient(credentials=sandbox.credentials("member")) as client:
            me = await client.users.me()
            caps = await client.get_capabilities()
            assert caps.max_topic_length
            pages = [page async for page in client.messages.iter_pages(page_size=50)]
            ids = [m.id for page in pages for m in page]
            assert len(ids) == len(set(ids))
            assert me.user_id > 0

    asyncio.run(main())


def test_bad_key_is_authentication_error(sandbox: Any) -> None:
    creds = sandbox.credentials("member")
    bad = chatops.Credentials(creds.site, creds.email, "wrong-key-0123456789abcdef")
    with Client(credentials=bad) as client, pytest.raises(chatops.AuthenticationError) as info:
        client.users.me()
    assert "wrong-key" not in str(info.value)


def test_fetch_api_key(sandbox: Any) -> None:
    creds = sandbox.credentials("member")
    password = sandbox.password("member")
    result = chatops.fetch_api_key(sandbox.site, creds.email, password)
    assert result.api_key == creds.api_key and result.api_key not in repr(result)
    with pytest.raises(chatops.AuthenticationError):
        chatops.fetch_api_key(sandbox.site, creds.email, "not the password")
