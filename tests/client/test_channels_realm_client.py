"""The client's subscription-property, default-channel, email-address, custom-profile-field
and custom-emoji calls: the async twins against a real sandbox, and the file inputs of an
emoji upload."""

from __future__ import annotations

import asyncio
from pathlib import Path

from chatops import AsyncClient, Client
from chatops.sandbox import Sandbox
from tests.sandbox.helpers import stream_id
from tests.sandbox.realm.test_custom_emoji import png


def test_async_twins(fresh_sandbox: Sandbox) -> None:
    design = stream_id(fresh_sandbox, "design")
    member_id = fresh_sandbox.accounts["member"].user_id

    async def main() -> None:
        async with (
            AsyncClient(credentials=fresh_sandbox.credentials("admin")) as admin,
            AsyncClient(credentials=fresh_sandbox.credentials("member")) as member,
        ):
            await member.channels.update_subscription_properties(
                [(design, "color", "#abcdef"), (design, "push_notifications", True)]
            )
            sub = next(s for s in await member.channels.subscriptions() if s.stream_id == design)
            assert (sub.color, sub.push_notifications) == ("#abcdef", True)

            await admin.channels.add_default(design)
            listed = await admin.channels.list(include_default=True)
            assert next(c for c in listed if c.stream_id == design).is_default
            assert (await admin.channels.get(design)).is_default is None  # only when asked
            await admin.channels.remove_default(design)
            listed = await admin.channels.list(include_default=True)
            assert next(c for c in listed if c.stream_id == design).is_default is False
            address = await member.channels.email_address(design)
            assert address.startswith("design.") and address.endswith(".show-sender@127.0.0.1")
            own = await member.channels.email_address(design, sender_id=member_id)
            assert own != address

            fid = await admin.realm.create_profile_field(
                field_type=3,
                name="Async choice",
                field_data={"a": {"text": "A", "order": "1"}},
            )
            await admin.realm.update_profile_field(fid, hint="Pick one")
            fields = await member.realm.profile_fields()
            assert next(f for f in fields if f.id == fid).hint == "Pick one"
            await admin.realm.reorder_profile_fields([fid, *(f.id for f in fields if f.id != fid)])
            assert (await member.realm.profile_fields())[0].id == fid
            await member.users.update_profile_data({fid: "a"})
            me = await admin.users.get(member_id, include_custom_profile_fields=True)
            assert me.profile_data is not None and me.profile_data[str(fid)].value == "a"
            await member.users.remove_profile_data([fid])
            await admin.users.update(member_id, profile_data={fid: "a"})
            await admin.realm.delete_profile_field(fid)
            assert fid not in [f.id for f in await member.realm.profile_fields()]

            await member.realm.upload_emoji("async_emoji", png())
            emoji = {e.name: e for e in (await member.realm.emoji()).values()}["async_emoji"]
            assert emoji.author_id == member_id
            await member.realm.deactivate_emoji("async_emoji")
            assert (await member.realm.emoji())[emoji.id].deactivated

    asyncio.run(main())


def test_emoji_from_a_path_and_a_file_object(fresh_sandbox: Sandbox, tmp_path: Path) -> None:
    image = tmp_path / "from-path.png"
    image.write_bytes(png())
    with Client(credentials=fresh_sandbox.credentials("member")) as member:
        member.realm.upload_emoji("from_path", image)
        with image.open("rb") as handle:
            member.realm.upload_emoji("from_handle", handle)
        names = {e.name for e in member.realm.emoji().values()}
        assert {"from_path", "from_handle"} <= names
