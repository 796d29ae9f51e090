"""What the views' plots share: the palette, the words for periods and zones, date axes.

Each view's plot lives with the view (``views/<view>.py``); the figure itself (a
:class:`~chatops.analytics.ReportFigure`, its axes, the coverage footnote, ticks that never
overlap) is :mod:`chatops.analytics._figure`'s.
"""

from __future__ import annotations

from typing import Any

import matplotlib.dates as mdates
import pandas as pd
from matplotlib.axes import Axes

__all__ = ["FREQ_WORD", "PALETTE", "date_axis", "naive", "zone"]

#: the colours of the views' series, in order
PALETTE = (
    "#4c72b0",
    "#dd8452",
    "#55a868",
    "#c44e52",
    "#8172b3",
    "#937860",
    "#da8bc3",
    "#8c8c8c",
    "#ccb974",
    "#64b5cd",
)
#: a bucket frequency as a figure's words say it
FREQ_WORD = {"h": "hour", "D": "day", "W": "week", "M": "month"}


def zone(tz: str) -> str:
    """How a figure names a view's time zone (``sender``: each sender's own)."""
    return "each sender's own time zone" if tz == "sender" else tz


def date_axis(ax: Axes) -> None:
    """Concise date ticks, three to eight of them."""
    locator = mdates.AutoDateLocator(minticks=3, maxticks=8)  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]


def naive(ts: Any) -> Any:
    """Local wall-clock datetimes for matplotlib (it would draw aware ones in UTC)."""
    idx = pd.DatetimeIndex(ts)
    return idx.tz_localize(None) if idx.tz is not None else idx
