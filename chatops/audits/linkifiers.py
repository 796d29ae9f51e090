"""Linkifiers: patterns that do not compile, templates that do not fit, slow and overlapping ones.

For each linkifier (``GET /realm/linkifiers``, in the order they apply):

- whether the pattern compiles with RE2, the engine the server uses, and with Python's ``re``;
- whether its named groups are exactly the URL template's variables (RFC 6570);
- catastrophic backtracking, measured: Python's backtracking ``re`` runs the pattern (wrapped
  in the server's context rules) on adversarial inputs in a subprocess that is abandoned after
  ``timeout_ms`` per input, so the audit cannot hang. RE2 itself is linear, but web and mobile
  clients that match with backtracking engines (JavaScript, Python) still suffer;
- hits on the ``sample_messages`` newest messages the account can read (content and topic),
  and overlaps: where two linkifiers match overlapping text, the earlier one wins and the later
  one's match is lost.

One threshold, with a default the demo organization passes:

- ``max_broken_linkifiers`` (0): fail when more linkifiers than this do not compile in RE2 or
  have named groups that do not match the URL template; ``-1`` switches the check off.

A broken linkifier's finding carries the call that deletes it (``DELETE
/realm/filters/{id}``), for ``chatops audit plan`` / ``chatops audit apply``; the audit itself
only reads. A slow pattern's rewrite (``{new_pattern}``) is a person's to write; an overlap's
call (``PATCH /realm/linkifiers`` with a new order) says which order would let the later one
win, if a person wants that.

Four steps: :func:`fetch` reads the linkifiers and the sample of messages; :func:`measure`
times each pattern on a backtracking engine (in subprocesses, see :mod:`._backtracking`);
:func:`judge` (pure) checks each linkifier and finds the overlaps; :func:`conclude` turns that
into findings, tables and the summary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd
import re2
from uritemplate import URITemplate

from ..changes.kinds import DeleteLinkifier, ReorderLinkifiers
from ..linkify import Matcher, re2_message
from ..types import Linkifier
from ._backtracking import adversarial_inputs, backtracking_ms
from ._common import api, crossed, fill, finding, newest_messages
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client
    from ..types import Message

__all__ = [
    "Checked",
    "Judged",
    "JudgedLinkifier",
    "Options",
    "Overlap",
    "Read",
    "Trial",
    "adversarial_inputs",
    "backtracking_ms",
    "conclude",
    "fetch",
    "findings",
    "judge",
    "linkifiers",
    "measure",
]

#: the slowest backtracking search of a pattern: milliseconds, too slow, on which text
Trial = tuple[float, bool, str]
NOT_MEASURED: Trial = (0.0, False, "")


@dataclass(frozen=True)
class Options:
    """The parameters of :func:`linkifiers`, checked (ValueError naming the one out of range)."""

    sample_messages: int = 1000
    timeout_ms: int = 50
    max_broken_linkifiers: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.sample_messages <= 5000:
            raise ValueError(
                f"sample_messages must be between 0 and 5000, not {self.sample_messages}"
            )
        if self.timeout_ms < 1:
            raise ValueError(f"timeout_ms must be at least 1, not {self.timeout_ms}")
        if self.max_broken_linkifiers < -1:
            raise ValueError(
                f"max_broken_linkifiers must be -1 or more, not {self.max_broken_linkifiers}"
            )


@dataclass(frozen=True)
class Read:
    """What :func:`fetch` read."""

    site: str
    #: the linkifiers, in the order they apply
    linkifiers: list[Linkifier]
    #: the ``sample_messages`` newest messages the account can read (none without linkifiers)
    messages: list[Message]

    @property
    def texts(self) -> list[tuple[int, str]]:
        """(message id, text) of each sampled message's content and topic."""
        texts: list[tuple[int, str]] = []
        for m in self.messages:
            texts.append((m.id, m.content))
            if m.subject:
                texts.append((m.id, m.subject))
        return texts


@dataclass
class Checked:
    """A linkifier's compile and template checks."""

    linkifier: Linkifier
    position: int
    re2_error: str = ""
    python_error: str = ""
    template_error: str = ""
    groups: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    matcher: Matcher | None = None

    @property
    def mismatch(self) -> str:
        parts = []
        if self.template_error:
            parts.append(f"URL template does not parse: {self.template_error}")
        unused = [g for g in self.groups if g not in self.variables]
        unknown = [v for v in self.variables if v not in self.groups]
        if unused:
            parts.append(f"groups missing from the URL template: {', '.join(unused)}")
        if unknown:
            parts.append(f"template variables no group provides: {', '.join(unknown)}")
        return "; ".join(parts)

    @property
    def broken(self) -> bool:
        return bool(self.re2_error or self.mismatch)

    def find(self, text: str) -> list[tuple[int, int]]:
        if self.matcher is None:
            return []
        return [(m.start, m.end) for m in self.matcher.find(text)]


