"""``chatops schedule add|list|remove|run``: job definitions of the scheduled notebooks
(audit-suite, org-drift, analytics-report) in the running JupyterLab's scheduler, the same that
its Notebook Jobs panel shows."""

from __future__ import annotations

import argparse
import json

from .._terminal import say
from ._args import Commands, Parser

__all__ = ["add", "run"]


def add(commands: Commands[Parser]) -> None:
    """The ``schedule`` command and its subcommands."""
    from ..jupyter.scheduled import SCHEDULED

    schedule = commands.add_parser(
        "schedule", help="scheduled notebook jobs in the running JupyterLab (chatops lab)"
    )
    cmds = schedule.add_subparsers(dest="schedule_command", required=False, parser_class=Parser)
    new = cmds.add_parser("add", help="create a job definition: a notebook, a cron, parameters")
    new.add_argument("notebook", metavar="NOTEBOOK", help=f"one of: {', '.join(SCHEDULED)}")
    new.add_argument("--cron", required=True, metavar="EXPR", help="e.g. '0 7 * * 1'")
    new.add_argument(
        "--tz", default="UTC", metavar="ZONE", help="time zone of the cron (default UTC)"
    )
    new.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="a notebook parameter (repeatable); credentials only as a zuliprc path",
    )
    new.add_argument("--name", default="", help="the definition's name (default NOTEBOOK)")
    new.add_argument("--paused", action="store_true", help="create it paused")
    listing = cmds.add_parser("list", help="the job definitions")
    listing.add_argument("--json", action="store_true", help="as JSON, one definition a line")
    remove = cmds.add_parser("remove", help="delete a job definition (its past runs stay)")
    remove.add_argument("name", metavar="NAME", help="the definition's name or id")
    now = cmds.add_parser("run", help="start a run of a job definition now")
    now.add_argument("name", metavar="NAME", help="the definition's name or id")
    for parser in (new, listing, remove, now):
        parser.add_argument(
            "--url", default="", help="the JupyterLab (default: the one running on this machine)"
        )


def run(args: argparse.Namespace) -> int:
    """Run ``chatops schedule ...``; a mistake is one line and exit status 2."""
    from ..jupyter.schedule import (
        Jobs,
        check_cron,
        check_timezone,
        definition_parameters,
        find_lab,
        scheduled_notebook,
    )

    if args.schedule_command == "add":
        # everything that can be checked here is checked before a server is looked for
        scheduled_notebook(args.notebook)
        cron = check_cron(args.cron)
        zone = check_timezone(args.tz)
        parameters = definition_parameters(args.notebook, args.parameter)
        jobs = Jobs(find_lab(args.url))
        definition_id = jobs.add(
            args.notebook,
            cron=cron,
            timezone=zone,
            parameters=parameters,
            name=args.name,
            active=not args.paused,
        )
        say(f"Scheduled {args.name or args.notebook} ({cron}, {zone}): {definition_id}")
        return 0
    jobs = Jobs(find_lab(args.url))
    if args.schedule_command == "list":
        for d in jobs.definitions():
            if args.json:
                say(json.dumps(d, sort_keys=True))
                continue
            state = "active" if d.get("active") else "paused"
            params = " ".join(f"{k}={v}" for k, v in (d.get("parameters") or {}).items())
            say(
                f"{d['name']}  {d.get('input_filename', '')}  {d.get('schedule', '')}  "
                f"{d.get('timezone', '')}  {state}  {d['job_definition_id']}  {params}"
            )
        return 0
    if args.schedule_command == "remove":
        removed = jobs.remove(args.name)
        say(f"Removed {removed['name']} ({removed['job_definition_id']})")
        return 0
    job_id = jobs.run_now(args.name)
    say(f"Started a run of {args.name}: {job_id}")
    return 0
