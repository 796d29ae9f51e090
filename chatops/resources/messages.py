"""Messages: send, fetch, page through history, edit, move, resolve, react, delete.

Written in ``chatops/_async/resources/messages.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.messages import (
    RESOLVED_TOPIC_PREFIX,
    AsyncMessages,
    AsyncPagedHistory,
    FlagOp,
    MessageType,
    Narrow,
    PropagateMode,
)
from .._sync.resources.messages import Messages, PagedHistory

__all__ = [
    "AsyncMessages",
    "AsyncPagedHistory",
    "FlagOp",
    "MessageType",
    "Messages",
    "Narrow",
    "PagedHistory",
    "PropagateMode",
    "RESOLVED_TOPIC_PREFIX",
]
