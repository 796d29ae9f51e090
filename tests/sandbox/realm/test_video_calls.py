"""BigBlueButton calls on a server with no video server, as the real server answers: the
create call signs the meeting into a join link without asking the video server; following
the link without a browser's login session (the sandbox keeps none) redirects to the login
page, as ``@zulip_login_required`` does, before the missing video server is noticed."""

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


def test_following_the_link_without_a_session_goes_to_the_login_page(
    sandbox: Sandbox, client_for: Callable[..., chatops.Client]
) -> None:
    url = client_for("member").server.bigbluebutton_call("standup")
    token = parse_qs(urlsplit(url).query)["bigbluebutton"][0]
    payload, signature = token.split(":")
    expected = (
        "/login/?next=/calls/bigbluebutton/join%3Fbigbluebutton%3D" + f"{payload}%3A{signature}"
    )
    member = sandbox.accounts["member"]
    for auth in (None, (member.email, member.api_key)):  # API credentials are no session
        joined = httpx.get(f"{sandbox.site}{url}", auth=auth, follow_redirects=False)
        assert (joined.status_code, joined.headers["location"]) == (302, expected)
    bare = httpx.get(f"{sandbox.site}/calls/bigbluebutton/join", follow_redirects=False)
    assert (bare.status_code, bare.headers["location"]) == (
        302,
        "/login/?next=/calls/bigbluebutton/join",
    )


def test_the_meeting_name_is_required(sandbox: Sandbox) -> None:
    body = assert_error(
        raw(sandbox, "member", "GET", "/calls/bigbluebutton/create"), "REQUEST_VARIABLE_MISSING"
    )
    assert body["var_name"] == "meeting_name"
