"""Panels run headless against a real sandbox: set widget values, click, check the sandbox."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A demo organization of the test module's own: panels change it."""
    with Sandbox.start(tmp_path_factory.mktemp("panel-org"), size="small", seed=21) as sb:
        yield sb


@pytest.fixture
def connect(org: Sandbox) -> Iterator[Callable[[str], chatops.Client]]:
    """``connect("admin")``: a client of a demo account of ``org``."""
    made: list[chatops.Client] = []

    def make(account: str) -> chatops.Client:
        client = chatops.Client.from_zuliprc(org.zuliprc(account))
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def export_dir(tmp_path: Path) -> Path:
    return tmp_path / "exports"
