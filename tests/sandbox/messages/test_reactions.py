"""Spec 4.9 (remove a reaction), adding reactions, and the three emoji namespaces of section 2."""

from __future__ import annotations

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error, fetch


@pytest.fixture
def message_id(member: chatops.Client) -> int:
    return member.messages.send_to_channel("general", "reactions", "react to me").id


def reactions_of(client: chatops.Client, mid: int) -> list[tuple[str, str, str]]:
    return [(r.emoji_name, r.emoji_code, r.reaction_type) for r in fetch(client, mid).reactions]


def test_unicode_reaction_by_name_and_removal(member: chatops.Client, message_id: int) -> None:
    member.messages.add_reaction(message_id, "octopus")
    assert reactions_of(member, message_id) == [("octopus", "1f419", "unicode_emoji")]
    member.messages.remove_reaction(message_id, emoji_name="octopus")
    assert reactions_of(member, message_id) == []


def test_remove_by_code_matches_older_names(member: chatops.Client, message_id: int) -> None:
    member.messages.add_reaction(message_id, "+1")
    member.messages.remove_reaction(message_id, emoji_code="1f44d", reaction_type="unicode_emoji")
    assert reactions_of(member, message_id) == []


def test_removing_a_missing_reaction(
    member: chatops.Client, message_id: int, sandbox: Sandbox
) -> None:
    with unchanged(sandbox.store), api_error("REACTION_DOES_NOT_EXIST") as info:
        member.messages.remove_reaction(message_id, emoji_name="tada")
    assert isinstance(info.value, chatops.ReactionDoesNotExist)


def test_removing_another_users_reaction_is_missing(
    member: chatops.Client, admin: chatops.Client, message_id: int, sandbox: Sandbox
) -> None:
    admin.messages.add_reaction(message_id, "tada")
    with unchanged(sandbox.store), api_error("REACTION_DOES_NOT_EXIST"):
        member.messages.remove_reaction(message_id, emoji_name="tada")


def test_invalid_emoji_code(member: chatops.Client, message_id: int, sandbox: Sandbox) -> None:
    with unchanged(sandbox.store), api_error("BAD_REQUEST") as info:
        member.messages.remove_reaction(
            message_id, emoji_code="zzzz", reaction_type="unicode_emoji"
        )
    assert info.value.msg == "Invalid emoji code."


def test_name_code_mismatch_and_unknown_name(
    member: chatops.Client, message_id: int, sandbox: Sandbox
) -> None:
    with unchanged(sandbox.store):
        with api_error("BAD_REQUEST") as info:
            member.messages.add_reaction(
                message_id, "octopus", emoji_code="1f44d", reaction_type="unicode_emoji"
            )
        assert info.value.msg == "Invalid emoji name."
        with api_error("BAD_REQUEST") as info:
            member.messages.add_reaction(message_id, "no_such_emoji_name")
        assert info.value.msg == "Emoji 'no_such_emoji_name' does not exist"
        with api_error("BAD_REQUEST"):
            member.messages.add_reaction(message_id, "octopus", reaction_type="made_up_type")


def test_custom_emoji(member: chatops.Client, message_id: int, sandbox: Sandbox) -> None:
    custom = sandbox.store.one("SELECT id FROM realm_emoji WHERE name = 'shipit'")
    assert custom is not None
    member.messages.add_reaction(message_id, "shipit")
    assert reactions_of(member, message_id) == [("shipit", str(custom["id"]), "realm_emoji")]
    member.messages.remove_reaction(
        message_id, emoji_name="shipit"
    )  # type optional for custom emoji
    assert reactions_of(member, message_id) == []
    dead = sandbox.store.one("SELECT id FROM realm_emoji WHERE name = 'old_logo'")
    assert dead is not None
    with unchanged(sandbox.store):
        with api_error("BAD_REQUEST") as info:
            member.messages.add_reaction(
                message_id, "old_logo", emoji_code=str(dead["id"]), reaction_type="realm_emoji"
            )
        assert info.value.msg == "This custom emoji has been deactivated."
        with api_error("BAD_REQUEST") as info:
            member.messages.add_reaction(
                message_id, "shipit", emoji_code="99999", reaction_type="realm_emoji"
            )
        assert info.value.msg == "Invalid custom emoji."


@pytest.mark.parametrize("reaction_type", ["service_extra_emoji", "zulip_extra_emoji"])
def test_service_extra_emoji(member: chatops.Client, message_id: int, reaction_type: str) -> None:
    member.messages.add_reaction(
        message_id, "zulip", emoji_code="zulip", reaction_type=reaction_type
    )
    assert reactions_of(member, message_id) == [("zulip", "zulip", "service_extra_emoji")]
    member.messages.remove_reaction(
        message_id, emoji_name="zulip", emoji_code="zulip", reaction_type=reaction_type
    )
    assert reactions_of(member, message_id) == []


def test_duplicate_reaction(member: chatops.Client, message_id: int, sandbox: Sandbox) -> None:
    member.messages.add_reaction(message_id, "heart")
    with unchanged(sandbox.store), api_error("REACTION_ALREADY_EXISTS"):
        member.messages.add_reaction(message_id, "heart")


def test_reaction_on_inaccessible_message(
    guest: chatops.Client, member: chatops.Client, sandbox: Sandbox
) -> None:
    mid = member.messages.send_direct([sandbox.accounts["admin"].user_id], "secret").id
    with unchanged(sandbox.store), api_error("BAD_REQUEST") as info:
        guest.messages.add_reaction(mid, "tada")
    assert info.value.msg == "Invalid message(s)"
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        guest.messages.remove_reaction(mid, emoji_name="tada")


def test_remove_needs_name_or_code(
    member: chatops.Client, message_id: int, sandbox: Sandbox
) -> None:
    import httpx

    acc = sandbox.accounts["member"]
    with unchanged(sandbox.store):
        r = httpx.request(
            "DELETE",
            f"{sandbox.site}/api/v1/messages/{message_id}/reactions",
            auth=(acc.email, acc.api_key),
        )
    assert r.status_code == 400 and r.json()["code"] == "BAD_REQUEST"
