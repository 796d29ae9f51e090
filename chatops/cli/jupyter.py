"""``chatops lab`` and ``chatops console``: the admin console in JupyterLab, or as a page."""

from __future__ import annotations

import argparse
import os
import sys

from .._terminal import say
from ._args import Commands, Parser, count, fail, port, writable_folder

__all__ = ["add", "run_console", "run_lab"]


def add(commands: Commands[Parser]) -> None:
    """The ``lab`` and ``console`` commands."""
    lab = commands.add_parser(
        "lab", help="JupyterLab on the chatops notebooks, opening the admin console"
    )
    lab.add_argument(
        "--dir",
        default="chatops-notebooks",
        type=writable_folder,
        help="folder for the notebooks (default ./chatops-notebooks; your copies are kept)",
    )
    lab.add_argument("--port", type=port, default=8888, help="port (default 8888)")
    lab.add_argument("--no-browser", action="store_true", help="do not open a browser")
    lab_target = lab.add_mutually_exclusive_group()
    lab_target.add_argument("--site", help="server URL for the console (key from ZULIP_*)")
    lab_target.add_argument("--zuliprc", help="zuliprc file the console acts with")
    lab.add_argument(
        "jupyter_args",
        nargs=argparse.REMAINDER,
        metavar="-- OPTIONS",
        help="options passed to JupyterLab after --",
    )

    console = commands.add_parser(
        "console", help="the admin console as a web page of its own (Voila, behind a token)"
    )
    console.add_argument(
        "--dir",
        default="chatops-notebooks",
        type=writable_folder,
        help="folder for the page's notebook (default ./chatops-notebooks)",
    )
    console.add_argument("--port", type=port, default=8866, help="port (default 8866)")
    console.add_argument("--no-browser", action="store_true", help="do not open a browser")
    console.add_argument(
        "--idle-timeout",
        type=count(1),
        default=300,
        metavar="SECONDS",
        help="shut down a page's kernel once its page is closed and it is idle this long (300)",
    )
    console_target = console.add_mutually_exclusive_group()
    console_target.add_argument("--site", help="server URL for the console (key from ZULIP_*)")
    console_target.add_argument("--zuliprc", help="zuliprc file the console acts with")
    console.add_argument(
        "voila_args",
        nargs=argparse.REMAINDER,
        metavar="-- OPTIONS",
        help="options passed to Voila after -- (--token=... chooses the token)",
    )


def run_lab(args: argparse.Namespace) -> int:
    """Run ``chatops lab``: JupyterLab takes over this process."""
    from ..jupyter.lab import lab_arguments, lab_environment, prepare

    extra = list(args.jupyter_args)
    if extra and extra[0] == "--":
        extra = extra[1:]
    notebook = prepare(
        args.dir,
        zuliprc=args.zuliprc or "",
        site=args.site or "",
        say=lambda text: say(text, err=True),
    )
    say(f"Notebooks in {args.dir.resolve()}; opening {notebook.name}", err=True)
    command = lab_arguments(args.dir, port=args.port, open_browser=not args.no_browser, extra=extra)
    sys.stderr.flush()
    # JupyterLab takes over this process and its signals; it runs the console notebook first
    os.execve(command[0], command, lab_environment(zuliprc=args.zuliprc or ""))


def run_console(args: argparse.Namespace) -> int:
    """Run ``chatops console`` until the page is stopped."""
    from ..jupyter.console_page import new_token, prepare_page, serve_page

    extra = list(args.voila_args)
    if extra and extra[0] == "--":
        extra = extra[1:]
    given = [a.split("=", 1)[1] for a in extra if a.startswith(("--token=", "--Voila.token="))]
    extra = [a for a in extra if not a.startswith(("--token=", "--Voila.token="))]
    token = given[-1] if given else new_token()
    if not token:
        return fail("an empty token would leave the page open to anyone on this machine")
    page = prepare_page(args.dir, zuliprc=args.zuliprc or "", site=args.site or "")
    return serve_page(
        page,
        port=args.port,
        token=token,
        open_browser=not args.no_browser,
        idle_timeout=args.idle_timeout,
        extra=extra,
        say=lambda line: say(line, err=True),
    )
