"""Organization data exports over HTTP (``/export/realm``): who may ask, what is refused, the
export written in the background, its events, its tarball and who may download it."""

from __future__ import annotations

import io
import json
import tarfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

import chatops
from chatops.sandbox import Sandbox, clock
from chatops.sandbox import realm_export as realm_export_mod
from chatops.types import RealmExport
from tests.conftest import unchanged
from tests.sandbox.events.test_events import Queue
from tests.sandbox.helpers import api_error, raw

Make = Callable[..., chatops.Client]


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """An organization of this module's own: its exports count against the weekly limit."""
    with Sandbox.start(tmp_path_factory.mktemp("exports"), size="small", seed=3) as sb:
        yield sb


@pytest.fixture(autouse=True)
def no_exports(org: Sandbox) -> Iterator[None]:
    """Each test starts with no export and nobody consenting (test set-up)."""
    org.store.execute("DELETE FROM realm_exports")
    org.store.execute("DELETE FROM user_settings")
    yield


@pytest.fixture
def admin(client_for: Make, org: Sandbox) -> chatops.Client:
    return client_for("admin", org)


@pytest.fixture
def owner(client_for: Make, org: Sandbox) -> chatops.Client:
    return client_for("owner", org)


@pytest.fixture
def member(client_for: Make, org: Sandbox) -> chatops.Client:
    return client_for("member", org)


@pytest.fixture
def queue(org: Sandbox) -> Iterator[Queue]:
    q = Queue(org, "admin", event_types=["realm_export", "realm_export_consent", "message"])
    yield q
    q.close()


def _collect(queue: Queue, **wanted: int) -> dict[str, list[dict[str, Any]]]:
    """The queue's events by type, polled until it holds ``wanted`` of each type (10 s)."""
    got: dict[str, list[dict[str, Any]]] = {}
    deadline = time.monotonic() + 10
    while any(len(got.get(t, [])) < n for t, n in wanted.items()):
        assert time.monotonic() < deadline, f"events {wanted}: got {got}"
        for event in queue.poll():
            got.setdefault(event["type"], []).append(event)
        time.sleep(0.02)
    return got


def _record(event_record: dict[str, Any]) -> RealmExport:
    return msgspec.convert(event_record, RealmExport)


def _members(data: bytes) -> dict[str, Any]:
    """The JSON files of an export tarball, by their name under the export's folder."""
    out: dict[str, Any] = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for info in tar.getmembers():
            if info.isfile() and info.name.endswith(".json"):
                handle = tar.extractfile(info)
                assert handle is not None
                out[info.name.partition("/")[2]] = json.loads(handle.read())
    return out


def _exported_messages(files: dict[str, Any]) -> tuple[set[int], list[dict[str, Any]]]:
    ids: set[int] = set()
    flags: list[dict[str, Any]] = []
    for name, body in files.items():
        if name.startswith("messages-"):
            ids.update(int(m["id"]) for m in body["zerver_message"])
            flags.extend(body["zerver_usermessage"])
    return ids, flags


def test_an_administrator_exports_the_public_data_and_downloads_it(
    org: Sandbox, admin: chatops.Client, queue: Queue
) -> None:
    admin_id = org.accounts["admin"].user_id
    bystander = Queue(org, "member", event_types=["realm_export"])
    export_id = admin.realm.create_export()
    done = admin.realm.wait_for_export(export_id, timeout=60, poll_seconds=0.1)
    assert done.pending is False and done.failed_timestamp is None
    assert done.deleted_timestamp is None
    assert done.acting_user_id == admin_id and done.export_type == 1
    assert done.export_url is not None
    assert done.export_url.startswith(f"{org.site}/user_avatars/exports/1/")
    assert done.export_url.endswith(".tar.gz")
    assert admin.realm.exports() == [done]
    # announced when asked for and when written, with its URL; the notification bot tells who
    # asked
    events = _collect(queue, realm_export=2, message=1)
    requested, written = events["realm_export"]
    assert [e["id"] for e in requested["exports"]] == [export_id]
    assert requested["exports"][0]["pending"] is True
    assert requested["exports"][0]["export_url"] is None
    assert [_record(e) for e in written["exports"]] == [done]
    assert bystander.poll() == [], "a member is told of the organization's exports"
    bystander.close()
    told = events["message"][0]["message"]
    assert told["sender_full_name"] == "Notification Bot"
    assert "Your data export is complete" in told["content"]
    # a public export: the messages of public channels only, whoever received them
    files = _members(admin.realm.download_export(done))
    assert {"realm.json", "attachment.json", "uploads/records.json"} <= set(files)
    ids, flags = _exported_messages(files)
    public = {
        int(r["id"])
        for r in org.store.query(
            "SELECT m.id FROM messages m JOIN streams s ON s.id = m.stream_id "
            "WHERE s.invite_only = 0 AND m.id < ?",
            [told["id"]],
        )
    }
    assert public and ids == public
    assert {int(f["message"]) for f in flags} <= ids
    assert any(int(f["user_profile"]) != admin_id for f in flags)


