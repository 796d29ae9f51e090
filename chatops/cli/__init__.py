"""The ``chatops`` command: it parses arguments and calls the library, nothing more.

::

    chatops sandbox serve --data DIR [--host 127.0.0.1] [--port 9991] [--size small] [--seed 1]
    chatops sandbox demo --data DIR [--size small] [--seed 1]
    chatops sandbox export --data DIR --out FILE.tar.gz [--no-progress]
    chatops audit list
    chatops audit run [NAMES... | --all] [-p NAME VALUE]... [--site URL | --zuliprc PATH]
                      [--report-dir ./reports] [--jobs N] [--post-to WHERE] [--report-url URL]
                      [--as-of TIME] [--readable-by owner|group|everyone]
    chatops audit plan [RUN_DIR] [-o PLAN]
    chatops audit apply PLAN [--yes [--irreversible]] [--site URL | --zuliprc PATH]
    chatops undo [JOURNAL] [--yes] [--list] [--site URL | --zuliprc PATH]
    chatops lab [--dir chatops-notebooks] [--port 8888] [--no-browser] [--site URL | --zuliprc PATH]
                [-- JUPYTERLAB OPTIONS...]
    chatops console [--dir chatops-notebooks] [--port 8866] [--no-browser] [--idle-timeout 300]
                    [--site URL | --zuliprc PATH] [-- VOILA OPTIONS...]
    chatops schedule add NOTEBOOK --cron EXPR [--tz UTC] [-p NAME VALUE]... [--name NAME]
                         [--paused] [--url URL]
    chatops schedule list|remove NAME|run NAME [--url URL]
    chatops whoami [--zuliprc PATH]
    chatops data sync [--site URL | --zuliprc PATH] [--cache DIR] [--recheck N] [--concurrency N]
                      [--content] [--verify] [--no-progress]
    chatops data export --format parquet|csv|xlsx --out DIR [--pseudonymise]
                        [--cache DIR | --site URL | --zuliprc PATH]
    chatops data info [--cache DIR | --site URL | --zuliprc PATH]
    chatops data import-export FILE [--cache DIR] [--content] [--no-progress]
    chatops data key [--replace]
    chatops org export [--out FILE] [--site URL | --zuliprc PATH]
    chatops org diff FILE [--format text|json] [--prune] [--site URL | --zuliprc PATH]
    chatops org apply FILE [--yes] [--dry-run] [--prune] [--site URL | --zuliprc PATH]
    chatops org schema [--out FILE]
    chatops people subscribe|unsubscribe --people LIST [--people-file FILE] --channels LIST
                      [--yes] [--dry-run] [--site URL | --zuliprc PATH]
    chatops people role --people LIST [--people-file FILE] --role ROLE [--yes] [--dry-run] ...
    chatops people deactivate-idle --days N [--include-owners] [--include-admins]
                      [--include-bots] [--yes] [--dry-run] [--site URL | --zuliprc PATH]
    chatops report analytics [--period last-7-days|last-30-days|last-90-days|all]
                      [--since TIME] [--until TIME] [--out FILE.html] [--notebook]
                      [--site URL | --zuliprc PATH | --dataset DIR] [--cache DIR]
                      [--organization NAME] [--include-bots] [--no-progress]

Mistakes a user can make print one line to stderr and exit with status 2, no traceback.
``audit run`` exits 0 when every audit passed, 1 when a threshold was crossed, 2 when an audit
failed to run. ``audit apply`` and ``undo`` exit 0 when every change is made, 1 when one
failed or was refused, or the person declined.

One module per command group (``sandbox``, ``audit``, ``undo``, ``jupyter``: lab and console,
``schedule``: job definitions in JupyterLab's scheduler,
``data``, ``org``, ``people``, ``report``); each adds its parser and runs its commands.
``_args`` holds the parser class and the argument types that check what they can before
anything starts. ``report analytics`` exits 1 when a view could not be computed (its section
says why).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from .._exceptions import ChatopsError
from .._terminal import install as install_terminal
from .._terminal import say
from . import audit, data, jupyter, org, people, report, sandbox, schedule, undo
from ._args import Parser, fail

__all__ = ["main"]


def build_parser() -> Parser:
    """The parser of every command."""
    parser = Parser(prog="chatops", description="Admin and analytics workbench for team chat.")
    commands = parser.add_subparsers(dest="command", required=False, parser_class=Parser)
    sandbox.add(commands)
    audit.add(commands)
    undo.add(commands)
    jupyter.add(commands)
    schedule.add(commands)
    whoami = commands.add_parser("whoami", help="show who the credentials belong to")
    whoami.add_argument("--zuliprc", help="zuliprc file (default ZULIP_CONFIG or ~/.zuliprc)")
    data.add(commands)
    org.add(commands)
    people.add(commands)
    report.add(commands)
    return parser


def _whoami(args: argparse.Namespace) -> int:
    from .._client import Client
    from ..types import role_name

    with Client(config_file=args.zuliprc) as client:
        me = client.users.me()
        say(f"name:  {me.full_name}")
        say(f"email: {me.email}")
        say(f"role:  {role_name(me.role)}")
        say(f"site:  {client.site}")
    return 0


_RUN = {
    "sandbox": sandbox.run,
    "audit": audit.run,
    "undo": undo.run,
    "lab": jupyter.run_lab,
    "console": jupyter.run_console,
    "schedule": schedule.run,
    "data": data.run,
    "org": org.run,
    "people": people.run,
    "report": report.run,
    "whoami": _whoami,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``chatops`` command; returns the exit status."""
    install_terminal()
    args = build_parser().parse_command_line(argv)
    try:
        return _RUN[args.command](args)
    except ChatopsError as exc:
        return fail(str(exc) or type(exc).__name__)
    except OSError as exc:  # a file or folder that turned out unusable after the checks
        if exc.filename is None:
            raise
        return fail(f"{exc.filename}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        say("Interrupted.", err=True)
        return 130
