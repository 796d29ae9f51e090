"""A call given as it is: from a plan written by hand or by an older chatops, or a call that
still needs a person (a placeholder to fill in, a choice between calls)."""

from __future__ import annotations

from typing import ClassVar

from .._base import Change
from .._call import ApiCall

__all__ = ["RawCall"]


class RawCall(Change, frozen=True, kw_only=True):
    """An API call with no kind of its own: sent as it is, with no read of its state and no
    inverse (so applying it asks first, and undo says it cannot put it back)."""

    irreversible: ClassVar[str | None] = "a call given as it is: no inverse is known"
    request: ApiCall

    def call(self) -> ApiCall:
        return self.request
