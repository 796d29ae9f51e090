"""The user groups' relations, as :mod:`chatops.audits.user_groups` reads them: where each
group is used (:func:`group_usages`), which groups messages mention (:func:`group_mentions`),
and the subgroup and permission edges as a graph (:func:`graph_edges`, :func:`edge_graph`,
:func:`subgroup_cycles`). Pure functions over raw JSON records and message text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._settings import setting_group_ids

if TYPE_CHECKING:
    import networkx as nx

__all__ = [
    "GRAPH_COLUMNS",
    "GROUP_MENTION",
    "edge_graph",
    "graph_edges",
    "group_mentions",
    "group_usages",
    "subgroup_cycles",
]

#: ``@*name*`` and the silent ``@_*name*``; ``@**name**`` (a person) does not match
GROUP_MENTION = re.compile(r"@_?\*([^*\n]+)\*")
#: fenced code blocks and inline code, where the server renders no mention
_CODE = re.compile(r"^(```|~~~).*?(^\1|\Z)|`[^`\n]*`", re.MULTILINE | re.DOTALL)
GRAPH_COLUMNS = ["source", "target", "kind", "setting"]


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
            for gid in setting_group_ids(value):
                rows.append(
                    {"group_id": gid, "kind": "realm", "where": "organization", "setting": key[6:]}
                )
    for ch in channels:
        if ch.get("is_archived"):
            continue
        for key, value in sorted(ch.items()):
            if key.startswith("can_") and key.endswith("_group"):
                for gid in setting_group_ids(value):
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
                for gid in setting_group_ids(value):
                    if gid != own:
                        rows.append(
                            {"group_id": gid, "kind": "group", "where": name, "setting": key}
                        )
        for sub in g.get("direct_subgroup_ids", []) or []:
            rows.append({"group_id": int(sub), "kind": "subgroup", "where": name, "setting": ""})
    return rows


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
    import networkx as nx  # imported when a graph is made: importing it costs 0.1 s

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
    import networkx as nx  # imported when a graph is made: importing it costs 0.1 s

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
