"""V10's figure: the reply graph laid out by community, and channels linked by shared members.

Each community gets its own disc (bigger communities, bigger discs, placed around a circle), its
members laid out inside it by a spring layout of their own replies, so the communities read as
groups instead of one hairball. Only the strongest links are drawn and only the most active
people (channels) are labelled, and a label that would overlap another is left out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.text import Text

from ..._figure import axes as _axes
from ..._figure import finish, renderer_of

if TYPE_CHECKING:
    from ._compute import InteractionGraph

PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#ccb974",
    "#64b5cd",
)
#: colour of the people (channels) of communities past the palette
OTHER = "#b0b0b0"
#: people labelled at most, the most active first
LABELS = 10
#: channels labelled at most, the biggest first
CHANNEL_LABELS = 20
#: links drawn at most per node, the strongest first
LINKS_PER_NODE = 4


def community_layout(
    g: Any, community: dict[Any, int], seed: int = 0
) -> dict[Any, tuple[float, float]]:
    """Positions of ``g``'s nodes: one disc per community (radius ~ sqrt of its size), discs
    around a circle without overlapping, a spring layout of each community inside its disc."""
    import networkx as nx  # imported when a graph is made: importing it costs 0.1 s

    groups: dict[int, list[Any]] = {}
    for n in sorted(g.nodes, key=str):
        groups.setdefault(community.get(n, 0), []).append(n)
    order = sorted(groups, key=lambda c: (-len(groups[c]), c))
    radii = np.array([math.sqrt(len(groups[c])) for c in order])
    centres = np.zeros((len(order), 2))
    if len(order) > 1:
        share = np.cumsum(radii) - radii / 2
        angles = 2 * math.pi * (share / radii.sum())
        need = 0.0
        for i in range(len(order)):
            j = (i + 1) % len(order)
            step = (angles[j] - angles[i]) % (2 * math.pi) or 2 * math.pi
            need = max(need, 1.15 * (radii[i] + radii[j]) / (2 * math.sin(min(step, math.pi) / 2)))
        centres = need * np.column_stack([np.cos(angles), np.sin(angles)])
    pos: dict[Any, tuple[float, float]] = {}
    for c, centre, r in zip(order, centres, radii, strict=True):
        members = groups[c]
        if len(members) == 1:
            pos[members[0]] = (float(centre[0]), float(centre[1]))
            continue
        local = nx.spring_layout(g.subgraph(members), weight="weight", seed=seed)
        xy = np.array([local[n] for n in members], dtype=float)
        xy -= xy.mean(axis=0)
        scale = float(np.linalg.norm(xy, axis=1).max()) or 1.0
        xy = centre + xy / scale * r * 0.9
        pos.update({n: (float(x), float(y)) for n, (x, y) in zip(members, xy, strict=True)})
    return pos


def strongest_edges(g: Any, per_node: int = LINKS_PER_NODE) -> list[tuple[Any, Any]]:
    """The edges worth drawing: each node's ``per_node`` heaviest links (union over nodes)."""
    keep: set[tuple[Any, Any]] = set()
    for n in g.nodes:
        ranked = sorted(g[n].items(), key=lambda kv: (-kv[1].get("weight", 1), str(kv[0])))
        for m, _ in ranked[:per_node]:
            keep.add((n, m) if str(n) <= str(m) else (m, n))
    return sorted(keep, key=lambda e: (str(e[0]), str(e[1])))


def _colour(c: int) -> str:
    """The colour of community ``c`` (numbered from 1, as the result's tables number them)."""
    return PALETTE[c - 1] if 1 <= c <= len(PALETTE) else OTHER


def _label(ax: Axes, pos: dict[Any, tuple[float, float]], labels: dict[Any, str]) -> list[Text]:
    texts: list[Text] = []
    for n, text in labels.items():
        x, y = pos[n]
        t = ax.annotate(
            text,
            (x, y),
            xytext=(0, 7),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=8,
            color="#222222",
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.75},
        )
        t.set_in_layout(False)
        texts.append(t)
    return texts


#: where a label may sit around its node, in points, with its alignment: above, below, right, left
_PLACES: tuple[
    tuple[tuple[int, int], Literal["left", "center", "right"], Literal["bottom", "center", "top"]],
    ...,
] = (
    ((0, 7), "center", "bottom"),
    ((0, -7), "center", "top"),
    ((7, 0), "left", "center"),
    ((-7, 0), "right", "center"),
)


def drop_overlapping(fig: Figure, texts: Sequence[Text]) -> None:
    """Place each label (in order of importance) above, below, right or left of its node,
    wherever it overlaps no label placed before it; remove it when no place is free."""
    if not texts:
        return
    renderer = renderer_of(fig)
    pad = 2.0 * fig.dpi / 72.0  # two points between labels
    kept: list[Any] = []
    for t in texts:
        for offset, ha, va in _PLACES:
            t.set_position(offset)
            t.set_horizontalalignment(ha)
            t.set_verticalalignment(va)
            box = t.get_window_extent(renderer).padded(pad)
            if not any(box.overlaps(k) for k in kept):
                kept.append(box)
                break
        else:
            t.remove()


