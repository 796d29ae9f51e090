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
    chatops audit apply PLAN [--yes] [--site URL | --zuliprc PATH]
    chatops lab [--dir chatops-notebooks] [--port 8888] [--no-browser] [--site URL | --zuliprc PATH]
                [-- JUPYTERLAB OPTIONS...]
    chatops console [--dir chatops-notebooks] [--port 8866] [--no-browser] [--idle-timeout 300]
                    [--site URL | --zuliprc PATH] [-- VOILA OPTIONS...]
    chatops whoami [--zuliprc PATH]
    chatops data sync [--site URL | --zuliprc PATH] [--cache DIR] [--recheck N] [--concurrency N]
                      [--content] [--verify] [--no-progress]
    chatops data export --format parquet|csv --out DIR [--cache DIR | --site URL | --zuliprc PATH]
    chatops data info [--cache DIR | --site URL | --zuliprc PATH]
    chatops data import-export FILE [--cache DIR] [--content] [--no-progress]

Mistakes a user can make print one line to stderr and exit with status 2, no traceback.
``audit run`` exits 0 when every audit passed, 1 when a threshold was crossed, 2 when an audit
failed to run. ``audit apply`` exits 0 when every call is done, 1 when one failed.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType
from typing import NoReturn

from ._exceptions import ChatopsError
from ._terminal import install as install_terminal
from ._terminal import printable, say

__all__ = ["main"]

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
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


def _fail(message: str) -> int:
    say(f"chatops: error: {message}", err=True)
    return EXIT_USAGE


