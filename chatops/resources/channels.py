"""Channels: list, get, subscribe, unsubscribe, settings, archive, topic preferences, folders.

Written in ``chatops/_async/resources/channels.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.channels import (
    AsyncChannels,
    GroupSettingUpdate,
    GroupSettingValue,
    SubscriptionProperty,
    TopicsPolicy,
    VisibilityPolicy,
)
from .._sync.resources.channels import Channels

__all__ = [
    "AsyncChannels",
    "Channels",
    "GroupSettingUpdate",
    "GroupSettingValue",
    "SubscriptionProperty",
    "TopicsPolicy",
    "VisibilityPolicy",
]
