"""V10: :func:`interaction_graph`: its result, its SQL (its one computation) and its sentence (its plot: :mod:`._plot`).

The options every view shares are :class:`~chatops.analytics.views.ViewOptions`.
"""

from __future__ import annotations

import dataclasses
import math
import random
import threading
from typing import Any, Unpack

import numpy as np
import pandas as pd

from ..._common import (
    bot_ids,
    user_names,
)
from ..._igraph import igraph
from ...engines import MessagesSource
from ...engines._sql import Kept, topic_name_sql
from ...pseudonyms import PseudonymKey, load_key
from ...schema import validate
from .._options import ViewOptions
from .._registry import register
from .._result import ViewResult
from .._shared import _finish, seen_by
from ._plot import plot_interaction_graph


def _empty_graph() -> Any:
    import networkx as nx  # imported when a graph is made: importing it costs 0.1 s

    return nx.Graph()


@dataclasses.dataclass(frozen=True)
class _Links:
    """Undirected links as three arrays, and the pseudonym of each person (None: ids)."""

    a: np.ndarray
    b: np.ndarray
    weight: np.ndarray
    pseudonyms: dict[int, str] | None = None

    def graph(self) -> Any:
        """The networkx graph of the links, relabelled with the pseudonyms if there are any."""
        import networkx as nx  # imported when a graph is made: importing it costs 0.1 s

        g = nx.Graph()
        g.add_weighted_edges_from(
            zip(self.a.tolist(), self.b.tolist(), self.weight.tolist(), strict=True)
        )
        if self.pseudonyms is not None:
            g = nx.relabel_nodes(g, self.pseudonyms)
        return g


@dataclasses.dataclass
class InteractionGraph(ViewResult):
    """V10: who replies to whom, communities and brokers; channels linked by shared members.

    ``frame`` (reply edges) columns: ``source``, ``target``, ``weight``: ``target`` posted in a
    topic right after ``source`` (a different person), ``weight`` times; edges below
    ``min_weight`` dropped. ``nodes``: ``user_id``, ``name``, ``messages``, ``degree``,
    ``weighted_degree``, ``community`` (numbered from 1, the largest; the figure's legend and
    the sentence use the same numbers), ``betweenness`` (normalized, on the
    undirected graph; estimated from 64 sampled sources when there are more than 300 people, the
    sources and the estimate those of networkx's ``betweenness_centrality(k=64, seed=seed)``).
    Communities and betweenness are computed by igraph (C), on the whole graph: on 10 million
    messages (2,020 people, 850,000 links) networkx's own took minutes.
    ``channel_edges``: ``channel_a``, ``channel_b``, ``shared_members`` (users
    subscribed to both, at least ``min_weight``). ``channel_nodes``: ``channel``, ``members``,
    ``community`` (from 1, the largest). ``graph``/``channel_graph``: the networkx graphs
    (undirected, ``weight``; the reply graph is made when first read). ``pairs``: the pairs of people linked (one answered the other at
    least ``min_weight`` times one way or the sum of both); ``mutual_pairs``: those of them
    where each answered the other (both directions kept in ``frame``).

    Example::

        >>> r = interaction_graph(messages, subscriptions=subs, channels=channels, min_weight=2)
        >>> r.nodes.sort_values("betweenness").tail(); r.communities
    """

    view = "interaction_graph"
    nodes: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    channel_edges: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    channel_nodes: pd.DataFrame = dataclasses.field(default_factory=pd.DataFrame)
    channel_graph: Any = None
    communities: int = 0
    modularity: float = math.nan
    anonymized: bool = False
    pairs: int = 0
    mutual_pairs: int = 0
    #: the undirected links (``a``, ``b``, summed ``weight``, heaviest first) that ``graph`` is
    #: made of, and the pseudonym of each person when anonymized
    links: _Links | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def graph(self) -> Any:
        """The reply graph as a networkx graph (undirected, ``weight``), made when first read.

        Its nodes come in the order they first appear among the links, heaviest link first,
        as do its edges. On 100 million messages it holds about two million links, more memory
        than the rest of the result, so the view does not make it until it is asked for.
        """
        made = self.__dict__.get("_graph")
        if made is None:
            made = self.links.graph() if self.links is not None else _empty_graph()
            self.__dict__["_graph"] = made
        return made

    def summary(self) -> dict[str, Any]:
        """The result's numbers (graphs left out)."""
        out = super().summary()
        out.pop("links", None)
        out.pop("channel_graph", None)
        return out


