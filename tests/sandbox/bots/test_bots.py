"""``client.bots``: bots owned by the requester, created, listed, changed and deactivated."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error, assert_error, raw


def _is_active(sandbox: Sandbox, user_id: int) -> bool:
    return bool(sandbox.store.scalar("SELECT is_active FROM users WHERE id = ?", [user_id]))


def _unique(prefix: str) -> str:
    return f"{prefix}{time.monotonic_ns()}"


def _events(client: chatops.Client, queue_id: str) -> list[dict[str, Any]]:
    return client.events.get(queue_id, dont_block=True)


def test_owner_creates_and_deactivates_a_bot(
    sandbox: Sandbox, member: chatops.Client, guest: chatops.Client
) -> None:
    short = _unique("helper")
    bot = member.bots.create(full_name=f"Helper {short}", short_name=short)
    assert bot.email == f"{short}-bot@demo.chatops.test" and _is_active(sandbox, bot.user_id)
    with unchanged(sandbox.store), pytest.raises(chatops.ApiError):
        guest.bots.deactivate(bot.user_id)  # neither its owner nor an administrator
    member.bots.deactivate(bot.user_id)
    assert not _is_active(sandbox, bot.user_id)
    with unchanged(sandbox.store), pytest.raises(chatops.ApiError, match="already deactivated"):
        member.bots.deactivate(bot.user_id)


def test_the_async_twin(sandbox: Sandbox) -> None:
    async def main() -> tuple[int, list[str], str]:
        async with chatops.AsyncClient(config_file=sandbox.zuliprc("member")) as member:
            short = _unique("async")
            bot = await member.bots.create(full_name=f"Async {short}", short_name=short)
            changed = await member.bots.update(bot.user_id, full_name=f"Async Renamed {short}")
            key = await member.bots.regenerate_api_key(bot.user_id)
            names = [b.full_name for b in await member.bots.list()]
            await member.bots.deactivate(bot.user_id)
            assert changed.full_name in names and key != bot.api_key
            return bot.user_id, names, key

    user_id, _, key = asyncio.run(main())
    assert not _is_active(sandbox, user_id)
    assert sandbox.store.scalar("SELECT api_key FROM users WHERE id = ?", [user_id]) == key


# -- POST /bots: parameters read as the real server reads them ------------------------------------
def test_payload_url_is_json(sandbox: Sandbox) -> None:
    """``payload_url`` is decoded as JSON: a plain string is refused, a JSON string accepted."""
    short = _unique("plain")
    params = {"full_name": f"Plain {short}", "short_name": short, "bot_type": "3"}
    with unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "POST", "/bots", payload_url="http://127.0.0.1:9/x", **params),
            "BAD_REQUEST",
        )
    assert body["msg"] == 'Argument "payload_url" is not valid JSON.'
    assert "var_name" not in body  # only REQUEST_VARIABLE_* errors carry it (as the real server)
    with unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "POST", "/bots", payload_url='"not a url"', **params),
            "BAD_REQUEST",
        )
    assert body["msg"] == "payload_url is not a URL"
    status, ok = raw(
        sandbox, "member", "POST", "/bots", payload_url='"http://127.0.0.1:9/x"', **params
    )
    assert status == 200 and ok["result"] == "success"
    base_url = sandbox.store.scalar(
        "SELECT base_url FROM outgoing_webhooks WHERE bot_id = ?", [ok["user_id"]]
    )
    assert base_url == "http://127.0.0.1:9/x"


def test_the_client_sends_payload_url_as_json(sandbox: Sandbox, member: chatops.Client) -> None:
    sent: list[httpx.Request] = []
    with chatops.Client.from_zuliprc(sandbox.zuliprc("member")) as client:
        client._http.event_hooks["request"].append(sent.append)
        short = _unique("hook")
        client.bots.create(
            full_name=f"Hook {short}",
            short_name=short,
            bot_type=3,
            payload_url="http://127.0.0.1:9/hook",
        )
    [request] = [r for r in sent if r.url.path.endswith("/bots")]
    assert b"payload_url=%22http%3A%2F%2F127.0.0.1%3A9%2Fhook%22" in request.content


def test_config_data_is_a_json_object_of_strings(sandbox: Sandbox, member: chatops.Client) -> None:
    short = _unique("conf")
    params = {"full_name": f"Conf {short}", "short_name": short, "bot_type": "2"}
    with unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "POST", "/bots", config_data='{"a": 1}', **params),
            "BAD_REQUEST",
        )
    assert body["msg"] == 'config_data["a"] is not a string'
    bot = member.bots.create(
        full_name=f"Conf {short}", short_name=short, bot_type=2, config_data={"api": "k"}
    )
    rows = sandbox.store.query("SELECT key, value FROM bot_config WHERE bot_id = ?", [bot.user_id])
    assert {r["key"]: r["value"] for r in rows} == {"api": "k"}


def test_who_may_create_bots(sandbox: Sandbox, guest: chatops.Client) -> None:
    short = _unique("nope")
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Not allowed for guest users"):
        guest.bots.create(full_name=f"Nope {short}", short_name=short)
    with chatops.Client.from_zuliprc(sandbox.zuliprc("bot")) as bot:
        with (
            unchanged(sandbox.store),
            api_error("BAD_REQUEST", msg="This endpoint does not accept bot requests."),
        ):
            bot.bots.create(full_name=f"Nope {short}", short_name=short)


def test_a_bot_name_in_use_is_refused(sandbox: Sandbox, member: chatops.Client) -> None:
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Name is already in use!"):
        member.bots.create(full_name="Helper Bot", short_name=_unique("dup"))


def test_creation_events(sandbox: Sandbox, member: chatops.Client, admin: chatops.Client) -> None:
    """``realm_bot``/``add`` (with the key) to the owner and admins; ``realm_user`` to all."""
    queues = {
        name: client.events.register(event_types=["realm_bot", "realm_user"]).queue_id
        for name, client in (("member", member), ("admin", admin))
    }
    with chatops.Client.from_zuliprc(sandbox.zuliprc("moderator")) as moderator:
        mod_queue = moderator.events.register(event_types=["realm_bot", "realm_user"]).queue_id
        short = _unique("ev")
        bot = member.bots.create(full_name=f"Ev {short}", short_name=short)
        assert mod_queue is not None
        mod_events = _events(moderator, mod_queue)
    for name, client in (("member", member), ("admin", admin)):
        queue_id = queues[name]
        assert queue_id is not None
        events = _events(client, queue_id)
        [added] = [e for e in events if e["type"] == "realm_bot"]
        assert added["op"] == "add" and added["bot"]["user_id"] == bot.user_id
        assert added["bot"]["api_key"] == bot.api_key
        assert added["bot"]["owner_id"] == sandbox.accounts["member"].user_id
        assert {"services", "default_sending_stream", "is_active"} <= set(added["bot"])
    assert [e["op"] for e in mod_events if e["type"] == "realm_user"] == ["add"]
    assert not [e for e in mod_events if e["type"] == "realm_bot"]  # not an administrator


# -- GET /bots ------------------------------------------------------------------------------------
def test_list_shows_the_requesters_active_bots(
    sandbox: Sandbox, member: chatops.Client, admin: chatops.Client
) -> None:
    short = _unique("mine")
    kept = member.bots.create(full_name=f"Mine {short}", short_name=short)
    gone = member.bots.create(full_name=f"Gone {short}", short_name=f"{short}g")
    member.bots.deactivate(gone.user_id)
    mine = {b.username: b for b in member.bots.list()}
    assert kept.email in mine and gone.email not in mine
    assert mine[kept.email].api_key == kept.api_key and kept.api_key not in repr(mine[kept.email])
    # administrators see their own bots only, as on the real server
    assert kept.email not in {b.username for b in admin.bots.list()}
    assert "helper-bot@demo.chatops.test" in {b.username for b in admin.bots.list()}


def test_guests_may_not_list_bots(guest: chatops.Client) -> None:
    with api_error("BAD_REQUEST", msg="Not allowed for guest users"):
        guest.bots.list()


# -- PATCH /bots/{bot_id} -------------------------------------------------------------------------
@pytest.fixture
def member_bot(member: chatops.Client) -> chatops.types.BotResult:
    short = _unique("pb")
    return member.bots.create(full_name=f"Patch {short}", short_name=short)


def test_rename(
    sandbox: Sandbox,
    member: chatops.Client,
    admin: chatops.Client,
    member_bot: chatops.types.BotResult,
) -> None:
    queue_id = admin.events.register(event_types=["realm_bot", "realm_user"]).queue_id
    assert queue_id is not None
    result = member.bots.update(member_bot.user_id, full_name="  Renamed Patch Bot  ")
    assert result.full_name == "Renamed Patch Bot"
    assert result.bot_owner == "member@demo.chatops.test"
    events = _events(admin, queue_id)
    assert {"type": "realm_bot", "op": "update"} | {
        "bot": {"user_id": member_bot.user_id, "full_name": "Renamed Patch Bot"}
    } in [{k: e[k] for k in ("type", "op", "bot") if k in e} for e in events]
    assert any(
        e["type"] == "realm_user" and e["person"].get("full_name") == "Renamed Patch Bot"
        for e in events
    )
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Name is already in use!"):
        member.bots.update(member_bot.user_id, full_name="Helper Bot")
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Name too short!"):
        member.bots.update(member_bot.user_id, full_name="   ")
    member.bots.deactivate(member_bot.user_id)
    assert member.bots.update(member_bot.user_id, full_name="Renamed Patch Bot 2").full_name


def test_who_may_change_a_bot(
    sandbox: Sandbox,
    member_bot: chatops.types.BotResult,
    admin: chatops.Client,
    moderator: chatops.Client,
    guest: chatops.Client,
) -> None:
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        moderator.bots.update(member_bot.user_id, full_name="Taken Over")
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Not allowed for guest users"):
        guest.bots.update(member_bot.user_id, full_name="Taken Over")
    assert admin.bots.update(member_bot.user_id, full_name=_unique("Admin Renamed ")).full_name
    human = sandbox.accounts["moderator"].user_id
    for target in (human, 10**6):
        with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="No such bot"):
            admin.bots.update(target, full_name="Whatever")


def test_new_owner(
    sandbox: Sandbox,
    member: chatops.Client,
    moderator: chatops.Client,
    admin: chatops.Client,
    member_bot: chatops.types.BotResult,
) -> None:
    member_q = member.events.register(event_types=["realm_bot"]).queue_id
    moderator_q = moderator.events.register(event_types=["realm_bot"]).queue_id
    admin_q = admin.events.register(event_types=["realm_bot", "realm_user"]).queue_id
    assert member_q and moderator_q and admin_q
    new_owner = sandbox.accounts["moderator"].user_id
    result = member.bots.update(member_bot.user_id, bot_owner_id=new_owner)
    assert result.bot_owner == "moderator@demo.chatops.test"
    owner = sandbox.store.scalar(
        "SELECT bot_owner_id FROM users WHERE id = ?", [member_bot.user_id]
    )
    assert owner == new_owner
    assert [(e["op"], e["bot"]["user_id"]) for e in _events(member, member_q)] == [
        ("delete", member_bot.user_id)
    ]
    [added] = _events(moderator, moderator_q)
    assert added["op"] == "add" and added["bot"]["owner_id"] == new_owner
    admin_events = _events(admin, admin_q)
    assert {"user_id": member_bot.user_id, "owner_id": new_owner} in [
        e["bot"] for e in admin_events if e["type"] == "realm_bot"
    ]
    assert {"user_id": member_bot.user_id, "bot_owner_id": new_owner} in [
        e["person"] for e in admin_events if e["type"] == "realm_user"
    ]
    # the old owner no longer administers it; the new one does
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        member.bots.update(member_bot.user_id, full_name="Back")
    assert member_bot.email in {b.username for b in moderator.bots.list()}


def test_new_owner_refusals(
    sandbox: Sandbox, member: chatops.Client, member_bot: chatops.types.BotResult
) -> None:
    inactive = sandbox.store.scalar("SELECT id FROM users WHERE is_active = 0 AND is_bot = 0")
    system_bot = sandbox.store.scalar("SELECT id FROM users WHERE is_system_bot = 1")
    cases = [
        (10**6, "Failed to change owner, no such user"),
        (system_bot, "Failed to change owner, no such user"),
        (inactive, "Failed to change owner, user is deactivated"),
        (sandbox.accounts["bot"].user_id, "Failed to change owner, bots can't own other bots"),
    ]
    for owner_id, msg in cases:
        with unchanged(sandbox.store), api_error("BAD_REQUEST", msg=msg):
            member.bots.update(member_bot.user_id, bot_owner_id=owner_id, full_name="Half Done")


def test_default_channels(
    sandbox: Sandbox, member: chatops.Client, member_bot: chatops.types.BotResult
) -> None:
    result = member.bots.update(
        member_bot.user_id,
        default_sending_stream="general",
        default_events_register_stream="general",
        default_all_public_streams=True,
    )
    assert (result.default_sending_stream, result.default_events_register_stream) == (
        "general",
        "general",
    )
    assert result.default_all_public_streams is True
    [listed] = [b for b in member.bots.list() if b.username == member_bot.email]
    assert listed.default_sending_stream == "general" and listed.default_all_public_streams
    cleared = member.bots.update(member_bot.user_id, default_sending_stream="")
    assert cleared.default_sending_stream is None
    with (
        unchanged(sandbox.store),
        api_error("BAD_REQUEST", msg="Invalid channel name 'no such channel'"),
    ):
        member.bots.update(member_bot.user_id, default_sending_stream="no such channel")


def test_service_payload_url_and_interface(sandbox: Sandbox, member: chatops.Client) -> None:
    short = _unique("svc")
    bot = member.bots.create(
        full_name=f"Svc {short}", short_name=short, bot_type=3, payload_url="http://127.0.0.1:9/a"
    )
    token = bot.services[0].token
    result = member.bots.update(
        bot.user_id, service_payload_url="http://127.0.0.1:9/b", service_interface=2
    )
    assert (result.service_payload_url, result.service_interface) == ("http://127.0.0.1:9/b", 2)
    row = sandbox.store.one("SELECT * FROM outgoing_webhooks WHERE bot_id = ?", [bot.user_id])
    assert row is not None
    assert (row["base_url"], row["interface"], row["token"]) == ("http://127.0.0.1:9/b", 2, token)
    path = f"/bots/{bot.user_id}"
    with unchanged(sandbox.store):
        body = assert_error(
            raw(sandbox, "member", "PATCH", path, service_payload_url="http://127.0.0.1:9/c"),
            "BAD_REQUEST",
        )
    assert body["msg"] == 'Argument "service_payload_url" is not valid JSON.'
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Invalid interface type"):
        member.bots.update(
            bot.user_id, service_payload_url="http://127.0.0.1:9/c", service_interface=9
        )
    generic = member.bots.create(full_name=f"Gen {short}", short_name=f"{short}gen")
    with unchanged(sandbox.store), api_error("BAD_REQUEST"):
        member.bots.update(generic.user_id, service_payload_url="http://127.0.0.1:9/c")


def test_config_data(sandbox: Sandbox, member: chatops.Client) -> None:
    short = _unique("emb")
    bot = member.bots.create(
        full_name=f"Emb {short}", short_name=short, bot_type=4, config_data={"a": "1"}
    )
    result = member.bots.update(bot.user_id, config_data={"b": "2"})
    assert result.config_data == {"b": "2"}
    rows = sandbox.store.query("SELECT key, value FROM bot_config WHERE bot_id = ?", [bot.user_id])
    assert {r["key"]: r["value"] for r in rows} == {"a": "1", "b": "2"}
    with unchanged(sandbox.store), api_error("BAD_REQUEST") as info:
        member.bots.update(bot.user_id, config_data={"big": "x" * 10_001})
    assert info.value.msg.startswith("Cannot store configuration.")


def test_role(
    sandbox: Sandbox,
    member: chatops.Client,
    admin: chatops.Client,
    member_bot: chatops.types.BotResult,
) -> None:
    with unchanged(sandbox.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        member.bots.update(member_bot.user_id, role=300)
    with unchanged(sandbox.store), api_error("UNAUTHORIZED_PRINCIPAL"):
        admin.bots.update(member_bot.user_id, role=100)  # owners only
    admin.bots.update(member_bot.user_id, role=300)
    role = sandbox.store.scalar("SELECT role FROM users WHERE id = ?", [member_bot.user_id])
    assert role == 300


# -- POST /bots/{bot_id}/api_key/regenerate -------------------------------------------------------
def test_regenerated_key_replaces_the_old_one_at_once(
    sandbox: Sandbox, member: chatops.Client, moderator: chatops.Client
) -> None:
    short = _unique("key")
    bot = member.bots.create(full_name=f"Key {short}", short_name=short)
    with chatops.Client(sandbox.site, bot.email, bot.api_key) as old:
        assert old.users.me().user_id == bot.user_id
        queue_id = member.events.register(event_types=["realm_bot"]).queue_id
        assert queue_id is not None
        key = member.bots.regenerate_api_key(bot.user_id)
        assert key != bot.api_key and len(key) == 32
        with api_error("UNAUTHORIZED", 401):
            old.users.me()
    with chatops.Client(sandbox.site, bot.email, key) as new:
        assert new.users.me().user_id == bot.user_id
    assert {"user_id": bot.user_id, "api_key": key} in [e["bot"] for e in _events(member, queue_id)]
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Insufficient permission"):
        moderator.bots.regenerate_api_key(bot.user_id)


def test_a_demo_bots_credential_files_follow_its_new_key(
    fresh_sandbox: Sandbox, client_for: Any
) -> None:
    admin = client_for("admin", fresh_sandbox)
    bot_id = fresh_sandbox.accounts["bot"].user_id
    old = fresh_sandbox.accounts["bot"].api_key
    key = admin.bots.regenerate_api_key(bot_id)
    rc = fresh_sandbox.zuliprc("bot").read_text()
    assert f"key={key}" in rc and old not in rc
    assert fresh_sandbox.accounts["bot"].api_key == key
    assert key in (fresh_sandbox.data_dir / "accounts.json").read_text()
    with chatops.Client.from_zuliprc(fresh_sandbox.zuliprc("bot")) as bot:
        assert bot.users.me().user_id == bot_id


# -- bot storage ----------------------------------------------------------------------------------
@pytest.fixture
def new_bot(sandbox: Sandbox, member: chatops.Client) -> Any:
    short = _unique("store")
    made = member.bots.create(full_name=f"Store {short}", short_name=short)
    with chatops.Client(sandbox.site, made.email, made.api_key) as client:
        yield made, client


def test_storage_round_trip(new_bot: Any) -> None:
    _, bot = new_bot
    assert bot.bots.get_storage() == {}
    bot.bots.update_storage({"a": "1", "b": "2"})
    bot.bots.update_storage({"b": "3"})
    assert bot.bots.get_storage() == {"a": "1", "b": "3"}
    assert bot.bots.get_storage(["b"]) == {"b": "3"}
    bot.bots.remove_storage(["a"])
    assert bot.bots.get_storage() == {"b": "3"}
    bot.bots.remove_storage()
    assert bot.bots.get_storage() == {}


def test_storage_is_per_account(new_bot: Any, member: chatops.Client) -> None:
    _, bot = new_bot
    bot.bots.update_storage({"secret": "bot's"})
    assert "secret" not in member.bots.get_storage()


def test_storage_refusals(sandbox: Sandbox, new_bot: Any) -> None:
    made, bot = new_bot
    bot.bots.update_storage({"a": "1"})
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Key does not exist."):
        bot.bots.get_storage(["a", "nope"])
    with unchanged(sandbox.store), api_error("BAD_REQUEST", msg="Key does not exist."):
        bot.bots.remove_storage(["a", "nope"])
    auth = (made.email, made.api_key)
    url = f"{sandbox.site}/api/v1/bot_storage"
    with unchanged(sandbox.store):
        r = httpx.put(url, data={}, auth=auth)
    assert (r.status_code, r.json()["code"]) == (400, "REQUEST_VARIABLE_MISSING")
    for storage, msg in (
        ('{"a": 1}', 'storage["a"] is not a string'),
        ('["a"]', "storage is not a dict"),
        ("a=1", 'Argument "storage" is not valid JSON.'),
    ):
        with unchanged(sandbox.store):
            r = httpx.put(url, data={"storage": storage}, auth=auth)
        assert (r.status_code, r.json()["code"], r.json()["msg"]) == (400, "BAD_REQUEST", msg)
    r = httpx.get(url, params={"keys": "[1]"}, auth=auth)
    assert (r.status_code, r.json()["msg"]) == (400, "keys[0] is not a string")


def test_storage_size_limit(
    sandbox: Sandbox, new_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from chatops.sandbox import bot_storage

    _, bot = new_bot
    monkeypatch.setattr(bot_storage, "STORAGE_SIZE_LIMIT", 20)
    bot.bots.update_storage({"k": "x" * 9})  # 10 characters
    bot.bots.update_storage({"k": "y" * 19})  # replaces: 20 characters in all
    with (
        unchanged(sandbox.store),
        api_error(
            "BAD_REQUEST",
            msg="Request exceeds storage limit by 2 characters. The limit is 20 characters.",
        ),
    ):
        bot.bots.update_storage({"j": "z"})
    assert bot.bots.get_storage() == {"k": "y" * 19}


def test_deactivation_and_reactivation_events(
    sandbox: Sandbox, member: chatops.Client, admin: chatops.Client
) -> None:
    """Since feature level 222 a bot's (de)activation is a ``realm_bot`` update of is_active."""
    short = _unique("act")
    bot = member.bots.create(full_name=f"Act {short}", short_name=short)
    queue_id = member.events.register(event_types=["realm_bot"]).queue_id
    assert queue_id is not None
    member.bots.deactivate(bot.user_id)
    admin.users.reactivate(bot.user_id)
    assert [e["bot"] for e in _events(member, queue_id)] == [
        {"user_id": bot.user_id, "is_active": False},
        {"user_id": bot.user_id, "is_active": True},
    ]


def test_changes_after_a_new_owner_are_told_to_the_new_owner(
    sandbox: Sandbox,
    member: chatops.Client,
    moderator: chatops.Client,
    member_bot: chatops.types.BotResult,
) -> None:
    member_q = member.events.register(event_types=["realm_bot"]).queue_id
    moderator_q = moderator.events.register(event_types=["realm_bot"]).queue_id
    assert member_q and moderator_q
    member.bots.update(
        member_bot.user_id,
        bot_owner_id=sandbox.accounts["moderator"].user_id,
        default_all_public_streams=True,
    )
    assert [e["op"] for e in _events(member, member_q)] == ["delete"]
    got = _events(moderator, moderator_q)
    assert [e["op"] for e in got] == ["add", "update"]
    assert got[1]["bot"] == {"user_id": member_bot.user_id, "default_all_public_streams": True}
