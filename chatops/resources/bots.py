"""Bots: create, list, change and deactivate the requester's bots; bot storage (spec 4.22).

Written in ``chatops/_async/resources/bots.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.bots import AsyncBots
from .._sync.resources.bots import Bots

__all__ = ["AsyncBots", "Bots"]