def _check(linkifier: Linkifier, position: int) -> Checked:
    c = Checked(linkifier, position)
    groups: dict[str, int] = {}
    try:
        c.matcher = Matcher(linkifier.pattern)
        groups = {name: i for i, name in enumerate(c.matcher.group_names)}
    except re2.error as exc:
        c.re2_error = re2_message(exc)
    try:
        compiled = re.compile(linkifier.pattern)
        groups = groups or dict(compiled.groupindex)
    except re.error as exc:
        c.python_error = str(exc)
    c.groups = sorted(groups, key=groups.__getitem__)
    try:
        c.variables = list(URITemplate(linkifier.url_template).variable_names)
    except Exception as exc:  # uritemplate raises plain ValueErrors and others
        c.template_error = str(exc) or type(exc).__name__
    return c


@dataclass(frozen=True)
class JudgedLinkifier:
    """One linkifier, judged: its checks, its hits in the sample and its trial."""

    checked: Checked
    #: matches it won in the sample, and matches it lost to an earlier linkifier
    hits: int
    lost: int
    trial: Trial
    problems: list[str]

    @property
    def linkifier(self) -> Linkifier:
        """The linkifier."""
        return self.checked.linkifier

    @property
    def subject(self) -> str:
        """``linkifier 3 #(?P<id>[0-9]+)``."""
        return f"linkifier {self.linkifier.id} {self.linkifier.pattern}"

    @property
    def too_slow(self) -> bool:
        """Its trial took more than ``timeout_ms``."""
        return self.trial[1]


@dataclass(frozen=True)
class Overlap:
    """Matches of a later linkifier lost to an earlier one in the sample."""

    winner: int
    loser: int
    count: int
    #: the first text lost, and its message
    text: str
    message_id: int


@dataclass(frozen=True)
class Judged:
    """What :func:`judge` decided, with what it was decided from."""

    read: Read
    options: Options
    at: pd.Timestamp
    #: every linkifier, in the order they apply
    linkifiers: list[JudgedLinkifier]
    #: by (winner, loser)
    overlaps: list[Overlap]

    @property
    def broken(self) -> list[JudgedLinkifier]:
        """The linkifiers that do not compile in RE2 or do not fit their URL template."""
        return [j for j in self.linkifiers if j.checked.broken]

    @property
    def failed(self) -> list[str]:
        """The thresholds crossed."""
        limit = self.options.max_broken_linkifiers
        return crossed("max_broken_linkifiers", limit, len(self.broken))


def linkifiers(
    client: Client,
    *,
    sample_messages: Annotated[
        int,
        Param("how many of the newest messages to scan for matches (0 to 5000)", low=0, high=5000),
    ] = 1000,
    timeout_ms: Annotated[
        int,
        Param(
            "a backtracking trial slower than this many milliseconds counts as catastrophic",
            low=1,
        ),
    ] = 50,
    max_broken_linkifiers: Annotated[
        int,
        Param(
            "fail when more linkifiers than this do not compile in RE2 or do not "
            "fit their URL template (-1: off)",
            low=-1,
        ),
    ] = 0,
    now: datetime | None = None,
) -> AuditResult:
    """Fetch the linkifiers and a sample of messages, and judge each linkifier.

    Args:
        client: a client of an administrator.
        sample_messages: how many of the newest messages to scan for hits (0 to 5000).
        timeout_ms: a backtracking trial slower than this (1 or more) counts as catastrophic.
        max_broken_linkifiers: fail when more linkifiers than this do not compile in RE2 or
            do not match their URL template; ``-1`` disables the check.
        now: when the audit is dated; default the current time.

    Tables: ``linkifiers`` (one row per linkifier), ``overlaps`` (one row per pair of
    linkifiers whose matches overlap in the sample: which wins, how often, an example).
    """
    options = Options(
        sample_messages=sample_messages,
        timeout_ms=timeout_ms,
        max_broken_linkifiers=max_broken_linkifiers,
    )
    at = pd.Timestamp(now or datetime.now(UTC))
    read = fetch(client, options)
    return conclude(judge(read, options, trials=measure(read, options), at=at))


def fetch(client: Client, options: Options) -> Read:
    """Read the linkifiers and, when there are some, the sample of newest messages."""
    items = client.realm.linkifiers()
    messages: list[Message] = []
    if options.sample_messages and items:
        count = options.sample_messages
        messages = newest_messages(client, count)[-count:]
    return Read(client.site, items, messages)


