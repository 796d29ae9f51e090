"""``chatops org apply FILE``: the plan in words, what the server would refuse, then the
changes, stage by stage, journalled."""

from __future__ import annotations

import argparse
from pathlib import Path

from .._terminal import say
from ._args import fail, go_ahead

__all__ = ["run_apply"]


def run_apply(args: argparse.Namespace) -> int:
    """Plan, show, ask (or ``--yes``), apply; exit 0 when every change is made, 1 when some
    were refused or failed, 2 for a bad file, an account that may not, or objections."""
    from .._client import Client
    from ..changes.journal import Journal
    from ..org import load_document
    from ..org.plan import apply_document, journal_path, make_plan

    doc = load_document(args.file)  # a mistake in the file: one line, exit 2, nothing read
    with Client(site=args.site, config_file=args.zuliprc) as client:
        me = client.users.me()
        if int(me.role) > 200:
            return fail(
                f"chatops org apply needs an administrator's account; {me.email} is not one"
            )
        plan = make_plan(doc, client, prune=args.prune)
        if plan.newer is not None:
            say(
                f"The file comes from a newer server (feature level {plan.newer[0]}); this one is "
                f"at {plan.newer[1]}: any setting it does not have is listed below, and then "
                "nothing is sent."
            )
        for stage, steps in plan.by_stage().items():
            say(f"{stage} ({len(steps)}):")
            for step in steps:
                say(f"  {step.words}")
        if plan.problems:
            say(f"{len(plan.problems)} of these cannot be applied; nothing was sent:")
            for problem in plan.problems:
                say(f"  ✗ {problem}")
            return 2
        if not plan.steps:
            say(f"The organization already matches {args.file}; nothing to send.")
            return 0
        say(f"{len(plan.steps)} change{'s' if len(plan.steps) != 1 else ''} to make.")
        stop = go_ahead(yes=args.yes, dry_run=args.dry_run, question="Apply them? [y/N] ")
        if stop is not None:
            return stop
        path = journal_path()
        with Journal.open(
            path,
            kind="apply",
            site=client.site,
            email=client.email,
            zuliprc=str(Path(args.zuliprc).expanduser().resolve()) if args.zuliprc else None,
            source=str(Path(args.file).resolve()),
        ) as journal:
            tally = apply_document(doc, client, journal, prune=args.prune, say=say)
    say(
        f"{tally['done']} done, {tally['already_done']} already so, {tally['refused']} refused, "
        f"{tally['failed']} failed, {tally['skipped']} not sent; journal in {path} "
        f"(chatops undo {path} reverts it)"
    )
    return 0 if tally.ok else 1
