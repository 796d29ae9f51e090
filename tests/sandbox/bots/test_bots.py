"""``client.bots``: a bot owned by the requester, created and deactivated (spec 4.22)."""

from __future__ import annotations

import asyncio
import time

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged


def _is_active(sandbox: Sandbox, user_id: int) -> bool:
    return bool(sandbox.store.scalar("SELECT is_active FROM users WHERE id = ?", [user_id]))


def test_owner_creates_and_deactivates_a_bot(
    sandbox: Sandbox, member: chatops.Client, guest: chatops.Client
) -> None:
    short = f"helper{time.monotonic_ns()}"
    bot = member.bots.create(full_name="Helper Bot", short_name=short)
    assert bot.email == f"{short}-bot@demo.chatops.test" and _is_active(sandbox, bot.user_id)
    with unchanged(sandbox.store), pytest.raises(chatops.ApiError):
        guest.bots.deactivate(bot.user_id)  # neither its owner nor an administrator
    member.bots.deactivate(bot.user_id)
    assert not _is_active(sandbox, bot.user_id)
    with unchanged(sandbox.store), pytest.raises(chatops.ApiError, match="already deactivated"):
        member.bots.deactivate(bot.user_id)


def test_users_create_bot_is_the_same_call(sandbox: Sandbox, member: chatops.Client) -> None:
    short = f"same{time.monotonic_ns()}"
    bot = member.users.create_bot(full_name="Same Bot", short_name=short)
    owner = sandbox.store.scalar("SELECT bot_owner_id FROM users WHERE id = ?", [bot.user_id])
    assert owner == sandbox.accounts["member"].user_id


def test_the_async_twin(sandbox: Sandbox) -> None:
    async def main() -> int:
        async with chatops.AsyncClient(config_file=sandbox.zuliprc("member")) as member:
            bot = await member.bots.create(
                full_name="Async Bot", short_name=f"async{time.monotonic_ns()}"
            )
            await member.bots.deactivate(bot.user_id)
            return bot.user_id

    assert not _is_active(sandbox, asyncio.run(main()))
