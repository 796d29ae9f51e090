"""Names that say what they do: ``client.invitations`` (``invites`` deprecated), ``drop_not_given``."""

from __future__ import annotations

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
