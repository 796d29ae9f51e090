"""GrimoireLab's Perceval (``perceval-zulip``, a client nobody here wrote) reads a channel.

Perceval pages through a channel two messages at a time, each page anchored at the second
message of the one before, with ``num_before=0``, ``num_after=2``, the legacy ``stream``
narrow operator and Basic auth. It is installed once into a virtual environment of its own
under ``~/.cache/chatops-tests/``, never into the project's.
"""

from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.test_zulip_term import CACHE

pytestmark = pytest.mark.slow

PERCEVAL = ["perceval==1.6.1", "perceval-zulip==0.4.0"]

#: run inside Perceval's venv: every item of the channel as one JSON line
FETCH = """
import json, sys
from perceval.backends.zulip.zulip import Zulip
url, stream, email, key = sys.argv[1:5]
for item in Zulip(url, stream, email, key).fetch():
    print(json.dumps({"id": item["data"]["id"], "content": item["data"]["content"],
                      "updated_on": item["updated_on"], "origin": item["origin"]}))
"""


@pytest.fixture(scope="session")
def perceval_python() -> Path:
    venv = CACHE / "perceval-1.6.1"
    python = venv / "bin" / "python"
    stamp = venv / ".installed"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "perceval.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # parallel test processes build it once
        if not stamp.exists():
            for step in (
                [sys.executable, "-m", "venv", "--clear", str(venv)],
                [str(python), "-m", "pip", "install", "--quiet", *PERCEVAL],
            ):
                done = subprocess.run(step, capture_output=True, text=True)
                assert done.returncode == 0, f"{' '.join(step)} failed:\n{done.stderr[-4000:]}"
            stamp.touch()
    return python


def test_perceval_fetches_a_channel_whole_and_in_order(
    perceval_python: Path, fresh_sandbox: Sandbox
) -> None:
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin")) as admin:
        admin.channels.subscribe([{"name": "perceval-quest", "description": "Sent on a quest"}])
        sent = [
            admin.messages.send_to_channel("perceval-quest", f"leg {i // 3}", f"step **{i}**").id
            for i in range(7)
        ]
        creds = admin.credentials
    done = subprocess.run(
        [str(perceval_python), "-c", FETCH, creds.site, "perceval-quest", creds.email,
         creds.api_key],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    items = [json.loads(line) for line in done.stdout.splitlines()]
    assert [i["id"] for i in items] == sent
    assert [i["content"] for i in items] == [f"step **{i}**" for i in range(7)]  # raw Markdown
    assert {i["origin"] for i in items} == {f"{creds.site}/perceval-quest"}
    assert all(i["updated_on"] > 0 for i in items)
