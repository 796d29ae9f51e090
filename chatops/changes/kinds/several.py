"""Several changes sent one after another as one: the inverse of a bulk change that touched
different people in different places (each group of them put back by a call of its own)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from .._base import Change, Reading
from .._call import ApiCall

if TYPE_CHECKING:
    from ..._client import Client

__all__ = ["Several"]


class Several(Change, frozen=True, kw_only=True):
    """Changes made in order as one (``parts`` holds each as its JSON record)."""

    parts: list[dict[str, Any]]

    @classmethod
    def of(cls, changes: Sequence[Change]) -> Several:
        """The changes, in order, as one."""
        return cls(parts=[msgspec.to_builtins(c) for c in changes])

    @property
    def changes(self) -> list[Change]:
        """The parts as typed changes."""
        from . import decode_change

        return [decode_change(p) for p in self.parts]

    def call(self) -> ApiCall:
        return self.changes[0].call()

    def describe(self) -> str:
        return " ; ".join(c.describe() for c in self.changes)

    @property
    def needs_input(self) -> bool:
        return any(c.needs_input for c in self.changes)

    def send(self, client: Client) -> dict[str, Any]:
        for change in self.changes:
            if change.state(client).done is not True:
                change.send(client)
        return {}

    def state(self, client: Client) -> Reading:
        readings = [c.state(client) for c in self.changes]
        done: bool | None = True
        if any(r.done is False for r in readings):
            done = False
        elif any(r.done is None for r in readings):
            done = None
        return Reading(done, "; ".join(r.evidence for r in readings))

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> None:
        return None
