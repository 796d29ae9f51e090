"""Test push notifications over HTTP (spec 4.20): devices, the simulated bouncer, its outbox."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import chatops
from chatops.sandbox import Sandbox, push
from tests.conftest import unchanged
from tests.sandbox.helpers import api_error

Make = Callable[..., chatops.Client]


@pytest.fixture
def member(client_for: Make, fresh_sandbox: Sandbox) -> chatops.Client:
    return client_for("member", fresh_sandbox)


def test_test_notification_reaches_the_outbox(
    fresh_sandbox: Sandbox, member: chatops.Client
) -> None:
    sb = fresh_sandbox
    uid = sb.accounts["member"].user_id
    member.push.register("fcm-token-1", platform="fcm")
    member.push.register("abcdef0123", platform="apns", app_id="org.zulip.Zulip")
    before = len(push.outbox(sb.store, uid))
    member.push.test_notification(token="fcm-token-1")
    sent = push.outbox(sb.store, uid)[before:]
    assert [(s["kind"], s["token"]) for s in sent] == [("fcm", "fcm-token-1")]
    assert sent[0]["payload"]["event"] == "test"
    assert sent[0]["payload"]["realm_name"] == "Chatops Demo"
    assert sent[0]["payload"]["user_id"] == uid

    member.push.test_notification()  # every registered device
    sent = push.outbox(sb.store, uid)[before + 1 :]
    assert sorted(s["kind"] for s in sent) == ["apns", "fcm"]
    apns = next(s for s in sent if s["kind"] == "apns")["payload"]
    assert apns["custom"]["zulip"]["event"] == "test"
    assert apns["custom"]["zulip"]["realm_name"] == "Chatops Demo"


def test_unknown_token_errors(fresh_sandbox: Sandbox, member: chatops.Client) -> None:
    sb = fresh_sandbox
    uid = sb.accounts["member"].user_id
    with unchanged(sb.store), api_error("INVALID_PUSH_DEVICE_TOKEN") as info:
        member.push.test_notification(token="never-registered")
    assert isinstance(info.value, chatops.InvalidPushDeviceToken)
    member.push.register("forgotten", platform="fcm")
    with sb.store.atomic():
        push.bouncer_forget(sb.store, uid, "fcm", "forgotten")
    with unchanged(sb.store), api_error("INVALID_REMOTE_PUSH_DEVICE_TOKEN") as info:
        member.push.test_notification(token="forgotten")
    assert isinstance(info.value, chatops.InvalidRemotePushDeviceToken)


def test_device_registration_rules(fresh_sandbox: Sandbox, member: chatops.Client) -> None:
    sb = fresh_sandbox
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Invalid APNS token"):
        member.push.register("not hex!", platform="apns")
    with unchanged(sb.store), api_error("BAD_REQUEST"):
        member.push.register("   ", platform="fcm")
    member.push.register("to-remove", platform="fcm")
    member.push.unregister("to-remove", platform="fcm")
    with unchanged(sb.store), api_error("BAD_REQUEST", msg="Token does not exist"):
        member.push.unregister("to-remove", platform="fcm")
    with api_error("INVALID_PUSH_DEVICE_TOKEN"):
        member.push.test_notification(token="to-remove")
    with pytest.raises(ValueError):
        member.push.register("x", platform="pager")  # type: ignore[arg-type]


def test_event_name_before_feature_level_234(tmp_path_factory: pytest.TempPathFactory) -> None:
    with Sandbox.start(tmp_path_factory.mktemp("old-push"), seed=5, feature_level=233) as sb:
        with chatops.Client.from_zuliprc(sb.zuliprc("member")) as client:
            client.push.register("old-device", platform="fcm")
            client.push.test_notification()
        payload = push.outbox(sb.store)[-1]["payload"]
    assert payload["event"] == "test-by-device-token"
    assert "realm_name" not in payload
