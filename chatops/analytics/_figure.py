"""The figure every view draws on, and what makes it readable: rich display, footnote, ticks.

:class:`ReportFigure` is a ``matplotlib.figure.Figure`` that shows itself in Jupyter as a PNG
(``_repr_png_``), so a view's ``plot()`` as a cell's last expression displays the figure with no
``%matplotlib`` magic and no pyplot state. :func:`finish` puts the coverage note under the axes
(inside the constrained layout, so it never overlaps an axis label) and thins tick labels until
no two overlap at the figure's size.
"""

from __future__ import annotations

import contextlib
import io
import textwrap
from collections.abc import Iterator
from typing import Any

import matplotlib
import numpy as np
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.backend_bases import RendererBase
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator
from matplotlib.figure import Figure
from matplotlib.image import imsave
from matplotlib.text import Text
from matplotlib.ticker import FixedLocator, Formatter, MaxNLocator, StrMethodFormatter
from matplotlib.transforms import Bbox

from .._terminal import printable

#: resolution of the PNG a figure shows itself as in a notebook
DISPLAY_DPI = 100
#: points of space two tick labels need between them to count as apart
TICK_GAP = 2.0


class ReportFigure(Figure):
    """A figure that displays itself in Jupyter (PNG) with no pyplot and no ``%matplotlib``.

    It is an ordinary :class:`matplotlib.figure.Figure` otherwise: ``savefig``, ``axes`` and
    ``add_subplot`` work as usual.
    """

    #: set by :func:`declutter` when its last layout pass left the figure as it is (nothing
    #: thinned after it); anything drawn on the figure later makes it stale
    laid_out: bool = False

    def _repr_png_(self) -> bytes:
        return figure_png(self)

    def draw(self, renderer: RendererBase) -> None:
        """Draw with every text taken literally: a name holding ``$`` is not TeX to parse (a
        channel named ``$\\frac{$`` would make every figure showing it fail), and its control
        and direction characters are shown escaped as the terminal shows them (``\\x1b``),
        not as a box for a glyph no font has."""
        with literal_text():
            for text in self.findobj(Text):
                if isinstance(text, Text):
                    text.set_parse_math(False)
                    shown = _shown(text.get_text())
                    if shown != text.get_text():
                        text.set_text(shown)
            # tick labels are made while the axis draws: their formatters escape them
            for ax in self.axes:
                for axis in (ax.xaxis, ax.yaxis):
                    for major in (True, False):
                        get = axis.get_major_formatter if major else axis.get_minor_formatter
                        put = axis.set_major_formatter if major else axis.set_minor_formatter
                        if not isinstance(get(), _Escaped):
                            put(_Escaped(get()))
            super().draw(renderer)


