"""``chatops audit list|run|plan|apply``: the audit notebooks, their report, and the plan that
carries out their fixes through the change engine."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .._terminal import printable, say
from ._args import Commands, Parser, fail, jobs, plan_file, writable_file, writable_folder

__all__ = ["add", "run"]


def add(commands: Commands[Parser]) -> None:
    """The ``audit`` command and its subcommands."""
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
        type=writable_folder,
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
        type=jobs,
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
        type=writable_file,
        metavar="PLAN",
        help="plan file (default RUN_DIR/plan.jsonl)",
    )
    apply = audit_cmds.add_parser("apply", help="carry out a plan, after confirmation")
    apply.add_argument("plan", type=plan_file, metavar="PLAN", help="a plan file (JSON lines)")
    apply.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    apply_target = apply.add_mutually_exclusive_group()
    apply_target.add_argument("--site", help="server URL (key from ZULIP_* or ~/.zuliprc)")
    apply_target.add_argument("--zuliprc", help="zuliprc file of the account to act with")

    apply.add_argument(
        "--irreversible",
        action="store_true",
        help="with --yes, also send the changes nothing can undo (revoked invitations, ...)",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``chatops audit ...``."""
    from .. import audit

    if args.audit_command == "list":
        for name, path in audit.available_audits().items():
            say(name)
            for pname, spec in audit.notebook_parameters(path).items():
                if pname in audit.RESERVED_PARAMETERS:
                    continue
                kind = spec.get("inferred_type_name") or "?"
                say(f"  {pname} ({kind}, default {spec.get('default')}): {spec.get('help', '')}")
        return 0
    if args.audit_command == "plan":
        return _plan(args)
    if args.audit_command == "apply":
        return _apply(args)

    if args.all and args.names:
        return fail("give audit names or --all, not both")
    if not args.all and not args.names:
        return fail("name the audits to run, or give --all (see: chatops audit list)")
    parameters: dict[str, str] = {}
    for name, value in args.parameter:
        if name in parameters:
            return fail(f"parameter {name} is given twice")
        parameters[name] = value
    result = audit.run_audits(
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
    from ..audit.plan import write_plan

    path, items = write_plan(args.run_dir, args.output)
    waiting = sum(i.change.needs_input for i in items)
    cannot = sum(i.change.irreversible is not None and not i.change.needs_input for i in items)
    say(
        f"{len(items)} changes ({waiting} need input and will not run, {cannot} cannot be "
        f"undone) written to {path}",
        err=True,
    )
    say(path)
    return 0


def _apply(args: argparse.Namespace) -> int:
    from ..audit.plan import apply_plan

    def ask(question: str) -> bool:
        return input(printable(question)).strip().lower() in ("y", "yes")

    return apply_plan(
        args.plan,
        site=args.site,
        zuliprc=args.zuliprc,
        yes=args.yes,
        ask=ask if sys.stdin.isatty() else None,
        say=say,
        irreversible=args.irreversible,
        progress=True,
    )
