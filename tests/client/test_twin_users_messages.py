"""Accounts, statuses, bots, messages, typing, push devices, uploads and the event iterator on
both clients (``twin``). Changes to accounts go to the module's own organization
(``fresh_sandbox``)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.sandbox.push import outbox

from .test_uploads_tus import DropsMidUpload


def test_accounts_and_bots(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    owner = client_for("owner", fresh_sandbox)
    email = f"twin-{twin}@mail.test"
    uid = owner.users.create(email=email, password="a long pass phrase", full_name="Twin")
    assert owner.users.get_by_email(email).user_id == uid
    owner.users.update(uid, full_name="Twin Two", role=400)
    got = owner.users.get(uid)
    assert (got.full_name, got.role) == ("Twin Two", 400)
    active = "SELECT is_active FROM users WHERE id = ?"
    owner.users.deactivate(uid)
    assert fresh_sandbox.store.scalar(active, [uid]) == 0
    owner.users.reactivate(uid)
    assert fresh_sandbox.store.scalar(active, [uid]) == 1

    bot = owner.bots.create(full_name=f"Twin bot {twin}", short_name=f"twinbot{twin}")
    assert bot.api_key and bot.email.startswith(f"twinbot{twin}")
    key = owner.bots.regenerate_api_key(bot.user_id)
    assert key and key != bot.api_key
    stored = "SELECT api_key FROM users WHERE id = ?"
    assert fresh_sandbox.store.scalar(stored, [bot.user_id]) == key
    owner.bots.deactivate(bot.user_id)
    assert fresh_sandbox.store.scalar(active, [bot.user_id]) == 0


def test_statuses(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    me = member.users.me().user_id
    member.users.set_status(status_text=f"lunch {twin}", emoji_name="pizza", away=True)
    status = admin.users.get_status(me)
    assert (status.status_text, status.emoji_name) == (f"lunch {twin}", "pizza")
    admin.users.set_user_status(me, status_text="back")
    assert member.users.get_status(me).status_text == "back"
    report = admin.users.set_status_many(
        [{"status_text": f"admin {twin}"}, {"user_id": me, "status_text": "x" * 61}], concurrency=2
    )
    assert [item.ok for item in report] == [True, False]
    assert member.users.get_status(admin.users.me().user_id).status_text == f"admin {twin}"
    assert member.users.get_status(me).status_text == "back"


def test_send_read_move_and_delete(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    me = member.users.me().user_id
    topic = f"twin move {twin}"
    first = admin.messages.send("stream", "general", "one", topic=topic).id
    second = admin.messages.send("stream", "general", "two", topic=topic).id
    direct = admin.messages.send_direct([me], f"hello {twin}").id
    assert member.messages.get_one(direct).content.endswith(f"hello {twin}</p>")

    narrow = [
        {"operator": "channel", "operand": "general"},
        {"operator": "topic", "operand": topic},
    ]
    body = json.loads(member.messages.get_raw(anchor="newest", num_before=5, narrow=narrow))
    assert [m["id"] for m in body["messages"]] == [first, second]
    pages = list(member.messages.iter_pages(narrow=narrow, page_size=1))
    assert [[m.id for m in page] for page in pages] == [[second], [first]]

    moved = f"{topic} moved"
    admin.messages.move_topic(
        first,
        topic=moved,
        send_notification_to_old_thread=False,
        send_notification_to_new_thread=False,
    )
    moved_narrow = [narrow[0], {"operator": "topic", "operand": moved}]
    page = member.messages.get(anchor="newest", num_before=5, narrow=moved_narrow)
    assert [(m.id, m.subject) for m in page.messages] == [(first, moved), (second, moved)]

    member.messages.mark_all_as_read()
    unread = member.messages.get(
        anchor="newest", num_before=50, narrow=[{"operator": "is", "operand": "unread"}]
    )
    assert unread.messages == []

    admin.messages.delete(second)
    with pytest.raises(chatops.ApiError) as gone:
        member.messages.get_one(second)
    assert gone.value.code == "BAD_REQUEST"


def test_typing_and_push(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    me = member.users.me().user_id
    general = admin.channels.get_id("general")
    mid = member.messages.send_to_channel("general", f"typing {twin}", "draft").id
    reg = admin.events.register(event_types=["typing", "typing_edit_message"])
    assert reg.queue_id is not None
    member.typing.set("start", to=[admin.users.me().user_id])
    member.typing.set("start", stream_id=general, topic=f"typing {twin}")
    member.typing.editing(mid, "start")
    events = admin.events.get(reg.queue_id, last_event_id=reg.last_event_id, dont_block=True)
    seen = [(e["type"], e.get("message_type"), e.get("message_id")) for e in events]
    assert seen == [
        ("typing", "direct", None),
        ("typing", "stream", None),
        ("typing_edit_message", None, mid),
    ]
    admin.events.delete_queue(reg.queue_id)

    token = f"twin-token-{twin}"
    member.push.register(token, platform="fcm")
    before = len(outbox(fresh_sandbox.store, me))
    member.push.test_notification(token=token)
    assert [s["token"] for s in outbox(fresh_sandbox.store, me)[before:]] == [token]
    member.push.unregister(token, platform="fcm")
    devices = "SELECT count(*) FROM push_devices WHERE user_id = ? AND token = ?"
    assert fresh_sandbox.store.scalar(devices, [me, token]) == 0


def test_resume_and_delete_attachment(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    member = client_for("member", fresh_sandbox)
    data = bytes(range(256)) * 40
    cut = DropsMidUpload(cut_at=3000)
    creds = fresh_sandbox.credentials("member")
    with chatops.Client(credentials=creds, transport=cut, max_retries=1) as flaky:
        flaky._sleep_jitter = None
        with pytest.raises(chatops.UploadInterrupted) as info:
            flaky.uploads.upload(data, "part.bin", resumable=True, chunk_size=1000)
    assert member.uploads.upload_offset(info.value.upload_url) == 3000
    result = member.uploads.resume(info.value.upload_url, data, "part.bin", chunk_size=1000)
    assert member.uploads.download(result.url) == data

    member.messages.send_to_channel("general", f"file {twin}", result.markdown)
    [attachment] = [a for a in member.uploads.attachments() if result.url.endswith(a.path_id)]
    member.uploads.delete_attachment(attachment.id)
    assert attachment.id not in [a.id for a in member.uploads.attachments()]


def test_listen(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    with member.events.listen(event_types=["message"], poll_timeout=10) as stream:
        events = iter(stream)
        sent = admin.messages.send_to_channel("general", f"listen {twin}", "hi").id
        t0 = time.monotonic()
        event = next(events)
        assert time.monotonic() - t0 < 5
        assert (event["type"], event["message"]["id"]) == ("message", sent)
        stream.stop()
