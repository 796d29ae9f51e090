"""An API call as data: what a change sends, and what a finding shows in words.

``path`` is relative to the API root ``/api/v1`` (``/streams/5``). A call may hold placeholders
a person must fill in (``{folder_id}``, named in ``fill``) or offer an ``alternative``: such a
call needs input and is never sent.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

import msgspec

__all__ = ["METHODS", "ApiCall", "Method", "param_text"]

Method = Literal["GET", "POST", "PATCH", "DELETE"]
METHODS: tuple[str, ...] = ("GET", "POST", "PATCH", "DELETE")


class ApiCall(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """An API call that fixes (or inspects) a finding, as data.

    ``path`` is relative to the API root ``/api/v1`` (``/streams/5``). A placeholder a person
    must fill in is written ``{name}`` in the path or in a parameter's value and named in
    ``fill``; ``alternative`` is another call a person may choose instead. A call with either
    is never run by ``chatops audit apply``.

    Build one with :func:`chatops.audits._common.api`, which finds the placeholders.
    """

    method: Method
    path: str
    params: dict[str, Any] = msgspec.field(default_factory=dict)
    fill: tuple[str, ...] = ()
    alternative: ApiCall | None = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(
                f"API call method must be one of {', '.join(METHODS)}, not {self.method!r}"
            )
        if not self.path.startswith("/") or self.path.startswith("/api/"):
            raise ValueError(
                f"API call path must start with / and be relative to /api/v1, not {self.path!r}"
            )

    @property
    def needs_input(self) -> bool:
        """Whether a person must fill something in or choose before it can run."""
        return bool(self.fill) or self.alternative is not None

    @property
    def reason(self) -> str | None:
        """Why it cannot run as it is (None when it can)."""
        if self.alternative is not None:
            return f"a choice between calls: {self.text}"
        if self.fill:
            return "fill in " + ", ".join(f"{{{name}}}" for name in self.fill)
        return None

    @property
    def changes(self) -> bool:
        """Whether it changes anything (reads, ``GET``, fix nothing)."""
        return self.method != "GET"

    @property
    def text(self) -> str:
        """``DELETE /api/v1/streams/5``, ``PATCH /api/v1/streams/4 folder_id={folder_id}``."""
        words = [self.method, "/api/v1" + self.path]
        words += [f"{name}={param_text(value)}" for name, value in self.params.items()]
        line = " ".join(words)
        return line if self.alternative is None else f"{line} | {self.alternative.text}"


_QUOTED_HOLE = re.compile(r'"(\{[A-Za-z_][A-Za-z0-9_]*\})"')


def param_text(value: Any) -> str:
    """A parameter's value as a call in words shows it (quoted when it has spaces)."""
    if isinstance(value, str):
        return f"'{value}'" if any(c.isspace() for c in value) else value
    # a placeholder inside a list or object is shown bare: [{user_ids}], {"new": {group_id}}
    return _QUOTED_HOLE.sub(r"\1", json.dumps(value, ensure_ascii=False))
