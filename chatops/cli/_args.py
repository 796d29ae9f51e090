"""The ``chatops`` command's parser: one-line errors, and argument types that check what they
can before anything starts (a folder that can be written, a port, a count)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from .._terminal import say

__all__ = [
    "EXIT_USAGE",
    "Commands",
    "Parser",
    "count",
    "fail",
    "jobs",
    "plan_file",
    "port",
    "writable_file",
    "writable_folder",
]

EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``chatops: error: ...`` and exit status 2."""

    def error(self, message: str) -> NoReturn:
        say(f"{self.prog}: error: {message}", err=True)
        sys.exit(EXIT_USAGE)

    def parse_command_line(self, argv: Sequence[str] | None) -> argparse.Namespace:
        """Parse ``argv``, naming an unknown option before a missing command.

        Commands are optional to argparse, so that ``chatops --bogus`` is told about
        ``--bogus`` (argparse checks required commands before unknown options); a missing
        command is then refused here, level by level.
        """
        args = self.parse_args(argv)
        parser: argparse.ArgumentParser = self
        while True:
            commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
            if not commands:
                return args
            chosen = getattr(args, commands[0].dest)
            if chosen is None:
                parser.error(f"name a command: {', '.join(commands[0].choices)}")
            parser = commands[0].choices[chosen]


def fail(message: str) -> int:
    say(f"chatops: error: {message}", err=True)
    return EXIT_USAGE


def go_ahead(*, yes: bool, dry_run: bool, question: str) -> int | None:
    """Whether a command that changes an organization goes on: None to go on, else its exit
    status (0 after a dry run, 1 declined, 2 no terminal to ask and no ``--yes``)."""
    if dry_run:
        say("Dry run: nothing sent.")
        return 0
    if yes:
        return None
    if not sys.stdin.isatty():
        return fail("not applying without confirmation: no terminal to ask; give --yes")
    from .._terminal import printable

    if input(printable(question)).strip().lower() not in ("y", "yes"):
        say("Nothing applied.")
        return 1
    return None


def _write_problem(folder: Path) -> str | None:
    """Why nothing could be written in ``folder`` (made when missing), or None if it could."""
    probe = folder
    try:
        while not probe.exists() and probe.parent != probe:
            probe = probe.parent
        if not probe.is_dir():
            return f"{probe} is not a folder"
        if os.access(probe, os.W_OK | os.X_OK):
            return None
        if os.statvfs(probe).f_flag & os.ST_RDONLY:
            return f"{probe} is on a read-only file system"
    except OSError as exc:  # a name too long, a loop of links
        return exc.strerror or str(exc)
    return f"no permission to write in {probe}"


def writable_folder(text: str) -> Path:
    """A folder argument the command writes in: checked before anything starts."""
    path = Path(text).expanduser()
    problem = _write_problem(path)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text}: cannot write there: {problem}")
    return path


def writable_file(text: str) -> Path:
    """A file argument the command writes: its folder is checked before anything starts."""
    path = Path(text).expanduser()
    try:
        is_dir = path.is_dir()
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"{text}: cannot write there: {exc.strerror}") from None
    if is_dir:
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    problem = _write_problem(path.parent)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text}: cannot write there: {problem}")
    return path


def plan_file(text: str) -> Path:
    """A plan to carry out: it must be a file, and its results are written beside it."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"plan {text} does not exist")
    problem = _write_problem(path.parent)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text}: its results cannot be written: {problem}")
    return path


def count(least: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid number {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
        return value

    return parse


def port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is outside 0-65535")
    return port


def jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of jobs {text!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"--jobs must be at least 1, not {jobs}")
    return jobs


Commands = argparse._SubParsersAction  # the subcommands of a parser
