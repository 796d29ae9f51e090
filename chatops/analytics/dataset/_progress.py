"""The progress bar of a dataset sync: messages fetched of those planned, never going back."""

from __future__ import annotations

from typing import Any

import numpy as np
from tqdm.auto import tqdm

__all__ = ["Progress"]


class Progress:
    """Messages fetched of those planned, their rate and the time left.

    Before the bar shows, every narrow is planned: a narrow with stored messages gets a sample
    of its newest ids (one small request), a narrow with none its newest page (and, when that
    is not all of it, its oldest page too). Where the sample or the newest page reaches back to
    where the fetch starts, the narrow's count is known; otherwise the part in between is
    estimated at the density of ids the narrow's fetched pages show (the sample's, before any).
    The total only ever comes down (to what is fetched, at least), so the percentage never
    goes back.
    """

    def __init__(self, enabled: bool) -> None:
        widget = enabled and _notebook_bar(tqdm)
        self.bar = tqdm(
            total=None,
            unit="msg",
            desc="sync",
            disable=not enabled,
            leave=True,
            smoothing=0.1,
            **({"display": False} if widget else {}),
        )
        # In a notebook the bar is shown through a display handle, so that when the sync ends
        # the output becomes the bar's last line as text: a saved or rendered notebook (which
        # keeps no widget state) shows where the sync ended, not the widget's first text.
        self._handle = _show(self.bar.container) if widget else None
        self.spans: dict[str, tuple[int, int]] = {}
        self.samples: dict[str, tuple[np.ndarray, bool]] = {}
        self.reached: dict[str, int] = {}
        self.fetched: dict[str, int] = {}
        self.count = 0
        #: messages fetched before every narrow was planned: the bar shows them from ``start``
        self.unshown: int | None = 0
        #: narrows whose newest page came with their plan (``tail``)
        self.tails: set[str] = set()

    def plan(self, key: str, lo: int, hi: int, sample: list[int], complete: bool) -> None:
        """Narrow ``key`` will be fetched over ids ``lo`` to ``hi``; ``sample`` holds its
        newest ids (all of them from ``lo`` on when ``complete``)."""
        self.spans[key] = (lo, hi)
        self.samples[key] = (np.sort(np.asarray(sample, dtype=np.int64)), complete)
        self.reached[key] = lo - 1
        self.fetched[key] = 0

    def tail(self, key: str, lo: int, ids: list[int], complete: bool) -> None:
        """Narrow ``key``'s newest messages, ``ids``, are fetched already (all of those from
        ``lo`` on when ``complete``); what is left to fetch is older than them."""
        self.plan(key, lo, (ids[0] - 1) if ids and not complete else lo - 1, ids, complete)
        self.tails.add(key)
        self._shown(len(ids))

    def _ahead(self, key: str) -> float:
        lo, hi = self.spans[key]
        sample, complete = self.samples[key]
        if hi < lo:
            return 0.0
        begin = max(lo, self.reached[key] + 1)
        # a tail is counted already: its ids only say how dense the narrow is
        known = 0 if key in self.tails else int(len(sample) - np.searchsorted(sample, begin))
        if complete or not len(sample) or sample[0] <= begin:
            return float(known)
        gap = int(sample[0]) - begin  # ids older than the sample still to fetch
        done = self.reached[key] - lo + 1
        width = int(sample[-1] - sample[0])
        if self.fetched[key] and done > 0:
            density = self.fetched[key] / done
        else:
            density = (len(sample) - 1) / width if width > 0 else 1.0
        return known + gap * min(1.0, density)

    def left(self, key: str) -> float:
        """Messages of narrow ``key`` still to fetch, as estimated now (0 before its plan)."""
        return self._ahead(key) if key in self.spans else 0.0

    def _estimate(self) -> float:
        return self.count + sum(self._ahead(k) for k in self.spans)

    def start(self) -> None:
        self.bar.total = max(self.count, round(self._estimate()))
        unshown, self.unshown = self.unshown, None
        if unshown:
            self.bar.update(unshown)
        else:
            self.bar.refresh()

    def advance(self, key: str, n: int, last_id: int) -> None:
        if key in self.spans:
            self.fetched[key] += n
            self.reached[key] = max(self.reached[key], last_id)
        self._shown(n)

    def _shown(self, n: int) -> None:
        self.count += n
        if self.unshown is not None:
            self.unshown += n
            return
        estimate = round(self._estimate())
        current = self.bar.total if self.bar.total is not None else estimate
        self.bar.total = max(self.count, min(current, estimate))
        self.bar.update(n)

    def close(self) -> None:
        self.bar.total = self.count
        self.bar.refresh()
        self.bar.close()
        if self._handle is not None:
            from IPython.display import Pretty

            self._handle.update(Pretty(str(self.bar)))  # type: ignore[no-untyped-call]


def _notebook_bar(cls: type) -> bool:
    """Whether ``cls`` (what ``tqdm.auto`` chose) draws an ipywidgets bar."""
    try:
        from tqdm.notebook import tqdm as notebook_tqdm
    except ImportError:  # pragma: no cover - tqdm without its notebook module
        return False
    return issubclass(cls, notebook_tqdm)


def _show(container: Any) -> Any:
    from IPython.display import display

    return display(container, display_id=True)  # type: ignore[no-untyped-call]
