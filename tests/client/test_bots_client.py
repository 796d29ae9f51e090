"""``client.bots``: how the client encodes bot parameters and hides keys (against the sandbox)."""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Callable

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox
from chatops.types import BotApiKeyResult, OwnBot

Recording = Callable[[str], tuple[chatops.Client, list[httpx.Request]]]


@pytest.fixture
def recording(
    sandbox: Sandbox, make_client: Callable[..., chatops.Client], twin: str
) -> Callable[[str], tuple[chatops.Client, list[httpx.Request]]]:
    """``recording(account)``: a client (sync or async) and the list of requests it sends."""

    def make(account: str) -> tuple[chatops.Client, list[httpx.Request]]:
        client = make_client(config_file=sandbox.zuliprc(account))
        sent: list[httpx.Request] = []

        async def remember(request: httpx.Request) -> None:
            sent.append(request)

        client._http.event_hooks["request"].append(sent.append if twin == "sync" else remember)
        return client, sent

    return make


def _form(request: httpx.Request) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(request.content.decode()))


def test_urls_and_configuration_go_out_as_json(recording: Recording) -> None:
    client, sent = recording("member")
    with client:
        short = f"enc{time.monotonic_ns()}"
        bot = client.bots.create(
            full_name=f"Enc {short}",
            short_name=short,
            bot_type=3,
            payload_url="http://127.0.0.1:9/in",
        )
        client.bots.update(
            bot.user_id,
            service_payload_url="http://127.0.0.1:9/moved",
            service_interface=1,
            default_all_public_streams=False,
            default_sending_stream="general",
        )
        embedded = client.bots.create(
            full_name=f"Emb {short}", short_name=f"{short}e", bot_type=4, config_data={"k": "v"}
        )
        assert embedded.user_id
    create, update, create_embedded = (_form(r) for r in sent if r.method in ("POST", "PATCH"))
    assert create["payload_url"] == '"http://127.0.0.1:9/in"'
    assert create["bot_type"] == "3" and create["full_name"] == f"Enc {short}"
    assert update == {
        "service_payload_url": '"http://127.0.0.1:9/moved"',
        "service_interface": "1",
        "default_all_public_streams": "false",
        "default_sending_stream": "general",  # a channel name is a plain string
    }
    assert create_embedded["config_data"] == '{"k":"v"}'


def test_storage_parameters_are_json(recording: Recording) -> None:
    client, sent = recording("bot")
    with client:
        client.bots.update_storage({"a": "1"})
        assert client.bots.get_storage(("a",)) == {"a": "1"}
        client.bots.remove_storage(["a"])
    put, get, delete = sent
    assert (put.method, _form(put)) == ("PUT", {"storage": '{"a":"1"}'})
    assert get.url.params["keys"] == '["a"]'
    assert (delete.method, _form(delete)) == ("DELETE", {"keys": '["a"]'})


def test_keys_stay_out_of_reprs(sandbox: Sandbox, admin: chatops.Client) -> None:
    [helper] = [b for b in admin.bots.list() if b.username == "helper-bot@demo.chatops.test"]
    assert isinstance(helper, OwnBot) and helper.api_key
    assert helper.api_key not in repr(helper)
    secret = BotApiKeyResult(api_key="k" * 32)
    assert "k" * 32 not in repr(secret)
