"""What a notebook shows of a plan (``plan_calls``) is what ``chatops audit plan`` writes."""

from __future__ import annotations

import json
from pathlib import Path

from chatops.audit.plan import plan_line, write_plan
from chatops.audits import PLAN_COLUMNS, AuditResult, plan_calls, write_summary
from chatops.audits._common import api, fill, finding, summary
from chatops.changes.kinds import ArchiveChannel, DeactivateGroup


def _result() -> AuditResult:
    rows = [
        finding("warning", "#quiet", "no message", "Archive it", ArchiveChannel(stream_id=4)),
        finding("info", "coverage", "cut short", "Read more", api("GET", "/messages")),
        finding("info", "note", "nothing to do", "None", None),
        finding(
            "warning",
            "#ops",
            "no description",
            "Say what it is for",
            api("PATCH", "/streams/5", description=fill("{description}")),
        ),
        finding(
            "critical",
            "channels",
            "too many",
            "Archive or fix them",
            api("PATCH", "/streams/{stream_id}", or_=api("DELETE", "/streams/{stream_id}")),
        ),
        finding(
            "warning",
            "@alumni",
            "unused",
            "Deactivate it",
            DeactivateGroup(group_id=9),
        ),
    ]
    made = summary("demo", failed=["max"], counts={}, thresholds={}, site="https://x.example")
    return AuditResult.of(rows, made)


def test_plan_calls_in_the_order_apply_runs_them() -> None:
    table = plan_calls(_result())
    assert list(table.columns) == list(PLAN_COLUMNS)
    # reads and findings without a call fix nothing: not in a plan; edits first, removals last
    assert table.values.tolist() == [
        [
            "PATCH /api/v1/streams/{stream_id} | DELETE /api/v1/streams/{stream_id}",
            "channels",
            True,
        ],
        ["PATCH /api/v1/streams/5 description={description}", "#ops", True],
        ["POST /api/v1/user_groups/9/deactivate", "@alumni", False],
        ["DELETE /api/v1/streams/4", "#quiet", False],
    ]
    empty = plan_calls(AuditResult.of([], _result().summary))
    assert empty.empty and list(empty.columns) == list(PLAN_COLUMNS)


def test_plan_calls_are_the_lines_of_the_plan(tmp_path: Path) -> None:
    result = _result()
    run = tmp_path / "run"
    write_summary(result, run / "demo")
    (run / "summary.json").write_text(json.dumps({"audits": {"demo": {}}}), encoding="utf-8")
    _path, planned = write_plan(run)
    lines = [
        [i.about["api_call"], i.about["subject"], plan_line(i)["needs_input"]] for i in planned
    ]
    assert lines == plan_calls(result).values.tolist()
