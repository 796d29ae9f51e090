"""Personal tools: navigation views (4.12), saved snippets (4.13, 4.14) and typing (4.11)."""

from __future__ import annotations

import builtins
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import quote

from ..._base_client import NOT_GIVEN, NotGiven, check_length
from ...resources._base import AsyncResource, drop_not_given, given
from ...types import (
    AlertWordsResult,
    Capabilities,
    Draft,
    DraftIdsResult,
    DraftsResult,
    NavigationView,
    NavigationViewsResult,
    SavedSnippet,
    SavedSnippetIdResult,
    SavedSnippetsResult,
)
from .messages import _topic_in

__all__ = [
    "AsyncAlertWords",
    "AsyncDrafts",
    "AsyncNavigationViews",
    "AsyncSavedSnippets",
    "AsyncTyping",
]

TypingOp = Literal["start", "stop"]
SNIPPET_TITLE_LENGTH = 60


def _fragment_path(fragment: str) -> str:
    return "/navigation_views/" + quote(fragment, safe="/")


def _view_params(fragment: str, is_pinned: bool, name: str | None | NotGiven) -> dict[str, Any]:
    if not fragment.strip():
        raise ValueError("a navigation view needs a non-blank fragment")
    return drop_not_given(fragment=fragment, is_pinned=is_pinned, name=name)


def _snippet_params(
    caps: Capabilities, title: str | NotGiven, content: str | NotGiven, *, creating: bool
) -> dict[str, Any]:
    if not isinstance(title, NotGiven):
        if creating and not title.strip():
            raise ValueError("a saved snippet needs a non-empty title")
        check_length("title", title.strip(), SNIPPET_TITLE_LENGTH)
    if not isinstance(content, NotGiven):
        if creating and not content.strip():
            raise ValueError("a saved snippet needs non-empty content")
        check_length("content", content.strip(), caps.max_message_length)
    return drop_not_given(title=title, content=content)


def _typing_params(caps: Capabilities, params: dict[str, Any]) -> dict[str, Any]:
    if "stream_id" in params:
        if "topic" not in params:
            raise ValueError("channel typing needs a topic")
        params.pop("to", None)
        params["type"] = "channel" if caps.at_least(248) else "stream"
        params["topic"] = _topic_in(caps, params["topic"])
        if not caps.at_least(215):
            params["to"] = [params.pop("stream_id")]
        return params
    if not params.get("to"):
        raise ValueError("give `to` (user IDs) or `stream_id` and `topic`")
    params["type"] = "direct" if caps.at_least(174) else "private"
    params["to"] = builtins.list(params["to"])
    return params


def _edit_typing_request(
    caps: Capabilities, message_id: int, op: TypingOp
) -> tuple[str, dict[str, Any]]:
    if caps.at_least(361):
        return f"/messages/{int(message_id)}/typing", {"op": op}
    return "/message_edit_typing", {"op": op, "message_id": int(message_id)}


MAX_ALERT_WORD_LENGTH = 100


def _alert_words(words: Sequence[str]) -> dict[str, Any]:
    if isinstance(words, str):
        raise TypeError("give a list of alert words, not one string")
    for word in words:
        check_length("alert word", word, MAX_ALERT_WORD_LENGTH)
    return {"alert_words": builtins.list(words)}


