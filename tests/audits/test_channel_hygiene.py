"""The channel hygiene audit against a real sandbox over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, channel_hygiene
from chatops.audits.channel_hygiene import (
    Options,
    Read,
    conclude,
    findings,
    judge,
    normalise_channel_name,
)
from chatops.sandbox import Sandbox
from chatops.types import ChannelFolder
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, calls, channel, kinds, user
from tests.conftest import unchanged

DESCRIBE = "Say what the channel is for"
ARCHIVE = "Archive the channel (its history stays)"
RENAME = "Rename the channel to follow the naming convention"


class _NoAnswerForDeactivated:
    """The client of a server that will not say whether a deactivated user is subscribed."""

    def __init__(self, client: chatops.Client) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def get(self, path: str, *, params: Any = None) -> dict[str, Any]:
        if path.startswith("/users/") and "/subscriptions/" in path:
            raise chatops.BadRequest("BAD_REQUEST", "No such user", 400)
        return self._client.get(path, params=params)


def test_channel_hygiene_on_the_demo_org_passes(fresh_sandbox: Sandbox) -> None:
    sandbox = fresh_sandbox  # an organization no other test module has changed
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client, unchanged(sandbox.store):
        result = channel_hygiene(client)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    assert result.findings.empty
    assert len(result.tables["channels"]) == result.summary["counts"]["channels"] > 0
    assert result.summary["thresholds"]["max_hygiene_findings"] == 5


def test_channel_hygiene_rejects_parameters_out_of_range(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with pytest.raises(ValueError, match="name_regex"):
            channel_hygiene(client, name_regex="ops(")
        for bad in (0, 1.5, -0.1):
            with pytest.raises(ValueError, match="similarity"):
                channel_hygiene(client, similarity=bad)
        with pytest.raises(ValueError, match="max_hygiene_findings"):
            channel_hygiene(client, max_hygiene_findings=-2)


def test_normalise_channel_name_folds_case_separators_and_plurals() -> None:
    assert normalise_channel_name("Release_Notes") == normalise_channel_name("release-note")
    assert normalise_channel_name("ops team") == "opsteam"
    assert normalise_channel_name("access") == "access"  # a double s is no plural
    assert normalise_channel_name("ops") != normalise_channel_name("op")


def test_channel_hygiene_findings_thresholds_and_archiving(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    owner = client_for("owner", fresh_sandbox)
    store = fresh_sandbox.store

    # an organization with none of the problems: the untouched demo
    with unchanged(store):
        clean = channel_hygiene(admin, name_regex=r"[a-z][a-z0-9-]*")
    assert clean.passed and clean.findings.empty
    assert clean.summary["counts"]["findings"] == 0

    described = "Kept for the audit test"
    admin.channels.subscribe([{"name": "bare"}])  # no description
    admin.channels.subscribe([{"name": "Ops Team", "description": described}])
    admin.channels.subscribe([{"name": "Q&A", "description": described}])
    admin.channels.subscribe([{"name": "release-notes", "description": described}])
    admin.channels.subscribe([{"name": "Release_Notes", "description": described}])
    admin.channels.subscribe([{"name": "engineerng", "description": described}])
    admin.channels.subscribe([{"name": "empty-room", "description": described}])
    admin.channels.unsubscribe(["empty-room"])
    leaver = admin.users.create(
        email="leaver@demo.chatops.test", password="a long password 1", full_name="Lee Leaver"
    )
    admin.channels.subscribe([{"name": "leavers", "description": described}], principals=[leaver])
    admin.users.deactivate(leaver)
    admin.channels.subscribe([{"name": "solo", "description": described}], invite_only=True)
    ids = {
        name: admin.channels.get_id(name)
        for name in (
            "bare",
            "Ops Team",
            "Q&A",
            "release-notes",
            "Release_Notes",
            "engineering",
            "engineerng",
            "empty-room",
            "leavers",
            "solo",
        )
    }

    def subject(name: str) -> str:
        return f"#{name} ({ids[name]})"

    engineers = len(admin.channels.members(ids["engineering"]))
    assert engineers > 1
    rows = [
        [
            "warning",
            subject("bare"),
            "has no description",
            DESCRIBE,
            f"PATCH /api/v1/streams/{ids['bare']} description={{description}}",
        ],
        [
            "warning",
            f"{subject('engineering')} / {subject('engineerng')}",
            "near-duplicate channel names: names 95% alike",
            f"Choose which of #engineering ({engineers} subscribers) and #engineerng "
            "(1 subscriber) to keep, move the other's topics into it, then archive the other",
            "DELETE /api/v1/streams/{stream_id_to_archive}",
        ],
        [
            "warning",
            f"{subject('release-notes')} / {subject('Release_Notes')}",
            "near-duplicate channel names: the same name once case, separators and plurals "
            "are folded",
            "Choose which of #release-notes (1 subscriber) and #Release_Notes (1 subscriber) "
            "to keep, move the other's topics into it, then archive the other",
            "DELETE /api/v1/streams/{stream_id_to_archive}",
        ],
        [
            "warning",
            subject("empty-room"),
            "has no subscribers",
            ARCHIVE,
            f"DELETE /api/v1/streams/{ids['empty-room']}",
        ],
        [
            "warning",
            subject("leavers"),
            "every subscriber is deactivated (Lee Leaver)",
            "Archive the channel, or subscribe the people who took over its work",
            f"DELETE /api/v1/streams/{ids['leavers']}",
        ],
        [
            "info",
            subject("solo"),
            "is private with a single member (Adam Admin)",
            "Subscribe the people who need it, or archive it if it is no longer used",
            f"DELETE /api/v1/streams/{ids['solo']}",
        ],
    ]
    with unchanged(store):
        result = channel_hygiene(admin, max_hygiene_findings=len(rows))
    assert result.passed
    assert sorted(result.findings.values.tolist()) == sorted(rows)
    counts = result.summary["counts"]
    assert counts["no_description"] == 1 and counts["near_duplicate_pairs"] == 2
    assert counts["no_subscribers"] == counts["all_subscribers_deactivated"] == 1
    assert counts["private_single_member"] == 1 and counts["findings"] == len(rows)
    channels = result.tables["channels"]
    assert channels.loc[ids["leavers"], "deactivated_subscribers"] == 1
    assert channels.loc[ids["leavers"], "active_subscribers"] == 0
    assert channels.loc[ids["engineerng"], "flags"] == "near-duplicate"
    pairs = result.tables["near_duplicates"]
    assert sorted(map(tuple, pairs[["channel", "other"]].values.tolist())) == [
        ("engineering", "engineerng"),
        ("release-notes", "Release_Notes"),
    ]

    # the threshold at its edge, off, and the default
    with unchanged(store):
        over = channel_hygiene(admin, max_hygiene_findings=len(rows) - 1)
        off = channel_hygiene(admin, max_hygiene_findings=-1)
        default = channel_hygiene(admin)
    assert over.summary["failed_checks"] == ["max_hygiene_findings"]
    assert over.findings.iloc[0].tolist() == [
        "critical",
        "channels",
        f"{len(rows)} channel hygiene findings; the threshold is {len(rows) - 1}",
        "Work through the findings listed",
        "PATCH /api/v1/streams/{stream_id} | DELETE /api/v1/streams/{stream_id}",
    ]
    assert off.passed and len(off.findings) == len(rows)
    assert not default.passed  # six findings, more than the default five

    # names against a convention; a near-duplicate pair only from a low similarity
    with unchanged(store):
        named = channel_hygiene(admin, name_regex=r"[a-z][a-z0-9-]*", max_hygiene_findings=-1)
    bad = named.findings[named.findings["finding"].str.startswith("name does not")]
    assert sorted(bad.values.tolist()) == sorted(
        [
            [
                "warning",
                subject(name),
                "name does not match '[a-z][a-z0-9-]*'",
                RENAME,
                f"PATCH /api/v1/streams/{ids[name]} new_name={new}",
            ]
            for name, new in (
                ("Ops Team", "ops-team"),
                ("Q&A", "{new_name}"),
                ("Release_Notes", "{new_name}"),  # release-notes is taken
            )
        ]
    )
    assert named.summary["counts"]["bad_name"] == 3

    # folders: only on request; the advice names the folders there are
    folder = admin.channels.create_folder("Team", description="")
    admin.channels.update(ids["solo"], folder_id=folder)
    listed = admin.channels.list(include_all=True)
    folderless = sorted(c.stream_id for c in listed if c.folder_id is None)
    with unchanged(store):
        foldered = channel_hygiene(admin, require_folder=True, max_hygiene_findings=-1)
    rows_for_folders = foldered.findings[foldered.findings["finding"] == "is in no channel folder"]
    assert sorted(rows_for_folders["api_call"]) == sorted(
        f"PATCH /api/v1/streams/{i} folder_id={{folder_id}}" for i in folderless
    )
    assert set(rows_for_folders["severity"]) == {"info"}
    assert set(rows_for_folders["recommended_action"]) == {
        f"Put the channel in a folder: Engineering (1), Team ({folder})"
    }
    assert ids["solo"] not in folderless and foldered.summary["counts"]["no_folder"] == len(
        folderless
    )
    assert channel_hygiene(admin).summary["counts"]["no_folder"] == 0

    # a server that will not answer for deactivated users: they look like no subscribers
    with unchanged(store):
        blind = channel_hygiene(_NoAnswerForDeactivated(admin), max_hygiene_findings=-1)  # type: ignore[arg-type]
    blind_rows = blind.findings.set_index("subject")
    assert blind_rows.loc[subject("leavers"), "finding"] == "has no subscribers"
    assert blind.summary["counts"]["no_subscribers"] == 2
    assert (
        "does not say whether deactivated users"
        in blind.summary["coverage"]["deactivated_subscribers"]
    )
    assert "deactivated_subscribers" not in result.summary["coverage"]

    # the plan of the "no subscribers" finding archives that channel, and nothing else
    found = channel_hygiene(admin, max_hygiene_findings=-1)
    tally = apply_findings(
        found, admin, tmp_path / "plan.jsonl", keep=lambda f: f.finding == "has no subscribers"
    )
    assert tally == {"done": 1, "already_done": 0, "refused": 0, "failed": 0}
    seen = {c.stream_id: c for c in owner.channels.list(include_all=True, exclude_archived=False)}
    assert seen[ids["empty-room"]].is_archived
    assert not any(seen[ids[n]].is_archived for n in ("leavers", "solo", "bare", "engineerng"))
    again = channel_hygiene(admin, max_hygiene_findings=-1)
    assert again.summary["counts"]["no_subscribers"] == 0
    assert len(again.findings) == len(rows) - 1


def test_a_near_duplicate_is_never_archived_without_a_person_choosing(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    """The plan of a near-duplicate pair waits for a person, and says who would lose access."""
    admin = client_for("admin", fresh_sandbox)
    member_ids = [u.user_id for u in admin.users.list() if not u.is_bot and u.is_active][:5]
    admin.channels.subscribe(
        [{"name": "budget-2027", "description": "Money"}], principals=member_ids
    )
    admin.channels.subscribe(
        [{"name": "budget_2027", "description": "Money, privately"}], invite_only=True
    )
    public, private = admin.channels.get_id("budget-2027"), admin.channels.get_id("budget_2027")
    result = channel_hygiene(admin, max_hygiene_findings=-1)
    near = result.findings["finding"].str.startswith("near-duplicate")
    pair = result.findings[near & result.findings["subject"].str.contains("budget")]
    assert pair["subject"].tolist() == [f"#budget-2027 ({public}) / #budget_2027 ({private})"]
    advice = pair["recommended_action"].iloc[0]
    assert "Choose which of #budget-2027 (5 subscribers)" in advice
    assert "#budget_2027 (private, 1 subscriber)" in advice
    # the admin is in both: four of the five are not in the private one
    assert "4 subscribers of #budget-2027 are not in private #budget_2027" in advice
    (call,) = [f.call for f in result.typed if f.subject == pair["subject"].iloc[0]]
    assert call is not None and pair["api_call"].iloc[0] == call.text
    assert (call.method, call.path, call.fill) == (
        "DELETE",
        "/streams/{stream_id_to_archive}",
        ("stream_id_to_archive",),
    )
    assert call.needs_input and call.reason == "fill in {stream_id_to_archive}"
    # and the same finding names the same call on every run
    again = channel_hygiene(admin, max_hygiene_findings=-1)
    near = again.findings["finding"].str.startswith("near-duplicate")
    repeat = again.findings[near & again.findings["subject"].str.contains("budget")]
    assert repeat.values.tolist() == pair.values.tolist()


def test_judge_without_a_server() -> None:
    """Every flag from hand-built channels: no description, no folder, a bad name (with a
    name proposed, and without), no subscribers, only deactivated ones, a private channel of
    one, near-duplicates; members that could not be read; the threshold."""
    ann, gil = user(1, "Ann"), user(2, "Gil Gone", is_active=False)
    said = {"description": "what it is for"}
    read = Read(
        site="https://chat.example.org",
        users={1: ann, 2: gil},
        listed=[
            channel(1, "Release_Notes", folder_id=7, **said),
            channel(2, "release-notes", **said),
            channel(3, "empty", folder_id=7, **said),
            channel(4, "leavers", folder_id=7, **said),
            channel(5, "solo", folder_id=7, invite_only=True, **said),
            channel(6, "bare", folder_id=7),
            channel(7, "hidden", folder_id=7, **said),
            channel(8, "old-one", is_archived=True),
        ],
        folders={7: ChannelFolder(id=7, name="Team")},
        members={1: [1], 2: [1], 3: [], 4: [], 5: [1], 6: [1], 7: None},
        deactivated_subscribers={3: [], 4: [2]},
        status_unanswered=False,
    )
    options = Options(require_folder=True, name_regex="[a-z-]+", max_hygiene_findings=6)
    judged = judge(read, options, at=NOW)
    assert judged.hygiene == 7 and judged.failed == ["max_hygiene_findings"]
    rows = findings(judged)
    assert [(v, s, f) for v, s, f in kinds(rows)] == [
        ("warning", "#Release_Notes (1)", "name does not match '[a-z-]+'"),
        ("info", "#release-notes (2)", "is in no channel folder"),
        ("warning", "#empty (3)", "has no subscribers"),
        ("warning", "#leavers (4)", "every subscriber is deactivated (Gil Gone)"),
        ("info", "#solo (5)", "is private with a single member (Ann)"),
        ("warning", "#bare (6)", "has no description"),
        (
            "warning",
            "#Release_Notes (1) / #release-notes (2)",
            "near-duplicate channel names: "
            "the same name once case, separators and plurals are folded",
        ),
        ("critical", "channels", "7 channel hygiene findings; the threshold is 6"),
    ]
    by_subject = calls(rows)
    # the folded name is taken by the other channel: a person chooses the new name
    assert by_subject["#Release_Notes (1)"] == ["PATCH /api/v1/streams/1 new_name={new_name}"]
    assert by_subject["#release-notes (2)"] == ["PATCH /api/v1/streams/2 folder_id={folder_id}"]
    assert by_subject["#empty (3)"] == ["DELETE /api/v1/streams/3"]
    assert rows[6].recommended_action.startswith("Choose which of #Release_Notes (1 subscriber)")
    table = conclude(judged).tables["channels"]
    assert table.loc[7, "subscribers"] is None or pd.isna(table.loc[7, "subscribers"])
    assert table.loc[1, "flags"] == "name does not match name_regex; near-duplicate"
    assert "members_hidden" in conclude(judged).summary["coverage"]
    free = Read(**{**read.__dict__, "listed": [channel(9, "Ops Team", folder_id=7, **said)]})
    proposed = findings(judge(free, options, at=NOW))
    assert [r.api_call for r in proposed] == ["PATCH /api/v1/streams/9 new_name=ops-team"]
