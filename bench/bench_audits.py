"""The whole audit suite on the ``medium`` demo organization, end to end.

The sandbox (``chatops sandbox serve --size medium``) runs in a process of its own on 127.0.0.1;
its start (generating the organization when the data folder is new) is timed and reported apart.
Then ``chatops audit run --all`` (default ``--jobs``: the machine's cores) runs as a user would
run it, against the sandbox's admin zuliprc, and is timed from the command's start to its exit:
kernels, every audit, the report. Each notebook's own time comes from papermill's metadata.

    .venv/bin/python bench/bench_audits.py [--data DIR] [--jobs N] [--as-of TIME]

``--data`` keeps the organization between runs (generated the first time).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _chatops(*args: str) -> list[str]:
    return [sys.executable, "-m", "chatops.cli", *args]


def start_sandbox(data: Path, port: int) -> tuple[subprocess.Popen[bytes], float]:
    """Serve the medium organization in ``data``; returns the process and its start time."""
    started = time.monotonic()
    proc = subprocess.Popen(
        _chatops("sandbox", "serve", "--data", str(data), "--size", "medium", "--port", str(port)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = started + 1800
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the sandbox exited with status {proc.returncode}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/v1/server_settings", timeout=1)
            return proc, time.monotonic() - started
        except httpx.TransportError:
            time.sleep(0.2)
    proc.terminate()
    raise SystemExit("the sandbox did not start in 30 minutes")


def run_suite(zuliprc: Path, report_dir: Path, jobs: int | None, as_of: str) -> float:
    """``chatops audit run --all``; returns its wall time. Exits on status 2 (did not run)."""
    args = ["audit", "run", "--all", "--zuliprc", str(zuliprc), "--report-dir", str(report_dir)]
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    if as_of:
        args += ["--as-of", as_of]
    started = time.monotonic()
    proc = subprocess.run(_chatops(*args), capture_output=True, text=True)
    elapsed = time.monotonic() - started
    if proc.returncode == 2:
        raise SystemExit(f"the suite did not run:\n{proc.stderr}")
    return elapsed


def notebook_times(run_dir: Path) -> dict[str, float]:
    """Audit -> seconds its notebook ran, as papermill recorded it."""
    out: dict[str, float] = {}
    for path in sorted(run_dir.glob("*.ipynb")):
        meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
        duration = meta.get("papermill", {}).get("duration")
        if duration is not None:
            out[path.stem] = float(duration)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="organization folder kept between runs")
    parser.add_argument("--jobs", type=int, default=None, help="default: the machine's cores")
    parser.add_argument("--as-of", default="", help="reference time of the audits (default now)")
    args = parser.parse_args()
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; {datetime.date.today().isoformat()}; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    scratch = Path(tempfile.mkdtemp(prefix="chatops-bench-audits-"))
    data = args.data or scratch / "org"
    new = not (data / "sandbox.sqlite3").exists()
    proc, start_s = start_sandbox(data, _free_port())
    try:
        what = "generated and started" if new else "started (existing organization)"
        print(f"sandbox {what} in {start_s:.1f} s (not counted below)")
        zuliprc = data / "zuliprc" / "admin.zuliprc"
        total = run_suite(zuliprc, scratch / "reports", args.jobs, args.as_of)
        run_dir = (scratch / "reports" / "latest").resolve()
        summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
        times = notebook_times(run_dir)
        jobs = args.jobs or os.cpu_count()
        verdict = "within" if total <= TARGET_SECONDS else "over"
        print(
            f"suite: {len(times)} audits, --jobs {jobs}, {total:.1f} s end to end "
            f"({verdict} the {TARGET_SECONDS:.0f} s target); exit status {summary['exit_code']}"
        )
        for name, seconds in sorted(times.items(), key=lambda kv: -kv[1]):
            print(f"  {name:<26} {seconds:6.1f} s")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
