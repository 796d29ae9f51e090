"""Applying an organization file: a plan of typed changes, what the server would refuse said
before anything is sent, then the changes made stage by stage through the change engine,
every one journalled with its inverse (``chatops undo`` reverts an apply).

    plan = make_plan(document, client)          # Plan(steps=[...], problems=[...])
    for step in plan.steps: print(step.stage, step.words)
    if not plan.problems:
        tally = apply_document(document, client, journal, say=print)

The stages go in an order where none blocks another: people, folders, groups, channels, then
the groups' members and permissions (every group named exists by then), the organization's
settings, linkifiers, profile fields, membership rules, roles, and last what is deactivated
or archived. Each stage is planned again from the server just before it is sent, so an apply
that was stopped (even by ``kill -9``) and run again sends only what is still missing; a
second apply of the same file sends nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..changes.engine import Tally, apply_changes
from ..changes.journal import Item, Journal, state_dir
from . import plan_objects as objects
from . import plan_settings as settings
from .plan_objects import Step
from .state import Names, Server

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["STAGES", "Plan", "apply_document", "journal_path", "make_plan"]

Stage = Callable[[Mapping[str, Any], Names, "_Context"], Iterator[Step]]


@dataclass
class _Context:
    prune: bool
    subscribers: Callable[[list[int]], dict[int, set[int]]]


def _membership(doc: Mapping[str, Any], names: Names, ctx: _Context) -> Iterator[Step]:
    wanted = {
        sid
        for rule in doc.get("membership_rules") or ()
        for c in rule["channels"]
        if (sid := names.channels.get(str(c).casefold())) is not None
    }
    subs = ctx.subscribers(sorted(s for s in wanted if s > 0))
    for sid in wanted:
        if sid < 0:  # a channel the plan creates: it starts with the rules' people
            name = next(n for n, i in names.channels.items() if i == sid)
            subs[sid] = set(objects._first_subscribers(doc, name, names))
    return settings.membership(doc, names, subs)


#: the stages of an apply, in the order they are sent
STAGES: list[tuple[str, Stage]] = [
    ("people", lambda d, n, c: objects.people(d, n)),
    ("folders", lambda d, n, c: objects.folders(d, n)),
    ("folder order", lambda d, n, c: objects.folder_order(d, n)),
    ("groups", lambda d, n, c: objects.groups(d, n)),
    ("channels", lambda d, n, c: objects.channels(d, n)),
    ("default channels", lambda d, n, c: objects.default_channels(d, n)),
    ("group details", lambda d, n, c: settings.group_details(d, n)),
    ("organization", lambda d, n, c: settings.organization(d, n)),
    ("linkifiers", lambda d, n, c: settings.linkifiers(d, n)),
    ("linkifier order", lambda d, n, c: settings.linkifier_order(d, n)),
    ("profile fields", lambda d, n, c: objects.profile_fields(d, n)),
    ("field order", lambda d, n, c: objects.field_order(d, n)),
    ("membership", _membership),
    ("roles", lambda d, n, c: settings.roles(d, n)),
    ("removals", lambda d, n, c: settings.removals(d, n, prune=c.prune)),
]


@dataclass
class Plan:
    """The changes an apply makes, in order, and what the server would refuse (nothing is
    sent while there is any)."""

    steps: list[Step] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    #: the file's feature level and the server's, when the file comes from a newer server
    newer: tuple[int, int] | None = None

    def by_stage(self) -> dict[str, list[Step]]:
        out: dict[str, list[Step]] = {}
        for step in self.steps:
            out.setdefault(step.stage, []).append(step)
        return out


def _subscribers(client: Client) -> Callable[[list[int]], dict[int, set[int]]]:
    def read(ids: list[int]) -> dict[int, set[int]]:
        return {sid: set(client.channels.members(sid)) for sid in ids}

    return read


def make_plan(doc: Mapping[str, Any], client: Client, *, prune: bool = False) -> Plan:
    """Every change applying ``doc`` would make, planned from the organization as it is now
    (objects to be created get provisional ids), with what the server would refuse."""
    server = Server.read(client)
    names = Names(server)
    ctx = _Context(prune=prune, subscribers=_subscribers(client))
    steps = [step for _stage, stage in STAGES for step in stage(doc, names, ctx)]
    problems = names.problems + settings.objections(doc, names, steps)
    level = int(doc.get("feature_level") or 0)
    newer = (level, server.feature_level) if level > server.feature_level else None
    return Plan(steps=steps, problems=problems, newer=newer)


def journal_path(folder: str = "org", kind: str = "apply") -> Path:
    """A new journal in chatops's state folder (owner-only): ``org/apply-<time>.jsonl`` for
    an apply, ``people/subscribe-<time>.jsonl`` for a bulk change."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    where = state_dir() / folder
    where.mkdir(mode=0o700, exist_ok=True)
    return where / f"{kind}-{stamp}.jsonl"


def apply_document(
    doc: Mapping[str, Any],
    client: Client,
    journal: Journal,
    *,
    prune: bool = False,
    say: Callable[[str], None],
    progress: bool = True,
) -> Tally:
    """Apply ``doc`` stage by stage, each planned again from the server just before it is
    sent; stops at the first stage the server would refuse something of (said in ``say``)."""
    total = Tally()
    ctx = _Context(prune=prune, subscribers=_subscribers(client))
    server: Server | None = None
    for stage_name, stage in STAGES:
        server = server or Server.read(client)
        names = Names(server)
        steps = list(stage(doc, names, ctx))
        if not steps:
            continue
        refused = names.problems + settings.objections(doc, names, steps)
        if refused:
            for problem in refused:
                say(f"   not sent  {problem}")
            total.counts["skipped"] += len(steps)
            break
        items = [Item(s.change, {"subject": s.words, "stage": stage_name}) for s in steps]
        tally = apply_changes(items, client, journal, say=say, progress=progress)
        for status, n in tally.counts.items():
            total.counts[status] = total.counts.get(status, 0) + n
        total.lines += tally.lines
        server = None  # read again: the next stage sees what this one made
    return total