#: Louvain draws from a random number generator that igraph keeps per process; one call at a time
_RNG_LOCK = threading.Lock()


def _communities(
    nodes: list[Any], g: Any, weight: np.ndarray, method: str, seed: int
) -> list[set[Any]]:
    """Communities of the undirected igraph graph ``g`` whose vertex ``i`` is ``nodes[i]``,
    its edges weighing ``weight`` (igraph's C core; networkx's pure-Python Louvain took
    minutes on a million edges). Largest first, ties by the smallest member."""
    if g.ecount() == 0:
        return [{n} for n in sorted(nodes)]
    w = weight.astype(float)
    if method == "louvain":
        ig = igraph()
        with _RNG_LOCK:
            ig.set_random_number_generator(random.Random(seed))
            try:
                membership = g.community_multilevel(weights=w).membership
            finally:
                ig.set_random_number_generator(random)
    else:
        membership = g.community_fastgreedy(weights=w).as_clustering().membership
    parts: dict[int, set[Any]] = {}
    for n, c in zip(nodes, membership, strict=True):
        parts.setdefault(c, set()).add(n)
    return sorted(parts.values(), key=lambda p: (-len(p), min(map(str, p))))


def _igraph_of(n: int, a: np.ndarray, b: np.ndarray) -> Any:
    """The undirected igraph graph of ``n`` vertices and an edge from each ``a`` to its ``b``.

    The edges are added to an empty graph in one call: given to the constructor, igraph makes a
    Python pair of each first (two million links: 0.3 GB more at the peak, against 0.1 GB).
    """
    g = igraph().Graph(n=n)
    g.add_edges(np.column_stack([a, b]))
    return g


def _nx_communities(g: Any, method: str, seed: int) -> list[set[Any]]:
    """:func:`_communities` of a networkx graph (the small channel graph)."""
    nodes = list(g.nodes)
    at = {n: i for i, n in enumerate(nodes)}
    e = [(at[a], at[b], d.get("weight", 1)) for a, b, d in g.edges(data=True)]
    arr = np.array(e, dtype=np.int64).reshape(-1, 3)
    graph = _igraph_of(len(nodes), arr[:, 0], arr[:, 1])
    return _communities(nodes, graph, arr[:, 2], method, seed)


