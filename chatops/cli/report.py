"""``chatops report analytics``: the analytics report of an organization as one HTML file (or
an executed notebook).

The target is found as ``chatops audit run`` finds it: ``--zuliprc`` or ``--site`` (synced into
the dataset cache first, only what changed), ``--dataset`` (a synced or imported dataset
folder, read as it is), or with none of them a demo organization in a sandbox started for the
run. Every argument is checked before anything is read or written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from .._terminal import say
from ._args import Commands, Parser, fail, writable_file, writable_folder

__all__ = ["add", "run"]

PERIOD_NAMES = ("last-7-days", "last-30-days", "last-90-days", "all")


def _time(text: str) -> datetime:
    from ..analytics.report._period import parse_time

    try:
        return parse_time(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add(commands: Commands[Parser]) -> None:
    """The ``report`` command and its ``analytics`` subcommand."""
    report = commands.add_parser("report", help="reports to share")
    kinds = report.add_subparsers(dest="report_command", required=False, parser_class=Parser)
    a = kinds.add_parser("analytics", help="the analytics views as one self-contained HTML file")
    a.add_argument(
        "--period",
        choices=PERIOD_NAMES,
        help="the last days of the data, or all (default all; or give --since/--until)",
    )
    a.add_argument("--since", type=_time, metavar="TIME", help="first moment included, ISO 8601")
    a.add_argument("--until", type=_time, metavar="TIME", help="first moment left out, ISO 8601")
    a.add_argument(
        "--out",
        type=writable_file,
        metavar="FILE",
        help="file to write (default analytics-report.html, or .ipynb with --notebook)",
    )
    a.add_argument(
        "--notebook",
        action="store_true",
        help="write the executed report notebook (papermill) instead of the HTML page",
    )
    target = a.add_mutually_exclusive_group()
    target.add_argument("--site", help="server URL (credentials from ZULIP_* or ~/.zuliprc)")
    target.add_argument("--zuliprc", help="zuliprc file of the account to sync as")
    target.add_argument(
        "--dataset", type=Path, metavar="DIR", help="a dataset folder, read as it is (no sync)"
    )
    a.add_argument(
        "--cache",
        type=writable_folder,
        metavar="DIR",
        help="dataset folder to sync into (default: one per site and account)",
    )
    a.add_argument(
        "--organization",
        metavar="NAME",
        help="the name in the title (default: what the server calls it; a dataset's site)",
    )
    a.add_argument("--include-bots", action="store_true", help="keep bots' messages in the views")
    a.add_argument(
        "--pseudonymise",
        "--pseudonymize",
        dest="pseudonymise",
        action="store_true",
        help="name nobody: people as keyed pseudonyms (the key of `chatops data key` or "
        "CHATOPS_PSEUDONYM_KEY), topics as keyed labels, no account in the coverage note",
    )
    a.add_argument("--no-progress", action="store_true", help="no progress bars")


def _check(args: argparse.Namespace) -> str | None:
    """What is wrong with the arguments, before anything is read or written (None: nothing)."""
    if args.period is not None and (args.since is not None or args.until is not None):
        return "give --period or --since/--until, not both"
    if args.since is not None and args.until is not None and args.since >= args.until:
        return (
            f"--since {args.since:%Y-%m-%d %H:%M} is not before --until {args.until:%Y-%m-%d %H:%M}"
        )
    out: Path | None = args.out
    if out is not None:
        suffix = out.suffix.lower()
        if args.notebook and suffix != ".ipynb":
            return f"--out {out}: with --notebook the file is a notebook (.ipynb)"
        if not args.notebook and suffix not in (".html", ".htm"):
            return f"--out {out}: the report is an HTML page (.html), or give --notebook"
    if args.zuliprc is not None and not Path(args.zuliprc).expanduser().is_file():
        return f"--zuliprc {args.zuliprc}: no such file"
    if args.dataset is not None:
        if args.cache is not None:
            return "--cache is where a sync writes; with --dataset nothing is synced"
        if not (args.dataset.expanduser() / "manifest.json").is_file():
            return f"--dataset {args.dataset} holds no dataset (no manifest.json)"
    if args.cache is not None and args.cache.exists() and not args.cache.is_dir():
        return f"--cache {args.cache} is not a folder"
    if args.pseudonymise:
        if args.notebook:
            return "--pseudonymise makes the HTML page; the notebook keeps the names"
        from ..analytics.pseudonyms import load_key

        try:
            load_key()
        except ValueError as exc:  # no key, a short one, a key file others can read
            return f"--pseudonymise: {exc}"
    return None


@contextlib.contextmanager
def _source(args: argparse.Namespace) -> Iterator[tuple[Any, str | None, str]]:
    """The dataset to report on, the organization's name when the server says it, and what
    the notebook is given to find it: synced from the server, the folder given, or a demo
    sandbox's (stopped on leaving)."""
    from .._client import Client
    from ..analytics import Dataset

    progress = not args.no_progress
    if args.dataset is not None:
        yield Dataset(args.dataset.expanduser()), None, ""
        return
    if args.zuliprc is not None or args.site is not None:
        with Client(site=args.site, config_file=args.zuliprc) as client:
            ds = Dataset.sync(client, args.cache, progress=progress)
            name = client.server.settings().realm_name
        yield ds, name, ""
        return
    from ..sandbox import Sandbox

    say("Starting a demo sandbox (no --site, --zuliprc or --dataset given)...", err=True)
    with tempfile.TemporaryDirectory(prefix="chatops-report-") as tmp:
        sandbox = Sandbox.start(Path(tmp) / "sandbox")
        try:
            rc = sandbox.zuliprc("admin")
            with Client(config_file=rc) as client:
                ds = Dataset.sync(client, args.cache or Path(tmp) / "dataset", progress=progress)
                name = client.server.settings().realm_name
            yield ds, name, str(rc)
        finally:
            sandbox.stop()


