"""Emoji identities and their validation (spec section 2, the three reaction namespaces).

Unicode emoji names and codepoints come from the ``emoji`` package's data: a code is the
dash-separated lowercase hex of the codepoints, without variation selectors.
"""

from __future__ import annotations

import functools
import re

import emoji as emoji_pkg

from . import bounds
from .errors import ApiError
from .store import Store

UNICODE, REALM, EXTRA = "unicode_emoji", "realm_emoji", "service_extra_emoji"
# The real server calls the extra namespace ``zulip_extra_emoji``; both are accepted.
EXTRA_ALIASES = {EXTRA, "zulip_extra_emoji"}
EXTRA_EMOJI = {"zulip"}
REACTION_TYPES = (UNICODE, REALM, EXTRA, "zulip_extra_emoji")
CUSTOM_NAME = re.compile(r"^[0-9a-z\-_]+$")


def _code_of(chars: str) -> str:
    return "-".join(f"{ord(c):x}" for c in chars if ord(c) != 0xFE0F)


@functools.cache
def tables() -> tuple[dict[str, str], dict[str, str]]:
    """``(name_to_codepoint, codepoint_to_name)`` built once from the emoji data."""
    name_to_code: dict[str, str] = {}
    code_to_name: dict[str, str] = {}
    for chars, data in emoji_pkg.EMOJI_DATA.items():
        if data.get("status", 2) > 2:  # skip unqualified and component-only entries
            continue
        code = _code_of(chars)
        names = [data["en"], *data.get("alias", [])]
        for i, raw in enumerate(names):
            name = raw.strip(":").lower().replace("-", "_") if raw != ":-1:" else "-1"
            if raw in (":+1:", ":-1:"):
                name = raw.strip(":")
            name_to_code.setdefault(name, code)
            if i == 0:
                code_to_name.setdefault(code, name)
    return name_to_code, code_to_name


def resolve_name(store: Store, name: str) -> tuple[str, str]:
    """``(emoji_code, reaction_type)`` for a name: custom first, then extra, then Unicode."""
    row = store.one(
        "SELECT id FROM realm_emoji WHERE name = ? AND deactivated = 0 ORDER BY id DESC", [name]
    )
    if row is not None:
        return str(row["id"]), REALM
    if name in EXTRA_EMOJI:
        return name, EXTRA
    code = tables()[0].get(name)
    if code is None:
        raise ApiError(f"Emoji '{name}' does not exist")
    return code, UNICODE


def check_emoji(store: Store, name: str, code: str, reaction_type: str) -> None:
    """Validate a (name, code, type) triple; raise BAD_REQUEST naming what is wrong."""
    if reaction_type == REALM:
        emoji_id = bounds.digits("emoji_code", code)
        row = store.one(
            "SELECT * FROM realm_emoji WHERE id = ?", [-1 if emoji_id is None else emoji_id]
        )
        if row is None:
            raise ApiError("Invalid custom emoji.")
        if row["name"] != name:
            raise ApiError("Invalid custom emoji name.")
        if row["deactivated"]:
            raise ApiError("This custom emoji has been deactivated.")
    elif reaction_type in EXTRA_ALIASES:
        if code not in EXTRA_EMOJI:
            raise ApiError("Invalid emoji code.")
        if name != code:
            raise ApiError("Invalid emoji name.")
    elif reaction_type == UNICODE:
        name_to_code, code_to_name = tables()
        if code not in code_to_name:
            raise ApiError("Invalid emoji code.")
        if name_to_code.get(name) != code:
            raise ApiError("Invalid emoji name.")
    else:
        raise ApiError("Invalid emoji type.")


def normalise_type(reaction_type: str) -> str:
    return EXTRA if reaction_type in EXTRA_ALIASES else reaction_type