def _result(
    edges: pd.DataFrame,
    counts: pd.Series,
    names: dict[int, str],
    cnames: dict[int, str],
    subscriptions: pd.DataFrame | None,
    channels: pd.DataFrame | None,
    users: pd.DataFrame | None,
    min_weight: int,
    communities: str,
    seed: int,
    exclude_bots: bool,
    anonymize: bool,
    key: PseudonymKey | str | None,
    coverage: str | None,
) -> InteractionGraph:
    """The view from the reply pairs (``source``, ``target``, ``weight``), the messages and
    name per user id, and the channel names the messages carry."""
    source, target, weight = (edges[c].to_numpy(np.int64) for c in ("source", "target", "weight"))
    keep = weight >= min_weight
    if not keep.all():
        source, target, weight = source[keep], target[keep], weight[keep]
    # heaviest first, then by source and target (a pair of people is one row: no ties)
    heaviest = np.lexsort((target, source, -weight))
    source, target, weight = source[heaviest], target[heaviest], weight[heaviest]
    del heaviest, keep
    edges = pd.DataFrame({"source": source, "target": target, "weight": weight})
    # one undirected edge per pair, its weight both ways summed, in the order the pairs first
    # come in ``edges`` (heaviest first), so the graph's node and edge order is the same on
    # every run
    ea, eb, ew, mutual = _undirected(source, target, weight)
    del source, target, weight
    # the people in the order they first appear among the links (the networkx graph's order)
    order = pd.unique(np.column_stack([ea, eb]).ravel()).tolist()
    ids = sorted(order)
    at = np.asarray(ids, dtype=np.int64)
    ai, bi = np.searchsorted(at, ea), np.searchsorted(at, eb)
    ig = _igraph_of(len(ids), ai, bi)
    parts = _communities(ids, ig, ew, communities, seed)
    member = {n: i for i, p in enumerate(parts, start=1) for n in p}
    n = len(ids)
    # exact betweenness is O(nodes x edges); past 300 people, estimate it from 64 sources drawn
    # as networkx's ``betweenness_centrality(k=64, seed=seed)`` draws them (same estimate)
    sources = None
    if n > 300:
        picked = random.Random(seed).sample(order, 64)
        sources = np.searchsorted(at, np.asarray(picked, dtype=np.int64)).tolist()
    between = np.zeros(n)
    if n > 2:
        raw = 2 * np.asarray(ig.betweenness(directed=False, sources=sources), dtype=float)
        if sources is None:  # normalized over the (n-1)(n-2) ordered pairs without v
            between = raw / ((n - 1) * (n - 2))
        else:  # networkx's estimate from k sources: a source is one of its own k pairs fewer
            k = len(sources)
            scale = np.full(n, 1 / (k * (n - 2)))
            scale[sources] = 1 / ((k - 1) * (n - 2))
            between = raw * scale
    degree = np.bincount(np.concatenate([ai, bi]), minlength=n)
    strength = np.bincount(np.concatenate([ai, bi]), weights=np.concatenate([ew, ew]), minlength=n)
    nodes = pd.DataFrame(
        {
            "user_id": pd.Series(ids, dtype="Int64"),
            "name": pd.Series([names.get(i) for i in ids], dtype="string"),
            "messages": [int(counts.get(i, 0)) for i in ids],
            "degree": degree.astype(np.int64),
            "weighted_degree": strength.astype(np.int64),
            "community": [member[i] for i in ids],
            "betweenness": between.astype(float),
        }
    )
    modularity = (
        ig.modularity([member[i] for i in ids], weights=ew.astype(float)) if len(ea) else math.nan
    )
    cg, cedges, cnodes = _channel_graph(
        subscriptions, channels, users, cnames, exclude_bots, min_weight, communities, seed
    )
    pseudonyms = None
    if anonymize:
        named = load_key(key)
        pseudonyms = {n: named.pseudonym(n) for n in order}
    return InteractionGraph(
        _finish(edges, anonymize, key),
        coverage,
        _finish(nodes, anonymize, key),
        cedges.reset_index(drop=True),
        cnodes,
        cg,
        len(parts),
        float(modularity),
        anonymize,
        len(ea),
        mutual,
        _Links(ea, eb, ew, pseudonyms),
    )


