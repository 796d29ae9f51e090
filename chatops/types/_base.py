"""Typed records: base (see :mod:`chatops.types`)."""

from __future__ import annotations

from typing import Any

import msgspec


class Record(
    msgspec.Struct, kw_only=True, omit_defaults=True, forbid_unknown_fields=False, gc=False
):
    """Base of every API record.

    Records are data decoded from JSON and never form reference cycles, so they are not
    tracked by the garbage collector (``gc=False``): decoding a page of them is faster.
    """

    def to_dict(self) -> dict[str, Any]:
        """The record as plain builtins (what the JSON would be)."""
        result: dict[str, Any] = msgspec.to_builtins(self)
        return result


# -- shared: every area ----------------------------------------------------------------------------


class IdResult(Record):
    """A response carrying the new object's ``id``."""

    id: int


# -- permission settings: channels, user groups and the organization -------------------------------


class AnonymousGroup(Record):
    """A permission setting given as people rather than a named group."""

    direct_members: list[int] = []
    direct_subgroups: list[int] = []


#: a permission setting: a user-group ID, or an anonymous group of members and subgroups
GroupSettingValue = int | AnonymousGroup
