"""Invitations over HTTP: reusable links (spec 4.8), joining through them, email invitations."""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import group_id, unchanged
from tests.sandbox.helpers import api_error, assert_error, raw

Make = Callable[..., chatops.Client]


@pytest.fixture
def owner(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("owner", fresh_sandbox)


@pytest.fixture
def admin(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("admin", fresh_sandbox)


@pytest.fixture
def member(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("member", fresh_sandbox)


@pytest.fixture
def moderator(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("moderator", fresh_sandbox)


def _channel(sb: Sandbox, name: str) -> int:
    return int(sb.store.scalar("SELECT id FROM streams WHERE name = ?", [name]))


def _join(link: str, **form: str) -> httpx.Response:
    return httpx.post(link, data=form)


def _user(sb: Sandbox, email: str) -> dict[str, object] | None:
    return sb.store.one("SELECT * FROM users WHERE delivery_email = ?", [email])


def test_join_through_reusable_link_gets_role_channels_and_groups(
    fresh_sandbox: Sandbox, owner: chatops.Client
) -> None:
    sb = fresh_sandbox
    channel_ids = [
        _channel(sb, n)
        for n in ("general", "engineering")
        if sb.store.scalar("SELECT 1 FROM streams WHERE name = ?", [n])
    ]
    assert channel_ids
    gid = owner.user_groups.create("newcomers", members=[])
    link = owner.invitations.create_link(
        invite_as=300, stream_ids=channel_ids, group_ids=[gid], expires_in_minutes=60
    )
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/join/[a-z2-7]{24}/", link)

    page = httpx.get(link)
    assert page.status_code == 200 and "<form" in page.text

    for i, email in enumerate(("first@join.test", "second@join.test")):
        r = _join(link, email=email, full_name=f"Joiner {i}", password="correct horse")
        assert r.status_code == 200, r.text
        row = _user(sb, email)
        assert row is not None and row["role"] == 300
        user = owner.users.get(int(row["id"]))  # type: ignore[arg-type]
        assert user.role == 300 and user.full_name == f"Joiner {i}"
        subscribed = {
            r["stream_id"]
            for r in sb.store.query(
                "SELECT stream_id FROM subscriptions WHERE user_id = ? AND active = 1",
                [user.user_id],
            )
        }
        assert set(channel_ids) <= subscribed
        assert user.user_id in owner.user_groups.get(gid).members
        # the password works: the account can fetch its API key
        key = chatops.fetch_api_key(sb.site, email, "correct horse")
        assert key.user_id == user.user_id

    # revoked: the page and the form refuse, nothing is created
    invite = next(i for i in owner.invitations.list() if i.link_url == link)
    owner.invitations.revoke_link(invite.id)
    assert httpx.get(link).status_code == 404
    with unchanged(sb.store):
        r = _join(link, email="third@join.test", full_name="Third", password="correct horse")
    assert r.status_code == 404 and "expired or been deactivated" in r.text
    assert link not in [i.link_url for i in owner.invitations.list()]


def test_expired_link_refuses(fresh_sandbox: Sandbox, owner: chatops.Client) -> None:
    sb = fresh_sandbox
    link = owner.invitations.create_link(expires_in_minutes=1)
    key = link.rstrip("/").rsplit("/", 1)[1]
    sb.store.execute(
        "UPDATE invites SET expiry = ? WHERE invite_key = ?", [int(time.time()) - 1, key]
    )
    assert httpx.get(link).status_code == 404
    with unchanged(sb.store):
        r = _join(link, email="late@join.test", full_name="Late", password="correct horse")
    assert r.status_code == 404


def test_join_form_errors_keep_the_link_usable(
    fresh_sandbox: Sandbox, owner: chatops.Client
) -> None:
    sb = fresh_sandbox
    link = owner.invitations.create_link()
    with unchanged(sb.store):
        r = _join(link, email="not-an-email", full_name="X", password="correct horse")
        assert r.status_code == 400 and "valid email" in r.text
        r = _join(link, email="member@demo.chatops.test", full_name="X", password="correct horse")
        assert r.status_code == 400 and "already in use" in r.text
    assert _join(link, email="ok@join.test", full_name="Ok", password="pw123456").status_code == 200


def test_defaults_never_expiring_and_default_channels(
    fresh_sandbox: Sandbox, owner: chatops.Client
) -> None:
    sb = fresh_sandbox
    before = int(time.time())
    owner.invitations.create_link()
    default = owner.invitations.list()[-1]
    assert default.invited_as == 400 and default.is_multiuse
    assert default.expiry_date is not None
    assert abs(default.expiry_date - before - 14400 * 60) < 10
    link = owner.invitations.create_link(
        expires_in_minutes=None, include_realm_default_subscriptions=True
    )
    never = next(i for i in owner.invitations.list() if i.link_url == link)
    assert never.expiry_date is None
    _join(link, email="defaults@join.test", full_name="Defaults", password="correct horse")
    row = _user(sb, "defaults@join.test")
    assert row is not None
    subscribed = {
        r["stream_id"]
        for r in sb.store.query(
            "SELECT stream_id FROM subscriptions WHERE user_id = ?", [row["id"]]
        )
    }
    defaults = {r["id"] for r in sb.store.query("SELECT id FROM streams WHERE is_default = 1")}
    assert defaults and defaults <= subscribed


def test_multiuse_permission_rules(
    fresh_sandbox: Sandbox,
    owner: chatops.Client,
    admin: chatops.Client,
    member: chatops.Client,
    moderator: chatops.Client,
) -> None:
    sb = fresh_sandbox
    # create_multiuse_invite_group is administrators in the demo
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        member.invitations.create_link()
    # only roles equal or more restricted than the caller's
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        admin.invitations.create_link(invite_as=100)
    admin.invitations.create_link(invite_as=200)
    owner.invitations.create_link(invite_as=100)
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        admin.invitations.create_link(invite_as=500)
    # channels must exist and be accessible
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        admin.invitations.create_link(stream_ids=[99999])
    # moderators may create links once the setting allows them; then the channel checks apply
    owner.realm.update(create_multiuse_invite_group=group_id(sb.store, "role:moderators"))
    moderator.invitations.create_link(invite_as=300)
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        moderator.invitations.create_link(invite_as=200)
    owner.realm.update(can_add_subscribers_group=group_id(sb.store, "role:administrators"))
    general = _channel(sb, "general")
    non_default = int(
        sb.store.scalar(
            "SELECT id FROM streams WHERE is_default = 0 AND invite_only = 0 AND is_archived = 0 "
            "ORDER BY id LIMIT 1"
        )
    )
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        moderator.invitations.create_link(stream_ids=[general])  # may not subscribe others at all
    owner.realm.update(can_add_subscribers_group=group_id(sb.store, "role:members"))
    moderator.invitations.create_link(stream_ids=[general, non_default])
    # groups: the caller must be allowed to add members to them
    gid = owner.user_groups.create("owners-only", members=[])
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        moderator.invitations.create_link(group_ids=[gid])
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        owner.invitations.create_link(group_ids=[group_id(sb.store, "role:members")])
    owner.invitations.create_link(group_ids=[gid])
    owner.realm.update(create_multiuse_invite_group=group_id(sb.store, "role:administrators"))


def test_welcome_text_rules(
    fresh_sandbox: Sandbox, owner: chatops.Client, admin: chatops.Client
) -> None:
    sb = fresh_sandbox
    with pytest.raises(chatops.LimitError) as info:
        admin.invitations.create_link(welcome_message_custom_text="x" * 8001)
    assert info.value.param == "welcome_message_custom_text" and info.value.limit == 8000
    with unchanged(sb.store):
        assert_error(
            raw(sb, "admin", "POST", "/invites/multiuse", welcome_message_custom_text="x" * 8001),
            "BAD_REQUEST",
        )
    link = admin.invitations.create_link(
        welcome_message_custom_text="Read **#announcements** first"
    )
    key = link.rstrip("/").rsplit("/", 1)[1]
    assert (
        sb.store.scalar(
            "SELECT welcome_message_custom_text FROM invites WHERE invite_key = ?", [key]
        )
        == "Read **#announcements** first"
    )
    _join(link, email="welcome@join.test", full_name="Welcomed", password="correct horse")
    row = _user(sb, "welcome@join.test")
    assert row is not None
    greeting = sb.store.one(
        "SELECT content FROM messages WHERE recipient_id IN "
        "(SELECT id FROM recipients WHERE user_set LIKE ?) ORDER BY id DESC LIMIT 1",
        [f"%,{row['id']},%"],
    )
    assert greeting is not None and "Read **#announcements** first" in greeting["content"]

    # a non-administrator's text is ignored (stored as null)
    owner.realm.update(create_multiuse_invite_group=group_id(sb.store, "role:moderators"))
    mod = chatops.Client.from_zuliprc(sb.zuliprc("moderator"))
    try:
        link = mod.invitations.create_link(welcome_message_custom_text="hello")
    finally:
        mod.close()
    key = link.rstrip("/").rsplit("/", 1)[1]
    assert (
        sb.store.scalar(
            "SELECT welcome_message_custom_text FROM invites WHERE invite_key = ?", [key]
        )
        is None
    )
    owner.realm.update(create_multiuse_invite_group=group_id(sb.store, "role:administrators"))


def test_email_invitations_report_each_refused_address(
    fresh_sandbox: Sandbox, admin: chatops.Client, member: chatops.Client
) -> None:
    sb = fresh_sandbox
    general = _channel(sb, "general")
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        admin.invitations.send("", stream_ids=[general])
    with unchanged(sb.store), api_error("INVITATION_FAILED") as info:
        admin.invitations.send(["ok@mail.test", "not an address"], stream_ids=[general])
    assert info.value.errors == [["not an address", "Invalid address.", False]]
    assert info.value.sent_invitations is False
    assert isinstance(info.value, chatops.InvitationFailed)

    deactivated = sb.store.scalar("SELECT delivery_email FROM users WHERE is_active = 0 LIMIT 1")
    with api_error("INVITATION_FAILED") as info:
        admin.invitations.send(
            ["fresh@mail.test", "member@demo.chatops.test", deactivated], stream_ids=[general]
        )
    assert info.value.errors == [
        ["member@demo.chatops.test", "Already has an account.", False],
        [deactivated, "Account has been deactivated.", True],
    ]
    assert info.value.sent_invitations is True
    invites = {i.email: i for i in admin.invitations.list() if not i.is_multiuse}
    assert "fresh@mail.test" in invites
    outbox = sb.store.query("SELECT * FROM email_outbox WHERE to_address = 'fresh@mail.test'")
    assert len(outbox) == 1
    link = re.search(r"http\S+/join/[a-z2-7]{24}/", outbox[0]["body"])
    assert link is not None

    # resend, then join through the emailed link (single use)
    invite = invites["fresh@mail.test"]
    admin.invitations.resend(invite.id)
    assert (
        sb.store.scalar("SELECT count(*) FROM email_outbox WHERE to_address = 'fresh@mail.test'")
        == 2
    )
    r = _join(link.group(0), full_name="Fresh", password="correct horse")
    assert r.status_code == 200
    assert _join(link.group(0), full_name="Again", password="correct horse").status_code == 404

    # revoke: own invitations only unless administrator; unknown ids refused
    admin.invitations.send("other@mail.test", stream_ids=[])
    other = next(i for i in admin.invitations.list() if i.email == "other@mail.test")
    with unchanged(sb.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        member.invitations.revoke(other.id)
    admin.invitations.revoke(other.id)
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="No such invitation"):
        admin.invitations.revoke(other.id)
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="No such invitation"):
        admin.invitations.revoke_link(other.id)
    # a member sees only their own invitations
    member.invitations.send("mine@mail.test", stream_ids=[])
    assert [i.email for i in member.invitations.list()] == ["mine@mail.test"]


def test_expiry_in_days_before_feature_level_126(fresh_sandbox: Sandbox) -> None:
    sent: list[dict[str, str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/register"):
            return httpx.Response(
                200, json={"result": "success", "msg": "", "zulip_feature_level": 100}
            )
        from urllib.parse import parse_qsl

        sent.append(dict(parse_qsl(request.content.decode())))
        return httpx.Response(200, json={"result": "success", "msg": "", "invite_link": "x"})

    creds = fresh_sandbox.credentials("admin")
    with chatops.Client(credentials=creds, transport=httpx.MockTransport(handler)) as client:
        client.invitations.create_link(expires_in_minutes=3000)
    assert sent[-1]["invite_expires_in_days"] == "3"
    assert "invite_expires_in_minutes" not in sent[-1]
