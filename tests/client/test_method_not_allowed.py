"""The client on the real server's 405 (no code, the allowed methods in the body)."""

from __future__ import annotations

import pytest

import chatops


def test_a_405_names_the_allowed_methods(member: chatops.Client) -> None:
    with pytest.raises(chatops.ApiError) as info:
        member._request("PUT", "/messages/1")
    err = info.value
    assert (err.status, err.code, err.msg) == (405, "BAD_REQUEST", "Method Not Allowed")
    assert err.allowed_methods == ["DELETE", "GET", "HEAD", "PATCH"]
