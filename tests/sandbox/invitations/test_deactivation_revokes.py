"""Deactivating a user revokes the invitations and reusable links they made, as the real server's
``do_deactivate_user`` does (``revoke_invites_generated_by_user``); other people's stay usable."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx

import chatops
from chatops.sandbox import Sandbox

Make = Callable[..., chatops.Client]


def _inviter(sb: Sandbox, owner: chatops.Client, email: str) -> chatops.Client:
    uid = owner.users.create(email=email, password="inviter-pw-1", full_name="Inviter")
    owner.users.update(uid, role=200)  # an administrator may make invitations and links
    key = chatops.fetch_api_key(sb.site, email, "inviter-pw-1")
    return chatops.Client(site=sb.site, email=email, api_key=key.api_key)


def _emailed_link(sb: Sandbox, address: str) -> str:
    body = sb.store.scalar(
        "SELECT body FROM email_outbox WHERE to_address = ? ORDER BY id DESC", [address]
    )
    found = re.search(r"http\S+/join/[a-z2-7]{24}/", str(body))
    assert found is not None
    return found.group(0)


def test_deactivation_revokes_what_the_user_sent(fresh_sandbox: Sandbox, client_for: Make) -> None:
    sb = fresh_sandbox
    owner = client_for("owner", sb)
    with _inviter(sb, owner, "leaving@example.com") as leaving:
        link = leaving.invitations.create_link()
        leaving.invitations.send("friend@mail.test", stream_ids=[])
        leaving_id = leaving.users.me().user_id
        sent_ids = {i.id for i in leaving.invitations.list() if i.invited_by_user_id == leaving_id}
    assert len(sent_ids) == 2
    kept_link = owner.invitations.create_link()  # someone else's
    emailed = _emailed_link(sb, "friend@mail.test")
    assert httpx.get(link).status_code == 200 and httpx.get(emailed).status_code == 200

    owner.users.deactivate(leaving_id)

    assert sent_ids.isdisjoint(i.id for i in owner.invitations.list())
    for url in (link, emailed):
        assert httpx.get(url).status_code == 404
        r = httpx.post(url, data={"email": "x@mail.test", "full_name": "X", "password": "pw-12345"})
        assert r.status_code == 404 and "expired or been deactivated" in r.text
    assert sb.store.scalar("SELECT count(*) FROM users WHERE delivery_email = 'x@mail.test'") == 0
    statuses = {
        r["status"]
        for r in sb.store.query("SELECT status FROM invites WHERE referrer_id = ?", [leaving_id])
    }
    assert statuses == {"revoked"}
    # the owner's link still works
    assert httpx.get(kept_link).status_code == 200
    assert kept_link in [i.link_url for i in owner.invitations.list()]