def measure(read: Read, options: Options) -> dict[int, Trial]:
    """Each linkifier's slowest backtracking search (by id), for the patterns Python's ``re``
    compiles; each trial runs in a subprocess abandoned after ``timeout_ms`` per input."""
    trials: dict[int, Trial] = {}
    for item in read.linkifiers:
        try:
            re.compile(item.pattern)
        except re.error:
            continue
        inputs = adversarial_inputs(item.pattern)
        trials[item.id] = backtracking_ms(item.pattern, inputs, options.timeout_ms)
    return trials


def judge(read: Read, options: Options, *, trials: dict[int, Trial], at: pd.Timestamp) -> Judged:
    """Check each linkifier, count its hits and losses in the sample and find the overlaps;
    ``trials`` are :func:`measure`'s (a linkifier without one was not measured); no I/O."""
    checked = [_check(item, i + 1) for i, item in enumerate(read.linkifiers)]
    hits = {c.linkifier.id: 0 for c in checked}
    lost = {c.linkifier.id: 0 for c in checked}
    pairs: dict[tuple[int, int], dict[str, Any]] = {}
    for message_id, text in read.texts:
        taken: list[tuple[int, int, int]] = []
        for c in checked:
            for start, end in c.find(text):
                winner = next((w for s, e, w in taken if start < e and s < end), None)
                if winner is None:
                    taken.append((start, end, c.linkifier.id))
                    hits[c.linkifier.id] += 1
                    continue
                lost[c.linkifier.id] += 1
                pair = pairs.setdefault(
                    (winner, c.linkifier.id),
                    {"count": 0, "text": text[start:end], "message_id": message_id},
                )
                pair["count"] += 1
    judged = [
        JudgedLinkifier(
            checked=c,
            hits=hits[c.linkifier.id],
            lost=lost[c.linkifier.id],
            trial=trials.get(c.linkifier.id, NOT_MEASURED) if not c.python_error else NOT_MEASURED,
            problems=_problems(c),
        )
        for c in checked
    ]
    overlaps = [
        Overlap(winner, loser, info["count"], info["text"], info["message_id"])
        for (winner, loser), info in sorted(pairs.items())
    ]
    return Judged(read, options, at, judged, overlaps)


def findings(judged: Judged) -> list[Finding]:
    """The findings of a judgement, each with the call that fixes it (or a person's rewrite)."""
    timeout_ms = judged.options.timeout_ms
    rows: list[Finding] = []
    for j in judged.linkifiers:
        item, c = j.linkifier, j.checked
        rewrite = api(
            "PATCH",
            f"/realm/filters/{item.id}",
            pattern=fill("{new_pattern}"),
            url_template=item.url_template,
        )
        if c.broken:
            rows.append(
                finding(
                    "warning",
                    j.subject,
                    "; ".join(j.problems),
                    "Delete the linkifier (or fix its pattern and URL template)",
                    DeleteLinkifier(filter_id=item.id),
                )
            )
        elif c.python_error:
            rows.append(
                finding(
                    "warning",
                    j.subject,
                    "; ".join(j.problems),
                    "Rewrite the pattern in the syntax both RE2 and clients' engines accept",
                    rewrite,
                )
            )
        if j.too_slow:
            ms, _, slow_text = j.trial
            engine = "RE2 stays linear, but " if not c.re2_error else ""
            rows.append(
                finding(
                    "warning",
                    j.subject,
                    f"catastrophic backtracking: {engine}a backtracking engine took "
                    f"{'more than ' if ms >= timeout_ms else ''}{ms:.0f} ms (limit "
                    f"{timeout_ms} ms) on {_shorten(slow_text)}",
                    "Rewrite the pattern without nested or overlapping repetition",
                    rewrite,
                )
            )
    rows += _overlap_rows(judged)
    if judged.failed:
        rows.append(
            finding(
                "critical",
                "linkifiers",
                f"{len(judged.broken)} linkifiers do not compile in RE2 or do not match their "
                f"URL template; the threshold is {judged.options.max_broken_linkifiers}",
                "Delete or fix the broken linkifiers listed",
                api("DELETE", "/realm/filters/{filter_id}"),
            )
        )
    return rows


