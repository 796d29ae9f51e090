"""``chatops people subscribe|unsubscribe|role|deactivate-idle``: bulk changes, previewed a row
per person, then made with progress and journalled (``chatops undo`` reverts them)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .._terminal import say
from ._args import Commands, Parser, fail, go_ahead

if TYPE_CHECKING:
    from ..org.bulk import Row

__all__ = ["add", "run"]


def _who(parser: argparse.ArgumentParser, *, channels: bool) -> None:
    parser.add_argument(
        "--people",
        action="append",
        default=[],
        metavar="LIST",
        help="addresses, full names or @groups (a group's members, subgroups' too), separated "
        "by commas; repeatable",
    )
    parser.add_argument(
        "--people-file",
        type=Path,
        metavar="FILE",
        help="a CSV (its email column) or text file of people, one per line",
    )
    if channels:
        parser.add_argument(
            "--channels",
            action="append",
            default=[],
            required=True,
            metavar="LIST",
            help="#channels, separated by commas; repeatable",
        )


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--yes", action="store_true", help="apply without asking")
    parser.add_argument("--dry-run", action="store_true", help="show the preview; send nothing")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--site", help="server URL (credentials from ZULIP_* or ~/.zuliprc)")
    target.add_argument("--zuliprc", help="zuliprc file of an administrator")


def add(commands: Commands[Parser]) -> None:
    """The ``people`` command and its subcommands."""
    people = commands.add_parser(
        "people", help="bulk changes to people: subscriptions, roles, idle accounts"
    )
    cmds = people.add_subparsers(dest="people_command", required=False, parser_class=Parser)
    for name, words in (
        ("subscribe", "subscribe people to channels (one request for many)"),
        ("unsubscribe", "unsubscribe people from channels"),
    ):
        sub = cmds.add_parser(name, help=words)
        _who(sub, channels=True)
        _common(sub)
    role = cmds.add_parser("role", help="give people a role")
    _who(role, channels=False)
    role.add_argument(
        "--role",
        required=True,
        choices=("owner", "administrator", "moderator", "member", "guest"),
    )
    _common(role)
    idle = cmds.add_parser(
        "deactivate-idle",
        help="deactivate accounts with no message and not seen for N days (reactivating undoes)",
    )
    idle.add_argument("--days", type=int, required=True, help="idle for at least this many days")
    idle.add_argument("--include-owners", action="store_true")
    idle.add_argument("--include-admins", action="store_true")
    idle.add_argument("--include-bots", action="store_true")
    _common(idle)


def _entries(args: argparse.Namespace, field: str) -> list[str]:
    from ..org.bulk import split_entries

    out = [e for text in getattr(args, field) for e in split_entries(text)]
    path = getattr(args, f"{field}_file", None)
    if path is not None:
        if not path.is_file():
            raise ValueError(f"--{field}-file {path}: no such file")
        out += split_entries(path.read_text(encoding="utf-8-sig"))
    return out


def run(args: argparse.Namespace) -> int:
    """Run ``chatops people ...``: preview, ask, apply; exit 0 all made, 1 some refused or
    failed (or nothing applied), 2 a mistake in the arguments or an account that may not."""
    from .._client import Client
    from ..changes.journal import Journal
    from ..org.bulk import Directory, apply_bulk, plan_idle, plan_roles, plan_subscriptions
    from ..org.plan import journal_path

    command = args.people_command
    if command is None:
        return fail("choose one of: subscribe, unsubscribe, role, deactivate-idle")
    if args.zuliprc is not None and not Path(args.zuliprc).expanduser().is_file():
        return fail(f"--zuliprc {args.zuliprc}: no such file")
    if command == "deactivate-idle" and args.days < 1:
        return fail(f"--days must be at least 1, not {args.days}")
    try:
        people = _entries(args, "people") if command != "deactivate-idle" else []
    except (ValueError, UnicodeDecodeError) as exc:
        return fail(str(exc))
    with Client(site=args.site, config_file=args.zuliprc) as client:
        me = client.users.me()
        if int(me.role) > 200:
            return fail(f"chatops people {command} needs an administrator's account")
        if command in ("subscribe", "unsubscribe"):
            channels = [e for text in args.channels for e in text.split(",") if e.strip()]
            plan = plan_subscriptions(
                Directory.read(client),
                people,
                channels,
                lambda sid: set(client.channels.members(sid)),
                unsubscribe=command == "unsubscribe",
            )
        elif command == "role":
            plan = plan_roles(Directory.read(client), people, args.role)
        else:
            plan = plan_idle(
                client,
                days=args.days,
                include_owners=args.include_owners,
                include_admins=args.include_admins,
                include_bots=args.include_bots,
            )
        if plan.problems:
            for problem in plan.problems:
                say(f"✗ {problem}", err=True)
            return fail("nothing was sent: correct the lists above")
        _table(plan.rows)
        if not plan.changes:
            say("Nothing to change.")
            return 1 if any(r.status == "refused" for r in plan.rows) else 0
        say(
            f"{plan.will} of {len(plan.rows)} people change, in {len(plan.changes)} "
            f"request{'s' if len(plan.changes) != 1 else ''}."
        )
        stop = go_ahead(yes=args.yes, dry_run=args.dry_run, question="Apply? [y/N] ")
        if stop is not None:
            return stop
        path = journal_path("people", command)
        zuliprc = str(Path(args.zuliprc).expanduser().resolve()) if args.zuliprc else None
        with Journal.open(
            path, kind="apply", site=client.site, email=client.email, zuliprc=zuliprc
        ) as journal:
            tally, rows = apply_bulk(plan, client, journal)
    _table(rows)
    made = tally["done"] + tally["already_done"]
    refused = sum(r.status == "refused" for r in rows)
    say(
        f"{made} request{'s' if made != 1 else ''} made; {refused} "
        f"{'person' if refused == 1 else 'people'} refused, {tally['failed']} requests failed; "
        f"journal in {path} (chatops undo {path} reverts it)"
    )
    return 0 if tally.ok and not refused else 1


def _table(rows: list[Row]) -> None:
    """The rows, a line each: status, person, change, detail."""
    for row in rows:
        tail = f"  ({row.detail})" if row.detail else ""
        say(f"{row.status:>11}  {row.person}: {row.change}{tail}")
