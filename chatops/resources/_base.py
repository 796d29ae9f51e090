"""Base classes for resources: they hold the client and call its ``_request``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._client import AsyncClient, Client

__all__ = ["AsyncResource", "SyncResource", "drop_not_given"]


def drop_not_given(**params: Any) -> dict[str, Any]:
    """The keyword arguments as a parameter dict (NOT_GIVEN is dropped when encoding)."""
    return params


class SyncResource:
    """A group of operations of a synchronous ``Client``."""

    def __init__(self, client: Client) -> None:
        self._client = client


class AsyncResource:
    """A group of operations of an ``AsyncClient``."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