def _overlap_rows(judged: Judged) -> list[Finding]:
    """One finding per overlap: the order that would let the later linkifier win."""
    by_id = {j.linkifier.id: j for j in judged.linkifiers}
    order = [j.linkifier.id for j in judged.linkifiers]
    rows: list[Finding] = []
    for o in judged.overlaps:
        w, lo = by_id[o.winner].linkifier, by_id[o.loser]
        suggested = [i for i in order if i != o.loser]
        suggested.insert(suggested.index(o.winner), o.loser)
        shadowed = lo.hits == 0
        rows.append(
            finding(
                "warning" if shadowed else "info",
                lo.subject,
                f"{'never applies: ' if shadowed else ''}lost {o.count} matches in the "
                f"sample to the earlier linkifier {o.winner} {w.pattern} "
                f"(e.g. {o.text!r} in message {o.message_id})",
                f"If linkifier {o.loser} should win, move it before linkifier {o.winner}",
                ReorderLinkifiers(ordered_linkifier_ids=list(suggested)),
            )
        )
    return rows


def conclude(judged: Judged) -> AuditResult:
    """The findings, the tables and the summary of a judgement."""
    rows = findings(judged)
    options, every = judged.options, judged.linkifiers
    table = pd.DataFrame(
        [
            {
                "id": j.linkifier.id,
                "position": j.checked.position,
                "pattern": j.linkifier.pattern,
                "url_template": j.linkifier.url_template,
                "compiles_re2": not j.checked.re2_error,
                "compiles_python": not j.checked.python_error,
                "groups": ", ".join(j.checked.groups),
                "template_variables": ", ".join(j.checked.variables),
                "groups_match_template": not j.checked.mismatch,
                "backtracking_ms": round(j.trial[0], 3),
                "catastrophic": j.too_slow,
                "hits": j.hits,
                "lost_to_earlier": j.lost,
                "problems": "; ".join(j.problems),
            }
            for j in every
        ],
        columns=[
            "id",
            "position",
            "pattern",
            "url_template",
            "compiles_re2",
            "compiles_python",
            "groups",
            "template_variables",
            "groups_match_template",
            "backtracking_ms",
            "catastrophic",
            "hits",
            "lost_to_earlier",
            "problems",
        ],
    ).set_index("id")
    by_id = {j.linkifier.id: j.linkifier for j in every}
    overlaps = pd.DataFrame(
        [
            {
                "winner_id": o.winner,
                "winner_pattern": by_id[o.winner].pattern,
                "loser_id": o.loser,
                "loser_pattern": by_id[o.loser].pattern,
                "lost_matches": o.count,
                "example": o.text,
                "message_id": o.message_id,
            }
            for o in judged.overlaps
        ],
        columns=[
            "winner_id",
            "winner_pattern",
            "loser_id",
            "loser_pattern",
            "lost_matches",
            "example",
            "message_id",
        ],
    )
    summary = summary_of(
        "linkifiers",
        # every linkifier judged (an overlap's finding is about the losing one) and the
        # threshold's "linkifiers"
        subjects=[j.subject for j in every] + ["linkifiers"],
        # editing the pattern fixes a broken one: the linkifier, edited, is still there
        subject_keys={j.subject: f"linkifier {j.linkifier.id}" for j in every},
        failed=judged.failed,
        counts={
            "linkifiers": len(every),
            "broken": len(judged.broken),
            "not_re2": sum(1 for j in every if j.checked.re2_error),
            "group_mismatch": sum(1 for j in every if j.checked.mismatch),
            "catastrophic": sum(j.too_slow for j in every),
            "overlapping_pairs": len(judged.overlaps),
            "messages_sampled": len({m.id for m in judged.read.messages}),
            "hits": sum(j.hits for j in every),
            "findings": len(rows),
        },
        thresholds={
            "max_broken_linkifiers": options.max_broken_linkifiers,
            "timeout_ms": options.timeout_ms,
            "sample_messages": options.sample_messages,
        },
        coverage={
            "hits": "the newest sample_messages messages the acting account can read "
            "(content as Markdown, and topics); hits of patterns RE2 rejects are not counted",
            "backtracking": "measured with Python's re on generated adversarial inputs; a "
            "pattern that passes may still be slow on inputs not tried",
        },
        site=judged.read.site,
        generated_at=judged.at.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"linkifiers": table, "overlaps": overlaps},
    )


def _problems(c: Checked) -> list[str]:
    """What is wrong with a linkifier's pattern and template, in words."""
    problems: list[str] = []
    if c.re2_error:
        problems.append(f"does not compile in RE2: {c.re2_error}")
    if c.python_error:
        problems.append(f"does not compile in Python/JavaScript-style engines: {c.python_error}")
    if c.mismatch:
        problems.append(c.mismatch)
    return problems


def _shorten(text: str) -> str:
    shown = text.replace("\x00", "\\x00")
    if len(shown) > 24:
        return f"{shown[:12]!r}... ({len(text)} characters)"
    return repr(shown)
