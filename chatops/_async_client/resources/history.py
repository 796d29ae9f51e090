"""A narrow's history page by page: what ``client.messages.iter_history`` returns."""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, overload

from ..._base_client import NOT_GIVEN, NotGiven
from ...types import Message

if TYPE_CHECKING:
    from .messages import Anchor, AsyncMessages, Direction, Narrow

__all__ = ["AsyncPagedHistory"]


def _history_start(anchor: Anchor | None, direction: Direction) -> Anchor:
    if anchor is not None:
        return anchor
    return "newest" if direction == "older" else "oldest"


_ID = operator.attrgetter("id")


def _history_step(
    page: Any, direction: Direction, last: int | None
) -> tuple[list[Any], int | None, bool]:
    """New messages of ``page`` in travel order, the next anchor, and whether history ended.

    ``page`` is a :class:`MessagesPage` or any decoding of one with ``messages`` (each with an
    ``id``), ``found_oldest`` and ``found_newest``.
    """
    older = direction == "older"
    ordered = sorted(page.messages, key=_ID, reverse=older)
    # only the first few (at most the anchor's neighbours) can be on the wrong side of ``last``
    if last is not None and ordered and (ordered[0].id >= last if older else ordered[0].id <= last):
        ordered = [m for m in ordered if (m.id < last if older else m.id > last)]
    nxt = ordered[-1].id if ordered else last
    done = page.found_oldest if direction == "older" else page.found_newest
    return ordered, nxt, done or not ordered


class AsyncPagedHistory(AsyncIterator[Message]):
    """A narrow's history, fetched page by page as it is read (``iter_history``).

    Iterate it for :class:`~chatops.types.Message` records, or call :meth:`pages` with a decoder
    of response bodies to get each page as that decoder makes it. Either way each request is
    made when the previous page has been used, once: a history is read one way, once.
    """

    def __init__(
        self,
        resource: AsyncMessages,
        *,
        narrow: Narrow | NotGiven = NOT_GIVEN,
        anchor: Anchor | None = None,
        page_size: int = 1000,
        direction: Direction = "older",
        apply_markdown: bool | NotGiven = NOT_GIVEN,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        allow_empty_topic_name: bool | NotGiven = NOT_GIVEN,
    ) -> None:
        self._resource = resource
        self.narrow = narrow
        self.anchor = anchor
        self.page_size = page_size
        self.direction: Direction = direction
        self.apply_markdown = apply_markdown
        self.client_gravatar = client_gravatar
        self.allow_empty_topic_name = allow_empty_topic_name
        self._records: AsyncIterator[Message] | None = None
        self._started = False

    def __repr__(self) -> str:
        narrow = "all" if isinstance(self.narrow, NotGiven) else self.narrow
        return (
            f"{type(self).__name__}(narrow={narrow!r}, direction={self.direction!r}, "
            f"page_size={self.page_size})"
        )

    def __aiter__(self) -> AsyncPagedHistory:
        return self

    async def __anext__(self) -> Message:
        if self._records is None:
            self._records = (m async for batch in self.pages() for m in batch)
        return await anext(self._records)

    @property
    def started(self) -> bool:
        """Whether a page has been requested (then the history cannot be read another way)."""
        return self._started

    @overload
    def pages(self) -> AsyncIterator[list[Message]]: ...
    @overload
    def pages(
        self,
        decode: Callable[[bytes], Any],
        *,
        allow_empty_topic_name: bool | NotGiven = NOT_GIVEN,
    ) -> AsyncIterator[list[Any]]: ...
    def pages(
        self,
        decode: Callable[[bytes], Any] | None = None,
        *,
        allow_empty_topic_name: bool | NotGiven = NOT_GIVEN,
    ) -> AsyncIterator[list[Any]]:
        """Each page's new messages in travel order, until history ends.

        Args:
            decode: turns a ``GET /messages`` response body into an object with ``messages``
                (each with an ``id``), ``found_oldest`` and ``found_newest``; default the
                client's own :class:`~chatops.types.MessagesPage`.
            allow_empty_topic_name: overrides the history's own (False: the server names the
                empty topic by the organization's display name for it, as the dataset stores it).

        Raises RuntimeError if this history has already been read.
        """
        if self._started:
            raise RuntimeError("this history has already been read: call iter_history again")
        self._started = True
        if isinstance(allow_empty_topic_name, NotGiven):
            allow_empty_topic_name = self.allow_empty_topic_name
        return self._walk(decode, allow_empty_topic_name)

    async def _walk(
        self, decode: Callable[[bytes], Any] | None, allow_empty_topic_name: bool | NotGiven
    ) -> AsyncIterator[list[Any]]:
        resource, direction = self._resource, self.direction
        current: Anchor = _history_start(self.anchor, direction)
        last: int | None = None
        while True:
            before, after = (self.page_size, 0) if direction == "older" else (0, self.page_size)
            kwargs: dict[str, Any] = {
                "anchor": current,
                "num_before": before,
                "num_after": after,
                "narrow": self.narrow,
                "include_anchor": last is None,
                "apply_markdown": self.apply_markdown,
                "client_gravatar": self.client_gravatar,
                "allow_empty_topic_name": allow_empty_topic_name,
            }
            if decode is None:
                page: Any = await resource.get(**kwargs)
            else:
                page = decode(await resource.get_raw(**kwargs))
            batch, last, done = _history_step(page, direction, last)
            if batch:
                yield batch
            if done or last is None:
                return
            current = last
