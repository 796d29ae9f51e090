"""Bulk administration: 500 status updates and 500 email invitations on one sandbox.

chatops' ``AsyncClient`` helpers (``users.set_status_many``, ``invites.send_many``) with bounded
concurrency against the official ``zulip`` client's sequential loop over the same requests,
on the same sandbox (a small demo organization served by ``chatops sandbox serve`` in its own
process over HTTP on 127.0.0.1).

    .venv/bin/python bench/bench_admin.py [--n 500] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import platform
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import zulip

import chatops


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Site:
    """The sandbox served from another process; ``zuliprc(account)`` like ``Sandbox``'s."""

    def __init__(self, data: Path) -> None:
        self.data = data

    def zuliprc(self, account: str) -> Path:
        return self.data / "zuliprc" / f"{account}.zuliprc"


def _serve(port: int, data: str) -> None:
    from chatops.sandbox import serve

    serve(Path(data), port=port, echo=lambda *_: None)


@contextmanager
def serving(data: Path) -> Iterator[Site]:
    """The sandbox of ``data`` (generated when new) served by ``chatops sandbox serve`` in a
    process of its own on 127.0.0.1, until the block ends."""
    port = _free_port()
    server = multiprocessing.Process(target=_serve, args=(port, str(data)), daemon=True)
    server.start()
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/v1/server_settings").raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield Site(data)
    finally:
        server.terminate()
        server.join()


def _people(sb: Site) -> list[int]:
    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as client:
        return [u.user_id for u in client.users.list() if u.is_active and not u.is_bot]


def bench_status(sb: Site, n: int, concurrency: int) -> tuple[float, float, int]:
    people = _people(sb)
    updates = [
        {"user_id": people[i % len(people)], "status_text": f"shift {i}", "emoji_name": "coffee"}
        for i in range(n)
    ]

    async def ours() -> chatops.BulkReport[Any]:
        async with chatops.AsyncClient.from_zuliprc(sb.zuliprc("admin")) as client:
            await client.get_capabilities()
            return await client.users.set_status_many(updates, concurrency=concurrency)

    t0 = time.perf_counter()
    report = asyncio.run(ours())
    t_ours = time.perf_counter() - t0
    assert report.ok, report.failed[:3]

    official = zulip.Client(config_file=str(sb.zuliprc("admin")))
    t0 = time.perf_counter()
    for u in updates:
        body = {k: v for k, v in u.items() if k != "user_id"}
        result = official.call_endpoint(
            url=f"users/{u['user_id']}/status", method="POST", request=body
        )
        assert result["result"] == "success", result
    t_official = time.perf_counter() - t0
    return t_ours, t_official, len(report)


def bench_invites(sb: Site, n: int, concurrency: int) -> tuple[float, float, int]:
    ours_emails = [f"bench-a-{i}@invite.test" for i in range(n)]
    theirs_emails = [f"bench-b-{i}@invite.test" for i in range(n)]

    async def ours() -> chatops.BulkReport[str]:
        async with chatops.AsyncClient.from_zuliprc(sb.zuliprc("admin")) as client:
            return await client.invitations.send_many(ours_emails, concurrency=concurrency)

    t0 = time.perf_counter()
    report = asyncio.run(ours())
    t_ours = time.perf_counter() - t0
    assert report.ok, report.failed[:3]

    official = zulip.Client(config_file=str(sb.zuliprc("admin")))
    t0 = time.perf_counter()
    for email in theirs_emails:
        result = official.call_endpoint(
            url="invites", method="POST", request={"invitee_emails": email, "stream_ids": []}
        )
        assert result["result"] == "success", result
    t_official = time.perf_counter() - t0
    return t_ours, t_official, len(report)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )
    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp)) as sb:
        run_all(sb, args.n, args.concurrency)


def run_all(sb: Site, n: int, concurrency: int) -> None:
    for name, fn in (("status updates", bench_status), ("email invitations", bench_invites)):
        t_ours, t_official, count = fn(sb, n, concurrency)
        print(
            f"{count} {name}: chatops AsyncClient (concurrency {concurrency}) "
            f"{t_ours:.2f} s ({count / t_ours:.0f}/s); official zulip sequential "
            f"{t_official:.2f} s ({count / t_official:.0f}/s); "
            f"time ratio {t_ours / t_official:.2f}, speed-up {t_official / t_ours:.1f}x"
        )


if __name__ == "__main__":
    main()
