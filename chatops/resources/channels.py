"""Channels: list, get, subscribe, unsubscribe, settings, archive, topic preferences, folders.

Written in ``chatops/_async/resources/channels.py``; the synchronous twins are generated.
"""

from .._async.resources.channels import *  # noqa: F403
from .._sync.resources.channels import *  # noqa: F403
