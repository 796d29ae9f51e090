"""Custom emoji on a server before feature level 190: an unknown name is HTTP 400, not 404."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error


@pytest.fixture(scope="module")
def old_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(
        tmp_path_factory.mktemp("old"), size="small", seed=3, feature_level=189
    ) as sb:
        yield sb


def test_unknown_emoji_is_400_before_level_190(old_sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(old_sandbox.zuliprc("admin")) as admin:
        with unchanged(old_sandbox.store), api_error("BAD_REQUEST", status=400) as info:
            admin.realm.deactivate_emoji("no_such_emoji")
        assert info.value.msg == "Emoji 'no_such_emoji' does not exist"
