"""Bots: create, list, change and deactivate the requester's bots; bot storage (spec 4.22).

Written in ``chatops/_async/resources/bots.py``; the synchronous twins are generated.
"""

from .._async.resources.bots import *  # noqa: F403
from .._sync.resources.bots import *  # noqa: F403
