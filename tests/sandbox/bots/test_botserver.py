"""``zulip-botserver`` (with a bot of ``zulip-bots``), which nobody here wrote, against a sandbox.

The botserver runs in a virtual environment of its own, built once under the user's cache
folder (never in the repository) with the latest ``zulip-botserver`` and ``zulip-bots`` from
the package index, and reused by later sessions. It receives the sandbox's outgoing-webhook
payloads and answers through the API as the bot, so a mention of the bot gets its reply in the
topic.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from pathlib import Path

import pytest

import chatops
from chatops.sandbox import Sandbox

pytestmark = pytest.mark.slow

PACKAGES = ["zulip-botserver", "zulip-bots"]


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "chatops-tests"


@pytest.fixture(scope="session")
def botserver() -> Path:
    """The ``zulip-botserver`` command of a venv of its own (built on first use)."""
    root = cache_dir() / f"botserver-py{sys.version_info.major}{sys.version_info.minor}"
    command = root / "bin" / "zulip-botserver"
    ready = root / ".installed"
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / f"{root.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another session may be building the same venv
        if not (ready.exists() and command.exists()):
            venv.EnvBuilder(with_pip=True, clear=True).create(root)
            done = subprocess.run(
                [str(root / "bin" / "python"), "-m", "pip", "install", "-q", *PACKAGES],
                capture_output=True,
                text=True,
                timeout=900,
            )
            if done.returncode != 0:
                pytest.fail(f"installing {' '.join(PACKAGES)} failed:\n{done.stderr[-3000:]}")
            ready.write_text(" ".join(PACKAGES) + "\n")
    assert command.exists(), command
    return command


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
            pytest.fail(f"zulip-botserver exited with {proc.returncode}:\n{out[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"zulip-botserver did not listen on 127.0.0.1:{port} within {timeout}s")


def create_outgoing_bot(
    client: chatops.Client, name: str, short: str, url: str
) -> dict[str, object]:
    """``POST /bots`` over the raw path with ``payload_url`` JSON-encoded, as the real server
    and its web app send it."""
    params: dict[str, object] = {
        "full_name": name,
        "short_name": short,
        "bot_type": 3,
        "interface_type": 1,
        "payload_url": json.dumps(url),
    }
    return client.post("/bots", params=params)


@pytest.fixture
def running_bot(
    botserver: Path, sandbox: Sandbox, member: chatops.Client, tmp_path: Path
) -> Iterator[tuple[int, str]]:
    """A ``helloworld`` outgoing-webhook bot served by zulip-botserver: (bot id, full name)."""
    port = free_port()
    stamp = time.monotonic_ns() % 10**9
    name = f"Hello Botserver {stamp}"
    created = create_outgoing_bot(member, name, f"hellobs{stamp}", f"http://127.0.0.1:{port}/")
    services = created["services"]
    assert isinstance(services, list) and services, created
    config = tmp_path / "botserverrc"
    config.touch(mode=0o600)
    config.write_text(
        "[helloworld]\n"
        f"email={created['email']}\n"
        f"key={created['api_key']}\n"
        f"site={sandbox.site}\n"
        f"token={services[0]['token']}\n"
    )
    assert config.stat().st_mode & 0o777 == 0o600
    proc = subprocess.Popen(
        [
            str(botserver),
            "--config-file",
            str(config),
            "--hostname",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        wait_for_port(port, proc)
        yield int(str(created["user_id"])), name
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_mention_gets_the_bots_reply_in_the_topic(
    running_bot: tuple[int, str], member: chatops.Client
) -> None:
    bot_id, name = running_bot
    topic = f"botserver {bot_id}"
    sent = member.messages.send_to_channel("general", topic, f"@**{name}** hello there").id
    narrow = [("channel", "general"), ("topic", topic)]
    deadline = time.monotonic() + 30
    replies: list[chatops.Message] = []
    while time.monotonic() < deadline and not replies:
        page = member.messages.get(
            anchor="newest", num_before=20, narrow=narrow, apply_markdown=False
        )
        replies = [m for m in page.messages if m.sender_id == bot_id]
        if not replies:
            time.sleep(0.25)
    assert replies, "the bot did not reply in the topic"
    assert replies[0].content == "beep boop"
    assert replies[0].subject == topic and replies[0].id > sent
    # helloworld also reacts to the triggering message
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        reactions = member.messages.get_one(sent).reactions
        if any(r.user_id == bot_id and r.emoji_name == "wave" for r in reactions):
            break
        time.sleep(0.25)
    else:
        pytest.fail("the bot's reaction never arrived")
