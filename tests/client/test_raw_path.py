"""The public raw path: ``client.get/post/patch/delete`` return the decoded JSON object of any
endpoint, and refusals still raise the typed exceptions."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox


def test_get_returns_the_whole_json_object(admin: chatops.Client) -> None:
    body = admin.get("/users/me")
    assert body["result"] == "success"
    assert body["email"] == admin.email
    streams = admin.get("/streams", params={"include_all": True})["streams"]
    assert streams and all("can_send_message_group" in s for s in streams)


def test_post_patch_delete_round_trip(admin: chatops.Client) -> None:
    created = admin.post("/saved_snippets", params={"title": "raw", "content": "via raw path"})
    snippet_id = created["saved_snippet_id"]
    admin.patch(f"/saved_snippets/{snippet_id}", params={"title": "raw, renamed"})
    titles = {s.id: s.title for s in admin.saved_snippets.list()}
    assert titles[snippet_id] == "raw, renamed"
    admin.delete(f"/saved_snippets/{snippet_id}")
    assert snippet_id not in {s.id for s in admin.saved_snippets.list()}


def test_refusals_raise_typed_errors(admin: chatops.Client, member: chatops.Client) -> None:
    with pytest.raises(chatops.BadRequest) as info:
        admin.post("/user_groups/999999/deactivate")
    assert info.value.code == "BAD_REQUEST"
    with pytest.raises(chatops.UnauthorizedPrincipal):
        member.post("/channel_folders/create", params={"name": "nope", "description": ""})


def test_async_twins(sandbox: Sandbox, client_for: Callable[[str], chatops.Client]) -> None:
    async def run() -> tuple[str, str]:
        async with chatops.AsyncClient.from_zuliprc(sandbox.zuliprc("admin")) as client:
            me = await client.get("/users/me")
            created = await client.post(
                "/saved_snippets", params={"title": "async raw", "content": "x"}
            )
            sid = created["saved_snippet_id"]
            await client.patch(f"/saved_snippets/{sid}", params={"content": "y"})
            await client.delete(f"/saved_snippets/{sid}")
            with pytest.raises(chatops.BadRequest):
                await client.delete(f"/saved_snippets/{sid}")
            return str(me["email"]), str(created["result"])

    email, result = asyncio.run(run())
    assert email == client_for("admin").email and result == "success"
