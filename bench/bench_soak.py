"""Soak: concurrent writers, readers and event long-polls against a sandbox in its own process.

The sandbox (a small demo organization, ``chatops.sandbox.serve``) runs in another process on
127.0.0.1; the load comes from threads here, one account, for ``--seconds``. Afterwards every
acknowledged write is looked up. Prints requests, writes acknowledged and found, events
delivered, server errors and p50/p99 latency (long-poll waits excluded).

    .venv/bin/python bench/bench_soak.py [--seconds 30] [--writers 4] [--readers 4] [--pollers 2]
"""

from __future__ import annotations

import argparse
import datetime
import multiprocessing
import os
import platform
import socket
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.sandbox.soak

from tests.sandbox.soak import soak  # noqa: E402


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(port: int, data: str) -> None:
    from chatops.sandbox import serve

    serve(Path(data), port=port, echo=lambda *_: None)


def _admin(data: Path) -> tuple[str, str]:
    values = dict(
        line.split("=", 1)
        for line in (data / "zuliprc" / "admin.zuliprc").read_text().splitlines()
        if "=" in line
    )
    return values["email"], values["key"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--pollers", type=int, default=2)
    args = parser.parse_args()
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; {datetime.datetime.now(datetime.UTC):%Y-%m-%d}"
    )
    port = _free_port()
    site = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        server = multiprocessing.Process(target=_serve, args=(port, tmp), daemon=True)
        server.start()
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{site}/api/v1/server_settings").raise_for_status()
                break
            except httpx.HTTPError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        try:
            email, key = _admin(Path(tmp))
            result = soak(
                site,
                email,
                key,
                seconds=args.seconds,
                writers=args.writers,
                readers=args.readers,
                pollers=args.pollers,
            )
        finally:
            server.terminate()
            server.join()
    print(
        f"{args.writers} writers, {args.readers} readers, {args.pollers} long-polls: "
        + result.line()
    )
    for failure in result.failures[:10]:
        print("  ", failure)


if __name__ == "__main__":
    main()
