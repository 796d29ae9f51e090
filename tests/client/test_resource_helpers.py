"""The two helpers the resources are written with: ``given`` and ``Resource``."""

from __future__ import annotations

import subprocess
import sys

import pytest

import chatops
from chatops._base_client import NOT_GIVEN
from chatops.resources._base import Resource, given


def test_given_keeps_what_was_given() -> None:
    def method(self: object, a: object, b: object, c: object, d: object) -> dict[str, object]:
        return given(locals(), "d")

    assert method(object(), None, False, NOT_GIVEN, 5) == {"a": None, "b": False}


@pytest.mark.sync_only("reads the class attributes of both clients itself")
def test_resources_are_made_on_first_use_from_the_matching_package() -> None:
    code = (
        "import sys, chatops\n"
        "c = chatops.Client(site='https://x.test', email='a@x.test', api_key='k' * 32)\n"
        "a = chatops.AsyncClient(site='https://x.test', email='a@x.test', api_key='k' * 32)\n"
        "assert 'chatops._sync_client.resources.messages' not in sys.modules\n"
        "m = c.messages\n"
        "assert m is c.messages and 'chatops._sync_client.resources.messages' in sys.modules\n"
        "print(type(m).__module__, type(a.reminders).__module__, type(a.reminders).__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [
        "chatops._sync_client.resources.messages",
        "chatops._async_client.resources.scheduled",
        "AsyncReminders",
    ]
    assert isinstance(chatops.Client.__dict__["users"], Resource)


@pytest.mark.sync_only("defines a class")
def test_a_resource_attribute_must_name_its_class() -> None:
    # Python 3.11 wraps an error of __set_name__ in RuntimeError; later versions do not
    with pytest.raises((TypeError, RuntimeError)) as info:

        class Broken:
            things = Resource("messages")  # type: ignore[var-annotated]

    error = info.value.__cause__ or info.value
    assert isinstance(error, TypeError)
    assert str(error) == "Broken.things: annotate it as Resource[SomeResource]"
