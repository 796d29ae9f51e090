"""Read worker processes: large pages built there answer as the serving process would."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from chatops.sandbox import Sandbox, open_data_dir
from chatops.sandbox.routes.messages import WORKER_PAGE
from chatops.sandbox.workers import ReadWorkers, WorkerError

PAGE = {"anchor": "newest", "num_before": WORKER_PAGE, "num_after": 0}


@pytest.fixture(scope="module")
def sb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(
        tmp_path_factory.mktemp("workers"), size="small", seed=5, read_workers=1
    ) as sandbox:
        workers = sandbox.state.read_workers
        assert workers is not None
        workers.start()
        assert workers.wait_ready(120)
        yield sandbox


def _api(sb: Sandbox, account: str = "admin") -> httpx.Client:
    acc = sb.accounts[account]
    return httpx.Client(base_url=f"{sb.site}/api/v1", auth=(acc.email, acc.api_key), timeout=60)


def _workers(sb: Sandbox) -> ReadWorkers:
    assert sb.state.read_workers is not None
    return sb.state.read_workers


def _here(sb: Sandbox, request: httpx.Request, c: httpx.Client) -> httpx.Response:
    """The same request answered by the serving process itself."""
    workers, sb.state.read_workers = sb.state.read_workers, None
    try:
        return c.send(request)
    finally:
        sb.state.read_workers = workers


@pytest.mark.parametrize("feature_level", [None, 100])
@pytest.mark.parametrize("account", ["admin", "guest"])
def test_a_page_from_a_worker_is_the_page_built_here(
    sb: Sandbox, account: str, feature_level: int | None
) -> None:
    level = sb.state.feature_level
    if feature_level is not None:  # before 118 edit histories say prev_subject
        sb.state.feature_level = feature_level
    try:
        with _api(sb, account) as c:
            request = c.build_request(
                "GET", "/messages", params={**PAGE, "apply_markdown": "false"}
            )
            before = _workers(sb).answered
            remote = c.send(request)
            assert _workers(sb).answered == before + 1
            local = _here(sb, request, c)
            assert _workers(sb).answered == before + 1
    finally:
        sb.state.feature_level = level
    assert remote.status_code == local.status_code == 200
    assert len(remote.json()["messages"]) > 100
    assert remote.content == local.content
    assert remote.headers["content-type"] == "application/json"


def test_a_small_page_is_built_here(sb: Sandbox) -> None:
    with _api(sb) as c:
        before = _workers(sb).answered
        r = c.get("/messages", params={**PAGE, "num_before": WORKER_PAGE - 1})
        assert r.status_code == 200
        assert len(r.json()["messages"]) == WORKER_PAGE - 1
        assert _workers(sb).answered == before


def test_a_refusal_in_a_worker_is_the_api_error(sb: Sandbox) -> None:
    narrow = json.dumps([{"operator": "channel", "operand": "no such channel"}])
    with _api(sb) as c:
        before = _workers(sb).answered
        r = c.get("/messages", params={**PAGE, "narrow": narrow})
        assert _workers(sb).answered == before + 1
    assert r.status_code == 400
    assert r.json() == {
        "result": "error",
        "msg": "Invalid narrow operator: unknown channel",
        "code": "BAD_NARROW",
    }


def test_a_worker_reads_what_was_just_written(sb: Sandbox) -> None:
    with _api(sb) as c:
        for n in range(5):
            sent = c.post(
                "/messages",
                data={"type": "stream", "to": "general", "topic": "w", "content": f"fresh {n}"},
            ).json()["id"]
            page = c.get("/messages", params=PAGE).json()["messages"]
            assert page[-1]["id"] == sent
            assert page[-1]["content"] == f"<p>fresh {n}</p>"


def test_a_killed_worker_is_replaced_and_no_request_fails(sb: Sandbox) -> None:
    workers = _workers(sb)
    with _api(sb) as c:
        assert c.get("/messages", params=PAGE).status_code == 200
        pid = workers.pids()[0]
        os.kill(pid, signal.SIGKILL)
        while _alive(pid):
            time.sleep(0.01)
        for _ in range(3):  # answered here while a new worker starts
            assert c.get("/messages", params=PAGE).status_code == 200
        assert workers.wait_ready(120)
        assert workers.pids() != [pid]
        before = workers.answered
        assert c.get("/messages", params=PAGE).status_code == 200
        assert workers.answered == before + 1


_SERVE = """
import sys
from pathlib import Path
from chatops.sandbox import serve
serve(Path(sys.argv[1]), port=int(sys.argv[2]), echo=lambda *_: None)
"""


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        found |= {int(x) for x in text}
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_workers_end_when_the_server_is_killed(tmp_path: Path) -> None:
    data = tmp_path / "org"
    store, accounts, _ = open_data_dir(data, size="small", seed=5)
    store.close()
    port = 18700 + os.getpid() % 200
    server = subprocess.Popen([sys.executable, "-c", _SERVE, str(data), str(port)])
    try:
        auth = (accounts["admin"].email, accounts["admin"].api_key)
        url = f"http://127.0.0.1:{port}/api/v1/messages"
        deadline = time.monotonic() + 120
        workers: set[int] = set()
        while time.monotonic() < deadline and not workers:
            try:
                httpx.get(url, params=PAGE, auth=auth, timeout=60).raise_for_status()
            except httpx.TransportError:
                pass
            workers = _children(server.pid)
            time.sleep(0.2)
        assert workers, "no read worker started"
        server.send_signal(signal.SIGKILL)
        server.wait(30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert [w for w in workers if _alive(w)] == []
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def test_closing_stops_workers_that_are_still_starting(sb: Sandbox) -> None:
    workers = ReadWorkers(sb.store.path, processes=2)
    workers.start()
    deadline = time.monotonic() + 10
    while len(workers.pids()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    pids = workers.pids()
    assert len(pids) == 2
    workers.close()
    deadline = time.monotonic() + 10
    while (any(_alive(p) for p in pids) or workers.pids()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p for p in pids if _alive(p)] == []  # killed, not left to finish their imports
    assert workers.pids() == []


def test_an_error_in_a_worker_comes_back_and_the_worker_stays(sb: Sandbox) -> None:
    workers = _workers(sb)
    assert workers.wait_ready(120)
    pids = workers.pids()
    with pytest.raises(WorkerError, match="invalid literal for int"):
        workers.call(int, "not a number")
    assert workers.call(len, [1, 2, 3]) == 3  # the next call gets its own answer
    assert workers.pids() == pids
