"""BigBlueButton calls on a server with no video server, as the real server answers: the
create call signs the meeting into a join link without asking the video server; following
the link is refused with "BigBlueButton is not configured."."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

import httpx

import chatops
from chatops.sandbox import Sandbox
from tests.sandbox.helpers import assert_error, raw


def _details(url: str) -> dict[str, object]:
    token = parse_qs(urlsplit(url).query)["bigbluebutton"][0]
    payload, _signature = token.split(":")
    decoded: dict[str, object] = json.loads(base64.urlsafe_b64decode(payload + "=" * 4))
    return decoded


def test_a_signed_link_and_a_refused_join(
    sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    member = client_for("member")
    url = member.server.bigbluebutton_call("standup", voice_only=True)
    assert urlsplit(url).path == "/calls/bigbluebutton/join"
    details = _details(url)
    assert details["name"] == "standup" and details["lock_settings_disable_cam"] is True
    assert details["moderator"] == sandbox.accounts["member"].user_id
    assert str(details["meeting_id"]).startswith("zulip-")
    assert (
        _details(member.server.bigbluebutton_call("standup"))["meeting_id"] != details["meeting_id"]
    )
    assert _details(member.server.bigbluebutton_call("x"))["lock_settings_disable_cam"] is False
    joined = httpx.get(f"{sandbox.site}{url}")
    assert joined.status_code == 400
    assert joined.json() == {
        "result": "error",
        "msg": "BigBlueButton is not configured.",
        "code": "BAD_REQUEST",
    }


def test_the_meeting_name_is_required(sandbox: Sandbox) -> None:
    body = assert_error(
        raw(sandbox, "member", "GET", "/calls/bigbluebutton/create"), "REQUEST_VARIABLE_MISSING"
    )
    assert body["var_name"] == "meeting_name"
