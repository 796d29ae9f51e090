"""Every public method of the official ``zulip`` client, run against the sandbox.

The methods are enumerated from ``zulip.Client`` itself, so a method that a new release of
the client adds fails :func:`test_method` until :data:`CALLS` gives it arguments. Each call
is made with the owner's account of a small demo organization (the bot account for bot
storage) and must answer ``result: success``; the few methods that are not one API call
(``call_on_each_*`` loop over the event queue, ``ensure_session`` and ``get_user_agent`` make
no request) have their own check in :data:`CHECKS`.

Removed endpoints: :data:`REMOVED` lists each method whose endpoint the real server no longer
routes, with the reason; :func:`test_removed_method_is_refused` checks that the sandbox
refuses it too. ``update_notification_settings`` (``PATCH /settings/notifications``) and
``mute_topic`` (``PATCH /users/me/subscriptions/muted_topics``) are deprecated aliases that
the real server still routes (the OpenAPI description of Zulip 10.2 says so), so they are
called like the others.

Needing something outside the API: ``create_user`` needs, on a real server, the
``can_create_users`` permission that only a server administrator's management command
grants; the sandbox lets organization administrators create users, so it is called as well.
"""

from __future__ import annotations

import inspect
import io
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import zulip

import chatops
from chatops.sandbox import Sandbox

#: the public callables of the official client: what this test must cover
METHODS = sorted(
    name for name, member in inspect.getmembers(zulip.Client, callable) if not name.startswith("_")
)

#: methods whose endpoint the real server has removed, with the reason (see the docstring)
REMOVED: dict[str, str] = {
    "remove_user_group": (
        "DELETE /user_groups/{id} is gone since Zulip 10.0 (feature level 290): groups are "
        "deactivated with POST /user_groups/{id}/deactivate, and the OpenAPI description of "
        "/user_groups/{user_group_id} has only PATCH"
    ),
}


@dataclass
class World:
    """The sandbox and official clients of its owner and bot accounts; fresh names on demand."""

    sandbox: Sandbox
    owner: zulip.Client
    bot: zulip.Client
    admin: chatops.Client
    _count: list[int] = field(default_factory=lambda: [0])

    def unique(self, prefix: str) -> str:
        self._count[0] += 1
        return f"{prefix} {self._count[0]} {time.monotonic_ns()}"

    @property
    def owner_id(self) -> int:
        return self.sandbox.accounts["owner"].user_id

    @property
    def member_id(self) -> int:
        return self.sandbox.accounts["member"].user_id

    def stream_id(self, name: str = "general") -> int:
        answer = self.owner.get_stream_id(name)
        assert answer["result"] == "success", answer
        return int(answer["stream_id"])

    def new_stream(self) -> tuple[str, int]:
        name = self.unique("official")
        answer = self.owner.add_subscriptions([{"name": name}])
        assert answer["result"] == "success", answer
        return name, self.stream_id(name)

    def send(self, topic: str = "official client", content: str = "hello") -> int:
        answer = self.owner.send_message(
            {"type": "stream", "to": "general", "topic": topic, "content": content}
        )
        assert answer["result"] == "success", answer
        return int(answer["id"])

    def new_user(self) -> int:
        name = self.unique("Newcomer")
        email = name.replace(" ", ".").lower() + "@demo.chatops.test"
        answer = self.owner.create_user(
            {"email": email, "password": "a long enough password", "full_name": name}
        )
        assert answer["result"] == "success", answer
        return int(answer["user_id"])

    def new_group(self) -> int:
        answer = self.owner.create_user_group(
            {"name": self.unique("group"), "description": "made by the client", "members": []}
        )
        assert answer["result"] == "success", answer
        return int(answer["group_id"])

    def new_linkifier(self) -> int:
        answer = self.owner.add_realm_filter(
            rf"{self.unique('T').split()[1]}-(?P<id>[0-9]+)", "https://example.com/t/{id}"
        )
        assert answer["result"] == "success", answer
        return int(answer["id"])

    def new_profile_field(self) -> int:
        answer = self.owner.create_realm_profile_field(name=self.unique("Field"), field_type=1)
        assert answer["result"] == "success", answer
        return int(answer["id"])

    def queue(self) -> tuple[str, int]:
        answer = self.owner.register(event_types=["message"])
        assert answer["result"] == "success", answer
        return str(answer["queue_id"]), int(answer["last_event_id"])


