"""Bulk subscriptions: 500 people x 10 channels, from the CLI and from the console's People and
channels panel, against the official ``zulip`` client subscribing one person to one channel per
call, in the same run on the same sandbox (served by ``chatops sandbox serve`` in its own
process over HTTP on 127.0.0.1). Each of the three gets its own 10 new channels.

    .venv/bin/python bench/bench_bulk.py [--people 500] [--channels 10]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zulip

import chatops

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_admin import Site, serving  # noqa: E402


def _setup(data: Path, people: int, channels: int) -> list[str]:
    """The demo organization with ``people`` more members (made directly in its store, as an
    import would) and 3 x ``channels`` empty channels; their emails."""
    from chatops.sandbox import Sandbox, users

    with Sandbox.start(data) as sb:
        with sb.store.atomic():
            for n in range(people):
                users.create_user(sb.store, email=f"bulk{n:04d}@bench.test", full_name=f"Bulk {n}")
        with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as client:
            for run in ("cli", "panel", "official"):
                client.channels.subscribe([f"{run}-{c}" for c in range(channels)])
    return [f"bulk{n:04d}@bench.test" for n in range(people)]


def run_cli(sb: Site, emails: list[str], channels: int, tmp: Path) -> float:
    listed = tmp / "people.csv"
    listed.write_text("email\n" + "\n".join(emails) + "\n", encoding="utf-8")
    names = ",".join(f"cli-{c}" for c in range(channels))
    env = {**os.environ, "CHATOPS_STATE_DIR": str(tmp / "state")}
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "chatops.cli", "people", "subscribe", "--people-file", str(listed),
         "--channels", names, "--yes", "--zuliprc", str(sb.zuliprc("admin"))],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    elapsed = time.perf_counter() - t0
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return elapsed


def run_panel(sb: Site, emails: list[str], channels: int) -> float:
    from chatops.widgets.people import PeopleChannelsPanel

    client = chatops.Client.from_zuliprc(sb.zuliprc("admin"))
    panel = PeopleChannelsPanel(client, background=False).load()
    t0 = time.perf_counter()
    panel.people.value = "\n".join(emails)
    panel.channels.value = tuple(f"panel-{c}" for c in range(channels))
    panel.apply_button.click()  # previews and asks
    panel.confirm.yes.click()  # sends
    elapsed = time.perf_counter() - t0
    assert panel.status.kind == "ok", panel.status.text
    client.close()
    return elapsed


def run_official(sb: Site, emails: list[str], channels: int) -> float:
    official = zulip.Client(config_file=str(sb.zuliprc("admin")))
    t0 = time.perf_counter()
    for email in emails:
        for c in range(channels):
            result = official.add_subscriptions(
                streams=[{"name": f"official-{c}"}], principals=[email]
            )
            assert result["result"] == "success", result
    return time.perf_counter() - t0


def check(sb: Site, emails: list[str], channels: int) -> None:
    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as client:
        ids = {client.users.get_by_email(e).user_id for e in emails[:5] + emails[-5:]}
        for run in ("cli", "panel", "official"):
            for c in range(channels):
                members = set(client.channels.members(client.channels.get_id(f"{run}-{c}")))
                assert ids <= members, (run, c)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--people", type=int, default=500)
    parser.add_argument("--channels", type=int, default=10)
    args = parser.parse_args()
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        emails = _setup(tmp / "org", args.people, args.channels)
        with serving(tmp / "org") as sb:
            pairs = args.people * args.channels
            t_cli = run_cli(sb, emails, args.channels, tmp)
            t_panel = run_panel(sb, emails, args.channels)
            t_official = run_official(sb, emails, args.channels)
            check(sb, emails, args.channels)
    print(f"{args.people} people x {args.channels} channels = {pairs:,} subscriptions")
    for label, t in (("chatops people subscribe (CLI, process start included)", t_cli),
                     ("People and channels panel (preview, question, apply)", t_panel)):  # fmt: skip
        print(f"  {label}: {t:.2f} s; speed-up {t_official / t:.1f}x")
    print(f"  official zulip client, one call per person and channel: {t_official:.2f} s")


if __name__ == "__main__":
    main()
