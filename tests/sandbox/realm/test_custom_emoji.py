"""Custom emoji upload and deactivation (``POST``/``DELETE /realm/emoji/{emoji_name}``), the
image under its ``source_url``, and the new emoji in reactions and user status."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterator

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox.realm_emoji import MAX_EMOJI_FILE_SIZE_MIB
from tests.conftest import group_id, realm_settings, unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, post


def png() -> bytes:
    """A real 1x1 PNG image."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00\xff")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


@pytest.fixture
def client(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> Callable[[str], chatops.Client]:
    return lambda account: client_for(account, fresh_sandbox)


@pytest.fixture
def queue(fresh_sandbox: Sandbox) -> Iterator[Queue]:
    q = Queue(fresh_sandbox, "moderator")
    yield q
    q.close()


def _by_name(client: chatops.Client, name: str) -> chatops.types.RealmEmoji:
    return next(e for e in client.realm.emoji().values() if e.name == name and not e.deactivated)


def test_upload_list_serve(
    fresh_sandbox: Sandbox, client: Callable[[str], chatops.Client], queue: Queue
) -> None:
    member = client("member")
    member.realm.upload_emoji("party parrot", png(), filename="parrot.png")  # space -> underscore
    emoji = _by_name(member, "party_parrot")
    assert emoji.author_id == fresh_sandbox.accounts["member"].user_id
    assert emoji.source_url == f"/user_avatars/1/emoji/images/{emoji.id}.png"
    event = queue.wait_for("realm_emoji", op="update")
    assert event["realm_emoji"][emoji.id]["name"] == "party_parrot"
    served = httpx.get(f"{fresh_sandbox.site}{emoji.source_url}")
    assert served.status_code == 200
    assert served.content == png()
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in served.headers["content-security-policy"]
    assert (
        httpx.get(f"{fresh_sandbox.site}/user_avatars/1/emoji/images/nope.png").status_code == 404
    )


def test_usable_in_reactions_and_status(
    fresh_sandbox: Sandbox, client: Callable[[str], chatops.Client]
) -> None:
    member = client("member")
    member.realm.upload_emoji("thumbs-sideways", png())
    emoji = _by_name(member, "thumbs-sideways")
    message_id = post(fresh_sandbox, "member", "general", "emoji", "look")
    member.messages.add_reaction(message_id, "thumbs-sideways")
    stored = fresh_sandbox.store.one("SELECT * FROM reactions WHERE message_id = ?", [message_id])
    assert stored is not None
    assert (stored["emoji_code"], stored["reaction_type"]) == (emoji.id, "realm_emoji")
    member.users.set_status(
        emoji_name="thumbs-sideways", emoji_code=emoji.id, reaction_type="realm_emoji"
    )
    status = member.users.get_status(fresh_sandbox.accounts["member"].user_id)
    assert (status.emoji_name, status.emoji_code, status.reaction_type) == (
        "thumbs-sideways",
        emoji.id,
        "realm_emoji",
    )


@pytest.mark.parametrize(
    ("name", "msg"),
    [
        (
            "Bad",
            "Emoji names must contain only lowercase alphanumeric characters, dashes, and underscores.",
        ),
        ("ends_", "Emoji names must end with either a letter or digit."),
        ("shipit", "A custom emoji with this name already exists."),
        ("smile", "Only administrators can override built-in emoji."),
    ],
)
def test_name_refusals(
    fresh_sandbox: Sandbox, client: Callable[[str], chatops.Client], name: str, msg: str
) -> None:
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        client("member").realm.upload_emoji(name, png())
    assert info.value.msg == msg


def test_file_refusals(fresh_sandbox: Sandbox, client: Callable[[str], chatops.Client]) -> None:
    member = client("member")
    acc = fresh_sandbox.accounts["member"]
    url = f"{fresh_sandbox.site}/api/v1/realm/emoji/"
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST") as info:
            member.realm.upload_emoji("text_file", b"hello, world")
        assert info.value.msg == "Invalid image format"
        with api_error("BAD_REQUEST") as info:
            member.realm.upload_emoji(
                "huge", png() + b"\0" * (MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024)
            )
        assert (
            info.value.msg
            == f"Uploaded file is larger than the allowed limit of {MAX_EMOJI_FILE_SIZE_MIB} MiB"
        )
        for files in ({}, {"a": ("a.png", png()), "b": ("b.png", png())}):
            r = httpx.post(
                url + "two", files=files or None, data={"x": "1"}, auth=(acc.email, acc.api_key)
            )
            assert (r.status_code, r.json()["code"]) == (400, "BAD_REQUEST")
            assert r.json()["msg"] == "You must upload exactly one file."


def test_who_may_add(fresh_sandbox: Sandbox, client: Callable[[str], chatops.Client]) -> None:
    with unchanged(fresh_sandbox.store):
        with api_error("BAD_REQUEST") as info:
            client("guest").realm.upload_emoji("guest_emoji", png())
        assert info.value.msg == "Not allowed for guest users"
        admins = group_id(fresh_sandbox.store, "role:administrators")
        with realm_settings(fresh_sandbox.store, can_add_custom_emoji_group=admins):
            with api_error("BAD_REQUEST") as info:
                client("member").realm.upload_emoji("members_emoji", png())
            assert info.value.msg == "Insufficient permission"
    with realm_settings(fresh_sandbox.store, can_add_custom_emoji_group=admins):
        client("admin").realm.upload_emoji("admins_emoji", png())


def test_deactivate(fresh_sandbox: Sandbox, client: Callable[[str], chatops.Client]) -> None:
    member, moderator, admin = client("member"), client("moderator"), client("admin")
    member.realm.upload_emoji("short_lived", png())
    emoji = _by_name(member, "short_lived")
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        moderator.realm.deactivate_emoji("short_lived")
    assert info.value.msg == "Must be an organization administrator or emoji author"
    queue = Queue(fresh_sandbox, "moderator")
    member.realm.deactivate_emoji("short_lived")
    assert member.realm.emoji()[emoji.id].deactivated is True
    assert queue.wait_for("realm_emoji", op="update")["realm_emoji"][emoji.id]["deactivated"]
    queue.close()
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST", status=404) as info:
        member.realm.deactivate_emoji("short_lived")
    assert info.value.msg == "Emoji 'short_lived' does not exist"
    with api_error("BAD_REQUEST") as info:
        member.messages.add_reaction(
            post(fresh_sandbox, "member", "general", "emoji", "gone"),
            "short_lived",
            emoji_code=emoji.id,
            reaction_type="realm_emoji",
        )
    assert info.value.msg == "This custom emoji has been deactivated."
    member.realm.upload_emoji("short_lived", png())  # the name is free again
    admin.realm.deactivate_emoji("short_lived")  # administrators deactivate anyone's


def test_demo_emoji_images_are_served(
    fresh_sandbox: Sandbox, client: Callable[[str], chatops.Client]
) -> None:
    for emoji in client("member").realm.emoji().values():
        served = httpx.get(f"{fresh_sandbox.site}{emoji.source_url}")
        assert served.status_code == 200, emoji
        assert served.content.startswith(b"\x89PNG")
