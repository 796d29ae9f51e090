"""V10, the interaction graph: a package, since its computation and its drawing together pass
what one module should hold.

- :mod:`._compute`: :func:`interaction_graph`, its result, its SQL, its sentence;
- :mod:`._plot`: its figure (communities as discs, the strongest links, labels that never
  overlap).
"""

from __future__ import annotations

from ._compute import InteractionGraph, interaction_graph, reply_pairs
from ._plot import plot_interaction_graph

__all__ = ["InteractionGraph", "interaction_graph", "plot_interaction_graph", "reply_pairs"]