class _Received(Exception):
    """Raised by a callback to leave the client's endless event loop with what it got."""

    def __init__(self, item: dict[str, Any]) -> None:
        super().__init__("received")
        self.item = item


def _first_delivered(world: World, run: Callable[[Callable[[dict[str, Any]], None]], None]) -> Any:
    """Run a ``call_on_each_*`` loop until it hands its callback a message sent meanwhile."""
    content = world.unique("delivered")
    stop = threading.Event()

    def keep_sending() -> None:  # the loop registers its queue itself: send until it is seen
        while not stop.wait(0.2):
            world.send(content=content)

    def callback(item: dict[str, Any]) -> None:
        raise _Received(item)

    sender = threading.Thread(target=keep_sending, daemon=True)
    sender.start()
    try:
        run(callback)
    except _Received as got:
        return got.item
    finally:
        stop.set()
        sender.join()
    raise AssertionError("the event loop returned without an event")


def _upload(name: str, data: bytes) -> io.BytesIO:
    f = io.BytesIO(data)
    f.name = name
    return f


PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)

Call = Callable[[World], Any]

#: arguments that make sense for each method: the call, made with the owner's client
CALLS: dict[str, Call] = {
    "add_alert_words": lambda w: w.owner.add_alert_words(["chatops"]),
    "add_default_stream": lambda w: w.owner.add_default_stream(w.new_stream()[1]),
    "add_reaction": lambda w: w.owner.add_reaction(
        {"message_id": w.send(), "emoji_name": "octopus"}
    ),
    "add_realm_filter": lambda w: w.owner.add_realm_filter(
        r"GH-(?P<id>[0-9]+)", "https://github.com/zulip/zulip/issues/{id}"
    ),
    "add_subscriptions": lambda w: w.owner.add_subscriptions([{"name": w.unique("subscribe")}]),
    "call_endpoint": lambda w: w.owner.call_endpoint("users/me", method="GET"),
    "call_on_each_event": lambda w: _first_delivered(
        w, lambda cb: w.owner.call_on_each_event(cb, event_types=["message"])
    ),
    "call_on_each_message": lambda w: _first_delivered(w, w.owner.call_on_each_message),
    "check_messages_match_narrow": lambda w: w.owner.check_messages_match_narrow(
        msg_ids=[w.send(content="see https://example.com")],
        narrow=[{"operator": "has", "operand": "link"}],
    ),
    "create_realm_profile_field": lambda w: w.owner.create_realm_profile_field(
        name=w.unique("Phone"), hint="", field_type=1
    ),
    "create_user": lambda w: w.owner.create_user(
        {
            "email": f"newbie{time.monotonic_ns()}@demo.chatops.test",
            "password": "a long enough password",
            "full_name": w.unique("Newbie"),
        }
    ),
    "create_user_group": lambda w: w.owner.create_user_group(
        {"name": w.unique("group"), "description": "made by the client", "members": [w.owner_id]}
    ),
    "deactivate_user_by_id": lambda w: w.owner.deactivate_user_by_id(w.new_user()),
    "delete_custom_emoji": lambda w: w.owner.delete_custom_emoji("shipit"),
    "delete_message": lambda w: w.owner.delete_message(w.send()),
    "delete_stream": lambda w: w.owner.delete_stream(w.new_stream()[1]),
    "deregister": lambda w: w.owner.deregister(w.queue()[0]),
    "do_api_query": lambda w: w.owner.do_api_query({}, "v1/users/me", method="GET"),
    "ensure_session": lambda w: (w.owner.ensure_session(), w.owner.session)[1],
    "get_alert_words": lambda w: w.owner.get_alert_words(),
    "get_attachments": lambda w: w.owner.get_attachments(),
    "get_events": lambda w: w.owner.get_events(
        queue_id=w.queue()[0], last_event_id=-1, dont_block=True
    ),
    "get_members": lambda w: w.owner.get_members(),
    "get_message_history": lambda w: w.owner.get_message_history(w.send()),
    "get_messages": lambda w: w.owner.get_messages(
        {
            "anchor": "newest",
            "num_before": 5,
            "num_after": 0,
            "narrow": [{"operator": "channel", "operand": "general"}],
        }
    ),
    "get_profile": lambda w: w.owner.get_profile(),
    "get_raw_message": lambda w: w.owner.get_raw_message(w.send()),
    "get_realm_emoji": lambda w: w.owner.get_realm_emoji(),
    "get_realm_linkifiers": lambda w: w.owner.get_realm_linkifiers(),
    "get_realm_presence": lambda w: w.owner.get_realm_presence(),
    "get_realm_profile_fields": lambda w: w.owner.get_realm_profile_fields(),
    "get_server_settings": lambda w: w.owner.get_server_settings(),
    "get_storage": lambda w: (
        w.bot.update_storage({"storage": {"greeting": "hi"}}),
        w.bot.get_storage({"keys": ["greeting"]}),
    )[1],
    "get_stream_email_address": lambda w: w.owner.get_stream_email_address(w.stream_id()),
    "get_stream_id": lambda w: w.owner.get_stream_id("general"),
    "get_stream_topics": lambda w: w.owner.get_stream_topics(w.stream_id()),
    "get_subscriptions": lambda w: w.owner.get_subscriptions(),
    "get_streams": lambda w: w.owner.get_streams(include_public=True),
    "get_subscribers": lambda w: w.owner.get_subscribers(stream="general"),
    "get_subscription_status": lambda w: w.owner.get_subscription_status(
        w.member_id, w.stream_id()
    ),
    "get_user_agent": lambda w: w.owner.get_user_agent(),
    "get_user_by_id": lambda w: w.owner.get_user_by_id(w.member_id),
    "get_user_groups": lambda w: w.owner.get_user_groups(),
    "get_user_presence": lambda w: (
        w.owner.update_presence({"status": "active", "new_user_input": True}),
        w.owner.get_user_presence("owner@demo.chatops.test"),
    )[1],
    "get_users": lambda w: w.owner.get_users(),
    "list_subscriptions": lambda w: w.owner.list_subscriptions(),
    "mark_all_as_read": lambda w: w.owner.mark_all_as_read(),
    "mark_stream_as_read": lambda w: w.owner.mark_stream_as_read(w.stream_id()),
    "mark_topic_as_read": lambda w: (
        w.send(topic="to read"),
        w.owner.mark_topic_as_read(w.stream_id(), "to read"),
    )[1],
    "move_topic": lambda w: (
        w.send(topic=(topic := w.unique("to move"))),
        w.owner.move_topic("general", w.new_stream()[0], topic),
    )[1],
    "mute_topic": lambda w: (
        w.send(topic="to mute"),
        w.owner.mute_topic({"stream": "general", "topic": "to mute", "op": "add"}),
    )[1],
    "reactivate_user_by_id": lambda w: (
        (user_id := w.new_user()),
        w.owner.deactivate_user_by_id(user_id),
        w.owner.reactivate_user_by_id(user_id),
    )[2],
    "register": lambda w: w.owner.register(event_types=["message", "realm_user"]),
    "remove_alert_words": lambda w: w.owner.remove_alert_words(["chatops"]),
    "remove_reaction": lambda w: (
        (message_id := w.send()),
        w.owner.add_reaction({"message_id": message_id, "emoji_name": "tada"}),
        w.owner.remove_reaction({"message_id": message_id, "emoji_name": "tada"}),
    )[2],
    "remove_realm_filter": lambda w: w.owner.remove_realm_filter(w.new_linkifier()),
    "remove_realm_profile_field": lambda w: w.owner.remove_realm_profile_field(
        w.new_profile_field()
    ),
    "remove_subscriptions": lambda w: w.owner.remove_subscriptions([w.new_stream()[0]]),
    "render_message": lambda w: w.owner.render_message({"content": "**bold** GH-12"}),
    "reorder_realm_profile_fields": lambda w: (
        (fields := w.owner.get_realm_profile_fields()),
        w.owner.reorder_realm_profile_fields(
            order=list(reversed([f["id"] for f in fields.get("custom_fields", [])]))
        ),
    )[1],
    "send_message": lambda w: w.owner.send_message(
        {"type": "stream", "to": "general", "topic": "official client", "content": "hi"}
    ),
    "set_typing_status": lambda w: w.owner.set_typing_status(
        {"op": "start", "to": [w.member_id], "type": "direct"}
    ),
    "update_message": lambda w: w.owner.update_message(
        {"message_id": w.send(), "content": "edited by the client"}
    ),
    "update_message_flags": lambda w: w.owner.update_message_flags(
        {"messages": [w.send()], "op": "add", "flag": "starred"}
    ),
    "update_notification_settings": lambda w: w.owner.update_notification_settings(
        {"enable_sounds": False}
    ),
    "update_presence": lambda w: w.owner.update_presence(
        {"status": "active", "ping_only": False, "new_user_input": True}
    ),
    "update_realm_profile_field": lambda w: w.owner.update_realm_profile_field(
        w.new_profile_field(), name=w.unique("Renamed")
    ),
    "update_storage": lambda w: w.bot.update_storage({"storage": {"counter": "1"}}),
    "update_stream": lambda w: w.owner.update_stream(
        {"stream_id": w.new_stream()[1], "description": "changed by the client"}
    ),
    "update_subscription_settings": lambda w: w.owner.update_subscription_settings(
        [{"stream_id": w.stream_id(), "property": "pin_to_top", "value": True}]
    ),
    "update_user_by_id": lambda w: w.owner.update_user_by_id(
        w.new_user(), full_name=w.unique("Renamed")
    ),
    "update_user_group": lambda w: w.owner.update_user_group(
        {"group_id": w.new_group(), "description": "changed by the client"}
    ),
    "update_user_group_members": lambda w: w.owner.update_user_group_members(
        w.new_group(), {"add": [w.member_id]}
    ),
    "upload_custom_emoji": lambda w: w.owner.upload_custom_emoji(
        w.unique("emoji").replace(" ", "_"), _upload("emoji.png", PNG)
    ),
    "upload_file": lambda w: w.owner.upload_file(_upload("notes.txt", b"notes\n")),
}


