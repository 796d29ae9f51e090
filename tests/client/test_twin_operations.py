"""Read receipts, leaving, joining and leaving channels at once, deleting a topic, code
playgrounds, settings for new users and BigBlueButton links on both clients (``twin``),
against the module's own organization (``fresh_sandbox``)."""

from __future__ import annotations

from collections.abc import Callable

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.helpers import post, stream_id, topic_ids

Make = Callable[..., chatops.Client]


def test_messages_and_channels(client_for: Make, fresh_sandbox: Sandbox, twin: str) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    sent = member.messages.send_to_channel("general", f"receipts {twin}", "read me").id
    admin.messages.update_flags([sent], op="add", flag="read")
    assert admin.users.me().user_id in member.messages.read_receipts(sent)

    result = member.channels.update_subscriptions(
        add=[{"name": f"twin room {twin}", "color": "#336699"}], delete=["random"]
    )
    assert list(result.subscribed.values()) == [[f"twin room {twin}"]]
    assert result.removed == ["random"] or result.not_removed == ["random"]

    sid = stream_id(fresh_sandbox, "general")
    post(fresh_sandbox, "member", "general", f"doomed {twin}", "x")
    assert admin.channels.delete_topic(sid, f"doomed {twin}") is True
    assert topic_ids(fresh_sandbox, "general", f"doomed {twin}") == []


def test_realm_and_server(client_for: Make, fresh_sandbox: Sandbox, twin: str) -> None:
    admin = client_for("admin", fresh_sandbox)
    pid = admin.realm.add_playground(
        name=f"Play {twin}", pygments_language="Python", url_template="https://p.test/?c={code}"
    )
    state = admin.server.register(fetch_event_types=["realm_playgrounds"])
    assert pid in [p["id"] for p in state["realm_playgrounds"]]
    admin.realm.remove_playground(pid)
    admin.realm.update_user_settings_defaults(emojiset="text" if twin == "sync" else "twitter")
    state = admin.server.register(fetch_event_types=["realm_user_settings_defaults"])
    assert state["realm_user_settings_defaults"]["emojiset"] == (
        "text" if twin == "sync" else "twitter"
    )
    assert admin.server.bigbluebutton_call(f"call {twin}").startswith("/calls/bigbluebutton/join?")


def test_leaving(client_for: Make, fresh_sandbox: Sandbox, make_client: Make, twin: str) -> None:
    admin = client_for("admin", fresh_sandbox)
    email = f"leaver-{twin}@example.com"
    user_id = admin.users.create(email=email, password="pw-123456", full_name=f"Leaver {twin}")
    key = fresh_sandbox.store.scalar("SELECT api_key FROM users WHERE id = ?", [user_id])
    leaver = make_client(site=fresh_sandbox.site, email=email, api_key=key)
    leaver.users.deactivate_own_account()
    assert fresh_sandbox.store.scalar("SELECT is_active FROM users WHERE id = ?", [user_id]) == 0
