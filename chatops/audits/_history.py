"""Message history as it stood at an audit's ``now``: nothing after it is read.

The API anchors history at a message id, not at a time. :func:`history_until` finds the newest
message sent at or before ``until`` by bisecting the ids (about twenty one-message requests for a
million messages; one when ``until`` is after the newest message), then pages older from there.
A message that is out of time order (an import, a clock step) and newer than ``until`` is still
skipped on the way.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal

from .._base_client import NOT_GIVEN, NotGiven

if TYPE_CHECKING:
    from .._client import Client
    from ..resources.messages import Narrow
    from ..types import Message

__all__ = ["history_until", "newest_at_or_before"]


def newest_at_or_before(
    client: Client, until: float, *, narrow: Narrow | NotGiven = NOT_GIVEN
) -> int | None:
    """The id of the newest message of ``narrow`` sent at or before ``until``; None if none."""

    def first_from(message_id: int | Literal["oldest"]) -> Message | None:
        page = client.messages.get(
            anchor=message_id, num_before=0, num_after=1, narrow=narrow, apply_markdown=False
        )
        return page.messages[0] if page.messages else None

    def last() -> Message | None:
        page = client.messages.get(
            anchor="newest", num_before=1, num_after=0, narrow=narrow, apply_markdown=False
        )
        return page.messages[-1] if page.messages else None

    newest = last()
    if newest is None:
        return None
    if newest.timestamp <= until:
        return newest.id
    oldest = first_from("oldest")
    if oldest is None or oldest.timestamp > until:
        return None
    # invariant: ``found`` was sent at or before ``until``; every id >= ``high`` after it
    found, high = oldest.id, newest.id
    while found + 1 < high:
        middle = (found + high) // 2
        message = first_from(middle)
        if message is None or message.id >= high or message.timestamp > until:
            high = middle
        else:
            found = message.id
    return found


def history_until(
    client: Client,
    until: float,
    *,
    narrow: Narrow | NotGiven = NOT_GIVEN,
    page_size: int = 1000,
) -> Iterator[Message]:
    """Messages of ``narrow`` sent at or before ``until`` (a Unix time), newest first."""
    anchor = newest_at_or_before(client, until, narrow=narrow)
    if anchor is None:
        return
    for message in client.messages.iter_history(
        narrow=narrow, anchor=anchor, page_size=page_size, apply_markdown=False
    ):
        if message.timestamp <= until:
            yield message
