"""Event queues: register, poll, delete, and an iterator that survives queue expiry.

Written in ``chatops/_async/resources/events.py``; the synchronous twins are generated.
"""

from .._async.resources.events import *  # noqa: F403
from .._sync.resources.events import *  # noqa: F403
