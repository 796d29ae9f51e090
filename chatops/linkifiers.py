"""Deprecated: the linkifier matcher is :mod:`chatops.linkify` now.

``chatops.linkifiers`` was also the name of the sandbox's linkifier rules, the linkifiers
audit and the linkifiers panel; this module re-exports :mod:`chatops.linkify` with a
``DeprecationWarning``.
"""

from __future__ import annotations

import warnings

from .linkify import AFTER, BEFORE, OPTIONS, LinkifierMatch, Matcher, re2_message

__all__ = [
    "AFTER",
    "OPTIONS",
    "BEFORE",
    "LinkifierMatch",
    "Matcher",
    "re2_message",
]

warnings.warn(
    "chatops.linkifiers is deprecated; import chatops.linkify instead",
    DeprecationWarning,
    stacklevel=2,
)
