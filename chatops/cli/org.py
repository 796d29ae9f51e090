"""``chatops org export|diff|apply|schema``: the organization's setup as a file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._terminal import say
from ._args import Commands, Parser, fail

__all__ = ["add", "run"]


def add(commands: Commands[Parser]) -> None:
    """The ``org`` command and its subcommands."""
    org = commands.add_parser("org", help="the organization's setup declared in a file")
    org_cmds = org.add_subparsers(dest="org_command", required=False, parser_class=Parser)
    export = org_cmds.add_parser(
        "export", help="write the organization's setup as YAML, by names and emails"
    )
    export.add_argument(
        "--out", type=Path, help="file to write (owner-only; default: standard output)"
    )
    target = export.add_mutually_exclusive_group()
    target.add_argument("--site", help="server URL (credentials from ZULIP_* or ~/.zuliprc)")
    target.add_argument("--zuliprc", help="zuliprc file of an administrator")
    diff = org_cmds.add_parser(
        "diff",
        help="where the organization differs from the file (exit 0 equal, 1 drift, 2 error)",
    )
    diff.add_argument("file", type=Path, help="the organization file (YAML)")
    diff.add_argument("--format", choices=("text", "json"), default="text")
    diff.add_argument(
        "--prune",
        action="store_true",
        help="also list what the organization has and the file does not",
    )
    target = diff.add_mutually_exclusive_group()
    target.add_argument("--site", help="server URL (credentials from ZULIP_* or ~/.zuliprc)")
    target.add_argument("--zuliprc", help="zuliprc file of an administrator")
    apply = org_cmds.add_parser(
        "apply",
        help="make the organization as the file says: plan, objections, then every change "
        "journalled (chatops undo reverts it)",
    )
    apply.add_argument("file", type=Path, help="the organization file (YAML)")
    apply.add_argument("--yes", action="store_true", help="apply without asking")
    apply.add_argument(
        "--dry-run",
        action="store_true",
        help="show the plan and what would be refused; send nothing",
    )
    apply.add_argument(
        "--prune",
        action="store_true",
        help="also deactivate or archive what the file does not list (groups, channels, "
        "folders, profile fields, people)",
    )
    target = apply.add_mutually_exclusive_group()
    target.add_argument("--site", help="server URL (credentials from ZULIP_* or ~/.zuliprc)")
    target.add_argument("--zuliprc", help="zuliprc file of an administrator")
    schema = org_cmds.add_parser("schema", help="print (or write) the file's JSON Schema")
    schema.add_argument("--out", type=Path, help="file to write (default: standard output)")


def run(args: argparse.Namespace) -> int:
    """Run ``chatops org ...``."""
    from .._files import write_private_text

    if args.org_command == "schema":
        from ..org import schema_text

        if args.out is None:
            sys.stdout.write(schema_text())
        else:
            write_private_text(args.out, schema_text())
            say(str(args.out))
        return 0
    if args.org_command not in ("export", "diff", "apply"):
        return fail(
            "choose one of: chatops org export, chatops org diff, chatops org apply, "
            "chatops org schema"
        )
    if args.zuliprc is not None and not Path(args.zuliprc).expanduser().is_file():
        return fail(f"--zuliprc {args.zuliprc}: no such file")
    if args.org_command == "diff":
        return _diff(args)
    if args.org_command == "apply":
        from ._org_apply import run_apply

        return run_apply(args)
    from .._client import Client
    from ..org import export_document, to_yaml

    if args.out is not None and args.out.is_dir():
        return fail(f"--out {args.out}: is a folder; name the file to write")
    with Client(site=args.site, config_file=args.zuliprc) as client:
        me = client.users.me()
        if int(me.role) > 200:
            return fail(
                "chatops org export needs an administrator's account (it reads every "
                f"setting and address); {me.email} is not one"
            )
        text = to_yaml(export_document(client))
    if args.out is None:
        _write(text)
    else:
        write_private_text(args.out, text)
        say(str(args.out))
    return 0


def _write(text: str) -> None:
    """The file's text on standard output: as it is into a pipe or a file, line by line with
    every control and direction character shown escaped on a terminal (names are anyone's)."""
    if sys.stdout.isatty():
        for line in text.splitlines():
            say(line)
    else:
        sys.stdout.write(text)


def _diff(args: argparse.Namespace) -> int:
    import json

    from .._client import Client
    from ..org import export_document, load_document
    from ..org.diff import diff_documents, drift_json

    wanted = load_document(args.file)  # a mistake in the file: one line, exit 2, nothing read
    with Client(site=args.site, config_file=args.zuliprc) as client:
        if int(client.users.me().role) > 200:
            return fail("chatops org diff needs an administrator's account")
        groups = [str(r["group"]) for r in wanted.get("membership_rules", [])]
        actual = export_document(client, rules_for=groups)
    drift = diff_documents(wanted, actual, prune=args.prune)
    if args.format == "json":
        _write(json.dumps(drift_json(drift), indent=1, ensure_ascii=False, default=str) + "\n")
    elif drift:
        for d in drift:
            say(d.words)
        say(f"{len(drift)} difference{'' if len(drift) == 1 else 's'} from {args.file}.")
    else:
        say(f"The organization matches {args.file}.")
    return 1 if drift else 0
