"""The public raw path: ``client.get/post/patch/delete`` for any endpoint, errors still raised."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox


def test_each_method_returns_the_decoded_json(
    client_for: Callable[[str], chatops.Client],
) -> None:
    admin = client_for("admin")
    me = admin.get("/users/me")
    assert me["result"] == "success" and me["user_id"] == admin.users.me().user_id
    sent = admin.post(
        "/messages",
        params={"type": "stream", "to": "general", "topic": "raw path", "content": "first"},
    )
    message_id = sent["id"]
    assert admin.patch(f"/messages/{message_id}", params={"content": "second"})["result"] == (
        "success"
    )
    fetched = admin.get(f"/messages/{message_id}", params={"apply_markdown": False})
    assert fetched["message"]["content"] == "second"
    assert admin.delete(f"/messages/{message_id}")["result"] == "success"


def test_lists_and_booleans_are_sent_as_json(client_for: Callable[[str], chatops.Client]) -> None:
    admin = client_for("admin")
    everyone = admin.get("/users")["members"]
    two = [m["user_id"] for m in everyone[:2]]
    picked = admin.get("/users", params={"user_ids": two, "client_gravatar": False})["members"]
    assert sorted(m["user_id"] for m in picked) == sorted(two)


def test_errors_are_raised_as_the_typed_exceptions(
    client_for: Callable[[str], chatops.Client],
) -> None:
    member = client_for("member")
    with pytest.raises(chatops.ApiError) as info:
        member.get("/streams/999999")
    assert (info.value.code, info.value.status) == ("BAD_REQUEST", 400)
    with pytest.raises(chatops.RequestVariableMissing):
        member.post("/messages", params={"type": "stream", "to": "general"})
    with pytest.raises(chatops.BadRequest, match="Invalid message"):
        member.delete("/messages/999999999")


def test_the_async_twin(sandbox: Sandbox) -> None:
    async def main() -> None:
        async with chatops.AsyncClient(config_file=sandbox.zuliprc("admin")) as admin:
            me = await admin.get("/users/me")
            sent = await admin.post(
                "/messages",
                params={"type": "stream", "to": "general", "topic": "raw", "content": "a"},
            )
            await admin.patch(f"/messages/{sent['id']}", params={"content": "b"})
            fetched = await admin.get(f"/messages/{sent['id']}", params={"apply_markdown": False})
            assert fetched["message"]["content"] == "b"
            assert fetched["message"]["sender_id"] == me["user_id"]
            await admin.delete(f"/messages/{sent['id']}")
            with pytest.raises(chatops.BadRequest, match="Invalid message"):
                await admin.get(f"/messages/{sent['id']}")

    asyncio.run(main())
