"""User groups: empty, small or unused groups, and deactivated users still in groups.

"Used" means what Zulip's deactivation ``objections`` list, computed locally (the deactivate
endpoint acts, so it is never called in a dry run): an organization setting (``realm_*_group``
from ``POST /register``), a channel setting (``can_*_group`` from ``GET /streams``), another
group's setting (``can_*_group``), or membership as a subgroup of another active group.

A group with active members may still list deactivated users (Zulip keeps them); each such
group is a finding whose call removes them (``POST /user_groups/{id}/members`` with
``delete``). With ``min_members`` above 1, a group with fewer active members than that is
reported as small (``info``).

One threshold, with a default the demo organization passes:

- ``max_empty_groups`` (1): fail when more active non-system groups than this have no active
  member (none at all, or only deactivated users). ``-1`` switches the check off.

With ``dry_run=False`` every unused non-system group is deactivated
(``POST /user_groups/{id}/deactivate``) and deactivated users are removed from groups that have
active members; empty groups that are still used are only reported,
since someone has to choose their new members.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec
import pandas as pd

from ..types import UserGroup
from ._result import AuditResult, findings_frame

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["user_groups", "group_usages"]


def _setting_group_ids(value: Any) -> list[int]:
    """The group ids a group-setting value names (an id, or an anonymous group's subgroups)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, Mapping):
        return [int(g) for g in value.get("direct_subgroups", []) or []]
    return []


def group_usages(
    groups: Sequence[Mapping[str, Any]],
    realm: Mapping[str, Any],
    channels: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Where each group is used: one row per (group_id, kind, where, setting).

    ``groups`` and ``channels`` are raw JSON records (``GET /user_groups``, ``GET /streams``),
    so that settings newer than the typed records count too. ``kind`` is ``realm``,
    ``channel``, ``group`` (a setting of another group) or ``subgroup`` (a direct subgroup of
    another group). Settings of deactivated groups and archived channels do not count.
    """
    rows: list[dict[str, Any]] = []
    for key, value in sorted(realm.items()):
        # can_create_groups and can_manage_all_groups name groups too, though they end in "s"
        if key.startswith("realm_") and key.endswith(("_group", "_groups")):
            for gid in _setting_group_ids(value):
                rows.append(
                    {"group_id": gid, "kind": "realm", "where": "organization", "setting": key[6:]}
                )
    for ch in channels:
        if ch.get("is_archived"):
            continue
        for key, value in sorted(ch.items()):
            if key.startswith("can_") and key.endswith("_group"):
                for gid in _setting_group_ids(value):
                    rows.append(
                        {
                            "group_id": gid,
                            "kind": "channel",
                            "where": f"#{ch['name']}",
                            "setting": key,
                        }
                    )
    for g in groups:
        if g.get("deactivated"):
            continue
        name, own = str(g["name"]), int(g["id"])
        for key, value in sorted(g.items()):
            if key.startswith("can_") and key.endswith("_group"):
                for gid in _setting_group_ids(value):
                    if gid != own:
                        rows.append(
                            {"group_id": gid, "kind": "group", "where": name, "setting": key}
                        )
        for sub in g.get("direct_subgroup_ids", []) or []:
            rows.append({"group_id": int(sub), "kind": "subgroup", "where": name, "setting": ""})
    return rows


def _all_members(gid: int, by_id: dict[int, UserGroup]) -> set[int]:
    seen: set[int] = set()
    members: set[int] = set()
    stack = [gid]
    while stack:
        current = stack.pop()
        if current in seen or current not in by_id:
            continue
        seen.add(current)
        members.update(by_id[current].members)
        stack.extend(by_id[current].direct_subgroup_ids)
    return members


def user_groups(
    client: Client,
    *,
    max_empty_groups: int = 1,
    min_members: int = 1,
    now: datetime | None = None,
    dry_run: bool = True,
) -> AuditResult:
    """Fetch groups, users, organization and channel settings, and judge the groups.

    Args:
        client: a client of an administrator.
        max_empty_groups: fail when more active non-system groups than this have no active
            member; ``-1`` disables the check.
        min_members: report non-system groups with at least one but fewer than this many
            active members as small; 0 or 1 switches the check off.
        now: when the audit is dated; default the current time.
        dry_run: when False, deactivate every unused non-system group and remove deactivated
            users from the groups that have active members.

    Tables: ``groups`` (one row per active group), ``usages`` (where each group is used).
    """
    if min_members < 0:
        raise ValueError(f"min_members must be at least 0, not {min_members}")
    generated = now or datetime.now(UTC)
    raw_groups = _raw(client, "/user_groups", "user_groups", {})
    groups = [msgspec.convert(g, UserGroup) for g in raw_groups if not g.get("deactivated", False)]
    by_id = {g.id: g for g in groups}
    active_users = {u.user_id for u in client.users.list() if u.is_active}
    realm = client.server.register()
    channels = _raw(client, "/streams", "streams", {"include_all": True})
    usages = [u for u in group_usages(raw_groups, realm, channels) if u["group_id"] in by_id]

    used_in: dict[int, list[str]] = {}
    for u in usages:
        label = f"{u['where']}:{u['setting']}" if u["setting"] else f"subgroup of {u['where']}"
        used_in.setdefault(int(u["group_id"]), []).append(label)

    table_rows: list[dict[str, Any]] = []
    rows: list[dict[str, str]] = []
    empty: list[UserGroup] = []
    unused: list[UserGroup] = []
    small: list[UserGroup] = []
    with_deactivated: list[UserGroup] = []
    for g in sorted(groups, key=lambda x: x.id):
        members = _all_members(g.id, by_id)
        active = members & active_users
        where = used_in.get(g.id, [])
        table_rows.append(
            {
                "group_id": g.id,
                "name": g.name,
                "is_system_group": g.is_system_group,
                "direct_members": len(g.members),
                "members": len(members),
                "active_members": len(active),
                "deactivated_members": len(members - active),
                "subgroups": len(g.direct_subgroup_ids),
                "uses": len(where),
                "used_in": ", ".join(where[:5])
                + (f", ... (+{len(where) - 5})" if len(where) > 5 else ""),
            }
        )
        if g.is_system_group:
            continue
        flags: list[str] = []
        if not members:
            flags.append("has no members")
        elif not active:
            flags.append(f"has only deactivated members ({len(members)})")
        if flags:
            empty.append(g)
        if not where:
            flags.append("is not used by any setting or group")
            unused.append(g)
        gone = sorted(set(g.members) - active_users)
        if active and gone:
            with_deactivated.append(g)
            rows.append(
                _row(
                    "warning",
                    f"@{g.name}",
                    f"{len(gone)} deactivated users are still direct members",
                    "Remove the deactivated users from the group",
                    f"POST /api/v1/user_groups/{g.id}/members delete={json.dumps(gone)}",
                )
            )
        if active and len(active) < min_members:
            small.append(g)
            rows.append(
                _row(
                    "info",
                    f"@{g.name}",
                    f"has {len(active)} active members, fewer than min_members={min_members}",
                    "Add the people the group stands for, or deactivate it if it is not needed",
                    f"POST /api/v1/user_groups/{g.id}/members add=[user_id, ...]",
                )
            )
        if not flags:
            continue
        finding = "; ".join(flags)
        if not where:
            action = "Deactivate the group (nothing uses it)"
            call = f"POST /api/v1/user_groups/{g.id}/deactivate"
        else:
            finding += f"; used in {', '.join(where)}"
            action = "Add active members, or replace the group in the settings that use it"
            call = f"POST /api/v1/user_groups/{g.id}/members add=[user_id, ...]"
        rows.append(_row("warning", f"@{g.name}", finding, action, call))

    failed: list[str] = []
    if max_empty_groups >= 0 and len(empty) > max_empty_groups:
        failed.append("max_empty_groups")
        rows.append(
            _row(
                "critical",
                "groups",
                f"{len(empty)} groups have no active member; the threshold is {max_empty_groups}",
                "Give the groups active members or deactivate the unused ones",
                "POST /api/v1/user_groups/{group_id}/deactivate",
            )
        )

    deactivated: list[int] = []
    cleaned: list[int] = []
    if not dry_run:
        for g in unused:
            client.user_groups.deactivate(g.id)
            deactivated.append(g.id)
        for g in with_deactivated:
            client.user_groups.update_members(g.id, delete=sorted(set(g.members) - active_users))
            cleaned.append(g.id)

    groups_table = pd.DataFrame(
        table_rows,
        columns=[
            "group_id",
            "name",
            "is_system_group",
            "direct_members",
            "members",
            "active_members",
            "deactivated_members",
            "subgroups",
            "uses",
            "used_in",
        ],
    ).set_index("group_id")
    usage_table = pd.DataFrame(usages, columns=["group_id", "kind", "where", "setting"])
    usage_table.insert(1, "group", [by_id[int(i)].name for i in usage_table["group_id"]])
    summary: dict[str, Any] = {
        "name": "user_groups",
        "passed": not failed,
        "failed_checks": failed,
        "counts": {
            "groups": len(groups),
            "system_groups": sum(1 for g in groups if g.is_system_group),
            "custom_groups": sum(1 for g in groups if not g.is_system_group),
            "empty_groups": len(empty),
            "unused_groups": len(unused),
            "small_groups": len(small),
            "groups_with_deactivated_members": len(with_deactivated),
            "usages": len(usages),
            "findings": len(rows),
            "deactivated_now": len(deactivated),
            "cleaned_now": len(cleaned),
        },
        "thresholds": {"max_empty_groups": max_empty_groups, "min_members": min_members},
        "dry_run": dry_run,
        "deactivated_group_ids": deactivated,
        "cleaned_group_ids": cleaned,
        "site": client.site,
        "generated_at": pd.Timestamp(generated).isoformat(),
    }
    return AuditResult(
        findings=findings_frame(rows),
        summary=summary,
        tables={"groups": groups_table, "usages": usage_table},
    )


def _raw(client: Client, path: str, key: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Records as plain JSON objects, as :func:`group_usages` reads them (every setting)."""
    result = client.get(path, params=params)
    return [dict(r) for r in result.get(key, [])]


def _row(severity: str, subject: str, finding: str, action: str, call: str) -> dict[str, str]:
    return {
        "severity": severity,
        "subject": subject,
        "finding": finding,
        "recommended_action": action,
        "api_call": call,
    }
