"""The bounds of values from requests: integers the API can store, JSON that cannot nest away.

Both the parameter parser (``params``) and the rules that read a parameter's JSON themselves
(a message's ``to``) use these, so no input reaches SQLite or the stack unbounded.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

from .errors import ApiError

#: the integers the API accepts anywhere (ids, counts, timestamps): SQLite's signed 64 bits
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: how deeply a JSON parameter may nest; deeper text is refused before it can exhaust the stack
MAX_JSON_DEPTH = 100
_DIGITS = re.compile(r"-?[0-9]+")


#: Unicode's 66 non-characters (U+FDD0..U+FDEF and the last two code points of every plane)
NON_CHARACTERS = frozenset(
    [chr(c) for c in range(0xFDD0, 0xFDF0)]
    + [chr(plane + last) for plane in range(0, 0x110000, 0x10000) for last in (0xFFFE, 0xFFFF)]
)


def unprintable_position(text: str) -> int | None:
    """The 1-based position of the first control, surrogate or non-character in ``text``.

    The real server's ``check_string_is_printable`` (categories Cc and Cs, and the
    non-characters): topics and channel names must not contain them.
    """
    for i, ch in enumerate(text):
        if ch in NON_CHARACTERS or unicodedata.category(ch) in ("Cc", "Cs"):
            return i + 1
    return None


def no_nul(name: str, raw: str) -> str:
    """``raw`` when it has no NUL character: no stored text may carry one."""
    at = raw.find("\x00")
    if at >= 0:
        raise ApiError(
            f'Argument "{name}" must not contain null bytes (position {at + 1}).', var_name=name
        )
    return raw


class _OutOfRange(ValueError):
    pass


def in_range(name: str, value: int) -> int:
    """``value`` when the API can store it, else the refusal of ``name`` (never SQLite's 500)."""
    if not INT_MIN <= value <= INT_MAX:
        raise ApiError(f"{name} is too large", var_name=name)
    return value


def digits(name: str, raw: str) -> int | None:
    """``raw`` read as a decimal integer within range; None when it is not digits at all.

    The rule for integers that arrive as text outside a JSON parameter (path segments such as
    ``/users/{user_id_or_email}``, an emoji code, a header): digits past the range are refused
    like any other integer parameter, never handed to SQLite.
    """
    text = raw.strip()
    if _DIGITS.fullmatch(text) is None:
        return None
    return in_range(name, int(text))


def check_ints(name: str, value: Any) -> Any:
    """``value`` (decoded JSON from anywhere) when every integer in it is within range."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int):
            in_range(name, item)
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return value


def _bounded_int(digits: str) -> int:
    value = int(digits)
    if not INT_MIN <= value <= INT_MAX:
        raise _OutOfRange(digits)
    return value


def _depth(raw: str) -> int:
    """How deeply ``raw`` nests arrays and objects (brackets inside strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in raw:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def loads(name: str, raw: str) -> Any:
    """The one JSON parser of request parameters: nesting and integers bounded.

    Raises ``ValueError`` (an :class:`ApiError` for a refusal the caller must not soften) so
    callers that fall back to plain text on malformed JSON keep doing so.
    """
    if ("[" in raw or "{" in raw) and _depth(raw) > MAX_JSON_DEPTH:
        raise ApiError(
            f'Argument "{name}" is nested more than {MAX_JSON_DEPTH} levels deep.', var_name=name
        )
    try:
        value = json.loads(raw, parse_int=_bounded_int)
    except _OutOfRange:
        raise ApiError(f"{name} is too large", var_name=name) from None
    except RecursionError:  # a second line of defence behind the depth check
        raise ApiError(f'Argument "{name}" is nested too deeply.', var_name=name) from None
    if "\\u0000" in raw.lower() and _has_nul(value):
        raise ApiError(f'Argument "{name}" must not contain null bytes.', var_name=name)
    return value


def _has_nul(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and "\x00" in item:
            return True
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
