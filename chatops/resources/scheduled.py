"""Scheduled messages (spec 4.3) and message reminders (spec 4.16).

Written in ``chatops/_async/resources/scheduled.py``; the synchronous twins are generated.
"""

from .._async.resources.scheduled import *  # noqa: F403
from .._sync.resources.scheduled import *  # noqa: F403