def _draft_dict(draft: Draft | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(draft, Draft):
        out: dict[str, Any] = {
            "type": draft.type,
            "to": draft.to,
            "topic": draft.topic,
            "content": draft.content,
        }
        if draft.timestamp is not None:
            out["timestamp"] = draft.timestamp
        return out
    missing = {"type", "to", "topic", "content"} - set(draft)
    if missing:
        raise ValueError(f"a draft needs {', '.join(sorted(missing))}")
    return dict(draft)


class AsyncAlertWords(AsyncResource):
    """``client.alert_words``: words that notify the person wherever they appear."""

    async def list(self) -> builtins.list[str]:
        """``GET /users/me/alert_words``."""
        result = await self._client._request(
            "GET", "/users/me/alert_words", cast_to=AlertWordsResult
        )
        return result.alert_words

    async def add(self, words: Sequence[str]) -> builtins.list[str]:
        """``POST /users/me/alert_words``: returns every alert word after the change."""
        result = await self._client._request(
            "POST", "/users/me/alert_words", params=_alert_words(words), cast_to=AlertWordsResult
        )
        return result.alert_words

    async def remove(self, words: Sequence[str]) -> builtins.list[str]:
        """``DELETE /users/me/alert_words``: returns the words that remain."""
        result = await self._client._request(
            "DELETE",
            "/users/me/alert_words",
            params=_alert_words(words),
            cast_to=AlertWordsResult,
        )
        return result.alert_words


class AsyncDrafts(AsyncResource):
    """``client.drafts``: message drafts kept on the server.

    Example::

        [draft_id] = client.drafts.create([{"type": "stream", "to": [channel_id],
                                            "topic": "plans", "content": "half-written"}])
    """

    async def list(self) -> builtins.list[Draft]:
        """``GET /drafts``: most recently edited first."""
        result = await self._client._request("GET", "/drafts", cast_to=DraftsResult)
        return result.drafts

    async def create(self, drafts: Sequence[Draft | Mapping[str, Any]]) -> builtins.list[int]:
        """``POST /drafts``: store every draft or none; returns their IDs in order."""
        params = {"drafts": [_draft_dict(d) for d in drafts]}
        result = await self._client._request(
            "POST", "/drafts", params=params, cast_to=DraftIdsResult
        )
        return result.ids

    async def edit(self, draft_id: int, draft: Draft | Mapping[str, Any]) -> None:
        """``PATCH /drafts/{draft_id}``: replace the draft."""
        await self._client._request(
            "PATCH", f"/drafts/{int(draft_id)}", params={"draft": _draft_dict(draft)}
        )

    async def delete(self, draft_id: int) -> None:
        """``DELETE /drafts/{draft_id}``."""
        await self._client._request("DELETE", f"/drafts/{int(draft_id)}")


class AsyncNavigationViews(AsyncResource):
    """``client.navigation_views``: pinned and hidden views of the left sidebar."""

    async def create(
        self, fragment: str, *, is_pinned: bool, name: str | None | NotGiven = NOT_GIVEN
    ) -> None:
        """``POST /navigation_views``: built-in fragments take no name; custom ones need one."""
        await self._client._request(
            "POST", "/navigation_views", params=_view_params(fragment, is_pinned, name)
        )

    async def list(self) -> builtins.list[NavigationView]:
        """``GET /navigation_views``."""
        result = await self._client._request(
            "GET", "/navigation_views", cast_to=NavigationViewsResult
        )
        return result.navigation_views

    async def update(
        self,
        fragment: str,
        *,
        is_pinned: bool | NotGiven = NOT_GIVEN,
        name: str | NotGiven = NOT_GIVEN,
    ) -> None:
        """``PATCH /navigation_views/{fragment}``."""
        params = given(locals(), "fragment")
        await self._client._request("PATCH", _fragment_path(fragment), params=params)

    async def delete(self, fragment: str) -> None:
        """``DELETE /navigation_views/{fragment}``."""
        await self._client._request("DELETE", _fragment_path(fragment))


class AsyncSavedSnippets(AsyncResource):
    """``client.saved_snippets``: reusable Markdown texts."""

    async def create(self, title: str, content: str) -> int:
        """``POST /saved_snippets``: returns the snippet ID."""
        caps = await self._client.get_capabilities()
        params = _snippet_params(caps, title, content, creating=True)
        result = await self._client._request(
            "POST", "/saved_snippets", params=params, cast_to=SavedSnippetIdResult
        )
        return result.saved_snippet_id

    async def list(self) -> builtins.list[SavedSnippet]:
        """``GET /saved_snippets``."""
        result = await self._client._request("GET", "/saved_snippets", cast_to=SavedSnippetsResult)
        return result.saved_snippets

    async def update(
        self,
        saved_snippet_id: int,
        *,
        title: str | NotGiven = NOT_GIVEN,
        content: str | NotGiven = NOT_GIVEN,
    ) -> None:
        """``PATCH /saved_snippets/{id}`` (feature level 368)."""
        caps = await self._client.get_capabilities()
        params = _snippet_params(caps, title, content, creating=False)
        await self._client._request(
            "PATCH", f"/saved_snippets/{int(saved_snippet_id)}", params=params
        )

    async def delete(self, saved_snippet_id: int) -> None:
        """``DELETE /saved_snippets/{id}``."""
        await self._client._request("DELETE", f"/saved_snippets/{int(saved_snippet_id)}")


class AsyncTyping(AsyncResource):
    """``client.typing``: typing notifications while composing or editing."""

    async def set(
        self,
        op: TypingOp,
        *,
        to: Sequence[int] | NotGiven = NOT_GIVEN,
        stream_id: int | NotGiven = NOT_GIVEN,
        topic: str | NotGiven = NOT_GIVEN,
    ) -> None:
        """``POST /typing``: to users (``to``) or a channel topic (``stream_id`` + ``topic``)."""
        params = _typing_params(await self._client.get_capabilities(), given(locals()))
        await self._client._request("POST", "/typing", params=params)

    async def editing(self, message_id: int, op: TypingOp) -> None:
        """``POST /messages/{id}/typing`` (``/message_edit_typing`` before feature level 361)."""
        caps = await self._client.get_capabilities()
        path, params = _edit_typing_request(caps, message_id, op)
        await self._client._request("POST", path, params=params)