def _build_parser() -> _Parser:
    from .sandbox import SIZES

    parser = _Parser(prog="chatops", description="Admin and analytics workbench for team chat.")
    commands = parser.add_subparsers(dest="command", required=False, parser_class=_Parser)

    sandbox = commands.add_parser("sandbox", help="the embedded demo server")
    sandbox_cmds = sandbox.add_subparsers(dest="sandbox_command", required=False)
    serve = sandbox_cmds.add_parser("serve", help="serve a demo organization in the foreground")
    demo = sandbox_cmds.add_parser("demo", help="generate a demo organization and exit")
    for sub in (serve, demo):
        sub.add_argument(
            "--data",
            required=True,
            type=_writable_folder,
            metavar="DIR",
            help="data folder; a demo organization is generated when it is new",
        )
        sub.add_argument(
            "--size",
            choices=sorted(SIZES),
            default="small",
            help="demo organization size (default small)",
        )
        sub.add_argument("--seed", type=int, default=1, help="demo generator seed (default 1)")
    export = sandbox_cmds.add_parser(
        "export", help="write the organization as a Zulip data export tarball"
    )
    export.add_argument(
        "--data", required=True, type=Path, metavar="DIR", help="the sandbox's data folder"
    )
    export.add_argument(
        "--out",
        required=True,
        type=_writable_file,
        metavar="FILE",
        help="the .tar.gz to write (0600)",
    )
    export.add_argument("--no-progress", action="store_true", help="no progress bar")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=9991, help="port (default 9991; 0: any)")

    audit = commands.add_parser("audit", help="audit notebooks")
    audit_cmds = audit.add_subparsers(dest="audit_command", required=False)
    audit_cmds.add_parser("list", help="list the audits and their parameters")
    run = audit_cmds.add_parser("run", help="run audits with papermill and write a report")
    run.add_argument("names", nargs="*", metavar="NAME", help="audits to run")
    run.add_argument("--all", action="store_true", help="run every audit")
    run.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="a notebook parameter (repeatable)",
    )
    target = run.add_mutually_exclusive_group()
    target.add_argument("--site", help="server URL (key from ZULIP_* or ~/.zuliprc)")
    target.add_argument("--zuliprc", help="zuliprc file of the account to audit with")
    run.add_argument(
        "--report-dir",
        default="reports",
        type=_writable_folder,
        help="report folder (default ./reports)",
    )
    run.add_argument(
        "--readable-by",
        choices=("owner", "group", "everyone"),
        default="owner",
        help=(
            "who may read the run's report folder (default owner: it names people; "
            "group or everyone to share it)"
        ),
    )
    run.add_argument(
        "--as-of",
        metavar="TIME",
        help="reference time of every audit, ISO 8601 (default now); also dates the demo sandbox",
    )
    run.add_argument(
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="audits executed at once, each in its own kernel (default: the machine's cores)",
    )
    run.add_argument(
        "--post-to",
        metavar="WHERE",
        help="post a short summary to 'channel:topic' or 'dm:alice@x.org,bob@y.org'",
    )
    run.add_argument(
        "--report-url",
        default="",
        metavar="URL",
        help="where the report folder is served, for links in the posted summary",
    )

    plan = audit_cmds.add_parser("plan", help="write the API calls of a run's findings to a plan")
    plan.add_argument(
        "run_dir",
        nargs="?",
        type=Path,
        default=Path("reports") / "latest",
        metavar="RUN_DIR",
        help="a run's report folder (default ./reports/latest)",
    )
    plan.add_argument(
        "-o",
        "--output",
        type=_writable_file,
        metavar="PLAN",
        help="plan file (default RUN_DIR/plan.jsonl)",
    )
    apply = audit_cmds.add_parser("apply", help="carry out a plan, after confirmation")
    apply.add_argument("plan", type=_plan_file, metavar="PLAN", help="a plan file (JSON lines)")
    apply.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    apply_target = apply.add_mutually_exclusive_group()
    apply_target.add_argument("--site", help="server URL (key from ZULIP_* or ~/.zuliprc)")
    apply_target.add_argument("--zuliprc", help="zuliprc file of the account to act with")

    lab = commands.add_parser(
        "lab", help="JupyterLab on the chatops notebooks, opening the admin console"
    )
    lab.add_argument(
        "--dir",
        default="chatops-notebooks",
        type=_writable_folder,
        help="folder for the notebooks (default ./chatops-notebooks; your copies are kept)",
    )
    lab.add_argument("--port", type=_port, default=8888, help="port (default 8888)")
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
        type=_writable_folder,
        help="folder for the page's notebook (default ./chatops-notebooks)",
    )
    console.add_argument("--port", type=_port, default=8866, help="port (default 8866)")
    console.add_argument("--no-browser", action="store_true", help="do not open a browser")
    console.add_argument(
        "--idle-timeout",
        type=_count(1),
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

    whoami = commands.add_parser("whoami", help="show who the credentials belong to")
    whoami.add_argument("--zuliprc", help="zuliprc file (default ZULIP_CONFIG or ~/.zuliprc)")
    _data_parser(commands)
    return parser


def _data_parser(commands: argparse._SubParsersAction[_Parser]) -> None:
    data = commands.add_parser("data", help="the local analytics dataset (Parquet)")
    data_cmds = data.add_subparsers(dest="data_command", required=False, parser_class=_Parser)
    sync = data_cmds.add_parser("sync", help="fetch what is new into the cache")
    export = data_cmds.add_parser("export", help="write every frame as Parquet or CSV files")
    info = data_cmds.add_parser("info", help="what the cache holds: watermarks, coverage, sizes")
    for sub in (sync, export, info):
        target = sub.add_mutually_exclusive_group()
        target.add_argument("--site", help="server URL (credentials from ZULIP_* or ~/.zuliprc)")
        target.add_argument("--zuliprc", help="zuliprc file of the account to sync as")
        sub.add_argument(
            "--cache",
            type=_writable_folder if sub is sync else Path,
            help="dataset folder (default: one per site and account)",
        )
    sync.add_argument(
        "--recheck",
        type=_count(0),
        default=1000,
        help=(
            "the dataset's newest stored messages, counted over all channels and direct "
            "messages together, fetched again on a re-sync (1000)"
        ),
    )
    sync.add_argument(
        "--verify",
        action="store_true",
        help="re-read every stored message, as a sync into an empty folder would",
    )
    sync.add_argument(
        "--concurrency", type=_count(1), default=4, help="requests in flight at once (4)"
    )
    sync.add_argument(
        "--content",
        action="store_true",
        help="keep message text (a cache made without it fetches the text of what it holds)",
    )
    sync.add_argument("--no-progress", action="store_true", help="no progress bar")
    export.add_argument("--format", required=True, choices=("parquet", "csv"))
    export.add_argument(
        "--out", required=True, type=_writable_folder, help="folder to write the files to"
    )
    imp = data_cmds.add_parser(
        "import-export", help="build the dataset from a Zulip organization data export"
    )
    imp.add_argument("file", type=Path, help="the export's .tar.gz, or its unpacked folder")
    imp.add_argument(
        "--cache",
        type=_writable_folder,
        help="dataset folder (default: one per export, by its file name)",
    )
    imp.add_argument("--content", action="store_true", help="keep message text")
    imp.add_argument("--no-progress", action="store_true", help="no progress bar")


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


def _writable_folder(text: str) -> Path:
    """A folder argument the command writes in: checked before anything starts."""
    path = Path(text).expanduser()
    problem = _write_problem(path)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text}: cannot write there: {problem}")
    return path


