"""What an action shows before and while it runs: the confirmation that lists what it will
change (:class:`Confirm`), the progress bar with Cancel (:class:`Progress`), and the invisible
:class:`Scroller` that brings either, or an outcome, into view."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import anywidget
import ipywidgets as w
import traitlets

from ._model import escape

__all__ = ["Confirm", "Progress", "Scroller"]


#: The scroller's view: each time the outcome beside it changes (its count goes up), or the pair
#: moves under another control, it scrolls their place (just under the control that started the
#: action; for a question, the question itself) into view once the browser has laid it out. It draws nothing.
SCROLLER_ESM = """
function render({ model, el }) {
  el.style.height = "0";
  function scroll() {
    if (!model.get("count")) return;
    requestAnimationFrame(() => requestAnimationFrame(() => {
      const place = el.closest(model.get("place")) || el.parentElement;
      if (place && place.isConnected) {
        place.scrollIntoView({ block: "nearest", behavior: "instant" });
      }
    }));
  }
  scroll();
  model.on("change:count", scroll);
}
export default { render };
"""


class Scroller(anywidget.AnyWidget):  # type: ignore[misc]  # untyped base
    """An invisible widget that scrolls its place into view each time :attr:`count` changes."""

    _esm = SCROLLER_ESM
    count = traitlets.Int(0).tag(sync=True)
    #: what to bring into view: the nearest enclosing element matching this CSS selector
    place = traitlets.Unicode(".chatops-feedback").tag(sync=True)


class Progress:
    """A progress bar with counts and a Cancel button, for work done item by item.

    The work checks :attr:`cancelled` between items; an item in flight always finishes, so
    nothing is left half-done.
    """

    def __init__(self) -> None:
        self.bar = w.IntProgress(value=0, min=0, max=1, layout=w.Layout(width="320px"))
        self.label = w.HTML(value="")
        self.cancel_button = w.Button(description="Cancel", icon="stop", button_style="warning")
        self.cancel_button.on_click(lambda _b: self.cancel())
        self.widget = w.HBox([self.bar, self.label, self.cancel_button])
        self.widget.layout.display = "none"
        self._cancel = threading.Event()
        self.verb = ""
        self.total = 0
        self.done = 0
        self.failed = 0

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Ask the running work to stop after the item in flight."""
        self._cancel.set()
        self.cancel_button.disabled = True

    def start(self, total: int, verb: str) -> None:
        self._cancel.clear()
        self.verb = verb
        self.total = total
        self.done = 0
        self.failed = 0
        self.bar.max = max(total, 1)
        self.bar.value = 0
        self.bar.bar_style = "info"
        self.cancel_button.disabled = False
        self.cancel_button.layout.display = None
        self.widget.layout.display = "flex"
        self._label()

    def advance(self, count: int = 1, *, failed: int = 0) -> None:
        """``count`` more items finished, ``failed`` of them unsuccessfully."""
        self.done += count
        self.failed += failed
        self._label()
        self.bar.value = min(self.done, self.bar.max)

    def hide(self) -> None:
        """Take the bar away: its counts were another action's."""
        self.widget.layout.display = "none"

    def finish(self) -> None:
        self.cancel_button.disabled = True
        self.cancel_button.layout.display = "none"  # nothing left to cancel
        self.bar.bar_style = "danger" if self.failed else "success"
        if self.cancelled:
            self.bar.bar_style = "warning"
        self._label()

    def _label(self) -> None:
        failed = f" · {self.failed} failed" if self.failed else ""
        state = " · cancelled" if self.cancelled else ""
        self.label.value = f"&nbsp;{self.done} of {self.total} {escape(self.verb)}{failed}{state}"


class Confirm:
    """A question under an action, with what it will change listed: the action runs only when
    the admin clicks Yes; Cancel (or a change of what it was asked about) drops it."""

    #: items listed in full; more are counted ("and 40 more") and shown in the preview table
    LISTED = 12

    def __init__(self) -> None:
        self.message = w.HTML(value="")
        self.listing = w.HTML(value="")
        self.listing.add_class("chatops-confirm-listing")
        self.yes = w.Button(description="Yes", button_style="danger")
        self.no = w.Button(description="Cancel")
        #: brings the question into view each time it is asked (it shows under its button,
        #: which may sit low on the screen)
        self.scroller = Scroller(place=".chatops-confirm")
        self.asked = 0
        self.widget = w.VBox(
            [self.message, self.listing, w.HBox([self.yes, self.no]), self.scroller]
        )
        self.widget.add_class("chatops-confirm")
        self.widget.layout.display = "none"
        self._action: Callable[[], Any] | None = None
        self.question = ""
        self.items: list[str] = []
        self.yes.on_click(lambda _b: self._answer(True))
        self.no.on_click(lambda _b: self._answer(False))

    @property
    def pending(self) -> bool:
        return self._action is not None

    def ask(
        self,
        question: str,
        action: Callable[[], Any],
        *,
        yes: str = "Yes",
        items: Sequence[str] = (),
    ) -> None:
        """Show ``question`` and, under it, ``items`` (what will change, one per line)."""
        self.question, self.items = question, list(items)
        self.message.value = f"<b>{escape(question)}</b>"
        shown = "".join(f"<li>{escape(i)}</li>" for i in self.items[: self.LISTED])
        more = len(self.items) - self.LISTED
        if more > 0:
            shown += f"<li>… and {more:,} more</li>"
        self.listing.value = f"<ul>{shown}</ul>" if shown else ""
        self.yes.description = yes
        self._action = action
        self.widget.layout.display = "flex"
        self.asked += 1
        self.scroller.count = self.asked

    def cancel(self) -> None:
        """Drop the question unanswered (what it asked about changed)."""
        if self.pending:
            self._answer(False)

    def _answer(self, yes: bool) -> None:
        action, self._action = self._action, None
        self.widget.layout.display = "none"
        if yes and action is not None:
            action()
