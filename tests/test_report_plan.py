"""Fix plans: written from a run, applied to a sandbox, applied again, and the findings gone."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.audit.plan import pending, plan_line, read_plan, results_path
from chatops.audits._common import api, fill
from chatops.audits._result import ApiCall
from chatops.changes import Change
from chatops.changes.engine import apply_changes, in_order
from chatops.changes.journal import Item, Journal
from chatops.changes.kinds import (
    ArchiveChannel,
    DeactivateBot,
    DeactivateGroup,
    DeactivateUser,
    RawCall,
    RevokeInvitation,
    UpdateChannel,
)
from chatops.sandbox import Sandbox
from tests.test_cli import _one_line_error, chatops_here
from tests.test_cli import chatops as chatops_cli

AUDITS = ("bots", "invitations", "stale_channels")


@pytest.mark.parametrize(
    ("call", "text", "params"),
    [
        (api("DELETE", "/invites/multiuse/17"), "DELETE /api/v1/invites/multiuse/17", {}),
        (
            api("PATCH", "/realm/linkifiers", ordered_linkifier_ids=[3, 1, 2]),
            "PATCH /api/v1/realm/linkifiers ordered_linkifier_ids=[3, 1, 2]",
            {"ordered_linkifier_ids": [3, 1, 2]},
        ),
        (
            api("PATCH", "/users/9", role=400, full_name="Ada Lovelace"),
            "PATCH /api/v1/users/9 role=400 full_name='Ada Lovelace'",
            {"role": 400, "full_name": "Ada Lovelace"},
        ),
        (
            api("PATCH", "/realm", {"can_access_all_users_group": {"new": 11}}),
            'PATCH /api/v1/realm can_access_all_users_group={"new": 11}',
            {"can_access_all_users_group": {"new": 11}},
        ),
    ],
)
def test_a_typed_call_is_planned_as_it_is(call: ApiCall, text: str, params: dict[str, Any]) -> None:
    planned = Item(RawCall(request=call))
    sent = planned.change.call()
    assert (sent.method, sent.path, sent.params) == (call.method, call.path, params)
    assert not planned.change.needs_input and plan_line(planned)["reason"] is None
    assert call.text == text
    # the plan's JSON line reads back to the same change, with the same id
    line = json.loads(json.dumps(plan_line(planned)))
    assert (line["method"], line["path"], line["params"]) == (call.method, call.path, params)
    assert line["id"] == planned.id and line["change"]["kind"] == planned.change.kind


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (api("PATCH", "/streams/4", folder_id=fill("{folder_id}")), "fill in {folder_id}"),
        (api("DELETE", "/users/{user_id}"), "fill in {user_id}"),
        (
            api("POST", "/user_groups/3/members", add=[fill("{user_ids}")]),
            "fill in {user_ids}",
        ),
        (
            api("PATCH", "/streams/4", or_=api("DELETE", "/streams/4")),
            "a choice between calls: PATCH /api/v1/streams/4 | DELETE /api/v1/streams/4",
        ),
    ],
)
def test_calls_with_placeholders_or_choices_need_input(call: ApiCall, reason: str) -> None:
    assert call.needs_input and call.reason == reason
    planned = Item(RawCall(request=call))
    assert isinstance(planned.change, RawCall)
    assert planned.change.needs_input and plan_line(planned)["reason"] == reason


def test_text_from_the_organization_is_never_a_placeholder() -> None:
    """A topic ``help {user_id} please`` or a linkifier's ``{id}`` is a value, sent as it is:
    only :func:`fill` values and holes of the path need a person."""
    resolve = api(
        "PATCH", "/messages/7", topic="✔ help {user_id} please", propagate_mode="change_all"
    )
    template = api(
        "PATCH", "/realm/filters/3", pattern="#(?P<id>[0-9]+)", url_template="https://x/{id}"
    )
    for call in (resolve, template):
        assert not call.needs_input and call.reason is None and call.fill == ()
    assert RawCall(request=resolve).call().params["topic"] == "✔ help {user_id} please"
    assert api("PATCH", "/streams/4", description=fill("{description}")).fill == ("description",)
    with pytest.raises(ValueError, match="needs a"):
        fill("no hole here")


@pytest.mark.parametrize(
    ("method", "path", "error"),
    [
        ("PUT", "/users/3", "method must be one of GET, POST, PATCH, DELETE, not 'PUT'"),
        ("DELETE", "/api/v1/users/3", "relative to /api/v1, not '/api/v1/users/3'"),
        ("DELETE", "users/3", "must start with /"),
        ("DELETE", "/users/Eve Wolf", "holds only names, ids and {holes}"),
        ("GET", "/users/3?x=1", "holds only names, ids and {holes}"),
    ],
)
def test_a_malformed_call_is_refused_when_built(method: str, path: str, error: str) -> None:
    with pytest.raises(ValueError, match=re.escape(error)):
        api(method, path)  # type: ignore[arg-type]


def _raw(method: str, path: str, **params: Any) -> Item:
    call = ApiCall(method=method, path=path, params=params)  # type: ignore[arg-type]
    return Item(RawCall(request=call), {"audit": "x", "subject": path})


def test_placeholder_calls_are_never_pending(tmp_path: Path) -> None:
    waiting = Item(RawCall(request=api("DELETE", "/users/{user_id}")))
    items = [waiting, _raw("DELETE", "/users/3"), _raw("DELETE", "/users/3")]
    todo = pending(None, items)
    assert [i.change.call().path for i in todo.to_run] == ["/users/3"]  # the duplicate runs once
    assert todo.needs_input == [waiting]
    assert results_path(tmp_path / "fixes.jsonl") == tmp_path / "fixes.results.jsonl"


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    with Sandbox.start(tmp_path_factory.mktemp("plan-org"), size="small", seed=23) as sb:
        yield sb


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _results(path: Path) -> list[dict[str, Any]]:
    """The journal's result lines (not its header, not the intents written before sending)."""
    return [line for line in _lines(path) if "status" in line]


