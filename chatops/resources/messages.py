"""Messages: send, fetch, page through history, edit, move, resolve, react, delete.

Written in ``chatops/_async/resources/messages.py``; the synchronous twins are generated.
"""

from .._async.resources.messages import *  # noqa: F403
from .._sync.resources.messages import *  # noqa: F403
