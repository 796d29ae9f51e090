"""The uploads audit against a real sandbox over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest

import chatops
from chatops.audits import FINDING_COLUMNS, uploads
from chatops.audits.uploads import Options, Read, conclude, findings, judge
from chatops.sandbox import Sandbox
from chatops.types import Attachment, AttachmentMessage
from tests.audits.planning import apply_findings
from tests.audits.records import NOW, ago, kinds, message, user
from tests.conftest import unchanged

MIB = 1024 * 1024
DAY_MS = 86400 * 1000


def _path_id(url: str) -> str:
    return url.split("/user_uploads/", 1)[1]


def _attachment(client: chatops.Client, path_id: str) -> Attachment:
    return next(a for a in client.uploads.attachments() if a.path_id == path_id)


def test_uploads_on_the_demo_org_passes(sandbox: Sandbox) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with unchanged(sandbox.store):
            result = uploads(client)
    assert result.passed
    assert list(result.findings.columns) == list(FINDING_COLUMNS)
    coverage = result.summary["coverage"]
    assert "own uploads" in coverage["own_uploads"]
    assert "other users' unlinked uploads" in coverage["not_visible"]
    files = result.tables["files"]
    assert files["own"].any() and not files["own"].all()
    assert files[~files["own"]]["size_bytes"].isna().all()


def test_uploads_none_found(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    admin = client_for("admin", fresh_sandbox)
    # set-up: the account's own files that nothing links are removed first
    for a in admin.uploads.attachments():
        if not a.messages:
            admin.uploads.delete_attachment(a.id)
    with unchanged(fresh_sandbox.store):
        result = uploads(admin, max_unlinked_files=0)
    assert result.passed
    assert result.findings.empty
    assert result.summary["counts"]["own_unlinked"] == 0


def test_uploads_findings_thresholds_and_fix(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    store = fresh_sandbox.store
    old = _path_id(admin.uploads.upload(b"old draft" * 10, "old-draft.txt").url)
    fresh = _path_id(admin.uploads.upload(b"new draft", "new-draft.txt").url)
    big_url = admin.uploads.upload(b"x" * 3000, "big.bin").url
    admin.messages.send_to_channel("general", "files", f"[big.bin]({big_url})")
    theirs_url = member.uploads.upload(b"member notes", "member-notes.txt").url
    member.messages.send_to_channel("general", "files", f"[member-notes.txt]({theirs_url})")
    # set-up the API cannot make: an upload from 30 days ago
    now = datetime.now(UTC)
    created = int((now - timedelta(days=30)).timestamp() * 1000)
    store.execute("UPDATE attachments SET create_time = ? WHERE path_id = ?", [created, old])
    old_att, fresh_att, big_att = (
        _attachment(admin, old),
        _attachment(admin, fresh),
        _attachment(admin, _path_id(big_url)),
    )
    min_mb = 2000 / MIB

    with unchanged(store):
        result = uploads(admin, min_size_mb=min_mb, max_unlinked_files=1, now=now)
    assert result.passed
    assert sorted(result.findings.values.tolist()) == sorted(
        [
            [
                "warning",
                f"old-draft.txt (attachment {old_att.id})",
                "no message links this file, uploaded 30 days ago (more than 14); 90 bytes",
                "Delete the file: nothing links it",
                f"DELETE /api/v1/attachments/{old_att.id}",
            ],
            [
                "info",
                f"big.bin (attachment {big_att.id})",
                f"2.9 KiB, more than {min_mb:g} MiB; linked by 1 messages",
                "Delete the file if it is no longer needed (messages linking it lose it)",
                f"DELETE /api/v1/attachments/{big_att.id}",
            ],
        ]
    )
    files = result.tables["files"].set_index("path_id")
    theirs = files.loc[_path_id(theirs_url)]
    member_name = member.users.me().full_name
    assert not theirs["own"] and theirs["uploader"] == member_name
    assert theirs["channels"] == "#general" and theirs["messages"] == 1
    assert pd.isna(theirs["size_bytes"])
    assert not files.loc[fresh, "linked"]
    assert files.loc[fresh, "flags"] == ""
    by_uploader = result.tables["storage_by_uploader"]
    assert by_uploader.loc[member_name, "unknown_size_files"] >= 1
    assert "#general" in result.tables["storage_by_channel"].index

    created_at = datetime.fromtimestamp(created / 1000, UTC)
    with unchanged(store):
        # unlinked_days at its edge: exactly 30 days old is not older than 30 days
        edge = uploads(
            admin, unlinked_days=30, min_size_mb=min_mb, now=created_at + timedelta(days=30)
        )
        day_less = uploads(
            admin, unlinked_days=29, min_size_mb=min_mb, now=created_at + timedelta(days=30)
        )
        # min_size_mb at its edge: a file of exactly the limit is not larger than it
        size_edge = uploads(admin, min_size_mb=big_att.size / MIB, now=now)
        tight = uploads(admin, min_size_mb=min_mb, max_unlinked_files=0, now=now)
        off = uploads(admin, min_size_mb=min_mb, max_unlinked_files=-1, now=now)
        unscanned = uploads(admin, scan_messages=0, now=now)
    assert edge.summary["counts"]["own_unlinked_stale"] == 0 and edge.passed
    assert day_less.summary["counts"]["own_unlinked_stale"] == 1
    assert f"big.bin (attachment {big_att.id})" not in set(size_edge.findings["subject"])
    assert not tight.passed and tight.summary["failed_checks"] == ["max_unlinked_files"]
    top = tight.findings.iloc[0]
    assert (top["severity"], top["subject"]) == ("critical", "uploads")
    assert off.passed and "critical" not in set(off.findings["severity"])
    assert unscanned.summary["counts"]["others_files_seen"] == 0
    assert unscanned.summary["counts"]["messages_scanned"] == 0

    # the plan of the unlinked files' findings deletes them; large linked files stay
    found = uploads(admin, min_size_mb=min_mb, max_unlinked_files=1, now=now)
    tally = apply_findings(
        found,
        admin,
        tmp_path / "plan.jsonl",
        keep=lambda f: f.finding.startswith("no message links this file"),
    )
    assert tally == {"done": 1, "already_done": 0, "refused": 0, "failed": 0}
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin")) as second:
        left = {a.id for a in second.uploads.attachments()}
    assert old_att.id not in left
    assert {fresh_att.id, big_att.id} <= left
    again = uploads(admin, max_unlinked_files=0, now=now)
    assert again.passed and again.findings.empty


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"unlinked_days": -1}, "unlinked_days"),
        ({"min_size_mb": 0}, "min_size_mb"),
        ({"scan_messages": 5001}, "scan_messages"),
        ({"max_unlinked_files": -2}, "max_unlinked_files"),
    ],
)
def test_uploads_rejects_bad_parameters(
    sandbox: Sandbox, kwargs: dict[str, float], name: str
) -> None:
    with chatops.Client.from_zuliprc(sandbox.zuliprc("admin")) as client:
        with pytest.raises(ValueError, match=name):
            uploads(client, **kwargs)  # type: ignore[arg-type]


def test_judge_without_a_server() -> None:
    """Every flag from hand-built attachments: unlinked for too long, large (linked: info;
    unlinked: warning), a fresh unlinked file not flagged; others' files found in messages;
    the threshold."""
    me, eve = user(1, "Ada Admin"), user(2, "Eve Else")
    ms = 1000

    def attachment(attachment_id: int, days: float, size: int, linked: bool) -> Attachment:
        return Attachment(
            id=attachment_id,
            name=f"f{attachment_id}.bin",
            path_id=f"2/ab/f{attachment_id}.bin",
            size=size,
            create_time=ago(days) * ms,
            messages=[AttachmentMessage(id=7)] if linked else [],
        )

    read = Read(
        site="https://chat.example.org",
        me=me,
        users={1: me, 2: eve},
        attachments=[
            attachment(1, 30, 100, linked=False),
            attachment(2, 30, 20 * MIB, linked=True),
            attachment(3, 30, 20 * MIB, linked=False),
            attachment(4, 1, 100, linked=False),
        ],
        messages=[
            message(7, me, 2, content="[f2](/user_uploads/2/ab/f2.bin)", display_recipient="ops"),
            message(8, eve, 1, content="see /user_uploads/2/cd/theirs.pdf", stream_id=3),
        ],
    )
    judged = judge(read, Options(max_unlinked_files=1), at=NOW)
    assert [f.attachment.id for f in judged.stale_unlinked] == [1, 3]
    assert judged.failed == ["max_unlinked_files"]
    assert kinds(findings(judged)) == [
        (
            "warning",
            "f1.bin (attachment 1)",
            "no message links this file, uploaded 30 days ago (more than 14); 100 bytes",
        ),
        ("info", "f2.bin (attachment 2)", "20.0 MiB, more than 10 MiB; linked by 1 messages"),
        (
            "warning",
            "f3.bin (attachment 3)",
            "no message links this file, uploaded 30 days ago (more than 14); 20.0 MiB",
        ),
        ("warning", "f3.bin (attachment 3)", "20.0 MiB, more than 10 MiB; linked by 0 messages"),
        (
            "critical",
            "uploads",
            "2 own files are unlinked for more than 14 days; the threshold is 1",
        ),
    ]
    files = conclude(judged).tables["files"].set_index("path_id")
    assert files.loc["2/ab/f2.bin", "channels"] == "#ops"
    assert files.loc["2/cd/theirs.pdf", ["own", "uploader"]].tolist() == [False, "Eve Else"]
