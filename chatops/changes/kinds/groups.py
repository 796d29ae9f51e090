"""User groups: deactivate, reactivate, change members, change settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from .._base import Change, Phase, Reading, read, same_setting
from .._call import ApiCall

if TYPE_CHECKING:
    from ..._client import Client

__all__ = [
    "CreateGroup",
    "DeactivateGroup",
    "ReactivateGroup",
    "UpdateGroup",
    "UpdateGroupMembers",
    "UpdateGroupSubgroups",
]


def _group(client: Client, group_id: int) -> dict[str, Any] | Reading:
    answer = read(client, "/user_groups", {"include_deactivated_groups": True})
    if isinstance(answer, Reading):
        return answer
    for group in answer.get("user_groups") or []:
        if isinstance(group, dict) and group.get("id") == group_id:
            return group
    return Reading(None, f"GET /user_groups: no group {group_id}")


def _deactivated(client: Client, group_id: int, wanted: bool) -> Reading:
    group = _group(client, group_id)
    if isinstance(group, Reading):
        return group
    deactivated = bool(group.get("deactivated"))
    shown = "true" if deactivated else "false"
    return Reading(deactivated is wanted, f"GET /user_groups: group {group_id} deactivated {shown}")


class CreateGroup(Change, frozen=True, kw_only=True):
    """Create a user group (``POST /user_groups/create``); undone by deactivating it (a group
    is never deleted). ``settings`` are group-setting values by name, as the client takes them."""

    name: str
    members: list[int]
    description: str = ""
    subgroups: list[int] = []
    settings: dict[str, Any] = {}

    def call(self) -> ApiCall:
        params: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "members": list(self.members),
            **self.settings,
        }
        if self.subgroups:
            params["subgroups"] = list(self.subgroups)
        return ApiCall(method="POST", path="/user_groups/create", params=params)

    def send(self, client: Client) -> dict[str, Any]:
        group = client.user_groups.create(
            self.name,
            members=list(self.members),
            description=self.description,
            subgroups=list(self.subgroups),
            settings=self.settings or None,
        )
        return {"group_id": group}

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        return (
            None if "group_id" not in answer else DeactivateGroup(group_id=int(answer["group_id"]))
        )


class DeactivateGroup(Change, frozen=True, kw_only=True):
    """Deactivate a user group (``POST /user_groups/{id}/deactivate``); reactivating undoes it."""

    phase: ClassVar[Phase] = Phase.DEACTIVATE_GROUPS
    group_id: int

    def call(self) -> ApiCall:
        return ApiCall(method="POST", path=f"/user_groups/{self.group_id}/deactivate")

    def state(self, client: Client) -> Reading:
        return _deactivated(client, self.group_id, True)

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change:
        return ReactivateGroup(group_id=self.group_id)


class ReactivateGroup(Change, frozen=True, kw_only=True):
    """Reactivate a user group (``PATCH /user_groups/{id}`` with ``deactivated=false``)."""

    group_id: int

    def call(self) -> ApiCall:
        return ApiCall(
            method="PATCH", path=f"/user_groups/{self.group_id}", params={"deactivated": False}
        )

    def state(self, client: Client) -> Reading:
        return _deactivated(client, self.group_id, False)

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change:
        return DeactivateGroup(group_id=self.group_id)


def _members(client: Client, group_id: int) -> set[int] | Reading:
    """The group's direct members, deactivated people included (``GET /user_groups`` lists
    them; ``GET /user_groups/{id}/members`` leaves them out, and removing one is a change)."""
    group = _group(client, group_id)
    if isinstance(group, Reading):
        return group
    return {int(m) for m in group.get("members") or []}


class UpdateGroupMembers(Change, frozen=True, kw_only=True):
    """Add and remove a group's direct members (``POST /user_groups/{id}/members``)."""

    group_id: int
    add: list[int] = []
    delete: list[int] = []

    def call(self) -> ApiCall:
        params: dict[str, Any] = {}
        if self.add:
            params["add"] = list(self.add)
        if self.delete:
            params["delete"] = list(self.delete)
        return ApiCall(method="POST", path=f"/user_groups/{self.group_id}/members", params=params)

    def before(self, client: Client) -> dict[str, Any] | None:
        members = _members(client, self.group_id)
        return None if isinstance(members, Reading) else {"members": sorted(members)}

    def state(self, client: Client) -> Reading:
        members = _members(client, self.group_id)
        if isinstance(members, Reading):
            return members
        done = set(self.add) <= members and not set(self.delete) & members
        return Reading(
            done,
            f"GET /user_groups: group {self.group_id} members "
            + ("as set" if done else "not yet as set"),
        )

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None:
            return None
        members = set(before.get("members") or [])
        added = sorted(set(self.add) - members)
        removed = sorted(set(self.delete) & members)
        if not added and not removed:
            return None
        return UpdateGroupMembers(group_id=self.group_id, add=removed, delete=added)


