"""``chatops undo [JOURNAL]``: revert the last apply (or the one whose journal is named)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._terminal import printable, say
from ._args import Commands, Parser

__all__ = ["add", "run"]


def add(commands: Commands[Parser]) -> None:
    """The ``undo`` command."""
    undo = commands.add_parser(
        "undo", help="revert what an apply did, from its journal (default: the last apply)"
    )
    undo.add_argument(
        "journal",
        nargs="?",
        type=Path,
        metavar="JOURNAL",
        help="an apply's journal (PLAN.results.jsonl; default: the last apply's)",
    )
    undo.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    undo.add_argument(
        "--list", action="store_true", help="list the recorded applies and whether each is undone"
    )
    target = undo.add_mutually_exclusive_group()
    target.add_argument("--site", help="server URL (key from ZULIP_* or ~/.zuliprc)")
    target.add_argument(
        "--zuliprc", help="zuliprc file of the account (default: the one the apply used)"
    )


def _list() -> int:
    from ..changes.journal import Journal, index_entries
    from ..changes.undo import undo_path

    entries = [e for e in index_entries() if e.get("kind") == "apply"]
    if not entries:
        say("No apply recorded.")
        return 0
    for entry in entries:
        path = Path(entry["path"])
        if not path.is_file():
            continue
        made = len(Journal.read(path).done())
        undone = undo_path(path).is_file()
        say(
            f"{entry.get('started_at', '')[:19]}  {entry.get('email', '')} on "
            f"{entry.get('site', '')}: {made} changes made{', undone' if undone else ''}  {path}"
        )
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``chatops undo``."""
    from ..changes.undo import undo

    if args.list:
        return _list()

    def ask(question: str) -> bool:
        return input(printable(question)).strip().lower() in ("y", "yes")

    return undo(
        args.journal.expanduser() if args.journal else None,
        site=args.site,
        zuliprc=args.zuliprc,
        yes=args.yes,
        ask=ask if sys.stdin.isatty() else None,
        say=say,
    )