def _undirected(
    source: np.ndarray, target: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The directed reply edges (one per ordered pair of people, heaviest first) as undirected
    links: ``a`` < ``b``, the weights both ways summed, in the order each pair first comes
    among the edges; and how many pairs have an edge each way.

    Each edge finds its reverse by the pair's number (the people numbered 0 to n - 1, a pair
    ``i * n + j``) in the sorted numbers: a few arrays of one number per edge, whatever the
    ids, with no hash table of pairs and no frame.
    """
    m = len(source)
    if m == 0:
        return source, target, weight, 0
    ids = np.unique(np.concatenate([pd.unique(source), pd.unique(target)]))
    n = len(ids)
    i, j = np.searchsorted(ids, source), np.searchsorted(ids, target)
    key = i * n + j
    by_key = np.argsort(key, kind="stable")
    sorted_key = key[by_key]
    del key
    wanted = j * n + i
    del i, j
    at = np.minimum(np.searchsorted(sorted_key, wanted), m - 1)
    # the position of each edge's reverse among the edges, m when it has none
    reverse = np.where(sorted_key[at] == wanted, by_key[at], m)
    del sorted_key, wanted, by_key, at
    first = reverse > np.arange(m)
    back = reverse[first]
    summed = weight[first] + np.where(back < m, weight[np.minimum(back, m - 1)], 0)
    a, b = source[first], target[first]
    mutual = int(np.count_nonzero(reverse < m)) // 2
    return np.minimum(a, b), np.maximum(a, b), summed, mutual


def _channel_graph(
    subscriptions: pd.DataFrame | None,
    channels: pd.DataFrame | None,
    users: pd.DataFrame | None,
    cnames: dict[int, str],
    exclude_bots: bool,
    min_weight: int,
    communities: str,
    seed: int,
) -> tuple[Any, pd.DataFrame, pd.DataFrame]:
    """Channels linked by shared subscribers: the graph, its edges and its nodes (empty without
    ``subscriptions``)."""
    import networkx as nx  # imported when a graph is made: importing it costs 0.1 s

    cg = nx.Graph()
    cedges = pd.DataFrame(
        {
            "channel_a": pd.Series([], dtype="string"),
            "channel_b": pd.Series([], dtype="string"),
            "shared_members": [],
        }
    )
    cnodes = pd.DataFrame(
        {"channel": pd.Series([], dtype="string"), "members": [], "community": []}
    )
    if subscriptions is not None:
        s = validate(subscriptions, "subscriptions").dropna()
        if exclude_bots:
            s = s[~s["user_id"].isin(list(bot_ids(users)))]
        if channels is not None:
            c = validate(channels, "channels")
            cnames.update({int(k): str(v) for k, v in zip(c["stream_id"], c["name"], strict=True)})
        members = {int(str(k)): {int(u) for u in v} for k, v in s.groupby("stream_id")["user_id"]}
        label = {k: cnames.get(k, f"channel {k}") for k in members}
        keys = sorted(members, key=lambda k: label[k])
        rows = []
        for i, a in enumerate(keys):
            cg.add_node(label[a])
            for b in keys[i + 1 :]:
                shared = len(members[a] & members[b])
                if shared >= min_weight:
                    rows.append((label[a], label[b], shared))
                    cg.add_edge(label[a], label[b], weight=shared)
        cedges = pd.DataFrame(rows, columns=["channel_a", "channel_b", "shared_members"])
        cedges = cedges.sort_values(
            ["shared_members", "channel_a", "channel_b"],
            ascending=[False, True, True],
            kind="stable",
        )
        cparts = _nx_communities(cg, communities, seed)
        cmember = {n: i for i, p in enumerate(cparts, start=1) for n in p}
        cnodes = pd.DataFrame(
            {
                "channel": [label[k] for k in keys],
                "members": [len(members[k]) for k in keys],
                "community": [cmember[label[k]] for k in keys],
            }
        )
    return cg, cedges, cnodes


#: DuckDB's memory limit while it pairs each channel message with the one before it in its
#: topic: the window holds every channel message, so past this it spills to disk and the
#: process's peak stays put as the history grows (100 million messages: 0.79 GB peak and 31 s,
#: against 1.26 GB and 28 s at the engine's 1 GB)
WINDOW_MEMORY = "512MB"


def _reply_pairs(k: Kept) -> pd.DataFrame:
    """``source``, ``target``, ``weight``: how often ``target`` posted right after ``source``
    in a topic, counted in DuckDB.

    Topics and senders are numbered first, in two small tables, so the window that pairs each
    message with the one before it in its topic sorts and holds numbers of four bytes, not
    names and ids. The pairs of sender numbers are then counted in DuckDB's perfect hash
    aggregate (a cell per pair) up to 2,047 senders, in a hash table past that. The window
    runs within :data:`WINDOW_MEMORY`.
    """
    try:
        k.execute(
            "CREATE OR REPLACE TEMP TABLE ig_d AS SELECT stream_id, topic, "
            f"(dense_rank() OVER (ORDER BY stream_id, {topic_name_sql()}))::INTEGER AS tid "
            "FROM (SELECT DISTINCT stream_id, topic FROM k "
            "WHERE stream_id IS NOT NULL AND topic IS NOT NULL)"
        )
        with (
            k.numbered(
                "ig_p", "SELECT DISTINCT sender_id AS id FROM k WHERE sender_id IS NOT NULL"
            ),
            k.memory_at_most(WINDOW_MEMORY),
        ):
            return k.frame(
                "SELECT s.id AS source, t.id AS target, g.n AS weight FROM ("
                "SELECT a, b, count(*) AS n FROM ("
                "SELECT lag(p.ix) OVER (PARTITION BY d.tid ORDER BY k.timestamp, k.id) AS a, "
                "p.ix AS b FROM k JOIN ig_d d ON k.stream_id = d.stream_id AND k.topic = d.topic "
                "LEFT JOIN ig_p p ON p.id = k.sender_id) "
                "WHERE a IS NOT NULL AND b IS NOT NULL AND a <> b GROUP BY ALL) g "
                "JOIN ig_p s ON s.ix = g.a JOIN ig_p t ON t.ix = g.b ORDER BY source, target"
            )
    finally:
        k.execute("DROP TABLE IF EXISTS ig_d")


def _sql(k: Kept, p: dict[str, Any]) -> InteractionGraph:
    """The view's SQL: one row per reply pair, per sender and per channel."""
    min_weight, communities = p["min_weight"], p["communities"]
    edges = _reply_pairs(k)
    senders = k.frame(
        "SELECT sender_id, count(*) AS n, arg_max(sender, id) FILTER (sender IS NOT NULL) AS name "
        "FROM k WHERE sender_id IS NOT NULL GROUP BY sender_id ORDER BY sender_id"
    )
    chans = k.frame(
        "SELECT stream_id, arg_min(channel, id) AS channel FROM k "
        "WHERE stream_id IS NOT NULL AND channel IS NOT NULL GROUP BY stream_id"
    )
    named = senders[senders["name"].notna()]
    users = p["users"]
    counts = pd.Series(senders["n"].to_numpy(), index=pd.Index(senders["sender_id"], dtype="Int64"))
    pairs = zip(chans["stream_id"], chans["channel"], strict=True)
    return _result(
        edges.astype({"source": "int64", "target": "int64", "weight": "int64"}),
        counts,
        user_names(pd.DataFrame({"sender_id": named["sender_id"], "sender": named["name"]}), users),
        {int(s): str(c) for s, c in pairs},
        p["subscriptions"],
        p["channels"],
        users,
        int(min_weight),
        communities,
        p["seed"],
        bool(p["exclude_bots"]),
        p["anonymize"],
        p["key"],
        k.coverage(p["coverage"]),
    )


