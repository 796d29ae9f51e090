"""The sandbox writes its organization as a Zulip data export: Zulip's files, owner-only."""

from __future__ import annotations

import json
import math
import stat
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import chatops
from chatops.sandbox import Sandbox, Store
from chatops.sandbox.export import RECIPIENT_HUDDLE, RECIPIENT_STREAM, export_organization
from tests.test_cli import _one_line_error
from tests.test_cli import chatops as run_chatops


def _read(tar: tarfile.TarFile, member: tarfile.TarInfo) -> Any:
    body = tar.extractfile(member)
    assert body is not None
    return json.loads(body.read())


def test_the_tarball_holds_zulips_files_readable_by_the_owner_only(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    store = sandbox.store
    out = export_organization(
        store,
        tmp_path / "org.tar.gz",
        upload_dir=sandbox.data_dir / "uploads",
        chunk_size=500,
        progress=False,
    )
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert not (tmp_path / "org.tar.gz.partial").exists()
    total = int(store.scalar("SELECT count(*) FROM messages"))
    with tarfile.open(out) as tar:
        members = tar.getmembers()
        (root,) = {m.name.split("/")[0] for m in members}
        assert root.startswith("zulip-export-")
        for m in members:
            assert stat.S_IMODE(m.mode) == (0o700 if m.isdir() else 0o600), m.name
        files = {m.name.removeprefix(root + "/"): m for m in members if m.isfile()}
        chunks = [f"messages-{n:06d}.json" for n in range(1, math.ceil(total / 500) + 1)]
        assert {"realm.json", "attachment.json", "uploads/records.json", *chunks} <= set(files)
        assert not any(n.startswith("messages-") for n in set(files) - set(chunks))

        realm = _read(tar, files["realm.json"])
        ids: list[int] = []
        for name in chunks:
            data = _read(tar, files[name])
            assert set(data) == {"zerver_message", "zerver_usermessage"}
            ids += [m["id"] for m in data["zerver_message"]]
            for m in data["zerver_message"]:
                assert isinstance(m["date_sent"], float)
                if m["edit_history"] is not None:
                    history = json.loads(m["edit_history"])
                    stamps = [e["timestamp"] for e in history]
                    assert stamps == sorted(stamps, reverse=True)
        assert ids == sorted(ids) and len(ids) == total

        attachments = _read(tar, files["attachment.json"])["zerver_attachment"]
        shared = [a for a in attachments if a["messages"]]
        assert shared and len(shared) < len(attachments)
        for record in _read(tar, files["uploads/records.json"]):
            assert f"uploads/{record['path']}" in files

    for table in (
        "zerver_realm",
        "zerver_userprofile",
        "zerver_stream",
        "zerver_recipient",
        "zerver_subscription",
        "zerver_huddle",
        "zerver_usergroup",
        "zerver_namedusergroup",
        "zerver_usergroupmembership",
        "zerver_reaction",
        "zerver_client",
        "zerver_defaultstream",
    ):
        assert realm[table], table
    assert realm["import_source"] == "zulip"
    users = {u["id"]: u for u in realm["zerver_userprofile"]}
    for u in users.values():
        assert "api_key" not in u and "password" not in u
    bots = {b["id"] for b in realm["zerver_userprofile_crossrealm"]}
    assert bots and not bots & set(users), "system bots are cross-realm only, as in Zulip"
    recipients = {r["id"]: r for r in realm["zerver_recipient"]}
    streams = {s["id"]: s for s in realm["zerver_stream"]}
    for s in streams.values():
        assert recipients[s["recipient"]] == {
            "id": s["recipient"],
            "type": RECIPIENT_STREAM,
            "type_id": s["id"],
        }
    for h in realm["zerver_huddle"]:
        assert recipients[h["recipient"]]["type"] == RECIPIENT_HUDDLE
        members = [s for s in realm["zerver_subscription"] if s["recipient"] == h["recipient"]]
        assert len(members) == h["group_size"] >= 2


def test_cli_exports_a_sandbox_folder(sandbox: Sandbox, tmp_path: Path) -> None:
    out = tmp_path / "demo.tar.gz"
    proc = run_chatops(
        "sandbox", "export", "--data", str(sandbox.data_dir), "--out", str(out), "--no-progress"
    )
    assert proc.returncode == 0, proc.stderr
    assert f"to {out}" in proc.stdout
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert tarfile.is_tarfile(out)


#: fields of Zulip's ``RealmUserDefault`` that ``PATCH /realm/user_settings_defaults`` does not
#: change but the row holds all the same, as it holds every personal setting
ROW_ONLY_FIELDS = (
    "default_language",
    "enable_login_emails",
    "enable_marketing_emails",
    "allow_private_data_export",
)


def test_an_export_holds_the_playgrounds_and_the_settings_for_new_users(
    fresh_sandbox: Sandbox, client_for: Callable[..., chatops.Client], tmp_path: Path
) -> None:
    admin = client_for("admin", fresh_sandbox)
    template = "https://play.example.com/?code={code}"
    pid = admin.realm.add_playground(
        name="Python playground", pygments_language="Python", url_template=template
    )
    admin.realm.update_user_settings_defaults(
        emojiset="text", enter_sends=True, email_address_visibility=3
    )
    state = admin.server.register(fetch_event_types=["realm_user_settings_defaults"])
    registered = dict(state["realm_user_settings_defaults"])
    del registered["emojiset_choices"], registered["available_notification_sounds"]
    out = tmp_path / "org.tar.gz"
    proc = run_chatops(
        "sandbox",
        "export",
        "--data",
        str(fresh_sandbox.data_dir),
        "--out",
        str(out),
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    with tarfile.open(out) as tar:
        (member,) = [m for m in tar.getmembers() if m.name.endswith("/realm.json")]
        realm = _read(tar, member)
    realm_id = realm["zerver_realm"][0]["id"]
    assert realm["zerver_realmplayground"] == [
        {
            "id": pid,
            "realm": realm_id,
            "name": "Python playground",
            "pygments_language": "Python",
            "url_template": template,
        }
    ]
    # one row for the organization: every setting, the changed ones as changed
    (row,) = realm["zerver_realmuserdefault"]
    assert row == {"id": 1, "realm": realm_id, **registered}
    assert (row["emojiset"], row["enter_sends"], row["email_address_visibility"]) == (
        "text",
        True,
        3,
    )
    assert row["web_font_size_px"] == 16 and row["default_language"] == "en"
    assert set(ROW_ONLY_FIELDS) <= set(row)


def test_cli_export_refuses_a_folder_without_an_organization(tmp_path: Path) -> None:
    proc = run_chatops(
        "sandbox", "export", "--data", str(tmp_path), "--out", str(tmp_path / "x.tar.gz")
    )
    _one_line_error(proc, "holds no sandbox organization")
    assert not (tmp_path / "x.tar.gz").exists()


def test_cli_export_refuses_a_missing_output_folder(sandbox: Sandbox, tmp_path: Path) -> None:
    out = tmp_path / "missing" / "x.tar.gz"
    proc = run_chatops("sandbox", "export", "--data", str(sandbox.data_dir), "--out", str(out))
    _one_line_error(proc, "does not exist")


def test_a_failed_export_leaves_no_file(tmp_path: Path) -> None:
    out = tmp_path / "org.tar.gz"
    with pytest.raises(ValueError, match="holds no organization"):
        export_organization(Store(), out, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_cli_export_refuses_an_unwritable_output(sandbox: Sandbox, tmp_path: Path) -> None:
    out = tmp_path / ("x" * 300 + ".tar.gz")  # longer than a file name may be, even for root
    proc = run_chatops("sandbox", "export", "--data", str(sandbox.data_dir), "--out", str(out))
    _one_line_error(proc, "cannot write", "File name too long")
    assert list(tmp_path.iterdir()) == []
