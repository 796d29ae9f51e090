"""The base class of what a view returns: frames, numbers, the coverage note, exports, plot."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import pandas as pd

from .._figure import figure_png, literal_text
from ..change import Change
from ._registry import REGISTRY

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["ViewResult"]


@dataclasses.dataclass
class ViewResult:
    """What a view returns: its tidy ``frame``, extra frames and numbers, and the coverage note.

    Example::

        >>> r = messages_over_time(messages, users=users, freq="W")
        >>> r.frame.head()
        >>> r.to_csv("out/")          # one CSV per frame plus <view>_summary.csv
        >>> r.plot().savefig("v1.png")
    """

    view: ClassVar[str] = "view"

    frame: pd.DataFrame
    coverage: str | None
    #: whose view of the organization the messages are (:func:`~..coverage.viewpoint_of`):
    #: ``the organization export``, the synced account's email (its own direct messages only),
    #: or None when the frames do not say
    viewpoint: str | None = dataclasses.field(default=None, kw_only=True)

    def frames(self) -> dict[str, pd.DataFrame]:
        """Every frame of the result by name (``frame`` first)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if isinstance(getattr(self, f.name), pd.DataFrame)
        }

    def summary(self) -> dict[str, Any]:
        """The result's numbers (every field that is not a frame), coverage included."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if not isinstance(getattr(self, f.name), pd.DataFrame)
        }

    def to_csv(self, path_or_dir: str | Path) -> list[Path]:
        """Write every frame as CSV; returns the paths written.

        Args:
            path_or_dir: a ``.csv`` path for the main frame (the others go next to it as
                ``<stem>_<name>.csv``), or a directory (created) that receives ``<view>.csv``,
                ``<view>_<name>.csv`` and ``<view>_summary.csv``.
        """
        target = Path(path_or_dir)
        if target.suffix.lower() == ".csv":
            folder, stem = target.parent, target.stem
        else:
            folder, stem = target, self.view
        from ..._files import new_dir
        from ..._tabular import write_csv

        new_dir(folder)
        written: list[Path] = []
        for name, df in self.frames().items():
            path = folder / (f"{stem}.csv" if name == "frame" else f"{stem}_{name}.csv")
            written.append(write_csv(df, path))
        summary = pd.DataFrame(
            {"name": list(self.summary()), "value": [str(v) for v in self.summary().values()]}
        )
        written.append(write_csv(summary, folder / f"{stem}_summary.csv"))
        return written

    def to_excel(self, path: str | Path) -> Path:
        """Write every frame to one ``.xlsx`` workbook (a sheet each, typed columns) with an
        ``about`` sheet holding the coverage note and the result's numbers; returns the path.
        """
        from ..._tabular import write_excel

        return write_excel(self.frames(), path, note=self.coverage, summary=self.summary())

    def change(self) -> Change | None:
        """The view's measure in the last complete period against the period before it
        (:class:`~chatops.analytics.change.Change`), None when the data holds fewer than two
        complete periods.

        Raises:
            TypeError: the view is not a time series.
        """
        series = [name for name, v in REGISTRY.items() if v.result.change is not ViewResult.change]
        raise TypeError(
            f"{self.view} is not a time series; the views with a change: {', '.join(series)}"
        )

    def plot(self, ax: Axes | None = None) -> Figure:
        """The view's figure (a new one when ``ax`` is None, else the main panel drawn on ``ax``).

        A new figure is a :class:`~chatops.analytics.ReportFigure`: as a notebook cell's last
        expression it shows itself, and ``.savefig(...)`` writes it. The view's ``plot`` in
        :data:`~._registry.REGISTRY` draws it.

        Args:
            ax: matplotlib axes to draw the main panel into.
        """
        with literal_text():  # names are text, never TeX
            fig: Figure = REGISTRY[self.view].plot(self, ax)
        return fig

    def __str__(self) -> str:
        """One line: the result's kind and the rows of each frame (the figure says the rest)."""
        rows = {name: len(df) for name, df in self.frames().items()}
        parts = ", ".join(f"{name} {n:,} rows" for name, n in rows.items())
        return f"{type(self).__name__} ({parts})"

    def _repr_png_(self) -> bytes:
        return figure_png(self.plot())

    def _repr_mimebundle_(
        self, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None
    ) -> dict[str, Any]:
        """What Jupyter shows for a result: its figure, and one line of text where there is none."""
        return {"image/png": self._repr_png_(), "text/plain": str(self)}