def _writable_file(text: str) -> Path:
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


def _plan_file(text: str) -> Path:
    """A plan to carry out: it must be a file, and its results are written beside it."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"plan {text} does not exist")
    problem = _write_problem(path.parent)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{text}: its results cannot be written: {problem}")
    return path


def _count(least: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid number {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
        return value

    return parse


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is outside 0-65535")
    return port


def _jobs(text: str) -> int:
    try:
        jobs = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of jobs {text!r}") from None
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"--jobs must be at least 1, not {jobs}")
    return jobs


def _sandbox(args: argparse.Namespace) -> int:
    from .sandbox import open_data_dir, serve

    data: Path = args.data
    if data.exists() and not data.is_dir():
        return _fail(f"--data {data} is not a folder")
    if args.sandbox_command == "export":
        return _sandbox_export(args)
    if args.sandbox_command == "demo":
        store, accounts, created = open_data_dir(data, size=args.size, seed=args.seed)
        store.close()
        state = "Generated" if created else "Found existing"
        say(f"{state} demo organization in {data} (accounts: {', '.join(accounts)})")
        return 0

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    # uvicorn handles SIGINT/SIGTERM itself while serving; these cover the set-up before it.
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        serve(data, host=args.host, port=args.port, size=args.size, seed=args.seed)
    except KeyboardInterrupt:
        say("Sandbox stopped.", err=True)
    except OSError as exc:
        return _fail(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}")
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def _sandbox_export(args: argparse.Namespace) -> int:
    from .sandbox import Store
    from .sandbox.export import export_organization
    from .sandbox.server import DB_NAME

    data: Path = args.data
    out: Path = args.out
    if not (data / DB_NAME).is_file():
        return _fail(f"--data {data} holds no sandbox organization")
    try:
        if not out.parent.is_dir():
            return _fail(f"--out {out}: folder {out.parent} does not exist")
        if out.is_dir():
            return _fail(f"--out {out} is a folder")
        store = Store(data / DB_NAME)
        try:
            export_organization(
                store, out, upload_dir=data / "uploads", progress=not args.no_progress
            )
        finally:
            store.close()
    except OSError as exc:
        return _fail(f"cannot write {out}: {exc.strerror or exc}")
    say(f"Exported the organization in {data} to {out}")
    return 0


def _audit(args: argparse.Namespace) -> int:
    from . import runner

    if args.audit_command == "list":
        for name, path in runner.available_audits().items():
            say(name)
            for pname, spec in runner.notebook_parameters(path).items():
                if pname in runner.RESERVED_PARAMETERS:
                    continue
                kind = spec.get("inferred_type_name") or "?"
                say(f"  {pname} ({kind}, default {spec.get('default')}): {spec.get('help', '')}")
        return 0
    if args.audit_command == "plan":
        return _plan(args)
    if args.audit_command == "apply":
        return _apply(args)

    if args.all and args.names:
        return _fail("give audit names or --all, not both")
    if not args.all and not args.names:
        return _fail("name the audits to run, or give --all (see: chatops audit list)")
    parameters: dict[str, str] = {}
    for name, value in args.parameter:
        if name in parameters:
            return _fail(f"parameter {name} is given twice")
        parameters[name] = value
    result = runner.run_audits(
        [] if args.all else args.names,
        report_dir=args.report_dir,
        parameters=parameters,
        site=args.site,
        zuliprc=args.zuliprc,
        jobs=args.jobs,
        post_to=args.post_to,
        report_url=args.report_url,
        echo=lambda line: say(line, err=True),
        as_of=args.as_of,
        readable_by=args.readable_by,
    )
    say(result.summary_path)
    return result.exit_code


def _plan(args: argparse.Namespace) -> int:
    from .plan import write_plan

    path, calls = write_plan(args.run_dir, args.output)
    waiting = sum(c.needs_input for c in calls)
    say(f"{len(calls)} calls ({waiting} need input and will not run) written to {path}", err=True)
    say(path)
    return 0


def _apply(args: argparse.Namespace) -> int:
    from .plan import apply_plan

    def ask(question: str) -> bool:
        return input(printable(question)).strip().lower() in ("y", "yes")

    return apply_plan(
        args.plan,
        site=args.site,
        zuliprc=args.zuliprc,
        yes=args.yes,
        ask=ask if sys.stdin.isatty() else None,
        say=say,
        progress=True,
    )


def _lab(args: argparse.Namespace) -> int:

    from .lab import lab_arguments, lab_environment, prepare

    extra = list(args.jupyter_args)
    if extra and extra[0] == "--":
        extra = extra[1:]
    notebook = prepare(args.dir, zuliprc=args.zuliprc or "", site=args.site or "")
    say(f"Notebooks in {args.dir.resolve()}; opening {notebook.name}", err=True)
    command = lab_arguments(args.dir, port=args.port, open_browser=not args.no_browser, extra=extra)
    sys.stderr.flush()
    # JupyterLab takes over this process and its signals; it runs the console notebook first
    os.execve(command[0], command, lab_environment())


def _console(args: argparse.Namespace) -> int:
    from .console_page import new_token, prepare_page, serve_page

    extra = list(args.voila_args)
    if extra and extra[0] == "--":
        extra = extra[1:]
    given = [a.split("=", 1)[1] for a in extra if a.startswith(("--token=", "--Voila.token="))]
    extra = [a for a in extra if not a.startswith(("--token=", "--Voila.token="))]
    token = given[-1] if given else new_token()
    if not token:
        return _fail("an empty token would leave the page open to anyone on this machine")
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


def _whoami(args: argparse.Namespace) -> int:
    from ._client import Client
    from .types import role_name

    with Client(config_file=args.zuliprc) as client:
        me = client.users.me()
        say(f"name:  {me.full_name}")
        say(f"email: {me.email}")
        say(f"role:  {role_name(me.role)}")
        say(f"site:  {client.site}")
    return 0


def _data(args: argparse.Namespace) -> int:
    try:
        if args.data_command == "import-export":
            return _data_import(args)
        return _data_command(args)
    except (ValueError, RuntimeError) as exc:  # a wrong folder, a cache in use
        return _fail(str(exc))


def _data_import(args: argparse.Namespace) -> int:
    from .analytics.dataset import Dataset
    from .analytics.dataset.realm_export import export_cache

    source: Path = args.file
    if not source.exists():
        return _fail(f"{source}: no such file or folder")
    cache: Path = args.cache if args.cache is not None else export_cache(source)
    ds = Dataset.from_export(source, cache, content=args.content, progress=not args.no_progress)
    realm = ds.manifest["source"]["realm"]
    say(f"{ds.message_count} messages of {realm['name']} ({realm['string_id']}) in {ds.cache}")
    return 0


def _data_command(args: argparse.Namespace) -> int:
    import json

    from ._client import Client
    from .analytics.dataset import Dataset, default_cache

    if args.zuliprc is not None and not Path(args.zuliprc).expanduser().is_file():
        return _fail(f"--zuliprc {args.zuliprc}: no such file")
    cache: Path | None = args.cache
    if cache is not None and cache.exists() and not cache.is_dir():
        return _fail(f"--cache {cache} is not a folder")
    if args.data_command == "sync":
        with Client(site=args.site, config_file=args.zuliprc) as client:
            ds = Dataset.sync(
                client,
                cache,
                recheck=args.recheck,
                concurrency=args.concurrency,
                content=True if args.content else None,
                progress=not args.no_progress,
                verify=args.verify,
            )
        stats = ds.manifest["last_sync"]
        say(
            f"{ds.message_count} messages in {ds.cache} ({stats['new']} new, "
            f"{stats['fetched']} fetched in {stats['requests']} requests, {stats['seconds']} s)"
        )
        return 0
    if cache is None:
        with Client(site=args.site, config_file=args.zuliprc) as client:
            cache = default_cache(client.site, client.email)
    if not (cache / "manifest.json").exists():
        return _fail(f"{cache} holds no dataset: run chatops data sync first")
    ds = Dataset(cache)
    if args.data_command == "export":
        if args.out.exists() and not args.out.is_dir():
            return _fail(f"--out {args.out} is not a folder")
        for path in ds.export(args.out, format=args.format):
            say(path)
        return 0
    for line in json.dumps(ds.info(), indent=2).splitlines():
        say(line)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``chatops`` command; returns the exit status."""
    from .runner import AuditInputError

    install_terminal()
    args = _build_parser().parse_command_line(argv)
    try:
        if args.command == "sandbox":
            return _sandbox(args)
        if args.command == "audit":
            return _audit(args)
        if args.command == "lab":
            return _lab(args)
        if args.command == "console":
            return _console(args)
        if args.command == "data":
            return _data(args)
        return _whoami(args)
    except (AuditInputError, ChatopsError) as exc:
        return _fail(str(exc) or type(exc).__name__)
    except OSError as exc:  # a file or folder that turned out unusable after the checks
        if exc.filename is None:
            raise
        return _fail(f"{exc.filename}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        say("Interrupted.", err=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())
