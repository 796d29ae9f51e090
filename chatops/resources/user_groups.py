"""User groups: list, create, change, members and subgroups, deactivate (spec 4.21), reactivate.

Written in ``chatops/_async/resources/user_groups.py``; the synchronous twins are generated.
"""

from __future__ import annotations

from .._async.resources.user_groups import AsyncUserGroups, GroupSettingValue
from .._sync.resources.user_groups import UserGroups

__all__ = ["AsyncUserGroups", "GroupSettingValue", "UserGroups"]
