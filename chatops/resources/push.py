"""Mobile push: device tokens and the test notification (spec 4.20).

Written in ``chatops/_async/resources/push.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.push import AsyncPush, Platform
from .._sync.resources.push import Push

__all__ = ["AsyncPush", "Platform", "Push"]
