"""Moved to :mod:`chatops.analytics.dataset.records`; this path re-exports it, with a warning.

The names are also in :mod:`chatops.analytics` (``from chatops.analytics import messages_frame``).
"""

from __future__ import annotations

import warnings

from .dataset.records import (
    AnalyticsFrames,
    channels_frame,
    dm_recipients_frame,
    edit_kind,
    edits_frame,
    messages_frame,
    messages_table,
    reactions_frame,
    registered_accounts,
    subscriptions_frame,
    user_groups_frame,
    users_frame,
)

__all__ = [
    "AnalyticsFrames",
    "channels_frame",
    "dm_recipients_frame",
    "edit_kind",
    "edits_frame",
    "messages_frame",
    "messages_table",
    "reactions_frame",
    "registered_accounts",
    "subscriptions_frame",
    "user_groups_frame",
    "users_frame",
]

warnings.warn(
    "chatops.analytics.records moved to chatops.analytics.dataset.records "
    "(its names are also in chatops.analytics)",
    DeprecationWarning,
    stacklevel=2,
)
