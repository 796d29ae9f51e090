"""Round trips through the smaller areas, run on both clients (``twin``): personal settings,
scheduled messages and reminders, invitations."""

from __future__ import annotations

import time

import chatops


def test_alert_words_drafts_views_and_snippets(member: chatops.Client, twin: str) -> None:
    word = f"twinword{twin}"
    assert word in member.alert_words.add([word])
    assert word in member.alert_words.list()
    assert word not in member.alert_words.remove([word])

    me = member.users.me().user_id
    [draft_id] = member.drafts.create(
        [{"type": "private", "to": [me], "topic": "", "content": f"draft {twin}"}]
    )
    member.drafts.edit(draft_id, {"type": "private", "to": [me], "topic": "", "content": "edited"})
    assert [d.content for d in member.drafts.list() if d.id == draft_id] == ["edited"]
    member.drafts.delete(draft_id)
    assert draft_id not in [d.id for d in member.drafts.list()]

    fragment = f"narrow/channel/1-general/topic/{twin}"
    member.navigation_views.create(fragment, is_pinned=True, name=f"view {twin}")
    member.navigation_views.update(fragment, is_pinned=False)
    views = {v.fragment: v for v in member.navigation_views.list()}
    assert views[fragment].is_pinned is False and views[fragment].name == f"view {twin}"
    member.navigation_views.delete(fragment)
    assert fragment not in [v.fragment for v in member.navigation_views.list()]

    snippet = member.saved_snippets.create(f"greeting {twin}", "Hello!")
    member.saved_snippets.update(snippet, content="Hello again!")
    assert [s.content for s in member.saved_snippets.list() if s.id == snippet] == ["Hello again!"]
    member.saved_snippets.delete(snippet)
    assert snippet not in [s.id for s in member.saved_snippets.list()]


def test_scheduled_messages_and_reminders(member: chatops.Client, twin: str) -> None:
    later = int(time.time()) + 3600
    general = member.channels.get_id("general")
    sid = member.scheduled_messages.create(
        "stream", general, f"later {twin}", topic="plans", scheduled_delivery_timestamp=later
    )
    member.scheduled_messages.update(sid, content=f"much later {twin}")
    mine = {m.scheduled_message_id: m for m in member.scheduled_messages.list()}
    assert mine[sid].content == f"much later {twin}" and mine[sid].to == general
    member.scheduled_messages.delete(sid)
    assert sid not in [m.scheduled_message_id for m in member.scheduled_messages.list()]

    mid = member.messages.send_to_channel("general", "plans", f"remind me {twin}").id
    rid = member.reminders.create(mid, scheduled_delivery_timestamp=later, note="look")
    assert rid in [r.reminder_id for r in member.reminders.list()]
    member.reminders.delete(rid)
    assert rid not in [r.reminder_id for r in member.reminders.list()]


def test_invitations(admin: chatops.Client, twin: str) -> None:
    link = admin.invitations.create_link(expires_in_minutes=60)
    email = f"twin-{twin}-{int(time.time() * 1000)}@mail.test"
    admin.invitations.send(email, stream_ids=[])
    report = admin.invitations.send_many([f"bulk-{email}", "not an address"], concurrency=2)
    assert [item.ok for item in report] == [True, False]
    invites = {i.email or i.link_url: i for i in admin.invitations.list()}
    assert link in invites and email in invites and f"bulk-{email}" in invites
    admin.invitations.resend(invites[email].id)
    admin.invitations.revoke(invites[email].id)
    admin.invitations.revoke_link(invites[link].id)
    left = {i.email or i.link_url for i in admin.invitations.list()}
    assert email not in left and link not in left
