"""Spec section 1 conventions and section 7: envelopes and ignored parameters."""

from __future__ import annotations

import httpx
import pytest

import chatops
from chatops.sandbox import Sandbox


def test_success_envelope_and_ignored_parameters(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    r = httpx.get(
        f"{sandbox.site}/api/v1/users/me",
        params={"bogus": "1", "other": "2"},
        auth=(acc.email, acc.api_key),
    )
    body = r.json()
    assert body["result"] == "success" and body["msg"] == ""
    assert body["ignored_parameters_unsupported"] == ["bogus", "other"]
    plain = httpx.get(f"{sandbox.site}/api/v1/users/me", auth=(acc.email, acc.api_key)).json()
    assert "ignored_parameters_unsupported" not in plain


def test_client_warns_on_ignored_parameters(member: chatops.Client) -> None:
    with pytest.warns(chatops.IgnoredParametersWarning, match="made_up"):
        member._request("GET", "/users/me", params={"made_up": "1"})


def test_error_envelope_has_code_and_msg(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    r = httpx.post(
        f"{sandbox.site}/api/v1/messages",
        data={"type": "stream", "to": "general"},
        auth=(acc.email, acc.api_key),
    )
    assert r.status_code == 400
    assert r.json() == {
        "result": "error",
        "code": "REQUEST_VARIABLE_MISSING",
        "msg": "Missing 'content' argument",
        "var_name": "content",
    }


def test_json_parameters_must_be_json(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    r = httpx.get(
        f"{sandbox.site}/api/v1/messages",
        params={"anchor": "newest", "narrow": "[not json"},
        auth=(acc.email, acc.api_key),
    )
    assert r.status_code == 400 and r.json()["code"] == "BAD_REQUEST"


def test_server_settings_needs_no_auth(sandbox: Sandbox) -> None:
    body = httpx.get(f"{sandbox.site}/api/v1/server_settings").json()
    assert body["zulip_feature_level"] >= 372
    assert body["realm_url"] == sandbox.site
    assert body["authentication_methods"]["password"] is True


def test_register_reports_limits(sandbox: Sandbox) -> None:
    acc = sandbox.accounts["member"]
    body = httpx.post(f"{sandbox.site}/api/v1/register", auth=(acc.email, acc.api_key)).json()
    for name in (
        "max_topic_length",
        "max_message_length",
        "max_stream_name_length",
        "max_stream_description_length",
        "max_channel_folder_name_length",
        "max_channel_folder_description_length",
        "max_file_upload_size_mib",
    ):
        assert isinstance(body[name], int), name
    assert body["realm_empty_topic_display_name"] == "general chat"
    assert body["realm_allow_message_editing"] is True
    assert "realm_can_resolve_topics_group" in body
