"""Server settings (no authentication) and registration.

Written in ``chatops/_async/resources/server.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.server import AsyncServer
from .._sync.resources.server import Server

__all__ = ["AsyncServer", "Server"]
