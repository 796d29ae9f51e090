"""Base classes for resources (they hold the client and call its ``_request``), and the
permission-setting values that several areas send."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._base_client import NotGiven
from ..types import AnonymousGroup

if TYPE_CHECKING:
    from .._client import AsyncClient, Client

__all__ = [
    "AsyncResource",
    "GroupSettingValue",
    "SyncResource",
    "drop_not_given",
    "group_setting_param",
]

#: a permission setting to send: a user-group ID, an :class:`~chatops.types.AnonymousGroup`
#: (as records carry it), or its dict form ``{"direct_members": [...], "direct_subgroups": [...]}``
GroupSettingValue = int | AnonymousGroup | Mapping[str, Sequence[int]]


def group_setting_param(value: GroupSettingValue) -> Any:
    """A permission setting as the API takes it: the group ID, or the anonymous group's lists."""
    if isinstance(value, int):
        return value
    if isinstance(value, AnonymousGroup):
        return {
            "direct_members": list(value.direct_members),
            "direct_subgroups": list(value.direct_subgroups),
        }
    return {key: list(ids) for key, ids in value.items()}


def drop_not_given(**params: Any) -> dict[str, Any]:
    """The keyword arguments as a parameter dict, without those that are ``NOT_GIVEN``."""
    return {name: value for name, value in params.items() if not isinstance(value, NotGiven)}


class SyncResource:
    """A group of operations of a synchronous ``Client``."""

    def __init__(self, client: Client) -> None:
        self._client = client


class AsyncResource:
    """A group of operations of an ``AsyncClient``."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
