"""Request parameters as spec section 1 sends them: form fields, JSON text, query strings.

Each endpoint declares its parameters; :func:`parse` validates them and returns the values
given plus the names the endpoint does not support (``ignored_parameters_unsupported``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .bounds import INT_MAX, INT_MIN, MAX_JSON_DEPTH, in_range, loads, no_nul
from .errors import ApiError, invalid_argument, missing_argument
from .sentinel import MISSING

__all__ = ["INT_MAX", "INT_MIN", "MAX_JSON_DEPTH", "MISSING", "in_range", "loads"]


@dataclass(frozen=True)
class Param:
    """One declared parameter: how to read it and whether it must be present."""

    convert: Callable[[str, str], Any]
    required: bool = False
    default: Any = MISSING


def _json(name: str, raw: str) -> Any:
    try:
        return loads(name, raw)
    except ApiError:
        raise
    except ValueError:
        raise ApiError(f'Argument "{name}" is not valid JSON.', var_name=name) from None


def text(name: str, raw: str) -> str:
    """Plain text: anything but NUL, which no stored name, email or description may carry."""
    return no_nul(name, raw)


def message_text(name: str, raw: str) -> str:
    """A message's content or topic, as sent: their own rules refuse NUL and unprintables with
    the real server's messages (``Message must not contain null bytes``, ``Invalid character
    in topic``)."""
    return raw


def integer(name: str, raw: str) -> int:
    """The one integer parser: every id, count and timestamp, within :data:`INT_MAX`."""
    value = _json(name, raw) if raw.strip().lstrip("-").isdigit() else None
    if not isinstance(value, int) or isinstance(value, bool):
        raise ApiError(f"{name} is not an integer", var_name=name)
    return value


def optional_integer(name: str, raw: str) -> int | None:
    if raw.strip() == "null":
        return None
    return integer(name, raw)


def boolean(name: str, raw: str) -> bool:
    value = _json(name, raw)
    if not isinstance(value, bool):
        raise ApiError(f"{name} is not a boolean", var_name=name)
    return value


def json_value(name: str, raw: str) -> Any:
    return _json(name, raw)


def int_list(name: str, raw: str) -> list[int]:
    value = _json(name, raw)
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise ApiError(f"{name} is not a list of integers", var_name=name)
    return value


def json_list(name: str, raw: str) -> list[Any]:
    value = _json(name, raw)
    if not isinstance(value, list):
        raise ApiError(f"{name} is not a list", var_name=name)
    return value


def choice(*allowed: str) -> Callable[[str, str], str]:
    def convert(name: str, raw: str) -> str:
        if raw not in allowed:
            raise invalid_argument(name, f"must be one of {', '.join(allowed)}")
        return raw

    return convert


def P(
    convert: Callable[[str, str], Any] = text, *, required: bool = False, default: Any = MISSING
) -> Param:
    return Param(convert, required, default)


class Params(dict[str, Any]):
    """Parsed parameters; ``ignored`` lists the unsupported names that were sent."""

    ignored: list[str]

    def given(self, name: str) -> bool:
        return self.get(name, MISSING) is not MISSING

    def optional(self, name: str, default: Any = None) -> Any:
        """The value sent for ``name``, or ``default`` when it was not sent."""
        value = self.get(name, MISSING)
        return default if value is MISSING else value


def parse(
    raw: Mapping[str, str], spec: Mapping[str, Param], aliases: Mapping[str, str] | None = None
) -> Params:
    out = Params()
    out.ignored = []
    aliases = aliases or {}
    seen: dict[str, str] = {}
    for key, value in raw.items():
        name = aliases.get(key, key)
        if name in spec:
            seen[name] = value
        else:
            out.ignored.append(key)
    for name, param in spec.items():
        if name in seen:
            out[name] = param.convert(name, seen[name])
        elif param.required:
            raise missing_argument(name)
        else:
            out[name] = param.default
    return out
