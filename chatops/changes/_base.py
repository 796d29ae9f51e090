"""What every change is: a typed write with its phase, the read that shows it done, and its
inverse.

A :class:`Change` is data (a msgspec struct, tagged by its kind, so plans and journals hold it as
JSON and read it back typed) and knows, for its one kind of write:

- ``call()``: the API call it sends (``send`` sends it; a change of several calls overrides it);
- ``phase``: where it goes in a plan, so that none blocks another (:class:`Phase`);
- ``state(client)``: a read of the server that says whether it is done (a :class:`Reading`,
  never inferred from an error's text);
- ``before(client)``: a read of what it will replace, made just before it is sent;
- ``inverse(before, answer)``: the change that puts back what was there, built from that read
  (and from the server's answer, for a change that creates something); None when nothing can
  put it back, and then ``irreversible`` says why.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from .._exceptions import ApiError
from ._call import ApiCall

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["Change", "Phase", "Reading", "read", "same_setting"]


class Phase(enum.IntEnum):
    """Where a change goes in a plan: edits first, channels archived last, so that none blocks or
    undoes another (a group is emptied before it is deactivated; a bot goes before its owner)."""

    EDIT = 0
    REMOVE = 1
    DEACTIVATE_GROUPS = 2
    DEACTIVATE_BOTS = 3
    DEACTIVATE_PEOPLE = 4
    ARCHIVE_CHANNELS = 5

    @property
    def text(self) -> str:
        """The phase in words."""
        return self.name.lower().replace("_", " ")


@dataclass(frozen=True)
class Reading:
    """What a read of the server showed: whether the change is done (None: cannot tell), the
    read in words (``GET /streams/5: is_archived true``), and whether the read itself failed on
    the way (no answer, a 5xx: try again later)."""

    done: bool | None
    evidence: str
    failed: bool = False


class Change(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag=True):
    """One typed write. Subclasses are the kinds (:mod:`chatops.changes.kinds`)."""

    #: where the change goes in a plan
    phase: ClassVar[Phase] = Phase.EDIT
    #: why no inverse can be known (None when one can)
    irreversible: ClassVar[str | None] = None

    def call(self) -> ApiCall:
        """The API call that makes the change."""
        raise NotImplementedError

    @property
    def kind(self) -> str:
        """The change's kind, as plans and journals name it (``ArchiveChannel``)."""
        return type(self).__name__

    @property
    def needs_input(self) -> bool:
        """Whether a person must fill something in before it can be sent."""
        return self.call().needs_input

    def describe(self) -> str:
        """The change in words, for listings (the call by default)."""
        return self.call().text

    def send(self, client: Client) -> dict[str, Any]:
        """Send the change; the server's answer."""
        call = self.call()
        sent: Any = getattr(client, call.method.lower())(call.path, params=call.params or None)
        return dict(sent) if isinstance(sent, Mapping) else {}

    def before(self, client: Client) -> dict[str, Any] | None:
        """What the change will replace, read from the server (None: nothing to keep)."""
        return None

    def salvage(self, client: Client, error: ApiError) -> dict[str, Any] | None:
        """The answer of a change the server made only in part before refusing the rest (None:
        it made nothing)."""
        return None

    def state(self, client: Client) -> Reading:
        """Whether the server shows the change made."""
        return Reading(None, "no read tells whether this call is done")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        """The change that undoes this one, from what was there before and the server's answer
        (None when nothing can: :attr:`irreversible` says why)."""
        return None


def read(
    client: Client, path: str, params: Mapping[str, Any] | None = None
) -> dict[str, Any] | Reading:
    """``GET path``: its answer, or a :class:`Reading` that cannot tell when the server refuses
    the read for good (a 4xx other than 429). A read that fails on the way raises the client's
    error: the caller tries again later."""
    try:
        answer = client.get(path, params=dict(params) if params else None)
    except ApiError as exc:
        if 400 <= exc.status < 500 and exc.status != 429:
            return Reading(None, f"GET {path} refused ({exc.code}): cannot tell")
        raise
    return dict(answer)


def same_setting(current: Any, wanted: Any) -> bool:
    """Whether a setting's current value is the wanted one: a group-valued setting's value is a
    group id or ``{"direct_members": [...], "direct_subgroups": [...]}`` in either order."""
    if isinstance(wanted, Mapping) and "new" in wanted and len(wanted) <= 2:
        wanted = wanted["new"]
    if isinstance(current, Mapping) and isinstance(wanted, Mapping):
        keys = ("direct_members", "direct_subgroups")
        return all(sorted(current.get(k) or []) == sorted(wanted.get(k) or []) for k in keys)
    return bool(current == wanted)
