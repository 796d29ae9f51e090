"""Video calls: BigBlueButton links, as a server with no BigBlueButton configured gives them.

The real server (``zerver/views/video_calls.py``) answers ``GET /calls/bigbluebutton/create``
without asking the video server: it signs the meeting's details into a join link and returns
it. Only following that link (``/calls/bigbluebutton/join``) needs the video server, and there a
server without one refuses with "BigBlueButton is not configured.", as the sandbox does.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets

from .errors import ApiError
from .store import Row

__all__ = ["JOIN_PATH", "bigbluebutton_url", "join_bigbluebutton"]

#: where a BigBlueButton link leads (a page of the server, not of the API)
JOIN_PATH = "/calls/bigbluebutton/join"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def bigbluebutton_url(secret: bytes, user: Row, meeting_name: str, voice_only: bool) -> str:
    """The join link of a new meeting, its details signed with ``secret`` so that no one can
    change them (the real server signs them the same way, with Django's ``Signer``).

    Args:
        secret: the server's signing key.
        user: who creates the call; they join it as its moderator.
        meeting_name: the meeting's name.
        voice_only: whether cameras are off for everyone but the moderator's choice.

    Returns:
        ``/calls/bigbluebutton/join?bigbluebutton=<signed details>``.
    """
    details = {
        "meeting_id": f"zulip-{secrets.randbelow(900000000000) + 100000000000}",
        "name": meeting_name,
        "lock_settings_disable_cam": voice_only,
        "moderator": int(user["id"]),
    }
    payload = _b64(json.dumps(details, separators=(",", ":")).encode())
    signature = _b64(hmac.new(secret, payload.encode(), hashlib.sha256).digest())
    return f"{JOIN_PATH}?bigbluebutton={payload}:{signature}"


def join_bigbluebutton() -> None:
    """Following a link: refused, as no video server is configured."""
    raise ApiError("BigBlueButton is not configured.")
