"""Personal tools: navigation views (4.12), saved snippets (4.13, 4.14) and typing (4.11).

Written in ``chatops/_async/resources/personal.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.personal import (
    AsyncAlertWords,
    AsyncDrafts,
    AsyncNavigationViews,
    AsyncSavedSnippets,
    AsyncTyping,
)
from .._sync.resources.personal import AlertWords, Drafts, NavigationViews, SavedSnippets, Typing

__all__ = [
    "AlertWords",
    "AsyncAlertWords",
    "AsyncDrafts",
    "AsyncNavigationViews",
    "AsyncSavedSnippets",
    "AsyncTyping",
    "Drafts",
    "NavigationViews",
    "SavedSnippets",
    "Typing",
]
