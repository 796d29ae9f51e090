"""``chatops sandbox serve|demo|export``: the embedded demo server."""

from __future__ import annotations

import argparse
import signal
from pathlib import Path
from types import FrameType

from .._terminal import say
from ._args import Commands, Parser, fail, port, writable_file, writable_folder

__all__ = ["add", "run"]


def add(commands: Commands[Parser]) -> None:
    """The ``sandbox`` command and its subcommands."""
    from .._demo_sizes import SIZES

    sandbox = commands.add_parser("sandbox", help="the embedded demo server")
    sandbox_cmds = sandbox.add_subparsers(dest="sandbox_command", required=False)
    serve = sandbox_cmds.add_parser("serve", help="serve a demo organization in the foreground")
    demo = sandbox_cmds.add_parser("demo", help="generate a demo organization and exit")
    for sub in (serve, demo):
        sub.add_argument(
            "--data",
            required=True,
            type=writable_folder,
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
        type=writable_file,
        metavar="FILE",
        help="the .tar.gz to write (0600)",
    )
    export.add_argument("--no-progress", action="store_true", help="no progress bar")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=port, default=9991, help="port (default 9991; 0: any)")


def run(args: argparse.Namespace) -> int:
    """Run ``chatops sandbox ...``."""
    from ..sandbox import open_data_dir, serve

    data: Path = args.data
    if data.exists() and not data.is_dir():
        return fail(f"--data {data} is not a folder")
    if args.sandbox_command == "export":
        return _export(args)
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
        return fail(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}")
    finally:
        signal.signal(signal.SIGTERM, previous)
    return 0


def _export(args: argparse.Namespace) -> int:
    from ..sandbox import Store
    from ..sandbox.export import export_organization
    from ..sandbox.server import DB_NAME

    data: Path = args.data
    out: Path = args.out
    if not (data / DB_NAME).is_file():
        return fail(f"--data {data} holds no sandbox organization")
    try:
        if not out.parent.is_dir():
            return fail(f"--out {out}: folder {out.parent} does not exist")
        if out.is_dir():
            return fail(f"--out {out} is a folder")
        store = Store(data / DB_NAME)
        try:
            export_organization(
                store, out, upload_dir=data / "uploads", progress=not args.no_progress
            )
        finally:
            store.close()
    except OSError as exc:
        return fail(f"cannot write {out}: {exc.strerror or exc}")
    say(f"Exported the organization in {data} to {out}")
    return 0
