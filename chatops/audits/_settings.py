"""Group-valued settings, as three audits read them (``guest_access``, ``permission_posture``,
``user_groups``): which settings there are, whom a value reaches, and a value in words.

A group-setting value is a group id or an anonymous group
``{"direct_members": [...], "direct_subgroups": [...]}``; groups are raw ``GET /user_groups``
records by id, so that settings newer than the typed records count too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "describe_setting",
    "group_settings",
    "is_group_value",
    "resolve_group_setting",
    "setting_group_ids",
]

#: one group-valued setting: (scope, where, stream id or None, setting name, value)
Setting = tuple[str, str, int | None, str, Any]


def resolve_group_setting(
    value: Any, groups: Mapping[int, Mapping[str, Any]], seen: frozenset[int] = frozenset()
) -> set[int]:
    """The user ids a group-setting value reaches, following subgroups.

    ``value`` is a group id or ``{"direct_members": [...], "direct_subgroups": [...]}``;
    ``groups`` maps group id to its raw ``GET /user_groups`` record (deactivated ones too).
    A deactivated group, or an id no group has, reaches nobody.
    """
    if isinstance(value, bool):
        return set()
    if isinstance(value, int):
        group = groups.get(value)
        if group is None or group.get("deactivated") or value in seen:
            return set()
        members = {int(u) for u in group.get("members", []) or []}
        for sub in group.get("direct_subgroup_ids", []) or []:
            members |= resolve_group_setting(int(sub), groups, seen | {value})
        return members
    if isinstance(value, Mapping):
        members = {int(u) for u in value.get("direct_members", []) or []}
        for sub in value.get("direct_subgroups", []) or []:
            members |= resolve_group_setting(int(sub), groups, seen)
        return members
    return set()


def is_group_value(value: Any) -> bool:
    """Whether ``value`` is a group-setting value (a group id or an anonymous group)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, Mapping) and ("direct_members" in value or "direct_subgroups" in value)


def setting_group_ids(value: Any) -> list[int]:
    """The group ids a group-setting value names (an id, or an anonymous group's subgroups)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, Mapping):
        return [int(g) for g in value.get("direct_subgroups", []) or []]
    return []


def describe_setting(value: Any, groups: Mapping[int, Mapping[str, Any]]) -> str:
    """A group-setting value in words: ``leads``, ``old-team (deactivated)``,
    ``{user 7, leads}``."""
    if isinstance(value, int):
        group = groups.get(value)
        if group is None:
            return f"group {value} (missing)"
        name = str(group.get("name", value))
        return f"{name} (deactivated)" if group.get("deactivated") else name
    parts = [f"user {u}" for u in value.get("direct_members", []) or []]
    parts += [describe_setting(int(g), groups) for g in value.get("direct_subgroups", []) or []]
    return "{" + ", ".join(parts) + "}"


def group_settings(
    realm: Mapping[str, Any], channels: Sequence[Mapping[str, Any]]
) -> list[Setting]:
    """Every group-valued setting of the organization and of each non-archived channel.

    ``realm`` is the ``POST /register`` state, ``channels`` raw ``GET /streams`` records. One
    ``(scope, where, stream_id, setting, value)`` per setting: scope ``organization`` (where
    ``organization``, stream_id None, the name without ``realm_``) or ``channel`` (where
    ``#name``), channels by name.
    """
    found: list[Setting] = []
    for key, value in sorted(realm.items()):
        if key.startswith("realm_") and key.endswith(("_group", "_groups")):
            if is_group_value(value):
                found.append(("organization", "organization", None, key[len("realm_") :], value))
    for ch in sorted(channels, key=lambda c: str(c["name"]).lower()):
        if ch.get("is_archived"):
            continue
        for key, value in sorted(ch.items()):
            if key.startswith("can_") and key.endswith("_group") and is_group_value(value):
                found.append(("channel", f"#{ch['name']}", int(ch["stream_id"]), key, value))
    return found
