"""A Zulip data export of a sandbox organization reads into the frames the API path builds."""

from __future__ import annotations

import json
import shutil
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import chatops
from chatops.analytics import AnalyticsFrames, messages_over_time
from chatops.analytics.dataset.realm_export import MalformedExport, read_export
from chatops.analytics.dataset.records import registered_accounts
from chatops.sandbox import Sandbox
from tests.analytics.helpers import export_tarball, org_for_export


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A small organization of this module's own, with a live message edited and moved."""
    with org_for_export(tmp_path_factory.mktemp("export-org"), seed=5, topic="export") as sb:
        yield sb


@pytest.fixture(scope="module")
def tarball(org: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "org.tar.gz"
    return export_tarball(org, out, chunk_size=700)


@pytest.fixture(scope="module")
def api_frames(org: Sandbox) -> AnalyticsFrames:
    with chatops.Client.from_zuliprc(org.zuliprc("admin")) as admin:
        messages = list(admin.messages.iter_history(page_size=5000, apply_markdown=False))
        channels = admin.channels.list(include_default=True)
        registered = admin.events.register(fetch_event_types=["realm_user"])
        return AnalyticsFrames.from_records(
            messages,
            users=registered_accounts(registered),
            channels=channels,
            subscriptions={c.stream_id: admin.channels.members(c.stream_id) for c in channels},
        )


@pytest.fixture(scope="module")
def export_frames(tarball: Path) -> AnalyticsFrames:
    return read_export(tarball, progress=False)


def _plain(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Categoricals as objects (their category lists differ with the rows), sorted by keys."""
    out = frame.copy()
    for col in out.columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype):
            out[col] = out[col].astype("object")
    return out.sort_values(keys, kind="stable", ignore_index=True)


def test_messages_equal_the_api_frames(
    org: Sandbox, api_frames: AnalyticsFrames, export_frames: AnalyticsFrames
) -> None:
    api, exp = api_frames.messages, export_frames.messages
    assert len(exp) == org.store.scalar("SELECT count(*) FROM messages")
    seen = set(api["id"])
    assert seen < set(exp["id"]), "the export holds messages the administrator cannot read"
    visible = exp[exp["id"].isin(seen)]
    pd.testing.assert_frame_equal(_plain(visible, ["id"]), _plain(api, ["id"]))
    assert api["is_edited"].any() and api["is_moved"].any()


def test_edits_reactions_and_dm_recipients_equal_the_api_frames(
    api_frames: AnalyticsFrames, export_frames: AnalyticsFrames
) -> None:
    seen = set(api_frames.messages["id"])
    for kind, keys in (
        ("edits", ["message_id"]),  # a stable sort keeps each message's history order
        ("reactions", ["message_id", "user_id", "emoji_code"]),
        ("dm_recipients", ["message_id", "user_id"]),
    ):
        api = getattr(api_frames, kind)
        exp = getattr(export_frames, kind)
        assert len(api) > 0, kind
        visible = exp[exp["message_id"].isin(seen)]
        pd.testing.assert_frame_equal(_plain(visible, keys), _plain(api, keys), obj=kind)
    kinds = set(api_frames.edits["kind"])
    assert {"edit", "move_topic", "move_channel", "resolve"} <= kinds


def test_users_channels_and_subscriptions_equal_the_api_frames(
    api_frames: AnalyticsFrames, export_frames: AnalyticsFrames
) -> None:
    assert api_frames.users is not None and export_frames.users is not None
    api_users = api_frames.users.copy()
    # an export lists a system bot by its id and email only: when it joined and its time
    # zone are unknown there
    system = api_users["is_system_bot"].fillna(False).astype(bool)
    assert system.any()
    api_users.loc[system, "date_joined"] = pd.NaT
    api_users["timezone"] = api_users["timezone"].astype("object").where(~system, float("nan"))
    pd.testing.assert_frame_equal(
        _plain(export_frames.users, ["user_id"]), _plain(api_users, ["user_id"])
    )
    assert api_frames.channels is not None and export_frames.channels is not None
    listed = set(api_frames.channels["stream_id"])
    assert listed <= set(export_frames.channels["stream_id"])
    channels = export_frames.channels[export_frames.channels["stream_id"].isin(listed)]
    pd.testing.assert_frame_equal(
        _plain(channels, ["stream_id"]), _plain(api_frames.channels, ["stream_id"])
    )
    assert api_frames.subscriptions is not None and export_frames.subscriptions is not None
    subs = export_frames.subscriptions
    subs = subs[subs["stream_id"].isin(listed)]
    keys = ["stream_id", "user_id"]
    pd.testing.assert_frame_equal(_plain(subs, keys), _plain(api_frames.subscriptions, keys))


def test_system_bots_are_bots_with_their_names_and_their_messages_are_left_out_with_bots(
    api_frames: AnalyticsFrames, export_frames: AnalyticsFrames
) -> None:
    for frames in (api_frames, export_frames):
        assert frames.users is not None
        bots = frames.users[frames.users["is_system_bot"].fillna(False).astype(bool)]
        assert "Notification Bot" in set(bots["full_name"])
        assert bots["is_bot"].all()
        bot_id = int(bots.loc[bots["full_name"] == "Notification Bot", "user_id"].iloc[0])
        m = frames.messages
        posted = int((m["sender_id"] == bot_id).sum())
        assert posted >= 1  # it announced the new channel
        everyone = messages_over_time(m, users=frames.users, split=None).frame["messages"].sum()
        humans = messages_over_time(m, users=frames.users, split=None, exclude_bots=True)
        bot_ids = set(frames.users.loc[frames.users["is_bot"].astype(bool), "user_id"])
        assert humans.frame["messages"].sum() == everyone - m["sender_id"].isin(bot_ids).sum()


def test_no_api_key_or_password_in_the_export_or_the_frames(
    org: Sandbox, tarball: Path, export_frames: AnalyticsFrames
) -> None:
    secrets = [a.api_key for a in org.accounts.values() if a.api_key]
    secrets += [a.password for a in org.accounts.values() if a.password]
    secrets += [r["api_key"] for r in org.store.query("SELECT api_key FROM users")]
    assert len(secrets) > 10
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            if member.isfile():
                body = tar.extractfile(member)
                assert body is not None
                text = body.read().decode("utf-8", "replace")
                leaked = [s for s in secrets if s in text]
                assert leaked == [], member.name
        realm = json.loads(tar.extractfile(_member(tar, "realm.json")).read())  # type: ignore[union-attr]
    for user in realm["zerver_userprofile"]:
        assert not {"api_key", "password"} & set(user), user["id"]
    for name in ("messages", "users", "channels", "reactions", "edits"):
        frame = getattr(export_frames, name)
        text = frame.astype("string").to_csv()
        assert [s for s in secrets if s in text] == [], name


def _member(tar: tarfile.TarFile, name: str) -> tarfile.TarInfo:
    found = [m for m in tar.getmembers() if m.name.endswith("/" + name)]
    assert len(found) == 1, name
    return found[0]


@pytest.fixture
def unpacked(tarball: Path, tmp_path: Path) -> Path:
    """The export unpacked into a folder, to break on purpose."""
    with tarfile.open(tarball) as tar:
        tar.extractall(tmp_path, filter="data")
    (folder,) = tmp_path.iterdir()
    return folder


def test_an_unpacked_folder_reads_the_same(unpacked: Path, export_frames: AnalyticsFrames) -> None:
    frames = read_export(unpacked, progress=False)
    pd.testing.assert_frame_equal(frames.messages, export_frames.messages)
    pd.testing.assert_frame_equal(frames.edits, export_frames.edits)
    # the folder that holds the export's folder is found too
    again = read_export(unpacked.parent, progress=False)
    assert len(again.messages) == len(frames.messages)
    # and a tarball packed by hand from inside the folder ("tar -czf x.tar.gz -C folder .")
    repacked = unpacked.parent / "repacked.tar.gz"
    with tarfile.open(repacked, "w:gz") as tar:
        tar.add(unpacked, arcname=".")
    pd.testing.assert_frame_equal(
        read_export(repacked, progress=False).messages, export_frames.messages
    )


@pytest.mark.parametrize(
    ("file", "table", "row", "change", "expected"),
    [
        (
            "messages-000001.json",
            "zerver_message",
            3,
            lambda r: r.pop("sender"),
            "messages-000001.json zerver_message: a row (id {id}) has no field 'sender'",
        ),
        (
            "messages-000002.json",
            "zerver_message",
            0,
            lambda r: r.update(date_sent="yesterday"),
            "messages-000002.json zerver_message: field 'date_sent' of message {id} is not a number",
        ),
        (
            "messages-000001.json",
            "zerver_message",
            0,
            lambda r: r.update(edit_history="[{"),
            "messages-000001.json zerver_message: field 'edit_history' of message {id} is not JSON",
        ),
        (
            "realm.json",
            "zerver_userprofile",
            0,
            lambda r: r.pop("full_name"),
            "realm.json zerver_userprofile: a row (id {id}) has no field 'full_name'",
        ),
        (
            "realm.json",
            "zerver_recipient",
            0,
            lambda r: r.update(type="stream"),
            "realm.json zerver_recipient: field 'type' of row {id} is 'stream', expected a number",
        ),
    ],
)
def test_a_malformed_export_names_the_file_and_field(
    unpacked: Path,
    file: str,
    table: str,
    row: int,
    change: Callable[[dict[str, Any]], object],
    expected: str,
) -> None:
    path = unpacked / file
    data = json.loads(path.read_text())
    target = data[table][row]
    change(target)
    path.write_text(json.dumps(data))
    with pytest.raises(MalformedExport) as caught:
        read_export(unpacked, progress=False)
    assert str(caught.value) == expected.format(id=target["id"])


def test_a_missing_table_is_named(unpacked: Path) -> None:
    path = unpacked / "realm.json"
    data = json.loads(path.read_text())
    del data["zerver_recipient"]
    path.write_text(json.dumps(data))
    with pytest.raises(MalformedExport, match="^realm.json: table 'zerver_recipient' is missing$"):
        read_export(unpacked, progress=False)


def test_not_an_export(tmp_path: Path, unpacked: Path) -> None:
    with pytest.raises(MalformedExport, match="no such file or folder"):
        read_export(tmp_path / "missing.tar.gz", progress=False)
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(MalformedExport, match="not a tarball"):
        read_export(text, progress=False)
    (unpacked / "realm.json").write_text("{not json")
    with pytest.raises(MalformedExport, match="^realm.json: not valid JSON"):
        read_export(unpacked, progress=False)
    shutil.rmtree(unpacked)
    with pytest.raises(MalformedExport, match="no realm.json"):
        read_export(tmp_path, progress=False)