# -- the sentence -------------------------------------------------------------------------------


def reply_pairs(result: Any) -> str:
    """How many pairs of people the reply graph links, how many of them answered both ways,
    and its communities (numbered as the table and the figure's legend number them).

    Example::

        >>> reply_pairs(interaction_graph(messages))
        'The reply graph links 11,590 pairs where one person answered the other in a topic;
        4,639 of them both ways. 5 communities; the largest, community 1, has 105 people.'
    """
    if not result.pairs:
        return "No one answered anyone in a topic." + seen_by(result.viewpoint)
    first = int((result.nodes["community"] == 1).sum())
    return (
        f"The reply graph links {result.pairs:,} pairs where one person answered the other in a "
        f"topic; {result.mutual_pairs:,} of them both ways{seen_by(result.viewpoint)}. "
        f"{result.communities:,} communities; the largest, community 1, has {first:,} people."
    )


# -- the view -----------------------------------------------------------------------------------


@register(
    number=10,
    title="Interaction graph",
    result=InteractionGraph,
    plot=plot_interaction_graph,
    sentence=reply_pairs,
    sql=_sql,
)
def interaction_graph(
    messages: MessagesSource,
    *,
    subscriptions: pd.DataFrame | None = None,
    channels: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    min_weight: int = 1,
    communities: str = "louvain",
    seed: int = 0,
    **options: Unpack[ViewOptions],
) -> None:
    """V10: the reply graph of users and the co-membership graph of channels, with communities.

    ``anonymize`` is off by default, as in the other nine views: pass ``anonymize=True`` before
    sharing the graph.

    Args:
        messages: the messages frame (channel messages make the reply graph).
        subscriptions: the subscriptions frame, for the channel co-membership graph.
        channels: the channels frame (channel names for the co-membership graph).
        users: the users frame (names; ``exclude_bots``).
        min_weight: the least weight an edge needs to be kept (a positive count).
        communities: ``louvain`` (igraph's multilevel, Louvain, drawing from ``seed``) or
            ``greedy`` (igraph's fast greedy modularity, deterministic).
        seed: the random seed of Louvain and of the betweenness sample, so the result is the
            same on every run.
    """
    if not isinstance(min_weight, int | np.integer) or min_weight < 1:
        raise ValueError(f"min_weight must be a positive whole number, got {min_weight!r}")
    if communities not in ("louvain", "greedy"):
        raise ValueError(f"unknown communities {communities!r}; choose 'louvain' or 'greedy'")
