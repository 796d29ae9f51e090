"""Names that say what they do, and the old names kept as deprecated aliases.

``client.invitations`` (``invites`` deprecated), ``client.bots.create`` (``users.create_bot``
deprecated), ``chatops.linkify`` (``chatops.linkifiers`` deprecated), ``drop_not_given``.
"""

from __future__ import annotations

import importlib
import sys
import time
import warnings
from collections.abc import Callable

import pytest

import chatops
from chatops import NOT_GIVEN
from chatops.resources._base import drop_not_given
from chatops.resources.invitations import AsyncInvitations, Invitations, Invites
from chatops.sandbox import Sandbox
from chatops.types import BotResult


@pytest.mark.parametrize("cls", [chatops.Client, chatops.AsyncClient])
def test_invites_is_a_deprecated_alias_naming_invitations(cls: type) -> None:
    client = cls("http://127.0.0.1:9", "a@example.com", "k" * 32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        area = client.invitations  # the new name warns about nothing
    assert isinstance(area, Invitations if cls is chatops.Client else AsyncInvitations)
    with pytest.warns(
        DeprecationWarning, match=r"client\.invites is deprecated; use client\.invitations"
    ):
        assert client.invites is area
    assert Invites is Invitations


def test_drop_not_given_drops_what_was_not_given() -> None:
    assert drop_not_given(a=1, b=NOT_GIVEN, c=None, d=False) == {"a": 1, "c": None, "d": False}
    assert drop_not_given() == {}


def test_the_linkifier_matcher_is_chatops_linkify(monkeypatch: pytest.MonkeyPatch) -> None:
    """``chatops.linkifiers`` still imports, re-exporting ``chatops.linkify`` with a warning."""
    import chatops.linkify as linkify

    monkeypatch.delitem(sys.modules, "chatops.linkifiers", raising=False)
    with pytest.warns(DeprecationWarning, match=r"import chatops\.linkify instead"):
        old = importlib.import_module("chatops.linkifiers")
    assert old.Matcher is linkify.Matcher and old.re2_message is linkify.re2_message
    assert [m.url for m in old.Matcher(r"#(?P<id>\d+)", "https://x.test/{id}").find("see #7")] == [
        "https://x.test/7"
    ]


def test_users_create_bot_is_a_deprecated_alias_of_bots_create(
    client_for: Callable[..., chatops.Client], sandbox: Sandbox, twin: str
) -> None:
    """Same request, same result type and owner as ``client.bots.create``, with a warning."""
    member = client_for("member")
    short = f"alias{twin}{time.monotonic_ns()}"
    with pytest.warns(
        DeprecationWarning,
        match=r"client\.users\.create_bot is deprecated; use client\.bots\.create",
    ):
        bot = member.users.create_bot(full_name=f"Alias {short}", short_name=short)
    assert isinstance(bot, BotResult) and bot.email == f"{short}-bot@demo.chatops.test"
    owner = sandbox.store.scalar("SELECT bot_owner_id FROM users WHERE id = ?", [bot.user_id])
    assert owner == sandbox.accounts["member"].user_id
    member.bots.deactivate(bot.user_id)
