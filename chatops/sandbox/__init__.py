"""The embedded sandbox server: the team-chat API on SQLite, with a demo organization."""

from __future__ import annotations

from .app import create_app
from .demo import DEMO_ACCOUNTS, SIZES, Account
from .server import Sandbox, open_data_dir, serve
from .state import RateLimit, SandboxState
from .store import Store

__all__ = [
    "DEMO_ACCOUNTS",
    "SIZES",
    "Account",
    "RateLimit",
    "Sandbox",
    "SandboxState",
    "Store",
    "create_app",
    "open_data_dir",
    "serve",
]
