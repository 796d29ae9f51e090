"""Addresses are checked as the real server checks them (Django's ``validate_email``): for
invitations, ``POST /users``, the join form and ``POST /fetch_api_key``.

The table is the kind of case Django's own validator tests use."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox.emails import valid_email
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error

VALID = [
    "email@here.com",
    "weirder-email@here.and.there.com",
    "email@[127.0.0.1]",
    "email@[2001:dB8::1]",
    "email@[::fffF:127.0.0.1]",
    "example@valid-----hyphens.com",
    "example@valid-with-hyphens.com",
    "test@domain.with.idn.tld.उदाहरण.परीक्षा",
    "email@localhost",
    '"test@test"@example.com',
    "example@atm." + "a" * 63,
    "example@" + "a" * 63 + ".atm",
    "o'brien+tag@mail.example.org",
    "first.last@example.co.uk",
]
INVALID = [
    "",
    "abc",
    "abc@",
    "abc@bar",
    "@example.com",
    "a @x.cz",
    "abc@.com",
    "something@@somewhere.com",
    "email@127.0.0.1",
    "email@[127.0.0.256]",
    "email@[2001:db8::12345]",
    "email@[2001:db8:0:0:0:0:1]",
    "email@[::fTzF:127.0.0.1]",
    "example@invalid-.com",
    "example@-invalid.com",
    "example@invalid.com-",
    "example@inv-.alid-.com",
    "trailingdot@shouldfail.com.",
    "example@atm." + "a" * 64,
    "a@b.com\n",
    "a\n@b.com",
    "gina@example..com",
    "..gina@example.com",
    "gina.@example.com",
    "gi..na@example.com",
    "gina@example.c",
    "x" * 310 + "@example.com",
]


@pytest.mark.parametrize("address", VALID)
def test_valid(address: str) -> None:
    assert valid_email(address)


@pytest.mark.parametrize("address", INVALID)
def test_invalid(address: str) -> None:
    assert not valid_email(address)


Make = Callable[..., chatops.Client]


def test_an_invitation_to_a_bad_address_is_refused(
    fresh_sandbox: Sandbox, client_for: Make
) -> None:
    admin = client_for("admin", fresh_sandbox)
    with unchanged(fresh_sandbox.store), api_error("INVITATION_FAILED") as info:
        admin.invitations.send(["ok@mail.test", "gina@example..com"], stream_ids=[])
    assert info.value.errors == [["gina@example..com", "Invalid address.", False]]
    assert info.value.sent_invitations is False


def test_creating_a_user_with_a_bad_address_is_refused(
    fresh_sandbox: Sandbox, client_for: Make
) -> None:
    owner = client_for("owner", fresh_sandbox)
    with unchanged(fresh_sandbox.store), api_error("BAD_REQUEST") as info:
        owner.users.create(email="gina@example..com", password="pw-123456", full_name="Gina")
    assert "gina@example..com" in info.value.msg and "Bad name or username" in info.value.msg


def test_the_join_form_refuses_a_bad_address(fresh_sandbox: Sandbox, client_for: Make) -> None:
    link = client_for("owner", fresh_sandbox).invitations.create_link()
    with unchanged(fresh_sandbox.store):
        r = httpx.post(
            link, data={"email": "gina@example..com", "full_name": "Gina", "password": "pw-1234"}
        )
    assert r.status_code == 400 and "valid email" in r.text


def test_fetch_api_key_refuses_a_bad_address(fresh_sandbox: Sandbox) -> None:
    r = httpx.post(
        f"{fresh_sandbox.site}/api/v1/fetch_api_key",
        data={"username": "member@demo..chatops.test", "password": "x"},
    )
    assert r.status_code == 400
    assert r.json()["msg"] == "Enter a valid email address."