class UpdateGroupSubgroups(Change, frozen=True, kw_only=True):
    """Add and remove a group's direct subgroups (``POST /user_groups/{id}/subgroups``)."""

    group_id: int
    add: list[int] = []
    delete: list[int] = []

    def call(self) -> ApiCall:
        params: dict[str, Any] = {}
        if self.add:
            params["add"] = list(self.add)
        if self.delete:
            params["delete"] = list(self.delete)
        return ApiCall(method="POST", path=f"/user_groups/{self.group_id}/subgroups", params=params)

    def _subgroups(self, client: Client) -> set[int] | Reading:
        group = _group(client, self.group_id)
        if isinstance(group, Reading):
            return group
        return {int(g) for g in group.get("direct_subgroup_ids") or []}

    def before(self, client: Client) -> dict[str, Any] | None:
        found = self._subgroups(client)
        return None if isinstance(found, Reading) else {"subgroups": sorted(found)}

    def state(self, client: Client) -> Reading:
        found = self._subgroups(client)
        if isinstance(found, Reading):
            return found
        done = set(self.add) <= found and not set(self.delete) & found
        word = "as set" if done else "not yet as set"
        return Reading(done, f"GET /user_groups: group {self.group_id} subgroups {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None:
            return None
        had = set(before.get("subgroups") or [])
        added, removed = sorted(set(self.add) - had), sorted(set(self.delete) & had)
        if not added and not removed:
            return None
        return UpdateGroupSubgroups(group_id=self.group_id, add=removed, delete=added)


class UpdateGroup(Change, frozen=True, kw_only=True):
    """Change a group's name, description or a group setting (``PATCH /user_groups/{id}``;
    a group setting as ``{"new": value}``)."""

    group_id: int
    settings: dict[str, Any]

    def call(self) -> ApiCall:
        return ApiCall(method="PATCH", path=f"/user_groups/{self.group_id}", params=self.settings)

    def before(self, client: Client) -> dict[str, Any] | None:
        group = _group(client, self.group_id)
        if isinstance(group, Reading):
            return None
        return {name: group.get(name) for name in self.settings}

    def state(self, client: Client) -> Reading:
        group = _group(client, self.group_id)
        if isinstance(group, Reading):
            return group
        differ = [n for n, v in self.settings.items() if not same_setting(group.get(n), v)]
        word = f"{', '.join(differ)} differ" if differ else "as set"
        return Reading(not differ, f"GET /user_groups: group {self.group_id} {word}")

    def inverse(self, before: Mapping[str, Any] | None, answer: Mapping[str, Any]) -> Change | None:
        if before is None:
            return None
        settings: dict[str, Any] = {}
        for name, wanted in self.settings.items():
            old = before.get(name)
            if isinstance(wanted, Mapping) and "new" in wanted:
                settings[name] = {"new": old, "old": wanted["new"]}
            else:
                settings[name] = old
        return UpdateGroup(group_id=self.group_id, settings=settings)