@pytest.mark.slow
def test_plan_apply_apply_again_and_rerun(org: Sandbox, tmp_path: Path) -> None:
    rc = str(org.zuliprc("admin"))
    reports = tmp_path / "reports"
    with chatops.Client.from_zuliprc(rc) as admin:  # two risky links to revoke
        admin.invitations.create_link(expires_in_minutes=None)
        admin.invitations.create_link(invite_as=200)
    # a threshold of 0 makes invitations fail: its critical finding's call has placeholders
    strict = ("-p", "max_risky_invitations", "0", "--zuliprc", rc, "--report-dir", str(reports))
    first = chatops_cli("audit", "run", *AUDITS, *strict)
    assert first.returncode == 1, first.stderr
    run_dir = Path(first.stdout.strip()).parent
    summary = json.loads((run_dir / "summary.json").read_text())
    fixable = {
        (f["audit"], f["subject"])
        for f in summary["findings"]
        if f["api_call"].startswith("DELETE") and "{" not in f["api_call"]
    }
    assert {a for a, _ in fixable} >= {"bots", "invitations"}

    plan = tmp_path / "fixes.jsonl"
    made = chatops_cli("audit", "plan", str(reports / "latest"), "-o", str(plan))
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == str(plan)
    lines = _lines(plan)
    assert lines and all(
        set(line) >= {"id", "method", "path", "params", "needs_input", "finding"} for line in lines
    )
    assert all(set(line["finding"]) >= {"audit", "subject", "finding"} for line in lines)
    runnable = [line for line in lines if not line["needs_input"]]
    assert {(line["finding"]["audit"], line["finding"]["subject"]) for line in runnable} == fixable
    assert all(not line["path"].startswith("/api/v1") for line in runnable)
    assert all("{" not in line["path"] for line in runnable)
    waiting = [line for line in lines if line["needs_input"]]
    assert [w["finding"]["severity"] for w in waiting] == ["critical"]
    assert "{invite_id}" in waiting[0]["reason"]

    # no terminal and no --yes: refuse in one line, nothing written
    _one_line_error(chatops_here("audit", "apply", str(plan), "--zuliprc", rc), "--yes")
    assert not results_path(plan).exists()

    # revoking an invitation cannot be undone: with --yes alone it is not sent
    cautious = chatops_cli("audit", "apply", str(plan), "--yes", "--zuliprc", rc)
    assert cautious.returncode == 0, cautious.stderr + cautious.stdout
    assert "cannot be undone are not sent: give --irreversible" in cautious.stdout
    sent = {r["path"] for r in _results(results_path(plan))}
    assert sent and not any(p.startswith("/invites/") for p in sent)
    applied = chatops_cli("audit", "apply", str(plan), "--yes", "--irreversible", "--zuliprc", rc)
    assert applied.returncode == 0, applied.stderr + applied.stdout
    assert f"{len(runnable) - len(sent)} to run" in applied.stdout
    results = _results(results_path(plan))
    assert len(results) == len({line["id"] for line in runnable})
    assert {r["status"] for r in results} == {"done"}
    assert f"{len(results) - len(sent)} done, 0 already done, 0 refused" in applied.stdout
    assert "0 failed" in applied.stdout

    with chatops.Client.from_zuliprc(rc) as admin:
        users = {u.user_id: u for u in admin.users.list()}
        invites = admin.invitations.list()
    for line in runnable:
        kind, _, ident = line["path"].strip("/").rpartition("/")
        if kind == "users":
            assert not users[int(ident)].is_active
    assert not {i.id for i in invites} & {
        int(line["path"].rsplit("/", 1)[1])
        for line in runnable
        if line["path"].startswith("/invites/")
    }

    # applying again changes nothing and fails nothing
    again = chatops_cli("audit", "apply", str(plan), "--yes", "--zuliprc", rc)
    assert again.returncode == 0, again.stderr
    assert "0 to run" in again.stdout and "Nothing to do." in again.stdout
    assert _results(results_path(plan)) == results

    # with the journal lost, the server shows every change made: none is sent again
    results_path(plan).unlink()
    lost = chatops_cli("audit", "apply", str(plan), "--yes", "--irreversible", "--zuliprc", rc)
    assert lost.returncode == 0, lost.stdout + lost.stderr
    assert {r["status"] for r in _results(results_path(plan))} == {"already_done"}

    # the fixed findings are gone from the next run: their subjects (the bots deactivated, the
    # invitations revoked) are gone too, and the report says so rather than "resolved"
    rerun = chatops_cli("audit", "run", *AUDITS, *strict)
    assert rerun.returncode == 0, rerun.stderr  # nothing risky is left: the threshold holds
    after = json.loads(Path(rerun.stdout.strip()).read_text())
    left = {(f["audit"], f["subject"]) for f in after["findings"]}
    assert not left & fixable
    assert {(f["audit"], f["subject"]) for f in after["gone"]} >= fixable
    assert not {(f["audit"], f["subject"]) for f in after["resolved"]} & fixable
    assert after["audits"]["invitations"]["trend"]["previous_status"] == "threshold_crossed"


