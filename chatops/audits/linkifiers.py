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

With ``dry_run=False`` the broken linkifiers are deleted (``DELETE /realm/filters/{id}``).
Slow patterns (to be rewritten) and overlaps (``PATCH /realm/linkifiers`` with a new order) are
only reported: the rewrite and the order are for a person to choose.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any

import pandas as pd
import re2
from uritemplate import URITemplate

from ..linkify import Matcher, re2_message
from ..types import Linkifier
from ._common import api, fill, finding
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["adversarial_inputs", "backtracking_ms", "linkifiers"]

# The server's context rules (chatops.linkifiers) for Python's backtracking engine.
_BEFORE_PY = r"(?<![^\s'\"\(,:<])"
_AFTER_PY = r"(?![^\W_])"  # not followed by a letter or a digit
#: Lengths of the repeated part of each adversarial input: short for exponential blow-ups,
#: long for polynomial ones.
_LENGTHS = (28, 2500)
#: Seconds a trial subprocess may take to start before the measurement begins.
_STARTUP_SECONDS = 20.0

_TRIAL = r"""
import json, re, sys, time
spec = json.loads(sys.stdin.readline())
pattern = re.compile(spec["pattern"])
print("ready", flush=True)
for text in spec["inputs"]:
    t0 = time.perf_counter()
    pattern.search(text)
    print(f"{(time.perf_counter() - t0) * 1000:.3f}", flush=True)
"""


def adversarial_inputs(pattern: str) -> list[str]:
    """Texts that make a backtracking engine try many ways to match ``pattern`` and fail.

    A character the pattern can repeat, many times over, then one that ends every attempt;
    with and without the pattern's literal prefix (``#``, ``CVE-``) in front.
    """
    prefix = ""
    for ch in pattern:
        if ch.isalnum() or ch in "#-_/:@!%&=~":
            prefix += ch
        else:
            break
    literal = [c for c in re.sub(r"\\.", "", pattern) if c.isalnum() or c in "-_./#@"]
    chars: list[str] = []
    for c in [*literal, "a", "A", "0", "-", "_", ".", " ", "/"]:
        if c not in chars:
            chars.append(c)
    texts: list[str] = []
    for n in _LENGTHS:
        for c in chars[:16]:
            for head in dict.fromkeys(["", prefix]):
                texts.append(head + c * n + "\x00")
    return texts