def test_an_export_holds_the_playgrounds_and_the_settings_for_new_users(
    org: Sandbox, admin: chatops.Client
) -> None:
    template = "https://go.example.com/play?code={code}"
    pid = admin.realm.add_playground(
        name="Go playground", pygments_language="Go", url_template=template
    )
    admin.realm.update_user_settings_defaults(twenty_four_hour_time=True, web_font_size_px=14)
    try:
        done = admin.realm.wait_for_export(admin.realm.create_export(), timeout=60)
        realm = _members(admin.realm.download_export(done))["realm.json"]
        defaults = admin.server.register(fetch_event_types=["realm_user_settings_defaults"])
    finally:
        admin.realm.remove_playground(pid)
        admin.realm.update_user_settings_defaults(twenty_four_hour_time=False, web_font_size_px=16)
    realm_id = realm["zerver_realm"][0]["id"]
    assert realm["zerver_realmplayground"] == [
        {
            "id": pid,
            "realm": realm_id,
            "name": "Go playground",
            "pygments_language": "Go",
            "url_template": template,
        }
    ]
    (row,) = realm["zerver_realmuserdefault"]
    assert (row["id"], row["realm"]) == (1, realm_id)
    assert (row["twenty_four_hour_time"], row["web_font_size_px"]) == (True, 14)
    # every setting a new user starts with, as /register gives them
    registered = defaults["realm_user_settings_defaults"]
    settings = set(registered) - {"emojiset_choices", "available_notification_sounds"}
    assert set(row) == {"id", "realm", *settings}
    assert all(row[name] == registered[name] for name in settings)


def test_an_export_with_consent_holds_what_the_consenting_people_received(
    org: Sandbox, admin: chatops.Client, owner: chatops.Client, queue: Queue
) -> None:
    owner_id = org.accounts["owner"].user_id
    assert {c.user_id: c.consented for c in admin.realm.export_consents()}[owner_id] is False
    bystander = Queue(org, "member", event_types=["realm_export_consent"])
    owner.users.update_settings(allow_private_data_export=True)
    event = queue.wait_for("realm_export_consent")
    assert bystander.poll() == [], "a member is told who consents"
    bystander.close()
    assert (event["user_id"], event["consented"]) == (owner_id, True)
    consents = admin.realm.export_consents()
    assert {c.user_id for c in consents if c.consented} == {owner_id}
    active_humans = org.store.scalar(
        "SELECT count(*) FROM users WHERE is_active = 1 AND is_bot = 0"
    )
    assert len(consents) == active_humans
    dm = owner.messages.send_direct(org.accounts["member"].user_id, "for the export")
    elsewhere = admin.messages.send_direct(org.accounts["member"].user_id, "not exported")
    done = admin.realm.wait_for_export(admin.realm.create_export(export_type=2), timeout=60)
    assert done.export_type == 2 and done.export_url
    ids, flags = _exported_messages(_members(admin.realm.download_export(done)))
    assert dm.id in ids and elsewhere.id not in ids
    # what the consenting owner reads through the API, up to the export (then the notification
    # bot's message), and the public channels' messages, which the owner reads too
    readable = {m.id for m in owner.messages.iter_history(page_size=5000)}
    assert ids == {i for i in readable if i <= max(ids)}
    private = org.store.query(
        "SELECT m.id FROM messages m JOIN streams s ON s.id = m.stream_id WHERE s.invite_only = 1"
    )
    assert ids & {int(r["id"]) for r in private}, "no private channel's message exported"
    assert {int(f["user_profile"]) for f in flags} == {owner_id}


def test_only_administrators_export_list_and_see_consents(
    org: Sandbox, admin: chatops.Client, member: chatops.Client
) -> None:
    admin.realm.wait_for_export(admin.realm.create_export(), timeout=60)
    with unchanged(org.store):
        for call in (
            member.realm.create_export,
            member.realm.exports,
            member.realm.export_consents,
        ):
            with api_error("UNAUTHORIZED_PRINCIPAL", msg="Must be an organization administrator"):
                call()


@pytest.mark.parametrize("value", ["3", "0", "public", "1.5"])
def test_an_unknown_export_type_is_refused(org: Sandbox, value: str) -> None:
    with unchanged(org.store):
        status, body = raw(org, "admin", "POST", "/export/realm", export_type=value)
    assert (status, body["code"]) == (400, "BAD_REQUEST"), body
    assert "export_type" in body["msg"]


def test_an_export_needs_an_owner_who_consents_or_shows_their_address(
    org: Sandbox, admin: chatops.Client
) -> None:
    with unchanged(org.store), api_error("BAD_REQUEST") as info:
        admin.realm.create_export(export_type=2)
    assert "at least one Organization Owner is consenting" in info.value.msg
    visibility = org.store.query("SELECT id, email_address_visibility FROM users WHERE role = 100")
    org.store.execute("UPDATE users SET email_address_visibility = 5 WHERE role = 100")
    try:
        with unchanged(org.store), api_error("BAD_REQUEST") as info:
            admin.realm.create_export(export_type=1)
        assert "allows other Administrators to see their email address" in info.value.msg
    finally:
        for row in visibility:
            org.store.execute(
                "UPDATE users SET email_address_visibility = ? WHERE id = ?",
                [row["email_address_visibility"], row["id"]],
            )


