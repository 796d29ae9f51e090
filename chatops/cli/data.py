"""``chatops data sync|export|info|import-export|key``: the local analytics dataset."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from .._terminal import say
from ._args import Commands, Parser, count, fail, writable_folder

__all__ = ["add", "run"]


def add(commands: Commands[Parser]) -> None:
    """The ``data`` command and its subcommands."""
    data = commands.add_parser("data", help="the local analytics dataset (Parquet)")
    data_cmds = data.add_subparsers(dest="data_command", required=False, parser_class=Parser)
    sync = data_cmds.add_parser("sync", help="fetch what is new into the cache")
    export = data_cmds.add_parser(
        "export", help="write every frame as Parquet or CSV files, or one Excel workbook"
    )
    info = data_cmds.add_parser("info", help="what the cache holds: watermarks, coverage, sizes")
    for sub in (sync, export, info):
        target = sub.add_mutually_exclusive_group()
        target.add_argument("--site", help="server URL (credentials from ZULIP_* or ~/.zuliprc)")
        target.add_argument("--zuliprc", help="zuliprc file of the account to sync as")
        sub.add_argument(
            "--cache",
            type=writable_folder if sub is sync else Path,
            help="dataset folder (default: one per site and account)",
        )
    sync.add_argument(
        "--recheck",
        type=count(0),
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
        "--concurrency", type=count(1), default=4, help="requests in flight at once (4)"
    )
    sync.add_argument(
        "--content",
        action="store_true",
        help="keep message text (a cache made without it fetches the text of what it holds)",
    )
    sync.add_argument("--no-progress", action="store_true", help="no progress bar")
    export.add_argument("--format", required=True, choices=("parquet", "csv", "xlsx"))
    export.add_argument(
        "--pseudonymise",
        "--pseudonymize",
        action="store_true",
        help=(
            "a copy to hand to someone else: keyed pseudonyms for people, topics and direct "
            "conversations; no names, emails or message text (needs a key: chatops data key)"
        ),
    )
    export.add_argument(
        "--out", required=True, type=writable_folder, help="folder to write the files to"
    )
    imp = data_cmds.add_parser(
        "import-export", help="build the dataset from a Zulip organization data export"
    )
    imp.add_argument("file", type=Path, help="the export's .tar.gz, or its unpacked folder")
    imp.add_argument(
        "--cache",
        type=writable_folder,
        help="dataset folder (default: one per export, by its file name)",
    )
    imp.add_argument("--content", action="store_true", help="keep message text")
    imp.add_argument("--no-progress", action="store_true", help="no progress bar")
    key = data_cmds.add_parser(
        "key", help="make the secret key of pseudonyms (an owner-only file in the state folder)"
    )
    key.add_argument(
        "--replace",
        action="store_true",
        help="make a new key over the one there is (every pseudonym changes with it)",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``chatops data ...``."""
    try:
        if args.data_command == "import-export":
            return _data_import(args)
        if args.data_command == "key":
            return _data_key(args)
        return _data_command(args)
    except (ValueError, RuntimeError) as exc:  # a wrong folder, a cache in use
        return fail(str(exc))


def _data_import(args: argparse.Namespace) -> int:
    from ..analytics.dataset import Dataset
    from ..analytics.dataset.realm_export import export_cache

    source: Path = args.file
    if not source.exists():
        return fail(f"{source}: no such file or folder")
    cache: Path = args.cache if args.cache is not None else export_cache(source)
    ds = Dataset.from_export(source, cache, content=args.content, progress=not args.no_progress)
    realm = ds.manifest["source"]["realm"]
    say(f"{ds.message_count} messages of {realm['name']} ({realm['string_id']}) in {ds.cache}")
    return 0


def _data_key(args: argparse.Namespace) -> int:
    from ..analytics.pseudonyms import KEY_ENV, key_file, make_key

    path = key_file()
    try:
        make_key(path, replace=args.replace)
    except FileExistsError:
        say(f"A pseudonym key is already in {path}; kept (--replace makes a new one).")
        return 0
    say(f"Pseudonym key written to {path} (readable by you only).")
    if os.environ.get(KEY_ENV):
        say(f"{KEY_ENV} is set, and is used instead of the file while it is.")
    return 0


def _data_command(args: argparse.Namespace) -> int:
    import json

    from .._client import Client
    from ..analytics.dataset import Dataset, default_cache

    if args.zuliprc is not None and not Path(args.zuliprc).expanduser().is_file():
        return fail(f"--zuliprc {args.zuliprc}: no such file")
    cache: Path | None = args.cache
    if cache is not None and cache.exists() and not cache.is_dir():
        return fail(f"--cache {cache} is not a folder")
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
        return fail(f"{cache} holds no dataset: run chatops data sync first")
    ds = Dataset(cache)
    if args.data_command == "export":
        if args.out.exists() and not args.out.is_dir():
            return fail(f"--out {args.out} is not a folder")
        for path in ds.export(args.out, format=args.format, pseudonymise=args.pseudonymise):
            say(path)
        return 0
    for line in json.dumps(ds.info(), indent=2).splitlines():
        say(line)
    return 0
