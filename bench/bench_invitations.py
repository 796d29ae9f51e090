"""Bulk email invitations: the Invitations panel (batched) against the official ``zulip`` client
sending one address per request, on the same sandbox.

The panel is timed from the click on "Send invitations" until its results are shown: it
classifies the list first (``GET /users``, ``GET /invites``), sends ``POST /invites`` with
``batch_size`` addresses each and refreshes its table of active invitations. The official
client sends the same number of fresh addresses with ``call_endpoint(url="invites")``, one
address per request, as a script without the panel would. Both run in turn against one small
demo organization served by ``Sandbox.start`` (uvicorn in a thread of this process, over HTTP
on 127.0.0.1), each with its own fresh addresses; ``--repeat`` runs, each in a new organization;
the medians are compared.

    .venv/bin/python bench/bench_invitations.py [--n 500] [--batch-size 100] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import zulip

import chatops
from chatops.sandbox import Sandbox
from chatops.widgets.invitations import INVITED, InvitationsPanel


def machine() -> str:
    model = "unknown CPU"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return (
        f"{platform.machine()}, {os.cpu_count()} cores (nproc), {model}, "
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def bench_panel(sb: Sandbox, emails: list[str], batch_size: int) -> tuple[float, int]:
    """Seconds for the panel to invite ``emails``; and how many requests it sent."""
    with chatops.Client.from_zuliprc(sb.zuliprc("admin")) as client:
        panel = InvitationsPanel(client, background=False, batch_size=batch_size).load()
        panel.addresses.value = "\n".join(emails)
        t0 = time.perf_counter()
        panel.send_button.click()
        elapsed = time.perf_counter() - t0
        outcomes = panel.results
        assert len(outcomes) == len(emails), panel.status.text
        assert all(o.result == INVITED for o in outcomes), panel.status.text
        requests = panel.requests_sent
        panel.close()
    return elapsed, requests


def bench_official(sb: Sandbox, emails: list[str]) -> float:
    """Seconds for the official client to invite ``emails``, one request per address."""
    official = zulip.Client(config_file=str(sb.zuliprc("admin")))
    warm = official.call_endpoint(url="users/me", method="GET")  # session set-up, not timed
    assert warm["result"] == "success", warm
    t0 = time.perf_counter()
    for email in emails:
        result = official.call_endpoint(
            url="invites", method="POST", request={"invitee_emails": email, "stream_ids": []}
        )
        assert result["result"] == "success", result
    return time.perf_counter() - t0


def check_invited(sb: Sandbox, emails: list[str]) -> None:
    with chatops.Client.from_zuliprc(sb.zuliprc("owner")) as client:
        invited = {i.email for i in client.invitations.list() if i.email}
    missing = [e for e in emails if e not in invited]
    assert not missing, f"{len(missing)} addresses not invited, e.g. {missing[:3]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=500, help="addresses per run")
    parser.add_argument("--batch-size", type=int, default=100, help="the panel's batch size")
    parser.add_argument("--repeat", type=int, default=5, help="runs, each in a new sandbox")
    args = parser.parse_args()
    print(machine())
    print(f"date {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    ours: list[float] = []
    theirs: list[float] = []
    requests = 0
    for run in range(args.repeat):
        # A fresh organization per run, so that every run starts from the same state (the
        # panel lists the active invitations, which earlier runs would have multiplied).
        with Sandbox.start(size="small") as sb:
            panel_emails = [f"bench-panel-{i}@invite.test" for i in range(args.n)]
            official_emails = [f"bench-official-{i}@invite.test" for i in range(args.n)]
            t_panel, requests = bench_panel(sb, panel_emails, args.batch_size)
            t_official = bench_official(sb, official_emails)
            check_invited(sb, panel_emails + official_emails)
        ours.append(t_panel)
        theirs.append(t_official)
        print(
            f"run {run + 1}: panel {t_panel:.3f} s ({requests} requests), "
            f"official zulip {t_official:.3f} s ({args.n} requests), "
            f"speed-up {t_official / t_panel:.1f}x"
        )
    mine, official = statistics.median(ours), statistics.median(theirs)
    print(
        f"{args.n} email invitations, median of {args.repeat}: panel (batch {args.batch_size}, "
        f"{requests} request{'s' if requests != 1 else ''}) {mine:.3f} s ({args.n / mine:,.0f}/s); official zulip one per "
        f"request {official:.3f} s ({args.n / official:,.0f}/s); speed-up {official / mine:.1f}x "
        "(target: at least 10x)"
    )


if __name__ == "__main__":
    main()
