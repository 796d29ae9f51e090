"""Typed records: user_groups (see :mod:`chatops.types`)."""

from __future__ import annotations

from ._base import GroupSettingValue, Record

# -- user_groups: user groups ----------------------------------------------------------------------


class UserGroup(Record):
    """A user group; permission settings are group-setting values (an id or an object)."""

    id: int
    name: str
    description: str = ""
    members: list[int] = []
    direct_subgroup_ids: list[int] = []
    creator_id: int | None = None
    date_created: int | None = None
    is_system_group: bool = False
    deactivated: bool = False
    can_add_members_group: GroupSettingValue | None = None
    can_join_group: GroupSettingValue | None = None
    can_leave_group: GroupSettingValue | None = None
    can_manage_group: GroupSettingValue | None = None
    can_mention_group: GroupSettingValue | None = None
    can_remove_members_group: GroupSettingValue | None = None


class UserGroupsResult(Record):
    """``GET /user_groups``."""

    user_groups: list[UserGroup] = []


class GroupIdResult(Record):
    """``POST /user_groups/create``."""

    group_id: int


class UserGroupMembersResult(Record):
    """``GET /user_groups/{id}/members`` (feature level 127)."""

    members: list[int] = []


class UserGroupMemberResult(Record):
    """``GET /user_groups/{id}/members/{user_id}`` (feature level 127)."""

    is_user_group_member: bool


class UserGroupSubgroupsResult(Record):
    """``GET /user_groups/{id}/subgroups`` (feature level 127)."""

    subgroups: list[int] = []