def _bar(enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm  # type: ignore[import-untyped]

    def wrap(items: Any) -> Any:
        return tqdm(list(items), desc="views", unit="view", leave=False)

    return wrap


def run(args: argparse.Namespace) -> int:
    """Run ``chatops report analytics``."""
    problem = _check(args)
    if problem is not None:
        return fail(problem)
    try:
        out: Path = args.out or writable_file(
            "analytics-report.ipynb" if args.notebook else "analytics-report.html"
        )
    except argparse.ArgumentTypeError as exc:  # the current folder cannot be written
        return fail(f"--out: {exc}")
    try:
        if args.notebook:
            return _notebook(args, out)
        from ..analytics.report import build_report, write_html

        with _source(args) as (ds, name, _rc):
            report = build_report(
                ds,
                period=args.period,
                since=args.since,
                until=args.until,
                organization=args.organization or name or None,
                exclude_bots=not args.include_bots,
                progress=_bar(not args.no_progress),
                pseudonymise=args.pseudonymise,
            )
    except ValueError as exc:  # a dataset folder in use or of another version, a bad period
        return fail(str(exc))
    write_html(report, out)
    failed = [s.title for s in report.sections if s.error is not None]
    for s in report.sections:
        if s.error is not None:
            say(f"{s.title}: could not be computed: {s.error}", err=True)
    say(out)
    return 1 if failed else 0


def _notebook(args: argparse.Namespace, out: Path) -> int:
    """Execute the report notebook with papermill into ``out`` (atomically)."""
    import papermill
    from papermill.exceptions import PapermillExecutionError

    from .._files import atomic_write
    from .._resources import notebooks_root

    source = notebooks_root() / "reports" / "analytics.ipynb"
    parameters: dict[str, Any] = {
        "zuliprc": str(Path(args.zuliprc).expanduser().resolve()) if args.zuliprc else "",
        "site": args.site or "",
        "dataset": str(args.dataset.expanduser().resolve()) if args.dataset else "",
        "cache": str(args.cache.expanduser().resolve()) if args.cache else "",
        "as_of": "",
        "period": args.period or ("" if args.since or args.until else "all"),
        "since": args.since.isoformat() if args.since else "",
        "until": args.until.isoformat() if args.until else "",
        "organization": args.organization or "",
        "exclude_bots": not args.include_bots,
    }

    def write(tmp: Path) -> None:
        with tempfile.TemporaryDirectory(prefix="chatops-report-") as folder:
            executed = Path(folder) / "analytics.ipynb"
            papermill.execute_notebook(
                str(source),
                str(executed),
                parameters=parameters,
                progress_bar=not args.no_progress,
                cwd=os.getcwd(),
            )
            shutil.copyfile(executed, tmp)

    try:
        atomic_write(out.expanduser(), write)
    except PapermillExecutionError as exc:
        say(f"chatops: the report notebook failed: {exc.ename}: {exc.evalue}", err=True)
        return 1
    say(out)
    return 0
