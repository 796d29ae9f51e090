"""An audit's parameters, declared once: in its function's signature, with range and help.

::

    def stale_channels(
        client: Client,
        *,
        inactive_days: Annotated[int, Param("a channel is stale when ...", low=1)] = 90,
        ...

From that signature come the notebook's parameters cell (:func:`parameters_cell`), the range
checks of ``chatops audit run``'s pre-check (:func:`check_value`) and the list the tests hold
README's audit list against (:func:`audit_parameters`).
"""

from __future__ import annotations

import collections.abc
import functools
import inspect
import json
import math
import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec

__all__ = ["COMMON_CELL_LINES", "Param", "Parameter", "audit_parameters", "parameters_cell"]


class Param(msgspec.Struct, frozen=True):
    """What a parameter means and which values it accepts.

    Args:
        help: one line for people (the notebook's comment, ``chatops audit list``).
        low: the least value accepted (inclusive unless ``low_open``).
        high: the greatest value accepted (inclusive).
        low_open: ``low`` itself is refused (``more than 0``).
        off: a value outside the range that switches the check off (``-1``).
    """

    help: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    off: float | None = None

    def accepts(self, value: float) -> bool:
        """Whether ``value`` is in range (or the ``off`` value)."""
        if not math.isfinite(value):
            return False
        if self.off is not None and value == self.off:
            return True
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            return False
        return self.high is None or value <= self.high

    @property
    def wanted(self) -> str:
        """The range in words: ``at least 1``, ``-1 (off) or between 0 and 1``."""
        low, high = self.low, self.high
        if low is not None and high is not None:
            text = (
                f"above {low:g} and at most {high:g}"
                if self.low_open
                else f"between {low:g} and {high:g}"
            )
        elif low is not None:
            text = f"more than {low:g}" if self.low_open else f"at least {low:g}"
        elif high is not None:
            text = f"at most {high:g}"
        else:
            text = "any value"
        return f"{self.off:g} (off) or {text}" if self.off is not None else text


class Parameter(msgspec.Struct, frozen=True):
    """One parameter of an audit as its notebook takes it."""

    name: str
    kind: str  # int | float | bool | str (a list is a comma-separated str in a notebook)
    default: Any
    param: Param

    @property
    def notebook_default(self) -> str:
        """The default as the notebook's parameters cell writes it."""
        value = self.default
        if self.kind == "str" and isinstance(value, list | tuple):
            value = ",".join(str(v) for v in value)
        if self.kind == "float":
            return repr(float(value))
        if self.kind == "str":
            return json.dumps(str(value), ensure_ascii=False)
        return repr(value)


#: The lines every audit notebook's parameters cell starts with (set by the runner) ...
COMMON_CELL_LINES = (
    'zuliprc: str = ""  # path of a zuliprc file; empty means the sandbox\'s admin account',
    'site: str = ""  # server URL, overriding the zuliprc\'s site; empty with no zuliprc means a '
    "sandbox",
    'as_of: str = "2026-06-01T12:00:00+00:00"  # reference time, ISO 8601 (UTC when no zone); '
    "empty means now; also dates the demo sandbox",
)
#: ... and ends with.
LAST_CELL_LINE = 'report_dir: str = ""  # folder to write summary.json into; empty writes nothing'


@functools.cache
def audit_parameters(function: Callable[..., Any]) -> dict[str, Parameter]:
    """The declared parameters of an audit function, in signature order (``client`` and
    ``now`` are the runner's: the notebook gives them from ``zuliprc``/``site`` and ``as_of``).

    Raises TypeError naming a parameter that is not declared with :class:`Param`.
    """
    from .._client import Client

    namespace = {"Client": Client, **vars(inspect.getmodule(function) or object())}
    hints = typing.get_type_hints(function, globalns=namespace, include_extras=True)
    out: dict[str, Parameter] = {}
    for name, p in inspect.signature(function).parameters.items():
        if name in ("client", "now"):
            continue
        hint = hints.get(name)
        meta = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Param)]
        if not meta:
            raise TypeError(f"parameter {name} of {function.__name__} is not declared with Param")
        out[name] = Parameter(name, _kind(typing.get_args(hint)[0]), p.default, meta[0])
    return out


def _kind(tp: Any) -> str:
    if tp in (bool, int, float, str):
        return str(tp.__name__)
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):  # str | Sequence[...]: a comma-separated str
        return "str"
    if origin in (list, tuple, collections.abc.Sequence):
        return "str"
    raise TypeError(f"no notebook type for {tp!r}")


def parameters_cell(function: Callable[..., Any]) -> str:
    """The source of the audit notebook's parameters cell, generated from the signature."""
    lines = list(COMMON_CELL_LINES)
    for p in audit_parameters(function).values():
        lines.append(f"{p.name}: {p.kind} = {p.notebook_default}  # {p.param.help}")
    lines.append(LAST_CELL_LINE)
    return "\n".join(lines)
