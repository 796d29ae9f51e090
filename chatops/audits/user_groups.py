"""User groups: empty, small or unused groups, and deactivated users still in groups.

"Used" means what Zulip's deactivation ``objections`` list, computed locally (the deactivate
endpoint acts, so it is never called in a dry run): an organization setting (``realm_*_group``
from ``POST /register``), a channel setting (``can_*_group`` from ``GET /streams``), another
group's setting (``can_*_group``), or membership as a subgroup of another active group.

A group no setting or group uses may still be in use as a mention: the audit reads the
messages of the last ``stale_days`` days that its account can read (newest first, at most
``max_messages``; run it as an administrator subscribed to the channels) for ``@*group*`` and
silent ``@_*group*`` mentions. Only a group that is both unused and not mentioned in that
window is reported as unused (``info``, ``warning`` when it is also empty), with the call that
deactivates it; the ``groups`` table gives each group's last mention in the window.

A setting of the organization or of a channel granted to a custom group (directly or inside an
anonymous group) that reaches more than ``max_group_size_ratio`` of the active humans is
reported (``info``): the group no longer restricts much. The settings granted to the role
groups are :mod:`permission_posture`'s, which judges them by how sensitive they are; the
setting list and the resolution of a setting to its members are shared with it.

The ``graph`` table is the edge list of subgroup edges (supergroup -> subgroup) and permission
edges (group -> the organization, channel or group whose setting names it). The real server
refuses a subgroup that would make a cycle, so a cycle cannot occur in its data; the audit
checks anyway (:func:`subgroup_cycles`) and reports one as a ``warning``, since members of a
cycle resolve to each other's members and a data import or another server could bring one.

A group with active members may still list deactivated users (Zulip keeps them); each such
group is a finding whose call removes them (``POST /user_groups/{id}/members`` with
``delete``). With ``min_members`` above 1, a group with fewer active members than that is
reported as small (``info``).

One threshold, with a default the demo organization passes:

- ``max_empty_groups`` (1): fail when more active non-system groups than this have no active
  member (none at all, or only deactivated users). ``-1`` switches the check off.

With ``dry_run=False`` every unused (and unmentioned) non-system group is deactivated
(``POST /user_groups/{id}/deactivate``) and deactivated users are removed from groups that have
active members; empty groups that are still used are only reported,
since someone has to choose their new members.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
import networkx as nx
import pandas as pd

from ..types import UserGroup
from ._common import DEFAULT_MAX_MESSAGES, api, fill, finding, recent_messages, utc
from ._common import summary as summary_of
from ._params import Param
from ._result import AuditResult, Finding
from .guest_access import resolve_group_setting
from .permission_posture import _describe, group_settings

if TYPE_CHECKING:
    from .._client import Client

__all__ = ["group_mentions", "graph_edges", "group_usages", "subgroup_cycles", "user_groups"]

#: ``@*name*`` and the silent ``@_*name*``; ``@**name**`` (a person) does not match
GROUP_MENTION = re.compile(r"@_?\*([^*\n]+)\*")
#: fenced code blocks and inline code, where the server renders no mention
_CODE = re.compile(r"^(```|~~~).*?(^\1|\Z)|`[^`\n]*`", re.MULTILINE | re.DOTALL)
GRAPH_COLUMNS = ["source", "target", "kind", "setting"]


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


def group_mentions(
    messages: Iterable[tuple[int, str]], names: Iterable[str]
) -> dict[str, tuple[int, int]]:
    """``{group name: (mentions, last timestamp)}`` of the groups ``messages`` mention.

    ``messages`` are ``(timestamp, raw Markdown content)`` pairs; names match without regard
    to case, as the server's do; code blocks and inline code mention nobody. Groups never
    mentioned are left out.
    """
    by_lower = {n.lower(): n for n in names}
    out: dict[str, tuple[int, int]] = {}
    for timestamp, content in messages:
        for match in {m.strip().lower() for m in GROUP_MENTION.findall(_CODE.sub(" ", content))}:
            name = by_lower.get(match)
            if name is not None:
                count, last = out.get(name, (0, 0))
                out[name] = (count + 1, max(last, timestamp))
    return out


def graph_edges(usages: Sequence[Mapping[str, Any]], names: Mapping[int, str]) -> pd.DataFrame:
    """The subgroup and permission edges of :func:`group_usages` rows, as an edge list.

    A subgroup edge goes from the supergroup to the subgroup; a permission edge from the group
    to what its setting belongs to (``organization``, ``#channel`` or ``@group``), the setting
    named. Groups are ``@name``; rows of groups not in ``names`` are left out.
    """
    rows: list[dict[str, str]] = []
    for u in usages:
        gid = int(u["group_id"])
        if gid not in names:
            continue
        group = f"@{names[gid]}"
        if u["kind"] == "subgroup":
            rows.append(
                {"source": f"@{u['where']}", "target": group, "kind": "subgroup", "setting": ""}
            )
        else:
            target = f"@{u['where']}" if u["kind"] == "group" else str(u["where"])
            rows.append(
                {"source": group, "target": target, "kind": "permission", "setting": u["setting"]}
            )
    return pd.DataFrame(rows, columns=GRAPH_COLUMNS)


def edge_graph(edges: pd.DataFrame) -> nx.MultiDiGraph:
    """The :func:`graph_edges` table as a networkx multigraph (one edge per row)."""
    graph = nx.MultiDiGraph()
    for r in edges.to_dict("records"):
        graph.add_edge(r["source"], r["target"], kind=r["kind"], setting=r["setting"])
    return graph


def subgroup_cycles(groups: Sequence[Mapping[str, Any]]) -> list[list[int]]:
    """The cycles of subgroup edges among ``groups`` (raw records: ``id``,
    ``direct_subgroup_ids``), each as group ids from its smallest, in order.

    The real server refuses a subgroup that would close a cycle, so its data has none; this is
    the check that it does not.
    """
    graph = nx.DiGraph()
    for g in groups:
        graph.add_node(int(g["id"]))
        for sub in g.get("direct_subgroup_ids", []) or []:
            graph.add_edge(int(g["id"]), int(sub))
    cycles: list[list[int]] = []
    for cycle in nx.simple_cycles(graph):
        start = cycle.index(min(cycle))
        cycles.append([int(c) for c in cycle[start:] + cycle[:start]])
    return sorted(cycles)


def user_groups(
    client: Client,
    *,
    max_empty_groups: Annotated[
        int,
        Param(
            "fail when more non-system groups than this have no active member (-1: off)",
            low=-1,
        ),
    ] = 1,
    min_members: Annotated[
        int,
        Param(
            "report groups with fewer active members than this as small (0 or 1: off)",
            low=0,
        ),
    ] = 1,
    stale_days: Annotated[
        int,
        Param(
            "a group no setting uses is unused when no message of this many days mentions it",
            low=1,
        ),
    ] = 180,
    max_messages: Annotated[
        int,
        Param("read at most this many messages for mentions, newest first", low=1),
    ] = DEFAULT_MAX_MESSAGES,
    max_group_size_ratio: Annotated[
        float,
        Param(
            "report settings granted to a custom group reaching more than this "
            "share of active humans (-1: off)",
            off=-1,
            low=0,
            high=1,
        ),
    ] = 0.5,
    now: datetime | None = None,
    dry_run: Annotated[
        bool,
        Param("when False, deactivate every unused, unmentioned non-system group"),
    ] = True,
) -> AuditResult:
    """Fetch groups, users, organization and channel settings, and judge the groups.

    Args:
        client: a client of an administrator.
        max_empty_groups: fail when more active non-system groups than this have no active
            member; ``-1`` disables the check.
        min_members: report non-system groups with at least one but fewer than this many
            active members as small; 0 or 1 switches the check off.
        stale_days: a group no setting or group uses is unused when no message of this many
            days mentions it.
        max_messages: read at most this many messages of history for mentions, newest first.
        max_group_size_ratio: report organization and channel settings granted to a custom
            group that reach more than this share (0 to 1) of the active humans; ``-1``
            disables the check.
        now: when the audit is dated; default the current time.
        dry_run: when False, deactivate every unused non-system group and remove deactivated
            users from the groups that have active members.

    Tables: ``groups`` (one row per active group), ``usages`` (where each group is used),
    ``graph`` (subgroup and permission edges, see :func:`graph_edges`).
    """
    if min_members < 0:
        raise ValueError(f"min_members must be at least 0, not {min_members}")
    if stale_days < 1:
        raise ValueError(f"stale_days must be at least 1, not {stale_days}")
    if max_messages < 1:
        raise ValueError(f"max_messages must be at least 1, not {max_messages}")
    if not (max_group_size_ratio == -1 or 0 <= max_group_size_ratio <= 1):
        raise ValueError(
            f"max_group_size_ratio must be between 0 and 1, or -1, not {max_group_size_ratio}"
        )
    generated = utc(now)
    raw_groups = _raw(client, "/user_groups", "user_groups", {})
    groups = [msgspec.convert(g, UserGroup) for g in raw_groups if not g.get("deactivated", False)]
    by_id = {g.id: g for g in groups}
    raw_by_id = {int(g["id"]): g for g in raw_groups}
    users = client.users.list()
    active_users = {u.user_id for u in users if u.is_active}
    humans = {u.user_id for u in users if u.is_active and not u.is_bot}
    realm = client.server.register()
    channels = _raw(client, "/streams", "streams", {"include_all": True})
    usages = [u for u in group_usages(raw_groups, realm, channels) if u["group_id"] in by_id]

    cutoff = generated - timedelta(days=stale_days)
    messages, truncated = recent_messages(client, since=cutoff, until=generated, limit=max_messages)
    mentions = group_mentions(
        ((m.timestamp, m.content) for m in messages if m.timestamp <= generated.timestamp()),
        [g.name for g in groups],
    )

    used_in: dict[int, list[str]] = {}
    for u in usages:
        label = f"{u['where']}:{u['setting']}" if u["setting"] else f"subgroup of {u['where']}"
        used_in.setdefault(int(u["group_id"]), []).append(label)

    table_rows: list[dict[str, Any]] = []
    rows: list[Finding] = []
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
                "mentions": mentions.get(g.name, (0, 0))[0],
                "last_mention": (
                    pd.Timestamp(mentions[g.name][1], unit="s", tz="UTC")
                    if g.name in mentions
                    else None
                ),
            }
        )
        if g.is_system_group:
            continue
        flags: list[str] = []
        if not members:
            flags.append("has no members")
        elif not active:
            flags.append(f"has only deactivated members ({len(members)})")
        is_empty = bool(flags)
        if is_empty:
            empty.append(g)
        stale = not where and g.name not in mentions
        if stale:
            flags.append(
                f"is not used by any setting or group, nor mentioned in the last {stale_days} days"
            )
            unused.append(g)
        gone = sorted(set(g.members) - active_users)
        if active and gone:
            with_deactivated.append(g)
            rows.append(
                finding(
                    "warning",
                    f"@{g.name}",
                    f"{len(gone)} deactivated users are still direct members",
                    "Remove the deactivated users from the group",
                    api("POST", f"/user_groups/{g.id}/members", delete=gone),
                )
            )
        if active and len(active) < min_members:
            small.append(g)
            rows.append(
                finding(
                    "info",
                    f"@{g.name}",
                    f"has {len(active)} active members, fewer than min_members={min_members}",
                    "Add the people the group stands for, or deactivate it if it is not needed",
                    api("POST", f"/user_groups/{g.id}/members", add=[fill("{user_ids}")]),
                )
            )
        if not flags:
            continue
        text = "; ".join(flags)
        if stale:
            action = "Deactivate the group (nothing uses it)"
            call = api("POST", f"/user_groups/{g.id}/deactivate")
        elif where:
            text += f"; used in {', '.join(where)}"
            action = "Add active members, or replace the group in the settings that use it"
            call = api("POST", f"/user_groups/{g.id}/members", add=[fill("{user_ids}")])
        else:
            count, last = mentions[g.name]
            day = pd.Timestamp(last, unit="s", tz="UTC").strftime("%Y-%m-%d")
            text += f"; mentioned {count} times in the last {stale_days} days, last on {day}"
            action = "Add active members, since people mention the group"
            call = api("POST", f"/user_groups/{g.id}/members", add=[fill("{user_ids}")])
        rows.append(finding("warning" if is_empty else "info", f"@{g.name}", text, action, call))

    huge = _huge_group_rows(
        group_settings(realm, channels), by_id, raw_by_id, humans, max_group_size_ratio
    )
    rows.extend(huge)
    names = {g.id: g.name for g in groups}
    cycles = subgroup_cycles([raw_by_id[g.id] for g in groups])
    for cycle in cycles:
        path = " -> ".join(f"@{names[c]}" for c in [*cycle, cycle[0]])
        rows.append(
            finding(
                "warning",
                path,
                "subgroups form a cycle, so each group's members include all the others'",
                "Remove one of the subgroup links of the cycle",
                api("POST", f"/user_groups/{cycle[-1]}/subgroups", delete=[cycle[0]]),
            )
        )
    if truncated:
        rows.append(
            finding(
                "warning",
                "coverage",
                f"mention scan stopped at max_messages={max_messages} before the window of "
                f"{stale_days} days began; some groups may look unmentioned",
                "Raise max_messages for complete mentions",
                api("GET", "/messages", anchor="newest"),
            )
        )

    failed: list[str] = []
    if max_empty_groups >= 0 and len(empty) > max_empty_groups:
        failed.append("max_empty_groups")
        rows.append(
            finding(
                "critical",
                "groups",
                f"{len(empty)} groups have no active member; the threshold is {max_empty_groups}",
                "Give the groups active members or deactivate the unused ones",
                api("POST", "/user_groups/{group_id}/deactivate"),
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
            "mentions",
            "last_mention",
        ],
    ).set_index("group_id")
    groups_table["last_mention"] = pd.to_datetime(groups_table["last_mention"], utc=True)
    usage_table = pd.DataFrame(usages, columns=["group_id", "kind", "where", "setting"])
    usage_table.insert(1, "group", [by_id[int(i)].name for i in usage_table["group_id"]])
    present = [f"@{g.name}" for g in groups] + ["coverage", "groups"]
    present += [
        f"{where}: {name}" for _scope, where, _sid, name, _v in group_settings(realm, channels)
    ]
    present += [r.subject for r in rows]
    summary = summary_of(
        "user_groups",
        subjects=present,
        failed=failed,
        counts={
            "groups": len(groups),
            "system_groups": sum(1 for g in groups if g.is_system_group),
            "custom_groups": sum(1 for g in groups if not g.is_system_group),
            "empty_groups": len(empty),
            "unused_groups": len(unused),
            "small_groups": len(small),
            "groups_with_deactivated_members": len(with_deactivated),
            "usages": len(usages),
            "mentioned_groups": len(mentions),
            "messages_scanned": len(messages),
            "huge_group_settings": len(huge),
            "subgroup_cycles": len(cycles),
            "findings": len(rows),
            "deactivated_now": len(deactivated),
            "cleaned_now": len(cleaned),
        },
        thresholds={
            "max_empty_groups": max_empty_groups,
            "min_members": min_members,
            "stale_days": stale_days,
            "max_group_size_ratio": max_group_size_ratio,
        },
        mention_window={"since": cutoff.isoformat(), "until": generated.isoformat()},
        truncated=truncated,
        dry_run=dry_run,
        deactivated_group_ids=deactivated,
        cleaned_group_ids=cleaned,
        site=client.site,
        generated_at=pd.Timestamp(generated).isoformat(),
    )
    return AuditResult.of(
        rows,
        summary=summary,
        tables={
            "groups": groups_table,
            "usages": usage_table,
            "graph": graph_edges(usages, names),
        },
    )


def _huge_group_rows(
    settings: Sequence[tuple[str, str, int | None, str, Any]],
    by_id: Mapping[int, UserGroup],
    raw_by_id: Mapping[int, Mapping[str, Any]],
    humans: set[int],
    ratio: float,
) -> list[Finding]:
    """One ``info`` row per setting granted to a custom group that reaches more than ``ratio``
    of ``humans`` (the wording of :mod:`permission_posture`'s size check)."""
    rows: list[Finding] = []
    if ratio < 0 or not humans:
        return rows
    for _scope, where, stream_id, name, value in settings:
        named = [value] if isinstance(value, int) else value.get("direct_subgroups", []) or []
        custom = [int(g) for g in named if int(g) in by_id and not by_id[int(g)].is_system_group]
        if not custom:
            continue
        reached = resolve_group_setting(value, raw_by_id) & humans
        share = len(reached) / len(humans)
        if share <= ratio:
            continue
        path = "/realm" if stream_id is None else f"/streams/{stream_id}"
        rows.append(
            finding(
                "info",
                f"{where}: {name}",
                f"setting reaches {share:.0%} of the organization through custom groups "
                f"({_describe(value, raw_by_id)}, {len(reached)} people); the limit is "
                f"{ratio:.0%}",
                "Check that the group is meant to be this broad, or set the setting to a "
                "smaller group",
                api("PATCH", path, {name: {"new": fill("{group_id}")}}),
            )
        )
    return rows


def _raw(client: Client, path: str, key: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Records as plain JSON objects, as :func:`group_usages` reads them (every setting)."""
    result = client.get(path, params=params)
    return [dict(r) for r in result.get(key, [])]
