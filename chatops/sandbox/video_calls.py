"""Video calls: BigBlueButton links, as a server with no BigBlueButton configured gives them.

The real server (``zerver/views/video_calls.py``) answers ``GET /calls/bigbluebutton/create``
without asking the video server: it signs the meeting's details into a join link and returns
it. Only following that link (``/calls/bigbluebutton/join``) needs the video server; that page
is for browsers logged in to the web app (``@zulip_login_required``), and a request without a
login session is redirected to the login page before anything else, as every request to the
sandbox is: it keeps no browser sessions. (A logged-in browser on a server without a video
server would hear "BigBlueButton is not configured.".)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from urllib.parse import quote

from .store import Row

__all__ = ["JOIN_PATH", "LOGIN_PATH", "bigbluebutton_url", "login_redirect"]

#: where a BigBlueButton link leads (a page of the server, not of the API)
JOIN_PATH = "/calls/bigbluebutton/join"
#: the real server's login page (``HOME_NOT_LOGGED_IN``)
LOGIN_PATH = "/login/"


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


def login_redirect(full_path: str) -> str:
    """Where a request without a login session is sent: the login page, then back.

    As Django's ``redirect_to_login`` under ``@zulip_login_required``: the page asked for, its
    query included, in ``next``, quoted with only ``/`` left as it is.

    Args:
        full_path: the path asked for, with its query string.

    Returns:
        ``/login/?next=<full_path quoted>``.

    Example:
        >>> login_redirect("/calls/bigbluebutton/join?bigbluebutton=a:b")
        '/login/?next=/calls/bigbluebutton/join%3Fbigbluebutton%3Da%3Ab'
    """
    return f"{LOGIN_PATH}?next={quote(full_path, safe='/')}"
