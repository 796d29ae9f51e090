"""The bounds of values from requests: integers the API can store, JSON that cannot nest away.

Both the parameter parser (``params``) and the rules that read a parameter's JSON themselves
(a message's ``to``) use these, so no input reaches SQLite or the stack unbounded.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import ApiError

#: the integers the API accepts anywhere (ids, counts, timestamps): SQLite's signed 64 bits
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
#: how deeply a JSON parameter may nest; deeper text is refused before it can exhaust the stack
MAX_JSON_DEPTH = 100


class _OutOfRange(ValueError):
    pass


def in_range(name: str, value: int) -> int:
    """``value`` when the API can store it, else the refusal of ``name`` (never SQLite's 500)."""
    if not INT_MIN <= value <= INT_MAX:
        raise ApiError(f"{name} is too large", var_name=name)
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
        return json.loads(raw, parse_int=_bounded_int)
    except _OutOfRange:
        raise ApiError(f"{name} is too large", var_name=name) from None
    except RecursionError:  # a second line of defence behind the depth check
        raise ApiError(f'Argument "{name}" is nested too deeply.', var_name=name) from None
