"""Deprecated: the sandbox's HTTP handlers are in :mod:`chatops.sandbox.routes` now.

``chatops.sandbox.views`` and ``chatops.sandbox.views.<area>`` still import, with a
``DeprecationWarning``: each ``<area>`` is the very module ``chatops.sandbox.routes.<area>``.
(The views people call are the analytics ones, :mod:`chatops.analytics.views`.)
"""

from __future__ import annotations

import sys
import warnings

from ..routes import (
    bots,
    channels,
    events,
    invitations,
    messages,
    personal,
    push,
    realm,
    scheduled,
    uploads,
    user_groups,
    users,
)

__all__ = [
    "bots",
    "channels",
    "events",
    "invitations",
    "messages",
    "personal",
    "push",
    "realm",
    "scheduled",
    "uploads",
    "user_groups",
    "users",
]

warnings.warn(
    "chatops.sandbox.views is deprecated; import chatops.sandbox.routes instead",
    DeprecationWarning,
    stacklevel=2,
)

# ``import chatops.sandbox.views.messages`` finds the route module itself, not a copy
for _area in __all__:
    sys.modules[f"{__name__}.{_area}"] = globals()[_area]
