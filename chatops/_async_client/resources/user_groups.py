"""User groups: list, create, change, members and subgroups, deactivate (spec 4.21), reactivate."""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from typing import Any

from ..._base_client import NOT_GIVEN, NotGiven
from ...resources._base import AsyncResource, GroupSettingValue, given, group_setting_param
from ...types import (
    GroupIdResult,
    UserGroup,
    UserGroupMemberResult,
    UserGroupMembersResult,
    UserGroupsResult,
    UserGroupSubgroupsResult,
)

__all__ = ["GroupSettingValue", "AsyncUserGroups"]

#: setting name -> new value, or ``(new, old)`` to have the server check the current value
GroupSettingChanges = Mapping[
    str, "GroupSettingValue | tuple[GroupSettingValue, GroupSettingValue]"
]


def _setting_updates(settings: GroupSettingChanges | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in (settings or {}).items():
        if isinstance(value, tuple):
            new, old = value
            out[name] = {"new": group_setting_param(new), "old": group_setting_param(old)}
        else:
            out[name] = {"new": group_setting_param(value)}
    return out


class AsyncUserGroups(AsyncResource):
    """``client.user_groups``."""

    async def list(
        self, *, include_deactivated_groups: bool | NotGiven = NOT_GIVEN
    ) -> builtins.list[UserGroup]:
        """``GET /user_groups``: the organization's groups (deactivated ones only if asked)."""
        params = given(locals())
        result = await self._client._request(
            "GET", "/user_groups", params=params, cast_to=UserGroupsResult
        )
        return result.user_groups

    async def get(self, group_id: int) -> UserGroup:
        """One group by id (from ``GET /user_groups``, deactivated groups included)."""
        for group in await self.list(include_deactivated_groups=True):
            if group.id == group_id:
                return group
        raise KeyError(f"no user group {group_id}")

    async def create(
        self,
        name: str,
        *,
        members: builtins.list[int],
        description: str = "",
        subgroups: builtins.list[int] | NotGiven = NOT_GIVEN,
        settings: Mapping[str, GroupSettingValue] | None = None,
    ) -> int:
        """``POST /user_groups/create``; returns the new group's id.

        Args:
            name: the group name (at most 100 characters; no ``role:`` or ``@`` prefix).
            members: user ids of the direct members.
            description: the description.
            subgroups: ids of direct subgroups.
            settings: permission settings such as ``can_manage_group``, as group-setting values.
        """
        params = given(locals(), "settings")
        params |= {
            setting: group_setting_param(value) for setting, value in (settings or {}).items()
        }
        result = await self._client._request(
            "POST", "/user_groups/create", params=params, cast_to=GroupIdResult
        )
        return result.group_id

    async def update(
        self,
        group_id: int,
        *,
        name: str | NotGiven = NOT_GIVEN,
        description: str | NotGiven = NOT_GIVEN,
        settings: GroupSettingChanges | None = None,
    ) -> None:
        """``PATCH /user_groups/{group_id}``: name, description and permission settings.

        ``settings`` maps a setting to its new value, or to ``(new, old)`` so that the server
        refuses the change (``ExpectationMismatch``) if the current value is no longer ``old``.
        """
        params = given(locals(), "group_id", "settings") | _setting_updates(settings)
        await self._client._request("PATCH", f"/user_groups/{int(group_id)}", params=params)

    async def update_members(
        self,
        group_id: int,
        *,
        add: builtins.list[int] | NotGiven = NOT_GIVEN,
        delete: builtins.list[int] | NotGiven = NOT_GIVEN,
    ) -> None:
        """``POST /user_groups/{group_id}/members``: add and remove direct members."""
        params = given(locals(), "group_id")
        await self._client._request("POST", f"/user_groups/{int(group_id)}/members", params=params)

    async def update_subgroups(
        self,
        group_id: int,
        *,
        add: builtins.list[int] | NotGiven = NOT_GIVEN,
        delete: builtins.list[int] | NotGiven = NOT_GIVEN,
    ) -> None:
        """``POST /user_groups/{group_id}/subgroups``: add and remove direct subgroups."""
        params = given(locals(), "group_id")
        await self._client._request(
            "POST", f"/user_groups/{int(group_id)}/subgroups", params=params
        )

    async def members(
        self, group_id: int, *, direct_member_only: bool | NotGiven = NOT_GIVEN
    ) -> builtins.list[int]:
        """``GET /user_groups/{group_id}/members`` (feature level 127): ids of the active members.

        Args:
            group_id: the group.
            direct_member_only: leave out the members of its subgroups (server default false).
        """
        params = given(locals(), "group_id", "user_id")
        result = await self._client._request(
            "GET",
            f"/user_groups/{int(group_id)}/members",
            params=params,
            cast_to=UserGroupMembersResult,
        )
        return result.members

    async def is_member(
        self, group_id: int, user_id: int, *, direct_member_only: bool | NotGiven = NOT_GIVEN
    ) -> bool:
        """``GET /user_groups/{group_id}/members/{user_id}`` (feature level 127)."""
        params = given(locals(), "group_id", "user_id")
        result = await self._client._request(
            "GET",
            f"/user_groups/{int(group_id)}/members/{int(user_id)}",
            params=params,
            cast_to=UserGroupMemberResult,
        )
        return result.is_user_group_member

    async def subgroups(
        self, group_id: int, *, direct_subgroup_only: bool | NotGiven = NOT_GIVEN
    ) -> builtins.list[int]:
        """``GET /user_groups/{group_id}/subgroups`` (feature level 127).

        Args:
            group_id: the group.
            direct_subgroup_only: leave out subgroups of subgroups (server default false).
        """
        params = given(locals(), "group_id")
        result = await self._client._request(
            "GET",
            f"/user_groups/{int(group_id)}/subgroups",
            params=params,
            cast_to=UserGroupSubgroupsResult,
        )
        return result.subgroups

    async def deactivate(self, group_id: int) -> None:
        """Spec 4.21 ``POST /user_groups/{group_id}/deactivate`` (feature level 290).

        Raises ``CannotDeactivateGroupInUse`` whose ``objections`` list each setting or
        supergroup that still uses the group.
        """
        await self._client._request("POST", f"/user_groups/{int(group_id)}/deactivate")

    async def reactivate(self, group_id: int) -> None:
        """``PATCH /user_groups/{group_id}`` with ``deactivated=false`` (feature level 386)."""
        await self._client._request(
            "PATCH", f"/user_groups/{int(group_id)}", params={"deactivated": False}
        )
