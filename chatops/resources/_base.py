"""Base classes for resources (they hold the client and call its ``_request``), and the
permission-setting values that several areas send."""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from .._base_client import NotGiven
from ..types import AnonymousGroup

if TYPE_CHECKING:
    from .._client import AsyncClient, Client

__all__ = [
    "AsyncResource",
    "GroupSettingValue",
    "Resource",
    "SyncResource",
    "drop_not_given",
    "given",
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


def given(args: Mapping[str, Any], *leave_out: str) -> dict[str, Any]:
    """A method's arguments as request parameters: ``given(locals())`` on its first line.

    Leaves out ``self``, the names in ``leave_out`` (sent otherwise) and those ``NOT_GIVEN``.
    """
    skip = {"self", *leave_out}
    return {k: v for k, v in args.items() if k not in skip and not isinstance(v, NotGiven)}


class SyncResource:
    """A group of operations of a synchronous ``Client``."""

    def __init__(self, client: Client) -> None:
        self._client = client


class AsyncResource:
    """A group of operations of an ``AsyncClient``."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client


R = TypeVar("R")


class Resource(Generic[R]):
    """A client attribute holding one resource, made on first use (as ``cached_property``).

    ``messages: Resource[AsyncMessages] = Resource("messages")`` in ``AsyncClient`` imports
    ``chatops._async_client.resources.messages`` when ``client.messages`` is first read and
    keeps ``AsyncMessages(client)`` in the client's ``__dict__``; in the generated ``Client`` the
    same line reads ``Resource[Messages]`` and imports from ``chatops._sync_client``. The class
    is the one the annotation names, so that the type checker and the import agree.
    """

    def __init__(self, module: str) -> None:
        self.module = module
        self.name = ""
        self.cls = ""

    def __set_name__(self, owner: type, name: str) -> None:
        found = re.fullmatch(r"Resource\[(\w+)\]", str(owner.__annotations__.get(name, "")))
        if found is None:
            raise TypeError(f"{owner.__name__}.{name}: annotate it as Resource[SomeResource]")
        self.name, self.cls = name, found.group(1)

    @overload
    def __get__(self, client: None, owner: type) -> Resource[R]: ...
    @overload
    def __get__(self, client: object, owner: type) -> R: ...
    def __get__(self, client: object | None, owner: type) -> Resource[R] | R:
        if client is None:
            return self
        package = type(client).__module__.rpartition(".")[0]
        module = importlib.import_module(f"{package}.resources.{self.module}")
        value: R = getattr(module, self.cls)(client)
        client.__dict__[self.name] = value
        return value