def backtracking_ms(pattern: str, texts: list[str], timeout_ms: int) -> tuple[float, bool, str]:
    """The slowest search of ``pattern`` (server-wrapped) over ``texts`` with Python's ``re``.

    Returns ``(milliseconds, timed_out, slowest_text)``; a trial still running after
    ``timeout_ms`` is abandoned (its subprocess killed) and counts as timed out.
    """
    wrapped = f"{_BEFORE_PY}(?:{pattern}){_AFTER_PY}"
    try:
        re.compile(wrapped)
    except re.error:
        return 0.0, False, ""
    proc = subprocess.Popen(
        [sys.executable, "-c", _TRIAL],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    sel = selectors.DefaultSelector()
    worst, worst_text, timed_out = 0.0, "", False
    try:
        proc.stdin.write((json.dumps({"pattern": wrapped, "inputs": texts}) + "\n").encode())
        proc.stdin.close()
        sel.register(proc.stdout, selectors.EVENT_READ)
        buffer = b""
        lines: list[str] = []
        index = -1  # -1 while waiting for "ready"
        deadline = time.monotonic() + _STARTUP_SECONDS
        while index < len(texts):
            while b"\n" in buffer:
                raw, buffer = buffer.split(b"\n", 1)
                lines.append(raw.decode())
            if lines:
                line = lines.pop(0)
                if index >= 0:
                    ms = float(line)
                    if ms > worst:
                        worst, worst_text = ms, texts[index]
                index += 1
                # the child reports its own time; the wait allows for scheduling on a busy box
                deadline = time.monotonic() + max(timeout_ms * 4, timeout_ms + 1000) / 1000
                continue
            left = deadline - time.monotonic()
            if left <= 0 or not sel.select(timeout=left):
                timed_out = True
                worst = max(worst, float(timeout_ms))
                worst_text = texts[max(index, 0)]
                break
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
    finally:
        sel.close()
        proc.kill()
        proc.wait()
        proc.stdout.close()
    return worst, timed_out or worst > timeout_ms, worst_text


@dataclass
class _Checked:
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


def _check(linkifier: Linkifier, position: int) -> _Checked:
    c = _Checked(linkifier, position)
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
    dry_run: Annotated[
        bool,
        Param("when False, delete the broken linkifiers"),
    ] = True,
) -> AuditResult:
    """Fetch the linkifiers and a sample of messages, and judge each linkifier.

    Args:
        client: a client of an administrator.
        sample_messages: how many of the newest messages to scan for hits (0 to 5000).
        timeout_ms: a backtracking trial slower than this (1 or more) counts as catastrophic.
        max_broken_linkifiers: fail when more linkifiers than this do not compile in RE2 or
            do not match their URL template; ``-1`` disables the check.
        now: when the audit is dated; default the current time.
        dry_run: when False, delete the broken linkifiers.

    Tables: ``linkifiers`` (one row per linkifier), ``overlaps`` (one row per pair of
    linkifiers whose matches overlap in the sample: which wins, how often, an example).
    """
    if not 0 <= sample_messages <= 5000:
        raise ValueError(f"sample_messages must be between 0 and 5000, not {sample_messages}")
    if timeout_ms < 1:
        raise ValueError(f"timeout_ms must be at least 1, not {timeout_ms}")
    if max_broken_linkifiers < -1:
        raise ValueError(f"max_broken_linkifiers must be -1 or more, not {max_broken_linkifiers}")
    generated = pd.Timestamp(now or datetime.now(UTC))
    items = client.realm.linkifiers()
    checked = [_check(item, i + 1) for i, item in enumerate(items)]
    texts: list[tuple[int, str]] = []
    if sample_messages and checked:
        page = client.messages.get(
            anchor="newest", num_before=sample_messages, num_after=0, apply_markdown=False
        )
        for m in page.messages[-sample_messages:]:
            texts.append((m.id, m.content))
            if m.subject:
                texts.append((m.id, m.subject))

    hits = {c.linkifier.id: 0 for c in checked}
    lost = {c.linkifier.id: 0 for c in checked}
    pairs: dict[tuple[int, int], dict[str, Any]] = {}
    for message_id, text in texts:
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

    rows: list[Finding] = []
    table_rows: list[dict[str, Any]] = []
    broken: list[_Checked] = []
    slow: list[int] = []
    by_id = {c.linkifier.id: c for c in checked}
    order = [c.linkifier.id for c in checked]
    for c in checked:
        item = c.linkifier
        subject = f"linkifier {item.id} {item.pattern}"
        ms, too_slow, slow_text = (0.0, False, "")
        if not c.python_error:
            ms, too_slow, slow_text = backtracking_ms(
                item.pattern, adversarial_inputs(item.pattern), timeout_ms
            )
        problems: list[str] = []
        if c.re2_error:
            problems.append(f"does not compile in RE2: {c.re2_error}")
        if c.python_error:
            problems.append(
                f"does not compile in Python/JavaScript-style engines: {c.python_error}"
            )
        if c.mismatch:
            problems.append(c.mismatch)
        if c.broken:
            broken.append(c)
            rows.append(
                finding(
                    "warning",
                    subject,
                    "; ".join(problems),
                    "Delete the linkifier (or fix its pattern and URL template)",
                    api("DELETE", f"/realm/filters/{item.id}"),
                )
            )
        elif c.python_error:
            rows.append(
                finding(
                    "warning",
                    subject,
                    "; ".join(problems),
                    "Rewrite the pattern in the syntax both RE2 and clients' engines accept",
                    api(
                        "PATCH",
                        f"/realm/filters/{item.id}",
                        pattern=fill("{new_pattern}"),
                        url_template=item.url_template,
                    ),
                )
            )
        if too_slow:
            slow.append(item.id)
            engine = "RE2 stays linear, but " if not c.re2_error else ""
            rows.append(
                finding(
                    "warning",
                    subject,
                    f"catastrophic backtracking: {engine}a backtracking engine took "
                    f"{'more than ' if ms >= timeout_ms else ''}{ms:.0f} ms (limit "
                    f"{timeout_ms} ms) on {_shorten(slow_text)}",
                    "Rewrite the pattern without nested or overlapping repetition",
                    api(
                        "PATCH",
                        f"/realm/filters/{item.id}",
                        pattern=fill("{new_pattern}"),
                        url_template=item.url_template,
                    ),
                )
            )
        table_rows.append(
            {
                "id": item.id,
                "position": c.position,
                "pattern": item.pattern,
                "url_template": item.url_template,
                "compiles_re2": not c.re2_error,
                "compiles_python": not c.python_error,
                "groups": ", ".join(c.groups),
                "template_variables": ", ".join(c.variables),
                "groups_match_template": not c.mismatch,
                "backtracking_ms": round(ms, 3),
                "catastrophic": too_slow,
                "hits": hits[item.id],
                "lost_to_earlier": lost[item.id],
                "problems": "; ".join(problems),
            }
        )

    overlap_rows: list[dict[str, Any]] = []
    for (winner, loser), info in sorted(pairs.items()):
        w, lo = by_id[winner], by_id[loser]
        overlap_rows.append(
            {
                "winner_id": winner,
                "winner_pattern": w.linkifier.pattern,
                "loser_id": loser,
                "loser_pattern": lo.linkifier.pattern,
                "lost_matches": info["count"],
                "example": info["text"],
                "message_id": info["message_id"],
            }
        )
        suggested = [i for i in order if i != loser]
        suggested.insert(suggested.index(winner), loser)
        shadowed = hits[loser] == 0
        rows.append(
            finding(
                "warning" if shadowed else "info",
                f"linkifier {loser} {lo.linkifier.pattern}",
                f"{'never applies: ' if shadowed else ''}lost {info['count']} matches in the "
                f"sample to the earlier linkifier {winner} {w.linkifier.pattern} "
                f"(e.g. {info['text']!r} in message {info['message_id']})",
                f"If linkifier {loser} should win, move it before linkifier {winner}",
                api("PATCH", "/realm/linkifiers", ordered_linkifier_ids=suggested),
            )
        )

    failed: list[str] = []
    if max_broken_linkifiers >= 0 and len(broken) > max_broken_linkifiers:
        failed.append("max_broken_linkifiers")
        rows.append(
            finding(
                "critical",
                "linkifiers",
                f"{len(broken)} linkifiers do not compile in RE2 or do not match their URL "
                f"template; the threshold is {max_broken_linkifiers}",
                "Delete or fix the broken linkifiers listed",
                api("DELETE", "/realm/filters/{filter_id}"),
            )
        )

    deleted: list[int] = []
    if not dry_run:
        for c in broken:
            client.realm.remove_linkifier(c.linkifier.id)
            deleted.append(c.linkifier.id)

    table = pd.DataFrame(
        table_rows,
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
    overlaps = pd.DataFrame(
        overlap_rows,
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
        subjects=[f"linkifier {c.linkifier.id} {c.linkifier.pattern}" for c in checked]
        + ["linkifiers"],
        # editing the pattern fixes a broken one: the linkifier, edited, is still there
        subject_keys={
            f"linkifier {c.linkifier.id} {c.linkifier.pattern}": f"linkifier {c.linkifier.id}"
            for c in checked
        },
        failed=failed,
        counts={
            "linkifiers": len(checked),
            "broken": len(broken),
            "not_re2": sum(1 for c in checked if c.re2_error),
            "group_mismatch": sum(1 for c in checked if c.mismatch),
            "catastrophic": len(slow),
            "overlapping_pairs": len(pairs),
            "messages_sampled": len({m for m, _ in texts}),
            "hits": sum(hits.values()),
            "findings": len(rows),
            "deleted_now": len(deleted),
        },
        thresholds={
            "max_broken_linkifiers": max_broken_linkifiers,
            "timeout_ms": timeout_ms,
            "sample_messages": sample_messages,
        },
        coverage={
            "hits": "the newest sample_messages messages the acting account can read "
            "(content as Markdown, and topics); hits of patterns RE2 rejects are not counted",
            "backtracking": "measured with Python's re on generated adversarial inputs; a "
            "pattern that passes may still be slow on inputs not tried",
        },
        dry_run=dry_run,
        deleted_linkifier_ids=deleted,
        site=client.site,
        generated_at=generated.isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={"linkifiers": table, "overlaps": overlaps},
    )


def _shorten(text: str) -> str:
    shown = text.replace("\x00", "\\x00")
    if len(shown) > 24:
        return f"{shown[:12]!r}... ({len(text)} characters)"
    return repr(shown)
