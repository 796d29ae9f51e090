"""The linkifiers audit against a real sandbox over HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, linkifiers
from chatops.audits.linkifiers import (
    Options,
    Read,
    adversarial_inputs,
    backtracking_ms,
    conclude,
    findings,
    judge,
)
from chatops.sandbox import Sandbox
from chatops.types import Linkifier
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, message, user
from tests.conftest import unchanged

NOT_RE2 = r"(?P<key>[A-Z]+-[0-9]+)(?!-draft)"
MISMATCH = r"PR(?P<num>[0-9]+)"
SLOW = r"(?P<word>(x+)+)y"
SHADOWED = r"#(?P<num>[0-9]{2})"
DELETE_ACTION = "Delete the linkifier (or fix its pattern and URL template)"


def test_linkifiers_on_the_demo_org_passes(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with unchanged(sandbox.store):
            result = linkifiers(client)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    table = result.tables["linkifiers"]
    assert len(table) == result.summary["counts"]["linkifiers"] >= 1
    assert table["compiles_re2"].all() and table["groups_match_template"].all()
    assert not table["catastrophic"].any()


def test_backtracking_is_measured_and_abandoned() -> None:
    texts = adversarial_inputs(SLOW)
    assert any(t.startswith("x" * 20) for t in texts)
    started = time.monotonic()
    ms, slow, text = backtracking_ms(SLOW, texts, 50)
    assert slow and ms >= 50 and text.startswith("xxxx")
    # the runaway trial is abandoned, not waited for
    assert time.monotonic() - started < 15
    fast_ms, fast_slow, _ = backtracking_ms(r"#(?P<id>[0-9]+)", adversarial_inputs("#"), 50)
    assert not fast_slow and fast_ms < 50


def test_linkifiers_none_found(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    admin = client_for("admin", fresh_sandbox)
    with unchanged(fresh_sandbox.store):
        result = linkifiers(admin, max_broken_linkifiers=0)
    assert result.passed
    assert result.findings.empty
    assert result.tables["overlaps"].empty
    assert result.summary["counts"]["broken"] == 0


def test_linkifiers_findings_thresholds_and_fix(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    owner = client_for("owner", fresh_sandbox)
    store = fresh_sandbox.store
    first = admin.realm.linkifiers()[0]
    slow = admin.realm.add_linkifier(SLOW, "https://w.example/{word}")
    shadowed = admin.realm.add_linkifier(SHADOWED, "https://tickets.example/{num}")
    # set-up the API refuses (as from a server that checked less when they were saved): a
    # look-ahead RE2 cannot compile, and groups that do not match the template
    not_re2 = store.insert(
        "linkifiers",
        {"pattern": NOT_RE2, "url_template": "https://jira.example/browse/{key}", "ord": 99},
    )
    mismatch = store.insert(
        "linkifiers",
        {"pattern": MISMATCH, "url_template": "https://git.example/pull/{number}", "ord": 100},
    )
    message_id = admin.messages.send_to_channel(
        "general", "linkifier check", "Fixed in #12 today"
    ).id
    order = [x.id for x in admin.realm.linkifiers()]
    assert order[-1] == mismatch
    suggested = [i for i in order if i != shadowed]
    suggested.insert(suggested.index(first.id), shadowed)

    with unchanged(store):
        result = linkifiers(admin, sample_messages=50, max_broken_linkifiers=2)
    assert result.passed
    rows = {(r["subject"], r["api_call"]): r for r in result.findings.to_dict("records")}
    assert len(rows) == len(result.findings) == 4
    bad = rows[(f"linkifier {not_re2} {NOT_RE2}", f"DELETE /api/v1/realm/filters/{not_re2}")]
    assert bad["severity"] == "warning"
    assert bad["finding"].startswith("does not compile in RE2: invalid perl operator: (?!")
    assert bad["recommended_action"] == DELETE_ACTION
    wrong = rows[(f"linkifier {mismatch} {MISMATCH}", f"DELETE /api/v1/realm/filters/{mismatch}")]
    assert [wrong["severity"], wrong["finding"], wrong["recommended_action"]] == [
        "warning",
        "groups missing from the URL template: num; template variables no group provides: number",
        DELETE_ACTION,
    ]
    backtracks = rows[
        (
            f"linkifier {slow} {SLOW}",
            f"PATCH /api/v1/realm/filters/{slow} pattern={{new_pattern}} "
            "url_template=https://w.example/{word}",
        )
    ]
    assert backtracks["severity"] == "warning"
    assert backtracks["finding"].startswith(
        "catastrophic backtracking: RE2 stays linear, but a backtracking engine took more than"
    )
    lost = rows[
        (
            f"linkifier {shadowed} {SHADOWED}",
            f"PATCH /api/v1/realm/linkifiers ordered_linkifier_ids={json.dumps(suggested)}",
        )
    ]
    assert [lost["severity"], lost["finding"], lost["recommended_action"]] == [
        "warning",
        f"never applies: lost 1 matches in the sample to the earlier linkifier {first.id} "
        f"{first.pattern} (e.g. '#12' in message {message_id})",
        f"If linkifier {shadowed} should win, move it before linkifier {first.id}",
    ]
    table = result.tables["linkifiers"]
    assert table.loc[first.id, "hits"] == 1
    assert table.loc[shadowed, "lost_to_earlier"] == 1
    assert not table.loc[not_re2, "compiles_re2"] and table.loc[not_re2, "compiles_python"]
    assert bool(table.loc[slow, "catastrophic"]) and table.loc[slow, "compiles_re2"]
    overlaps = result.tables["overlaps"]
    assert overlaps[["winner_id", "loser_id", "lost_matches"]].values.tolist() == [
        [first.id, shadowed, 1]
    ]

    with unchanged(store):
        unsampled = linkifiers(admin, sample_messages=0, max_broken_linkifiers=2)
        tight = linkifiers(admin, sample_messages=50, max_broken_linkifiers=1)
        off = linkifiers(admin, sample_messages=50, max_broken_linkifiers=-1)
    assert unsampled.tables["overlaps"].empty and unsampled.summary["counts"]["hits"] == 0
    assert not tight.passed and tight.summary["failed_checks"] == ["max_broken_linkifiers"]
    top = tight.findings.iloc[0]
    assert (top["severity"], top["subject"]) == ("critical", "linkifiers")
    assert off.passed and "critical" not in set(off.findings["severity"])

    # the plan of the deletions the findings call for takes the broken ones, and only those
    found = linkifiers(admin, sample_messages=50, max_broken_linkifiers=2)
    deleting = [f.call.path for f in found.typed if f.call and f.call.method == "DELETE"]
    assert sorted(deleting) == sorted(f"/realm/filters/{i}" for i in (not_re2, mismatch))
    tally = apply_findings(
        found, admin, tmp_path / "plan.jsonl", keep=lambda f: f.call.method == "DELETE"
    )
    assert tally == {"done": 2, "already_done": 0, "refused": 0, "failed": 0}
    left = [x.id for x in owner.realm.linkifiers()]
    assert not_re2 not in left and mismatch not in left
    assert slow in left and shadowed in left


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"sample_messages": -1}, "sample_messages"),
        ({"sample_messages": 5001}, "sample_messages"),
        ({"timeout_ms": 0}, "timeout_ms"),
        ({"max_broken_linkifiers": -2}, "max_broken_linkifiers"),
    ],
)
def test_linkifiers_rejects_bad_parameters(
    sandbox: Sandbox, kwargs: dict[str, int], name: str
) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with pytest.raises(ValueError, match=name):
            linkifiers(client, **kwargs)  # type: ignore[arg-type]


def test_judge_without_a_server() -> None:
    """Every kind of finding from hand-built linkifiers and a measured trial given by hand:
    not RE2, a Python-only failure, a template that does not fit, catastrophic backtracking,
    an overlap that shadows a later linkifier; the threshold."""
    ada = user(1, "Ada Admin")
    items = [
        Linkifier(id=1, pattern=r"#(?P<id>[0-9]+)", url_template="https://t.example/{id}"),
        Linkifier(id=2, pattern=SHADOWED, url_template="https://u.example/{num}"),
        Linkifier(id=3, pattern=NOT_RE2, url_template="https://j.example/{key}"),
        Linkifier(id=4, pattern=r"(?P<n>\pN+)!", url_template="https://n.example/{n}"),
        Linkifier(id=5, pattern=MISMATCH, url_template="https://p.example/{id}"),
        Linkifier(id=6, pattern=SLOW, url_template="https://s.example/{word}"),
    ]
    read = Read(
        site="https://chat.example.org",
        linkifiers=items,
        messages=[message(9, ada, 1, content="see #12", subject="ops")],
    )
    trials = {6: (80.0, True, "x" * 28 + "\x00"), 1: (0.1, False, "")}
    judged = judge(read, Options(max_broken_linkifiers=1), trials=trials, at=NOW)
    assert [j.linkifier.id for j in judged.broken] == [3, 5]
    assert judged.failed == ["max_broken_linkifiers"]
    rows = findings(judged)
    by_subject = {
        (r.subject.removeprefix("linkifier ").split(" ")[0], r.finding.split(":")[0]): r
        for r in rows
    }
    assert sorted(by_subject) == [
        ("2", "never applies"),
        ("3", "does not compile in RE2"),
        ("4", "does not compile in Python/JavaScript-style engines"),
        ("5", "groups missing from the URL template"),
        ("6", "catastrophic backtracking"),
        (
            "linkifiers",
            "2 linkifiers do not compile in RE2 or do not match their URL template; "
            "the threshold is 1",
        ),
    ]
    assert by_subject[("3", "does not compile in RE2")].api_call == "DELETE /api/v1/realm/filters/3"
    rewrite = by_subject[("4", "does not compile in Python/JavaScript-style engines")]
    assert rewrite.call is not None and rewrite.call.fill == ("new_pattern",)
    slow = by_subject[("6", "catastrophic backtracking")]
    assert "took more than 80 ms (limit 50 ms) on 'xxxxxxxxxxxx'... (29 characters)" in slow.finding
    shadowed = by_subject[("2", "never applies")]
    assert shadowed.severity.value == "warning"
    assert (
        shadowed.api_call
        == "PATCH /api/v1/realm/linkifiers ordered_linkifier_ids=[2, 1, 3, 4, 5, 6]"
    )
    table = conclude(judged).tables["linkifiers"]
    assert table.loc[1, ["hits", "backtracking_ms"]].tolist() == [1, 0.1]
    assert table.loc[2, "lost_to_earlier"] == 1
