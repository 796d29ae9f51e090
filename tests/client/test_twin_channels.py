"""Channel operations on both clients (``twin``): create by subscribing, read, change, archive,
default channels, folders, topic visibility and subscription properties. Changes go to the
module's own organization (``fresh_sandbox``) so the session sandbox stays as it was."""

from __future__ import annotations

from collections.abc import Callable

import chatops
from chatops.sandbox import Sandbox


def test_channel_life(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    member = client_for("member", fresh_sandbox)
    me = member.users.me().user_id
    name = f"twin-life-{twin}"

    made = admin.channels.subscribe([{"name": name, "description": "first"}], principals=[me])
    assert [name] in made.subscribed.values()
    cid = admin.channels.get_id(name)
    assert me in admin.channels.members(cid)
    assert admin.channels.get(cid).description == "first"

    admin.channels.update(cid, new_name=f"{name}-x", description="second")
    got = admin.channels.get(cid)
    assert (got.name, got.description) == (f"{name}-x", "second")
    assert "@" in admin.channels.email_address(cid)

    mine = {s.stream_id: s for s in member.channels.subscriptions(include_subscribers=True)}
    assert me in (mine[cid].subscribers or [])
    member.channels.update_subscription_properties([(cid, "pin_to_top", True)])
    assert {s.stream_id: s for s in member.channels.subscriptions()}[cid].pin_to_top is True

    member.channels.set_topic_visibility(cid, "quiet", 1)
    policy = "SELECT visibility_policy FROM user_topics WHERE user_id = ? AND stream_id = ?"
    assert fresh_sandbox.store.scalar(policy, [me, cid]) == 1
    left = member.channels.unsubscribe([f"{name}-x"])
    assert left.removed == [f"{name}-x"]
    assert me not in admin.channels.members(cid)

    default = "SELECT is_default FROM streams WHERE id = ?"
    admin.channels.add_default(cid)
    assert fresh_sandbox.store.scalar(default, [cid]) == 1
    admin.channels.remove_default(cid)
    assert fresh_sandbox.store.scalar(default, [cid]) == 0

    admin.channels.archive(cid)
    assert admin.channels.get(cid).is_archived is True
    admin.channels.unarchive(cid)
    assert admin.channels.get(cid).is_archived is False


def test_channel_folders(
    client_for: Callable[..., chatops.Client], fresh_sandbox: Sandbox, twin: str
) -> None:
    admin = client_for("admin", fresh_sandbox)
    first = admin.channels.create_folder(f"twin-a-{twin}", description="one")
    second = admin.channels.create_folder(f"twin-b-{twin}")
    admin.channels.update_folder(second, name=f"twin-bb-{twin}", description="two")
    folders = {f.id: f for f in admin.channels.folders()}
    assert (folders[second].name, folders[second].description) == (f"twin-bb-{twin}", "two")
    order = [f.id for f in admin.channels.folders(include_archived=True)]
    new_order = [second, first] + [i for i in order if i not in (first, second)]
    admin.channels.reorder_folders(new_order)
    assert [f.id for f in admin.channels.folders(include_archived=True)] == new_order
    admin.channels.update_folder(first, is_archived=True)
    assert first not in [f.id for f in admin.channels.folders()]
    assert [
        f.is_archived for f in admin.channels.folders(include_archived=True) if f.id == first
    ] == [True]
