"""Names that say what they do: ``client.invitations`` (``invites`` deprecated), ``drop_not_given``."""

from __future__ import annotations

import importlib
import sys
import warnings

import pytest

import chatops
from chatops import NOT_GIVEN
from chatops.resources._base import drop_not_given
from chatops.resources.invitations import AsyncInvitations, Invitations, Invites


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
