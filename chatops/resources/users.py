"""Users: own user, one user, all users; status; the life cycle of users and bots.

Written in ``chatops/_async/resources/users.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.users import AsyncUsers
from .._sync.resources.users import Users

__all__ = ["AsyncUsers", "Users"]