def _shown(text: str) -> str:
    """``text`` with its controls and direction characters escaped; its line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


class _Escaped(Formatter):
    """A tick formatter whose labels show controls escaped (:func:`_shown`)."""

    def __init__(self, inner: Formatter):
        self.inner = inner

    def __call__(self, x: Any, pos: int | None = None) -> str:
        return _shown(str(self.inner(x, pos)))

    def format_ticks(self, values: Any) -> list[str]:
        return [_shown(str(v)) for v in self.inner.format_ticks(values)]

    def format_data(self, value: Any) -> str:
        return _shown(str(self.inner.format_data(value)))

    def format_data_short(self, value: Any) -> str:
        return _shown(str(self.inner.format_data_short(value)))

    def get_offset(self) -> str:
        return _shown(str(self.inner.get_offset()))

    def set_locs(self, locs: Any) -> None:
        self.inner.set_locs(locs)

    def set_axis(self, axis: Any) -> None:
        super().set_axis(axis)
        self.inner.set_axis(axis)


def literal_text() -> contextlib.AbstractContextManager[Any]:
    """Texts made inside the block (labels, ticks, legends) show ``$`` as it is, not as TeX."""
    return matplotlib.rc_context({"text.parse_math": False})


def figure_png(fig: Figure, dpi: int = DISPLAY_DPI, *, fresh: bool = False) -> bytes:
    """The figure as PNG bytes (everything drawn, footnote included).

    ``fresh=True`` (for a figure just returned by a view's ``plot()``, as the explorer draws
    them): when :func:`finish` laid the figure out at this resolution and nothing changed since,
    paint it once on its Agg canvas with that layout, without the pass ``savefig`` makes before
    painting (a layout and a measuring of every text: one of a redraw's three passes). The two
    layouts differ by at most a pixel or so where constrained layout has not settled after one
    pass; the pixels are written as ``savefig`` writes them (white background, same PNG).
    """
    buf = io.BytesIO()
    engine = fig.get_layout_engine()
    reuse = fresh and bool(getattr(fig, "laid_out", False)) and fig.dpi == dpi
    if not (reuse and isinstance(fig.canvas, FigureCanvasAgg)):
        fig.savefig(buf, format="png", dpi=dpi, facecolor="white")
        return buf.getvalue()
    # paint once on the figure's own canvas and write its pixels, as savefig does, but without
    # the layout pass savefig makes first (which measures every text again even with no layout)
    canvas: Any = fig.canvas  # FigureCanvasAgg, whose methods matplotlib leaves untyped
    face = fig.get_facecolor()
    fig.set_layout_engine("none")
    fig.set_facecolor("white")
    try:
        canvas.draw()
    finally:
        fig.set_facecolor(face)
        fig.set_layout_engine(engine)
    imsave(buf, canvas.buffer_rgba(), format="png", origin="upper", dpi=dpi)
    return buf.getvalue()


def new_figure(size: tuple[float, float]) -> ReportFigure:
    """A constrained-layout :class:`ReportFigure` of ``size`` inches, on an Agg canvas of its own.

    The canvas keeps one renderer for the figure's size and resolution, so the layout passes
    (:func:`declutter`'s, then the one ``savefig`` makes before painting) and the painting share
    matplotlib's cache of text measurements; on a canvas-less figure each pass made a renderer of
    its own and measured every text again. The PNG is the same.
    """
    fig = ReportFigure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def figure_of(ax: Axes) -> Figure:
    """The (root) figure an axes belongs to."""
    fig: Any = ax.get_figure(root=True)
    assert isinstance(fig, Figure)
    return fig


def axes(
    ax: Axes | None,
    panels: int = 1,
    size: tuple[float, float] = (8.0, 4.2),
    ratios: tuple[float, ...] | None = None,
) -> tuple[Figure, list[Axes]]:
    """The figure and axes to draw on: ``ax`` alone, or a new figure with ``panels`` axes."""
    if ax is not None:
        return figure_of(ax), [ax]
    fig = new_figure(size)
    made = fig.subplots(1, panels, width_ratios=ratios) if panels > 1 else [fig.add_subplot()]
    return fig, list(np.asarray(made, dtype=object).ravel())


def tidy(ax: Axes) -> None:
    """No top and right spines."""
    ax.spines[["top", "right"]].set_visible(False)


def empty(ax: Axes, what: str = "no messages") -> None:
    """Say in the middle of ``ax`` that there is nothing to draw."""
    ax.text(0.5, 0.5, what, ha="center", va="center", transform=ax.transAxes, color="#666666")


def counts(axis: Axis) -> None:
    """A count axis: whole-number ticks with thousands separators (``12,500``)."""
    axis.set_major_locator(MaxNLocator(nbins="auto", integer=True, min_n_ticks=3))
    axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def coverage_note(fig: Figure, note: str | None) -> Text | None:
    """The coverage note as a footnote under every axes, wrapped to the figure's width.

    It is the figure's ``supxlabel``, placed at the left: the constrained layout keeps room for
    it, so it never overlaps an axis label or tick label.
    """
    if not note:
        return None
    width = max(40, int(fig.get_figwidth() * 14))  # characters of 8 pt text per inch, with room
    text = textwrap.fill(f"Coverage: {note}", width=width)
    label: Text = fig.supxlabel(text, x=0.01, ha="left", fontsize=8, color="#555555")
    return label


def renderer_of(fig: Figure) -> RendererBase:
    """A renderer of ``fig`` after laying it out and placing every tick (nothing is painted)."""
    fig.draw_without_rendering()
    renderer: RendererBase = fig._get_renderer()  # type: ignore[attr-defined]
    return renderer


def _labels(axis: Axis, renderer: RendererBase) -> list[Bbox]:
    return [
        label.get_window_extent(renderer)
        for label in axis.get_ticklabels(which="both")
        if label.get_visible() and label.get_text().strip()
    ]


def _axes_axis(fig: Figure) -> Iterator[Axis]:
    for ax in fig.axes:
        if ax.get_visible() and ax.axison:
            yield ax.xaxis
            yield ax.yaxis


def _crowded(axis: Axis, renderer: RendererBase, pad: float) -> bool:
    boxes = _labels(axis, renderer)
    return any(
        a.padded(pad).overlaps(b.padded(pad)) for i, a in enumerate(boxes) for b in boxes[i + 1 :]
    )


def _thin(axis: Axis) -> bool:
    """Fewer ticks on ``axis``; False when it cannot have fewer."""
    locator = axis.get_major_locator()
    if isinstance(locator, FixedLocator):
        locs = list(axis.get_majorticklocs())
        texts = [t.get_text() for t in axis.get_majorticklabels()]
        if len(locs) <= 2:
            return False
        axis.set_ticks(locs[::2], texts[::2] if len(texts) == len(locs) else None)
        return True
    now = len(axis.get_majorticklocs())
    if now <= 2:
        return False
    if isinstance(locator, AutoDateLocator):
        if now <= 3:
            return False
        locator.maxticks = dict.fromkeys(locator.maxticks, now - 1)
        return True
    integer = bool(getattr(locator, "_integer", False))
    axis.set_major_locator(MaxNLocator(nbins=max(1, now - 2), integer=integer))
    return True


def declutter(fig: Figure, gap: float = TICK_GAP, rounds: int = 6) -> None:
    """Thin the ticks of every axis whose tick labels overlap, until none do."""
    if next(_axes_axis(fig), None) is None:
        return  # no axis with ticks (a graph drawn without axes): no layout pass to make
    pad = gap * fig.dpi / 72.0 / 2.0
    # texts left out of the layout (a heatmap's cell labels) change neither the layout nor the
    # ticks: not measured in these passes
    aside = [t for ax in fig.axes for t in ax.texts if not t.get_in_layout() and t.get_visible()]
    for t in aside:
        t.set_visible(False)
    try:
        for _ in range(rounds):
            renderer = renderer_of(fig)
            crowded = [axis for axis in _axes_axis(fig) if _crowded(axis, renderer, pad)]
            if not crowded or not any([_thin(axis) for axis in crowded]):
                if isinstance(fig, ReportFigure):
                    fig.laid_out = True  # laid out by the pass just made, nothing changed since
                return
    finally:
        for t in aside:
            t.set_visible(True)


def finish(fig: Figure, note: str | None) -> Figure:
    """The last step of every plot: the coverage footnote, then no overlapping tick labels."""
    coverage_note(fig, note)
    declutter(fig)
    return fig