def draw_graph(
    ax: Axes,
    g: Any,
    community: dict[Any, int],
    size: dict[Any, float],
    labels: dict[Any, str],
    seed: int = 0,
) -> list[Text]:
    """Nodes coloured by community at their community's place, the strongest links, labels."""
    pos = community_layout(g, community, seed)
    edges = strongest_edges(g)
    # drawn with matplotlib itself: networkx's drawing functions import pyplot
    if edges:
        weights = np.array([g[a][b].get("weight", 1) for a, b in edges], dtype=float)
        colours = [
            _colour(community.get(a, 0)) if community.get(a) == community.get(b) else "#dddddd"
            for a, b in edges
        ]
        lines = LineCollection(
            [(pos[a], pos[b]) for a, b in edges],
            linewidths=list(0.3 + 2.2 * weights / weights.max()),
            colors=colours,
            alpha=0.4,
            zorder=1,
        )
        ax.add_collection(lines)
    nodes = list(g.nodes)
    if nodes:
        xy = np.array([pos[n] for n in nodes], dtype=float)
        ax.scatter(
            xy[:, 0],
            xy[:, 1],
            s=[size.get(n, 30.0) for n in nodes],
            c=[_colour(community.get(n, 0)) for n in nodes],
            edgecolors="white",
            linewidths=0.6,
            zorder=2,
        )
    ax.set_axis_off()
    ax.margins(0.08)
    return _label(ax, pos, labels)


def _legend(ax: Axes, members: pd.Series, what: str, note: str) -> None:
    sizes = members.astype("int64").value_counts().sort_index()
    handles = [
        Patch(color=_colour(c), label=f"community {c} ({n:,} {what})")
        for c, n in zip(sizes.index.tolist(), sizes.tolist(), strict=True)
        if c <= len(PALETTE)
    ]
    rest = sizes[sizes.index > len(PALETTE)]
    if len(rest):
        handles.append(
            Patch(
                color=OTHER, label=f"{len(rest)} smaller communities ({int(rest.sum()):,} {what})"
            )
        )
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncols=2,
        fontsize=7,
        frameon=False,
        title=note,
        title_fontsize=7,
        alignment="left",
    )


def plot_interaction_graph(result: InteractionGraph, ax: Axes | None = None) -> Figure:
    """V10: the reply graph by community; beside it, channels linked by shared members.

    Args:
        result: an :func:`~chatops.analytics.views.interaction_graph` result.
        ax: axes for the reply graph alone; default a new figure with both panels.
    """
    two = (
        ax is None
        and result.channel_graph is not None
        and result.channel_graph.number_of_nodes() > 0
    )
    fig, axes = _axes(ax, 2 if two else 1, size=(13.0 if two else 8.0, 6.0))
    rep = axes[0]
    g = result.graph
    rep.set_title(
        f"Who replies to whom: {g.number_of_nodes():,} people, {result.communities:,} communities"
    )
    nodes = result.nodes
    texts: list[Text] = []
    if g.number_of_nodes():
        key = nodes["user_id"].tolist()
        community = dict(zip(key, nodes["community"], strict=True))
        deg = dict(zip(key, nodes["weighted_degree"], strict=True))
        top = max(deg.values()) or 1
        size = {k: 20.0 + 280.0 * v / top for k, v in deg.items()}
        labels: dict[Any, str] = {}
        if "name" in nodes.columns:
            best = nodes.sort_values(["weighted_degree", "user_id"], ascending=[False, True])
            labels = {
                u: str(n)
                for u, n in zip(best["user_id"], best["name"], strict=True)
                if not pd.isna(n)
            }
            labels = dict(list(labels.items())[:LABELS])
        texts += draw_graph(rep, g, community, size, labels, seed=0)
        shown = len(strongest_edges(g))
        note = (
            f"node size: replies; lines: {shown:,} of {g.number_of_edges():,} links\n"
            f"(each person's {LINKS_PER_NODE} strongest)"
            + (f"; names: the most active (up to {len(labels)})" if labels else "")
        )
        _legend(rep, nodes["community"], "people", note)
    else:
        rep.set_axis_off()
        rep.text(0.5, 0.5, "no replies", ha="center", va="center", transform=rep.transAxes)
    if two:
        cax = axes[1]
        cg = result.channel_graph
        cn = result.channel_nodes
        cax.set_title(f"Channels linked by shared members ({cg.number_of_edges():,} links)")
        community = dict(zip(cn["channel"], cn["community"], strict=True))
        top = max(cn["members"].max(), 1)
        size = {
            c: 40.0 + 360.0 * m / top for c, m in zip(cn["channel"], cn["members"], strict=True)
        }
        biggest = cn.sort_values(["members", "channel"], ascending=[False, True])["channel"]
        names = {c: str(c) for c in list(biggest)[:CHANNEL_LABELS]}
        texts += draw_graph(cax, cg, community, size, names, seed=0)
    finish(fig, result.coverage)
    drop_overlapping(fig, texts)
    return fig