def succeeded(result: Any, world: World) -> None:
    assert isinstance(result, dict) and result.get("result") == "success", result


def _delivered_message(result: Any, world: World) -> None:
    assert result["type"] == "stream" and result["sender_id"] == world.owner_id, result


def _delivered_event(result: Any, world: World) -> None:
    assert result["type"] == "message", result
    _delivered_message(result["message"], world)


def _session(result: Any, world: World) -> None:
    assert result is not None and result.auth.username == "owner@demo.chatops.test"


def _user_agent(result: Any, world: World) -> None:
    assert isinstance(result, str) and result.startswith("ZulipPython/"), result


#: the check of a method that is not one API call answering ``result: success``
CHECKS: dict[str, Callable[[Any, World], None]] = {
    "call_on_each_event": _delivered_event,
    "call_on_each_message": _delivered_message,
    "ensure_session": _session,
    "get_user_agent": _user_agent,
}


@pytest.fixture(scope="module")
def world(fresh_sandbox: Sandbox) -> Iterator[World]:
    owner = zulip.Client(config_file=str(fresh_sandbox.zuliprc("owner")), retry_on_errors=False)
    bot = zulip.Client(config_file=str(fresh_sandbox.zuliprc("bot")), retry_on_errors=False)
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("admin")) as admin:
        yield World(fresh_sandbox, owner, bot, admin)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", [n for n in METHODS if n not in REMOVED])
def test_method(name: str, world: World) -> None:
    """One method of the official client, with sensible arguments, succeeds on the sandbox."""
    assert name in CALLS, f"zulip.Client.{name} has no arguments in CALLS yet"
    result = CALLS[name](world)
    CHECKS.get(name, succeeded)(result, world)


#: how each method of :data:`REMOVED` would be called
REMOVED_CALLS: dict[str, Call] = {
    "remove_user_group": lambda w: w.owner.remove_user_group(w.new_group()),
}


@pytest.mark.parametrize("name", sorted(REMOVED))
def test_removed_method_is_refused(name: str, world: World) -> None:
    """The sandbox no longer serves what the real server removed."""
    result = REMOVED_CALLS[name](world)
    assert result["result"] == "error", result


def test_the_tables_name_only_methods_of_the_client() -> None:
    """No stale entries: each table names methods the client has, each method once."""
    for table in (CALLS, REMOVED, CHECKS):
        assert set(table) <= set(METHODS), set(table) - set(METHODS)
    assert not set(CALLS) & set(REMOVED)
    assert set(REMOVED_CALLS) == set(REMOVED)
    assert len(METHODS) >= 70  # the enumeration found the client's methods
