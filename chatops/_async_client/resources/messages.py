"""Messages: send, fetch, page through history, edit, move, resolve, react, delete."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Literal

from ..._base_client import NOT_GIVEN, NotGiven, check_length, content_sha256
from ..._exceptions import LimitError, MoveMessagesTimeLimitExceeded
from ...resources._base import AsyncResource, drop_not_given, given
from ...types import (
    Capabilities,
    EditResult,
    FlagsNarrowResult,
    FlagsResult,
    MatchesNarrowResult,
    Message,
    MessageHistoryResult,
    MessageSnapshot,
    MessagesPage,
    NarrowMatch,
    ReadReceiptsResult,
    RenderResult,
    SendResult,
    SingleMessageResult,
    Topic,
    TopicsResult,
)
from .history import AsyncPagedHistory

__all__ = [
    "FlagOp",
    "AsyncMessages",
    "MessageType",
    "Narrow",
    "AsyncPagedHistory",
    "PropagateMode",
    "RESOLVED_TOPIC_PREFIX",
]

RESOLVED_TOPIC_PREFIX = "✔ "
MAX_MESSAGES_PER_REQUEST = 5000
MessageType = Literal["channel", "stream", "direct", "private"]
PropagateMode = Literal["change_one", "change_later", "change_all"]
Anchor = int | Literal["newest", "oldest", "first_unread"]
Direction = Literal["older", "newer"]
FlagOp = Literal["add", "remove"]
#: the flags a user may change; the others the server keeps itself
EDITABLE_FLAGS = ("read", "starred", "collapsed")
#: a list of ``{"operator", "operand", "negated"?}`` dicts or ``(operator, operand)`` pairs
Narrow = Sequence[Mapping[str, Any] | tuple[str, Any]]


def _narrow(narrow: Narrow | NotGiven) -> list[dict[str, Any]] | NotGiven:
    if isinstance(narrow, NotGiven):
        return narrow
    terms: list[dict[str, Any]] = []
    for term in narrow:
        if isinstance(term, tuple):
            terms.append({"operator": term[0], "operand": term[1]})
        else:
            terms.append(dict(term))
    return terms


def _topic_in(caps: Capabilities, topic: str) -> str:
    """A topic as sent: the empty-topic display name means the empty topic (feature level 334)."""
    check_length("topic", topic, caps.max_topic_length)
    name = caps.realm_empty_topic_display_name
    if name is not None and topic == name and caps.at_least(334):
        return ""
    return topic


def _allow_empty(caps: Capabilities, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with ``allow_empty_topic_name=True`` by default where the server knows it."""
    if caps.at_least(334):
        params.setdefault("allow_empty_topic_name", True)
    return params


def _message_type(caps: Capabilities, type: MessageType) -> str:
    if type == "channel" and not caps.at_least(248):
        return "stream"
    if type == "direct" and not caps.at_least(174):
        return "private"
    return type


def _send_params(caps: Capabilities, params: dict[str, Any]) -> dict[str, Any]:
    check_length("content", params["content"], caps.max_message_length)
    params["type"] = _message_type(caps, params["type"])
    if not isinstance(params["to"], str | int):
        params["to"] = list(params["to"])
    if "topic" in params:
        params["topic"] = _topic_in(caps, params["topic"])
    return params


def _get_params(caps: Capabilities, params: dict[str, Any]) -> dict[str, Any]:
    total = params.get("num_before", 0) + params.get("num_after", 0)
    if total > MAX_MESSAGES_PER_REQUEST:
        raise LimitError("num_before + num_after", MAX_MESSAGES_PER_REQUEST, total, "messages")
    if "narrow" in params:
        params["narrow"] = _narrow(params["narrow"])
    if "message_ids" in params:
        params["message_ids"] = list(params["message_ids"])
    return _allow_empty(caps, params)


def _edit_params(caps: Capabilities, params: dict[str, Any]) -> dict[str, Any]:
    content, topic = params.get("content", NOT_GIVEN), params.get("topic", NOT_GIVEN)
    moving = "topic" in params or "stream_id" in params
    if not moving and "content" not in params:
        raise ValueError("edit needs at least one of content, topic or stream_id")
    if "content" in params and "stream_id" in params:
        raise ValueError("content cannot be changed while moving to another channel (stream_id)")
    if "prev_content" in params:
        if "prev_content_sha256" in params:
            raise ValueError("give prev_content or prev_content_sha256, not both")
        params["prev_content_sha256"] = content_sha256(params.pop("prev_content"))
    if not isinstance(content, NotGiven):
        check_length("content", content, caps.max_message_length)
    if not isinstance(topic, NotGiven):
        params["topic"] = _topic_in(caps, topic)
    if not moving and params["propagate_mode"] == "change_one":
        del params["propagate_mode"]
    return params