def test_bad_plan_input(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    _one_line_error(chatops_here("audit", "apply", str(missing), "--yes"), "does not exist")
    bad = tmp_path / "bad.jsonl"
    good = {"method": "DELETE", "path": "/users/3", "params": {}, "finding": {}}
    bad.write_text(json.dumps(good) + "\n{not json\n")
    _one_line_error(chatops_here("audit", "apply", str(bad), "--yes"), "line 2")
    bad.write_text(json.dumps({**good, "method": "FETCH"}) + "\n")
    _one_line_error(chatops_here("audit", "apply", str(bad), "--yes"), "line 1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]
    _one_line_error(chatops_here("audit", "plan", str(tmp_path / "no-run")), "not a report folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]


class _InterruptedClient:
    """Stands in for a client whose user presses Ctrl-C during the third call."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def delete(self, path: str, *, params: Any = None) -> dict[str, Any]:
        self.calls.append(path)
        if len(self.calls) == 3:
            raise KeyboardInterrupt
        return {"result": "success"}


def test_interrupt_leaves_the_journal_consistent(tmp_path: Path) -> None:
    plan = tmp_path / "plan.jsonl"
    items = [_raw("DELETE", f"/users/{n}") for n in range(5)]
    plan.write_text("".join(json.dumps(plan_line(i)) + "\n" for i in items))
    client = _InterruptedClient()
    with (
        pytest.raises(KeyboardInterrupt),
        Journal.open(results_path(plan), kind="apply") as journal,
    ):
        apply_changes(items, client, journal, say=lambda _line: None, progress=False)  # type: ignore[arg-type]
    recorded = _results(results_path(plan))
    assert [r["path"] for r in recorded] == ["/users/0", "/users/1"]
    assert {r["status"] for r in recorded} == {"done"}
    journal = Journal.read(results_path(plan))
    # the third was being sent: its intent is there, its result is not
    assert journal.interrupted(items[2].id) is not None
    todo = pending(journal, read_plan(plan))
    assert [i.change.call().path for i in todo.to_run] == ["/users/2", "/users/3", "/users/4"]


def _kind(change: Change, audit: str = "x") -> Item:
    return Item(change, {"audit": audit, "subject": change.call().path})


def test_a_plan_orders_its_calls_so_none_blocks_another() -> None:
    items = [
        _kind(ArchiveChannel(stream_id=5), "stale_channels"),
        _kind(DeactivateUser(user_id=8), "inactive_users"),
        _kind(DeactivateBot(user_id=9, endpoint="users"), "bots"),
        _kind(DeactivateGroup(group_id=3), "user_groups"),
        _kind(RevokeInvitation(invite_id=4), "invitations"),
        _raw("PATCH", "/messages/70", topic="✔ a"),
        _raw("POST", "/user_groups/3/members", delete=[4]),
        _raw("DELETE", "/users/me/subscriptions"),
        _raw("PATCH", "/messages/71", topic="✔ b"),
    ]
    assert [i.change.call().path for i in in_order(items)] == [
        "/messages/70",
        "/user_groups/3/members",
        "/users/me/subscriptions",
        "/messages/71",
        "/invites/4",
        "/user_groups/3/deactivate",
        "/users/9",  # the bot before the people: deactivating its owner would take it along
        "/users/8",
        "/streams/5",  # last: a topic in an archived channel can no longer be resolved
    ]


def test_a_refused_call_is_recorded_and_never_sent_again(sandbox: Sandbox, tmp_path: Path) -> None:
    plan = tmp_path / "plan.jsonl"
    refused = Item(
        UpdateChannel(stream_id=999999, settings={"description": "x"}), {"subject": "#gone"}
    )
    fine = _raw("POST", "/users/me/status", status_text="planning")
    plan.write_text("".join(json.dumps(plan_line(i)) + "\n" for i in (refused, fine)))
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as admin:
        todo = pending(None, read_plan(plan))
        with Journal.open(results_path(plan), kind="apply") as journal:
            tally = apply_changes(todo.to_run, admin, journal, say=lambda _l: None, progress=False)
        assert (tally["done"], tally["already_done"], tally["refused"], tally["failed"]) == (
            1,
            0,
            1,
            0,
        )
        statuses = {r["path"]: r["status"] for r in _results(results_path(plan))}
        assert statuses == {"/streams/999999": "refused", "/users/me/status": "done"}
        again = pending(Journal.read(results_path(plan)), read_plan(plan))
    assert again.to_run == []
    assert [i.change.call().path for i in again.refused] == ["/streams/999999"]
