"""matplotlib figures for the metrics of :mod:`chatops.metrics`.

Figures are built with ``matplotlib.figure.Figure`` (no pyplot state), so they work under the
Agg backend, in threads and in notebooks alike; in Jupyter, a returned figure displays inline::

    >>> fig = plot_messages_per_channel(metrics.messages_per_channel(df, since="2024-01-01"))
    >>> fig.savefig("channels.png")
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = ["plot_messages_per_channel"]


def plot_messages_per_channel(
    df: pd.DataFrame, ax: Axes | None = None, *, top: int | None = 25, title: str | None = None
) -> Figure:
    """Horizontal bars of messages per channel, busiest at the top.

    Args:
        df: a :func:`chatops.metrics.messages_per_channel` table (index channel, ``messages``).
        ax: axes to draw into; default a new figure sized to the number of channels.
        top: draw only the busiest ``top`` channels (None: all).
        title: the axes title; default "Messages per channel".
    """
    data = df["messages"].sort_values(ascending=False, kind="stable")
    if top is not None:
        data = data.head(top)
    if ax is None:
        fig = Figure(figsize=(7.0, max(2.0, 0.35 * len(data) + 1.0)), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = _figure_of(ax)
    labels = [str(i) for i in data.index][::-1]
    values = [int(v) for v in data.to_numpy()][::-1]
    bars = ax.barh(labels, values, color="#4c72b0")
    ax.bar_label(bars, padding=3, fontsize=8)
    ax.set_xlabel("messages")
    ax.set_title(title or "Messages per channel")
    ax.spines[["top", "right"]].set_visible(False)
    if not values:
        ax.text(0.5, 0.5, "no messages", ha="center", va="center", transform=ax.transAxes)
    return fig


def _figure_of(ax: Axes) -> Figure:
    fig: Any = ax.get_figure(root=True)
    assert isinstance(fig, Figure)
    return fig
