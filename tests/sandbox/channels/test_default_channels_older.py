"""Default channels on a server before feature level 330: the ``default_streams`` event
carries channel records instead of ids."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import stream_id


@pytest.fixture(scope="module")
def old_sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(
        tmp_path_factory.mktemp("old"), size="small", seed=3, feature_level=329
    ) as sb:
        yield sb


def test_event_has_records_before_level_330(old_sandbox: Sandbox) -> None:
    queue = Queue(old_sandbox, "member")
    design = stream_id(old_sandbox, "design")
    with chatops.Client.from_zuliprc(old_sandbox.zuliprc("admin")) as admin:
        admin.channels.add_default(design)
    event = queue.wait_for("default_streams")
    queue.close()
    records = {s["stream_id"]: s for s in event["default_streams"]}
    assert design in records and stream_id(old_sandbox, "general") in records
    assert records[design]["name"] == "design"
