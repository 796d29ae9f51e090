"""Event queues: register, poll, delete, and an iterator that survives queue expiry.

    >>> with client.events.listen(event_types=["message"]) as stream:  # doctest: +SKIP
    ...     for event in stream:
    ...         print(event["message"]["content"])
    ...         if event["message"]["content"] == "stop":
    ...             stream.stop()

When the server forgets the queue (``BAD_EVENT_QUEUE_ID``: it expired or was deleted), the
iterator registers a new one and first yields the messages it missed, fetched from the
message history after the last message it had seen, so no message the server still has is
lost. Other event kinds cannot be replayed; the iterator's ``reregistrations`` counter says
when a gap may have happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import httpx

from ..._base_client import NOT_GIVEN, NotGiven
from ..._exceptions import BadEventQueueId, TransportError
from ...resources._base import AsyncResource, given
from ...resources._streams import DEFAULT_POLL_TIMEOUT, AsyncEventStream, Event, _StreamState
from ...types import EventsResult, MessagesPage, QueueRegistration

__all__ = ["AsyncEvents", "AsyncEventStream"]


class AsyncEvents(AsyncResource):
    """``client.events``: event queues."""

    async def register(
        self,
        *,
        event_types: list[str] | NotGiven = NOT_GIVEN,
        fetch_event_types: list[str] | NotGiven = NOT_GIVEN,
        narrow: list[Any] | NotGiven = NOT_GIVEN,
        apply_markdown: bool | NotGiven = NOT_GIVEN,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        all_public_streams: bool | NotGiven = NOT_GIVEN,
        client_capabilities: Mapping[str, Any] | NotGiven = NOT_GIVEN,
        include_subscribers: bool | Literal["partial"] | NotGiven = NOT_GIVEN,
    ) -> QueueRegistration:
        """``POST /register``: create an event queue for ``event_types`` (default: all).

        With ``"subscription"`` in ``fetch_event_types`` the registration also holds the
        channels the account is in, was in and never was in (``subscriptions``,
        ``unsubscribed``, ``never_subscribed``), with their subscribers if
        ``include_subscribers``: every channel's members in one request.
        """
        params = given(locals())
        return await self._client._request(
            "POST", "/register", params=params, cast_to=QueueRegistration
        )

    async def get(
        self,
        queue_id: str,
        *,
        last_event_id: int | NotGiven = NOT_GIVEN,
        dont_block: bool = False,
        timeout: float | None = DEFAULT_POLL_TIMEOUT,
    ) -> list[Event]:
        """``GET /events``: events after ``last_event_id``; long-polls unless ``dont_block``.

        Args:
            queue_id: from :meth:`register`.
            last_event_id: the last event handled (the server then forgets those).
            dont_block: answer at once, possibly with no events.
            timeout: client-side seconds to wait for the long-poll.
        """
        params, client = given(locals(), "timeout"), self._client
        opts = client._options("GET", "/events", params)
        request = client._build_request(client._http, opts)
        request.extensions["timeout"] = httpx.Timeout(timeout).as_dict()
        try:
            response = await client._http.send(request)
        except httpx.TransportError as exc:
            raise client._transport_error(opts, exc) from None
        return client._decode(opts, response, response.content, EventsResult).events

    async def delete_queue(self, queue_id: str) -> None:
        """``DELETE /events``: drop a queue (``BadEventQueueId`` if it is already gone)."""
        await self._client._request("DELETE", "/events", params={"queue_id": queue_id})

    def listen(
        self,
        *,
        event_types: list[str] | NotGiven = NOT_GIVEN,
        narrow: list[Any] | NotGiven = NOT_GIVEN,
        apply_markdown: bool | NotGiven = NOT_GIVEN,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        all_public_streams: bool | NotGiven = NOT_GIVEN,
        client_capabilities: Mapping[str, Any] | NotGiven = NOT_GIVEN,
        poll_timeout: float | None = None,
    ) -> AsyncEventStream:
        """An iterator over events that re-registers when its queue is lost; see the module."""
        params = given(locals(), "poll_timeout")
        return AsyncEventStream(self, _StreamState(params, poll_timeout))

    async def _open(self, state: _StreamState) -> list[Event]:
        """Register a queue for a stream; after a lost queue, the messages it missed meanwhile."""
        reg = await self._client._request(
            "POST", "/register", params=state.register, cast_to=QueueRegistration
        )
        missed: list[Event] = []
        if not state.registered(reg):
            return missed
        while state.last_message_id is not None:
            page = await self._client._request(
                "GET",
                "/messages",
                params=state.history_params(state.last_message_id),
                cast_to=MessagesPage,
            )
            missed += state.accept(state.missed(page))
            if page.found_newest or not page.messages:
                break
        return missed

    async def _close(self, state: _StreamState) -> None:
        """Delete a stream's queue, if it has one and the server still does."""
        queue_id, state.queue_id = state.queue_id, None
        if queue_id is not None:
            try:
                await self.delete_queue(queue_id)
            except (BadEventQueueId, TransportError):
                pass
