"""Typed records: personal (see :mod:`chatops.types`)."""

from __future__ import annotations

from ._base import Record

# -- personal: navigation views and saved snippets -------------------------------------------------


class NavigationView(Record):
    """A navigation view: a built-in fragment, or a custom one with a name."""

    fragment: str
    is_pinned: bool
    name: str | None = None


class NavigationViewsResult(Record):
    """``GET /navigation_views``."""

    navigation_views: list[NavigationView] = []


class SavedSnippet(Record):
    """A saved snippet: a title and Markdown content."""

    id: int
    title: str
    content: str
    date_created: int | None = None


class SavedSnippetsResult(Record):
    """``GET /saved_snippets``."""

    saved_snippets: list[SavedSnippet] = []


class SavedSnippetIdResult(Record):
    """``POST /saved_snippets``."""

    saved_snippet_id: int


class AlertWordsResult(Record):
    """``GET``/``POST``/``DELETE /users/me/alert_words``: the words after the change."""

    alert_words: list[str] = []


class Draft(Record):
    """A draft kept on the server: ``type`` ``stream``, ``private`` or ``""``; ``to`` holds the
    channel ID or the user IDs."""

    type: str
    to: list[int]
    topic: str
    content: str
    id: int | None = None
    timestamp: float | None = None


class DraftsResult(Record):
    """``GET /drafts``."""

    drafts: list[Draft] = []
    count: int = 0


class DraftIdsResult(Record):
    """``POST /drafts``: the IDs of the new drafts, in order."""

    ids: list[int] = []