def test_five_exports_a_week_at_most(org: Sandbox, admin: chatops.Client) -> None:
    now = clock.now()
    week = realm_export_mod.LIMIT_WINDOW_SECONDS
    admin_id = org.accounts["admin"].user_id
    for when in [now - week + 60] * 5 + [now - week - 60]:
        org.store.execute(
            "INSERT INTO realm_exports (export_type, status, acting_user_id, date_requested, "
            "date_failed, base_url) VALUES (1, 4, ?, ?, ?, ?)",
            [admin_id, when, when, org.site],
        )
    with unchanged(org.store), api_error("BAD_REQUEST", msg="Exceeded rate limit."):
        admin.realm.create_export()
    # a week on, the oldest no longer counts
    org.store.execute(
        "UPDATE realm_exports SET date_requested = ? WHERE id = (SELECT min(id) FROM realm_exports)",
        [now - week - 60],
    )
    export_id = admin.realm.create_export()
    assert admin.realm.wait_for_export(export_id, timeout=60).export_url


def test_a_large_organization_is_exported_by_hand(
    org: Sandbox, admin: chatops.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    messages = int(org.store.scalar("SELECT count(*) FROM messages"))
    monkeypatch.setattr(realm_export_mod, "MAX_MESSAGE_HISTORY", messages - 1)
    with unchanged(org.store), api_error("BAD_REQUEST") as info:
        admin.realm.create_export()
    assert info.value.msg.startswith("Please request a manual export from ")


def test_an_export_that_fails_is_listed_as_failed(
    org: Sandbox, admin: chatops.Client, queue: Queue, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Path:
        raise OSError("disk full")

    monkeypatch.setattr(realm_export_mod, "export_organization", broken)
    failed = admin.realm.wait_for_export(admin.realm.create_export(), timeout=60)
    assert failed.failed_timestamp is not None and failed.export_url is None
    assert failed.pending is False
    requested, announced = _collect(queue, realm_export=2)["realm_export"]
    assert requested["exports"][0]["pending"] is True
    assert [_record(e) for e in announced["exports"]] == [failed]
    with pytest.raises(ValueError, match="no URL"):
        admin.realm.download_export(failed)


def test_only_administrators_download_an_export(org: Sandbox, admin: chatops.Client) -> None:
    done = admin.realm.wait_for_export(admin.realm.create_export(), timeout=60)
    url = done.export_url
    assert url is not None
    member = org.accounts["member"]
    r = httpx.get(url, auth=(member.email, member.api_key))
    assert (r.status_code, r.json()["code"]) == (400, "UNAUTHORIZED_PRINCIPAL")
    assert httpx.get(url).status_code == 401
    acc = org.accounts["admin"]
    r = httpx.get(url, auth=(acc.email, acc.api_key))
    assert r.status_code == 200 and r.headers["content-type"] == "application/gzip"
    assert r.content[:2] == b"\x1f\x8b"
    wrong = url.rsplit("/", 2)[0] + "/guessed/" + url.rsplit("/", 1)[1]
    assert httpx.get(wrong, auth=(acc.email, acc.api_key)).status_code == 404


def test_before_feature_levels_295_and_304(tmp_path: Path) -> None:
    """No consents before 295; before 304 every export is public and records have no type."""
    with Sandbox.start(tmp_path, size="small", seed=3, feature_level=294) as old:
        status, body = raw(old, "admin", "GET", "/export/realm/consents")
        assert status == 404, body
        status, body = raw(old, "admin", "POST", "/export/realm", export_type="2")
        assert status == 200, body
        with chatops.Client.from_zuliprc(old.zuliprc("admin")) as admin:
            done = admin.realm.wait_for_export(body["id"], timeout=60, poll_seconds=0.1)
            assert done.export_url
        status, body = raw(old, "admin", "GET", "/export/realm")
        assert "export_type" not in body["exports"][0]
        assert old.store.scalar("SELECT export_type FROM realm_exports") == 1


def test_an_export_found_started_is_marked_failed(org: Sandbox, admin: chatops.Client) -> None:
    """One the sandbox was writing when it stopped: as the real server does on a retry."""
    org.store.execute(
        "INSERT INTO realm_exports (export_type, status, acting_user_id, date_requested, "
        "date_started, base_url) VALUES (1, 2, ?, ?, ?, ?)",
        [org.accounts["admin"].user_id, clock.now(), clock.now(), org.site],
    )
    export_id = int(org.store.scalar("SELECT max(id) FROM realm_exports"))
    failed = admin.realm.wait_for_export(export_id, timeout=30, poll_seconds=0.1)
    assert failed.failed_timestamp is not None and failed.export_url is None