def _reaction_params(
    emoji_name: str | NotGiven, emoji_code: str | NotGiven, reaction_type: str | NotGiven
) -> dict[str, Any]:
    if isinstance(emoji_name, NotGiven) and isinstance(emoji_code, NotGiven):
        raise ValueError("give emoji_name or emoji_code")
    return drop_not_given(emoji_name=emoji_name, emoji_code=emoji_code, reaction_type=reaction_type)


def _mark_all_complete(body: Mapping[str, Any]) -> bool:
    # Before feature level 211 a partial run said result="partially_completed".
    if body.get("result") == "partially_completed":
        return False
    return bool(body.get("complete", True))


def _flag_params(op: FlagOp, flag: str) -> dict[str, Any]:
    if op not in ("add", "remove"):
        raise ValueError(f"op must be 'add' or 'remove', not {op!r}")
    if flag not in EDITABLE_FLAGS:
        raise ValueError(f"flag must be one of {', '.join(EDITABLE_FLAGS)}, not {flag!r}")
    return {"op": op, "flag": flag}


def _matches(result: MatchesNarrowResult) -> dict[int, NarrowMatch]:
    return {int(k): v for k, v in result.messages.items()}


class AsyncMessages(AsyncResource):
    """``client.messages``."""

    async def send(
        self,
        type: MessageType,
        to: str | int | Sequence[int] | Sequence[str],
        content: str,
        *,
        topic: str | NotGiven = NOT_GIVEN,
        queue_id: str | NotGiven = NOT_GIVEN,
        local_id: str | NotGiven = NOT_GIVEN,
        read_by_sender: bool | NotGiven = NOT_GIVEN,
    ) -> SendResult:
        """``POST /messages``. Never retried on connection failure (it could post twice).

        Args:
            type: ``channel`` or ``direct`` (legacy ``stream`` / ``private``).
            to: channel ID or name, or a list of user IDs or emails.
            content: Markdown; checked against ``max_message_length``.
            topic: for channel messages; checked against ``max_topic_length``.
        """
        params = given(locals())
        params = _send_params(await self._client.get_capabilities(), params)
        return await self._client._request("POST", "/messages", params=params, cast_to=SendResult)

    async def send_to_channel(self, channel: str | int, topic: str, content: str) -> SendResult:
        """Send ``content`` to ``topic`` in ``channel`` (name or ID)."""
        return await self.send("channel", channel, content, topic=topic)

    async def send_direct(
        self, to: int | str | Sequence[int] | Sequence[str], content: str
    ) -> SendResult:
        """Send a direct message to one user or a group (IDs or emails)."""
        recipients = [to] if isinstance(to, int | str) else to
        return await self.send("direct", recipients, content)  # type: ignore[arg-type]

    async def get(
        self,
        *,
        anchor: Anchor | NotGiven = NOT_GIVEN,
        num_before: int | NotGiven = NOT_GIVEN,
        num_after: int | NotGiven = NOT_GIVEN,
        narrow: Narrow | NotGiven = NOT_GIVEN,
        include_anchor: bool | NotGiven = NOT_GIVEN,
        apply_markdown: bool | NotGiven = NOT_GIVEN,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        allow_empty_topic_name: bool | NotGiven = NOT_GIVEN,
        message_ids: Sequence[int] | NotGiven = NOT_GIVEN,
    ) -> MessagesPage:
        """``GET /messages``: one page around ``anchor`` (``num_before + num_after <= 5000``)."""
        params = given(locals())
        caps = await self._client.get_capabilities()
        params = _get_params(caps, params)
        return await self._client._request("GET", "/messages", params=params, cast_to=MessagesPage)

    async def get_raw(
        self,
        *,
        anchor: Anchor | NotGiven = NOT_GIVEN,
        num_before: int | NotGiven = NOT_GIVEN,
        num_after: int | NotGiven = NOT_GIVEN,
        narrow: Narrow | NotGiven = NOT_GIVEN,
        include_anchor: bool | NotGiven = NOT_GIVEN,
        apply_markdown: bool | NotGiven = NOT_GIVEN,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        allow_empty_topic_name: bool | NotGiven = NOT_GIVEN,
        message_ids: Sequence[int] | NotGiven = NOT_GIVEN,
    ) -> bytes:
        """:meth:`get`'s request, returning the response body undecoded (errors still raise)."""
        params = given(locals())
        caps = await self._client.get_capabilities()
        params = _get_params(caps, params)
        return await self._client._request("GET", "/messages", params=params, cast_to=bytes)

    def iter_pages(
        self,
        *,
        narrow: Narrow | NotGiven = NOT_GIVEN,
        anchor: Anchor | None = None,
        page_size: int = 1000,
        direction: Direction = "older",
        apply_markdown: bool | NotGiven = NOT_GIVEN,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        allow_empty_topic_name: bool | NotGiven = NOT_GIVEN,
    ) -> AsyncIterator[list[Message]]:
        """Pages of history from ``anchor`` until the oldest (or newest) message, no duplicates.

        Args:
            narrow: the narrow to page through.
            anchor: where to start; default ``newest`` going older, ``oldest`` going newer.
            page_size: messages per request (at most 5000).
            direction: ``older`` or ``newer``; each page is in that order.
            allow_empty_topic_name: as for :meth:`get` (default: the empty topic as ``""`` on
                servers that can say so).
        """
        return self.iter_history(**given(locals())).pages()

    def iter_history(
        self,
        *,
        narrow: Narrow | NotGiven = NOT_GIVEN,
        anchor: Anchor | None = None,
        page_size: int = 1000,
        direction: Direction = "older",
        apply_markdown: bool | NotGiven = NOT_GIVEN,
        client_gravatar: bool | NotGiven = NOT_GIVEN,
        allow_empty_topic_name: bool | NotGiven = NOT_GIVEN,
    ) -> AsyncPagedHistory:
        """Every message of ``narrow`` in ``direction`` order, fetched page by page.

        Iterating gives typed :class:`~chatops.types.Message` records; the returned
        :class:`AsyncPagedHistory` also hands its raw pages to a decoder of one's own (what
        ``analytics.AnalyticsFrames.from_records`` does, with no record per message).
        """
        check_length("page_size", page_size, MAX_MESSAGES_PER_REQUEST, "messages")
        return AsyncPagedHistory(self, **given(locals()))

    async def get_one(
        self,
        message_id: int,
        *,
        apply_markdown: bool | NotGiven = NOT_GIVEN,
        allow_empty_topic_name: bool | NotGiven = NOT_GIVEN,
    ) -> Message:
        """``GET /messages/{message_id}``."""
        params = given(locals(), "message_id")
        params = _allow_empty(await self._client.get_capabilities(), params)
        result = await self._client._request(
            "GET", f"/messages/{int(message_id)}", params=params, cast_to=SingleMessageResult
        )
        return result.message

    async def edit(
        self,
        message_id: int,
        *,
        content: str | NotGiven = NOT_GIVEN,
        topic: str | NotGiven = NOT_GIVEN,
        stream_id: int | NotGiven = NOT_GIVEN,
        propagate_mode: PropagateMode = "change_one",
        send_notification_to_old_thread: bool | NotGiven = NOT_GIVEN,
        send_notification_to_new_thread: bool | NotGiven = NOT_GIVEN,
        prev_content: str | NotGiven = NOT_GIVEN,
        prev_content_sha256: str | NotGiven = NOT_GIVEN,
    ) -> EditResult:
        """``PATCH /messages/{message_id}``: edit content, or move to a topic or channel.

        Args:
            content: new Markdown content (not together with ``stream_id``).
            topic: new topic; ``stream_id``: destination channel.
            propagate_mode: ``change_one``, ``change_later`` or ``change_all``.
            prev_content: the content you edited from; the client sends its SHA-256 so the
                server refuses the edit (``ExpectationMismatch``) if someone changed it meanwhile.
        """
        params = given(locals(), "message_id")
        params = _edit_params(await self._client.get_capabilities(), params)
        return await self._client._request(
            "PATCH", f"/messages/{int(message_id)}", params=params, cast_to=EditResult
        )

    async def move_topic(
        self,
        message_id: int,
        *,
        topic: str | NotGiven = NOT_GIVEN,
        stream_id: int | NotGiven = NOT_GIVEN,
        propagate_mode: PropagateMode = "change_all",
        send_notification_to_old_thread: bool | NotGiven = NOT_GIVEN,
        send_notification_to_new_thread: bool | NotGiven = NOT_GIVEN,
        partial_ok: bool = False,
    ) -> EditResult:
        """Move the topic of ``message_id`` (all of it by default) to a new topic or channel.

        With ``partial_ok``, a move refused by the time limit is repeated with
        ``change_later`` from ``first_message_id_allowed_to_move``, moving what may be moved.
        """
        kwargs = given(locals(), "message_id", "propagate_mode", "partial_ok")
        try:
            return await self.edit(message_id, propagate_mode=propagate_mode, **kwargs)
        except MoveMessagesTimeLimitExceeded as exc:
            first = exc.extra.get("first_message_id_allowed_to_move")
            if not partial_ok or first is None:
                raise
            return await self.edit(int(first), propagate_mode="change_later", **kwargs)

    async def resolve_topic(self, message_id: int) -> EditResult:
        """Mark the topic of ``message_id`` resolved (prefix ``✔ ``); no-op if it already is."""
        message = await self.get_one(message_id)
        if message.topic.startswith(RESOLVED_TOPIC_PREFIX):
            return EditResult()
        return await self.edit(
            message_id, topic=RESOLVED_TOPIC_PREFIX + message.topic, propagate_mode="change_all"
        )

    async def unresolve_topic(self, message_id: int) -> EditResult:
        """Mark the topic of ``message_id`` unresolved; no-op if it is not resolved."""
        message = await self.get_one(message_id)
        if not message.topic.startswith(RESOLVED_TOPIC_PREFIX):
            return EditResult()
        return await self.edit(
            message_id,
            topic=message.topic.removeprefix(RESOLVED_TOPIC_PREFIX),
            propagate_mode="change_all",
        )

    async def delete(self, message_id: int) -> None:
        """``DELETE /messages/{message_id}``."""
        await self._client._request("DELETE", f"/messages/{int(message_id)}")

    async def read_receipts(self, message_id: int) -> list[int]:
        """``GET /messages/{message_id}/read_receipts``: the IDs of those who have read it.

        Never the sender, nor anyone whose ``send_read_receipts`` setting is off, nor anyone
        the caller muted or who muted the caller. Refused when the organization turned read
        receipts off.

        Example:
            >>> client.messages.read_receipts(42)  # doctest: +SKIP
            [3, 7, 9]
        """
        result = await self._client._request(
            "GET", f"/messages/{int(message_id)}/read_receipts", cast_to=ReadReceiptsResult
        )
        return result.user_ids

    async def add_reaction(
        self,
        message_id: int,
        emoji_name: str,
        *,
        emoji_code: str | NotGiven = NOT_GIVEN,
        reaction_type: str | NotGiven = NOT_GIVEN,
    ) -> None:
        """``POST /messages/{message_id}/reactions``."""
        params = _reaction_params(emoji_name, emoji_code, reaction_type)
        await self._client._request("POST", f"/messages/{int(message_id)}/reactions", params=params)

    async def remove_reaction(
        self,
        message_id: int,
        emoji_name: str | NotGiven = NOT_GIVEN,
        *,
        emoji_code: str | NotGiven = NOT_GIVEN,
        reaction_type: str | NotGiven = NOT_GIVEN,
    ) -> None:
        """``DELETE /messages/{message_id}/reactions``; ``ReactionDoesNotExist`` if absent."""
        params = _reaction_params(emoji_name, emoji_code, reaction_type)
        await self._client._request(
            "DELETE", f"/messages/{int(message_id)}/reactions", params=params
        )

    async def mark_all_as_read(self, *, max_rounds: int = 1000) -> None:
        """``POST /mark_all_as_read``, repeated until the server reports it complete."""
        for _ in range(max_rounds):
            body = await self._client._request(
                "POST", "/mark_all_as_read", cast_to=dict[str, Any], idempotent=True
            )
            if _mark_all_complete(body):
                return
        raise RuntimeError(f"mark_all_as_read still incomplete after {max_rounds} rounds")

    async def topics(
        self, stream_id: int, *, allow_empty_topic_name: bool | NotGiven = NOT_GIVEN
    ) -> list[Topic]:
        """``GET /users/me/{stream_id}/topics``: topics, newest first."""
        params = given(locals(), "message_id", "stream_id")
        params = _allow_empty(await self._client.get_capabilities(), params)
        result = await self._client._request(
            "GET", f"/users/me/{int(stream_id)}/topics", params=params, cast_to=TopicsResult
        )
        return result.topics

    async def update_flags(
        self, message_ids: Sequence[int], *, op: FlagOp, flag: str
    ) -> FlagsResult:
        """``POST /messages/flags``: add or remove ``read``, ``starred`` or ``collapsed``.

        Args:
            message_ids: the messages.
            op: ``add`` or ``remove``.
            flag: ``read``, ``starred`` or ``collapsed`` (the others cannot be changed).
        """
        params = {"messages": [int(m) for m in message_ids], **_flag_params(op, flag)}
        return await self._client._request(
            "POST", "/messages/flags", params=params, cast_to=FlagsResult, idempotent=True
        )

    async def update_flags_for_narrow(
        self,
        *,
        narrow: Narrow,
        op: FlagOp,
        flag: str,
        anchor: Anchor = "oldest",
        num_before: int = 0,
        num_after: int = 1000,
        include_anchor: bool | NotGiven = NOT_GIVEN,
    ) -> FlagsNarrowResult:
        """``POST /messages/flags/narrow``: the flag over one range of ``narrow``.

        The server caps a range at 5,000 messages; repeat from ``last_processed_id``
        (``include_anchor=False``) until ``found_newest``, or use :meth:`update_flags_in_narrow`.
        """
        if num_before < 0 or num_after < 0:
            raise ValueError("num_before and num_after must not be negative")
        params = given(locals()) | _flag_params(op, flag)
        params["narrow"] = _narrow(narrow)
        return await self._client._request(
            "POST",
            "/messages/flags/narrow",
            params=params,
            cast_to=FlagsNarrowResult,
            idempotent=True,
        )

    async def update_flags_in_narrow(
        self,
        *,
        narrow: Narrow,
        op: FlagOp,
        flag: str,
        batch_size: int = 1000,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """The flag on every message of ``narrow``, oldest first, in ranges; returns how many changed.

        Each range is one request and one transaction on the server, so an interruption leaves
        every range either done or untouched; running it again finishes the job.

        Args:
            batch_size: messages per range (the server caps a range at 5,000).
            on_progress: called after each range with (messages processed, flags changed).
        """
        check_length("batch_size", batch_size, MAX_MESSAGES_PER_REQUEST, "messages")
        processed = changed = 0
        result = await self.update_flags_for_narrow(
            narrow=narrow, op=op, flag=flag, anchor="oldest", num_after=batch_size
        )
        while True:
            processed += result.processed_count
            changed += result.updated_count
            if on_progress is not None:
                on_progress(processed, changed)
            if result.found_newest or result.last_processed_id is None:
                return changed
            result = await self.update_flags_for_narrow(
                narrow=narrow,
                op=op,
                flag=flag,
                anchor=result.last_processed_id,
                num_after=batch_size,
                include_anchor=False,
            )

    async def mark_channel_as_read(self, stream_id: int) -> None:
        """``POST /mark_stream_as_read``: every unread message of the channel."""
        await self._client._request(
            "POST", "/mark_stream_as_read", params={"stream_id": int(stream_id)}, idempotent=True
        )

    async def mark_topic_as_read(self, stream_id: int, topic: str) -> None:
        """``POST /mark_topic_as_read``: every unread message of the topic."""
        caps = await self._client.get_capabilities()
        params = {"stream_id": int(stream_id), "topic_name": _topic_in(caps, topic)}
        await self._client._request("POST", "/mark_topic_as_read", params=params, idempotent=True)

    async def history(
        self, message_id: int, *, allow_empty_topic_name: bool | NotGiven = NOT_GIVEN
    ) -> list[MessageSnapshot]:
        """``GET /messages/{message_id}/history``: every version, oldest first."""
        params = given(locals(), "message_id", "stream_id")
        params = _allow_empty(await self._client.get_capabilities(), params)
        result = await self._client._request(
            "GET",
            f"/messages/{int(message_id)}/history",
            params=params,
            cast_to=MessageHistoryResult,
        )
        return result.message_history

    async def render(self, content: str) -> str:
        """``POST /messages/render``: the HTML ``content`` would get if sent now."""
        caps = await self._client.get_capabilities()
        check_length("content", content, caps.max_message_length)
        result = await self._client._request(
            "POST",
            "/messages/render",
            params={"content": content},
            cast_to=RenderResult,
            idempotent=True,
        )
        return result.rendered

    async def matches_narrow(
        self, message_ids: Sequence[int], *, narrow: Narrow
    ) -> dict[int, NarrowMatch]:
        """``GET /messages/matches_narrow``: which of your received messages match ``narrow``."""
        params = {"msg_ids": [int(m) for m in message_ids], "narrow": _narrow(narrow)}
        result = await self._client._request(
            "GET", "/messages/matches_narrow", params=params, cast_to=MatchesNarrowResult
        )
        return _matches(result)
