"""The explorer: the analytics views of a dataset under one set of filters.

    >>> from chatops.widgets import Explorer
    >>> Explorer(Dataset("~/.cache/chatops/datasets/chat.example.com/me@example.com"))  # doctest: +SKIP

Like the admin panels, it reads nothing when it is made: it says it is loading when first shown
and reads the dataset's frames then (a script calls :meth:`Explorer.load`).

Filters: period, channels, people (a Find box narrows the list as a name is typed), roles,
bots in or out, time zone (``sender``: each sender's own). What the views count follows the
filters: the channel scorecard compares the period chosen with the period of equal length
before it and lists the channels chosen; participation counts lurkers and its Gini among the
people and channels chosen. A change re-renders the view on screen at once and every other view when it is opened
(each view remembers the filters it was drawn for, and keeps its last few drawings: setting the
filters back to ones it was drawn for shows that drawing again without computing it). While a
view computes, the line above the tabs says so (a spinner and "Computing <view>…"), then how
long it took. Each view shows its figure and its table
(a :class:`~chatops.widgets._controls.TableView`: Export CSV) with Export Excel beside it;
the table shows names for people's ids, rounded numbers and times on one line, while its
frame and the exports keep the ids and full values.
The topic lifecycle table opens a topic's thread (sender, local time, text when kept,
reactions, edits and moves, links to the server). With text kept, Search and Keywords tabs;
without it they say how to keep it.

``Explorer(ds, anonymize=True)`` draws the views (figures, tables, exports) with keyed
pseudonyms, not names; the filters, threads, Search and Keywords show people as they are.
"""

from __future__ import annotations

import base64
import inspect
import os
import threading
import time
import traceback
from collections import OrderedDict
from collections.abc import Callable
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any, Self

import ipywidgets as w
import pandas as pd

from .._files import new_dir
from ..analytics import Dataset, Movers, ViewResult, movers
from ..analytics._figure import figure_png
from ..analytics.change import describe_change
from ..analytics.pseudonyms import PseudonymKey, load_key
from ..analytics.views import REGISTRY
from ._base import kernel_loop
from ._controls import TableView
from ._explorer_text import TextTabs
from ._style import STYLE as PANEL_STYLE
from .explorer_model import (
    PERIODS,
    chosen_user_ids,
    display_frame,
    group_options,
    matching_people,
    narrowed_frames,
    period_window,
)

__all__ = ["VIEWS", "Explorer"]

#: The options the explorer gives a view besides its filters (none for the others).
VIEW_OPTIONS: dict[str, dict[str, Any]] = {
    "messages_over_time": {"freq": "W", "split": "is_bot"},
    "channel_scorecard": {"period": "30D"},
    "zulip_stats": {"freq": "W"},
}
#: the views under whose figure the explorer names who moved the most (messages by channel,
#: group and person)
MOVERS_VIEWS = ("messages_over_time", "zulip_stats")
#: The views in tab order (the registry's, V1 to V11), with their title and the explorer's
#: options.
VIEWS: dict[str, tuple[str, dict[str, Any]]] = {
    name: (view.title, VIEW_OPTIONS.get(name, {})) for name, view in REGISTRY.items()
}
#: The explorer's own look: each tab as wide as its whole title (ipywidgets shrinks thirteen tabs
#: to a fixed share of the width and cuts their titles), the tabs wrapping onto a second row
#: when the explorer is narrower than all of them.
STYLE = """
<style>
.jupyter-widgets.jupyter-widget-tab.chatops-explorer-tabs > .lm-TabBar > .lm-TabBar-content {
  flex-wrap: wrap; }
.jupyter-widgets.jupyter-widget-tab.chatops-explorer-tabs > .lm-TabBar .lm-TabBar-tab {
  flex: 0 0 auto; }
.jupyter-widgets.jupyter-widget-tab.chatops-explorer-tabs > .lm-TabBar .lm-TabBar-tabLabel {
  overflow: visible; text-overflow: clip; }
</style>
"""
#: how many filter settings each view keeps its drawing for (going back to one is instant)
RECENT = 4
ROLES = ("owner", "administrator", "moderator", "member", "guest")
ZONES = ("UTC", "sender", "Europe/Berlin", "Europe/London", "America/New_York", "Asia/Kolkata")


class Explorer(TextTabs):
    """The explorer over a dataset (or the path of its folder).

    Nothing is read when it is made: the dataset's frames are read and the filters and views
    drawn when it is first shown (it says it is loading meanwhile), or on :meth:`load`::

        explorer = Explorer(ds).load()          # in a script: read the frames now
        explorer.render_all()

    Args:
        dataset: a :class:`~chatops.analytics.Dataset` or its folder.
        export_dir: where Export CSV and Export Excel write (default ``./exports``).
        anonymize: the views' ``anonymize``: ValueError at once when no key is configured.
        key: the pseudonym key (default: :func:`chatops.analytics.pseudonyms.load_key`'s).
    """

    def __init__(
        self,
        dataset: Dataset | str | os.PathLike[str],
        *,
        export_dir: str | Path | None = None,
        anonymize: bool = False,
        key: PseudonymKey | str | None = None,
    ) -> None:
        self.anonymize = anonymize
        self._key = load_key(key) if anonymize else None
        #: the dataset, opened when the explorer loads if it was given as its folder
        self.dataset: Dataset | None = None
        self._folder: str | os.PathLike[str] = ""
        if isinstance(dataset, Dataset):
            self.dataset = dataset
        else:
            self._folder = dataset
        self.export_dir = Path(export_dir or Path.cwd() / "exports")
        self.error = w.HTML(value="")
        self.timing = w.HTML(value="")
        #: seconds each view took to draw, last time
        self.seconds: dict[str, float] = {}
        self._drawn: dict[str, tuple[Any, ...]] = {}
        self.results: dict[str, ViewResult] = {}
        #: the last few drawings of each view by filters (result, PNG, change words), newest last
        self._recent: dict[str, OrderedDict[tuple[Any, ...], tuple[ViewResult, bytes, str]]] = {}
        self.loaded = False
        self._loading = threading.Lock()
        self.loading = w.HTML(
            value=PANEL_STYLE
            + '<div class="chatops-loading chatops-outcome-info">Loading the dataset…</div>'
        )
        self.loading.add_class("chatops-explorer-loading")
        self.widget = w.VBox([w.HTML(value=STYLE), self.loading])
        self.widget.add_class("chatops-explorer")

    def load(self) -> Self:
        """Read the dataset's frames and draw the filters and the view on screen (once);
        returns the explorer. Showing the explorer loads it too."""
        with self._loading:
            if self.loaded:
                return self
            if self.dataset is None:
                self.dataset = Dataset(self._folder)
            self.content = bool(self.dataset.manifest.get("content"))
            self.frames = self.dataset.frames(content=self.content)
            # what the views read: the messages with the coverage note but not its detail
            # object, which pandas deep-copies at every step that carries ``attrs`` (a third
            # of a redraw)
            self._messages = self.frames.messages.copy(deep=False)
            self._messages.attrs = {
                k: v for k, v in self.frames.messages.attrs.items() if k != "coverage_detail"
            }
            self.site = str(self.dataset.manifest.get("site") or "")
            self._build_filters()
            self._build_views()
            self._build_text_tabs()
            titles = [t for t, _ in VIEWS.values()] + ["Thread", "Search", "Keywords"]
            self.tabs = w.Tab(
                children=[
                    *self._pages.values(),
                    self.thread_page,
                    self.search_page,
                    self.keywords_page,
                ]
            )
            for i, t in enumerate(titles):
                self.tabs.set_title(i, t)
            self.tabs.add_class("chatops-explorer-tabs")
            self.tabs.observe(lambda _c: self._guard(self.render_current), names="selected_index")
            style = self.widget.children[0]
            self.widget.children = (style, self.filters, self.error, self.timing, self.tabs)
            self.loaded = True
        self._guard(self.render_current)
        return self

    def load_soon(self) -> None:
        """Load the explorer: inside a kernel, just after the current message (its display),
        so that the loading line shows meanwhile; inline otherwise. A failure shows in place
        of the explorer."""
        if self.loaded:
            return

        def work() -> None:
            try:
                self.load()
            except Exception as exc:  # shown to the person, with the details under it
                self.loading.value = (
                    PANEL_STYLE + '<div class="chatops-outcome-error">The dataset could not '
                    f"load: {escape(type(exc).__name__)}: {escape(str(exc))}</div>"
                )
                details = w.Output()
                details.append_stdout(traceback.format_exc())
                self.widget.children = (*self.widget.children, details)

        loop = kernel_loop()
        if loop is not None:
            loop.add_callback(work)
        else:
            work()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """A notebook shows the explorer's widgets; where widgets are not drawn (a saved or
        rendered notebook), a line saying what it is instead of the widgets' Python repr."""
        bundle = dict(self.widget._repr_mimebundle_(**kwargs))
        bundle["text/plain"] = repr(self)
        self.load_soon()
        return bundle

    def __repr__(self) -> str:
        tail = (
            "(its filters, views, thread, search and keywords are widgets: run the notebook "
            "in JupyterLab to use them)"
        )
        if self.dataset is None:
            return f"Explorer over the dataset in {self._folder} {tail}"
        # before loading, the count the manifest keeps: the frames are not read for a repr
        n = len(self.frames.messages) if self.loaded else self.dataset.message_count
        return f"Explorer over {n:,} message{'s' if n != 1 else ''} of {self.dataset.cache} {tail}"

    # -- filters

    def _build_filters(self) -> None:
        f = self.frames
        chans = (
            sorted(f.channels["name"].astype(str))
            if f.channels is not None
            else sorted(f.messages["channel"].dropna().astype(str).unique())
        )
        users = f.users
        people = (
            sorted(users.loc[~users["is_bot"].fillna(False).astype(bool), "full_name"].astype(str))
            if users is not None
            else []
        )
        self.period = w.Dropdown(options=list(PERIODS), value="all", description="Period")
        self.channels = w.SelectMultiple(options=chans, description="Channels", rows=5)
        self._everyone = people
        self.people = w.SelectMultiple(options=people, description="People", rows=5)
        # type to narrow the list (about 300 names on a medium organization); the people
        # chosen stay chosen and listed first
        self.people_search = w.Text(
            placeholder="type to find people", description="Find", continuous_update=True
        )
        self.people_search.add_class("chatops-explorer-people-search")
        self.people_search.observe(lambda _c: self._guard(self.find_people), names="value")
        self._narrowing = False
        self.roles = w.SelectMultiple(options=ROLES, description="Roles", rows=5)
        # user groups, subgroups' members included: the organization as its teams see it
        self.groups = w.SelectMultiple(
            options=group_options(f.user_groups), description="Groups", rows=5
        )
        self.bots = w.Checkbox(value=True, description="Include bots")
        zones = list(ZONES)
        if users is not None:
            zones += sorted({str(z) for z in users["timezone"].dropna() if str(z)} - set(zones))
        self.tz = w.Dropdown(options=zones, value="UTC", description="Time zone")
        for c, slug in (
            (self.period, "period"),
            (self.channels, "channels"),
            (self.people, "people"),
            (self.roles, "roles"),
            (self.groups, "groups"),
            (self.bots, "bots"),
            (self.tz, "tz"),
        ):
            c.add_class(f"chatops-explorer-{slug}")
            c.observe(lambda _c: self._changed(), names="value")
        self.filters = w.VBox(
            [
                w.HBox([self.period, self.tz, self.bots]),
                w.HBox(
                    [
                        self.channels,
                        w.VBox([self.people_search, self.people]),
                        w.VBox([self.roles, self.groups]),
                    ]
                ),
            ]
        )
        self.filters.add_class("chatops-explorer-filters")

    def _changed(self) -> None:
        if not self._narrowing:  # the people list narrowed by the search box: no new filter
            self._guard(self.render_current)

    def find_people(self, query: str | None = None) -> list[str]:
        """Narrow the people list to the names holding the words typed (or ``query``); the
        people chosen stay chosen. Returns the names listed."""
        self.load()
        if query is not None:
            self.people_search.value = query  # observed: narrows the list
            return list(self.people.options)
        chosen = tuple(self.people.value)
        options = matching_people(self._everyone, str(self.people_search.value), chosen)
        self._narrowing = True
        try:
            self.people.options = options  # empties the choice: set back at once
            self.people.value = chosen
        finally:
            self._narrowing = False
        return options

    def state(self) -> tuple[Any, ...]:
        """The filters as they are set (a view drawn for other filters is drawn again)."""
        self.load()
        return (
            self.period.value,
            tuple(self.channels.value),
            tuple(self.people.value),
            tuple(self.roles.value),
            tuple(self.groups.value),
            self.bots.value,
            self.tz.value,
        )

    def messages(self) -> pd.DataFrame:
        """The messages the channel, people and role filters keep."""
        self.load()
        m = self._messages
        keep = pd.Series(True, index=m.index)
        if self.channels.value:
            keep &= m["channel"].astype("string").isin(list(self.channels.value)).fillna(False)
        ids = self.user_ids()
        if ids is not None:
            keep &= m["sender_id"].isin(list(ids)).fillna(False)
        out = m[keep.to_numpy(dtype=bool)]
        out.attrs.update(m.attrs)
        return out

    def user_ids(self) -> set[int] | None:
        """The people the people and role filters keep (None: everyone)."""
        self.load()
        return chosen_user_ids(
            self.frames.users,
            self.people.value,
            self.roles.value,
            self.groups.value,
            self.frames.user_groups,
        )

    def last(self) -> pd.Timestamp | None:
        """The time of the dataset's last message (None: no message)."""
        self.load()
        if self.frames.messages.empty:
            return None
        return pd.Timestamp(self.frames.messages["timestamp"].max())

    def since(self) -> pd.Timestamp | None:
        """The first moment the period filter keeps (None: all of it)."""
        return period_window(str(self.period.value), self.last())[0]

    # -- the views

    def _guard(self, action: Callable[[], Any]) -> Any:
        try:
            self.error.value = ""
            return action()
        except Exception as exc:  # shown to the person, not raised into the event loop
            self.error.value = (
                f'<div class="chatops-error">{escape(type(exc).__name__)}: {escape(str(exc))}</div>'
            )
            return None

    def _build_views(self) -> None:
        self._pages: dict[str, w.VBox] = {}
        self._images: dict[str, w.Image] = {}
        self.tables: dict[str, TableView] = {}
        self._excel_links: dict[str, w.HTML] = {}
        #: under each figure: its change against the previous period, and who moved the most
        self.changes: dict[str, w.HTML] = {}
        for name, (title, _opts) in VIEWS.items():
            table = TableView(
                title,
                lambda name=name: self._result(name).frame,  # type: ignore[misc]
                export_dir=self.export_dir,
                slug=name,
                guard=self._guard,
                display=self.readable,
            )
            self.tables[name] = table
            image = w.Image(format="png", layout=w.Layout(max_width="100%"))
            self._images[name] = image
            link = w.HTML(value="")
            self._excel_links[name] = link
            excel = w.Button(description="Export Excel", icon="table")
            excel.on_click(lambda _b, name=name: self._guard(lambda: self.export_excel(name)))
            extra: list[w.Widget] = []
            if name == "topic_lifecycle":
                extra = [self._thread_picker()]
            change = w.HTML(value="")
            change.add_class("chatops-explorer-change")
            self.changes[name] = change
            self._pages[name] = w.VBox([image, change, *extra, w.HBox([excel, link]), table.widget])
            self._pages[name].add_class(f"chatops-explorer-view-{name}")

    def readable(self, frame: pd.DataFrame) -> pd.DataFrame:
        """``frame`` as its table shows it: names for people's ids, rounded numbers, times
        on one line (:func:`~chatops.widgets.explorer_model.display_frame`)."""
        users = self.frames.users
        names: dict[int, str] = {}
        if users is not None:
            pairs = zip(users["user_id"], users["full_name"], strict=True)
            names = {int(u): str(n) for u, n in pairs if not pd.isna(u) and not pd.isna(n)}
        return display_frame(frame, names)

    def _result(self, name: str) -> ViewResult:
        fn = REGISTRY[name].function
        opts = dict(VIEWS[name][1])
        params = inspect.signature(fn).parameters
        f = self.frames
        names = ("users", "channels", "subscriptions", "edits", "dm_recipients", "user_groups")
        given = {frame: getattr(f, frame) for frame in names}
        # who could have posted and who reacted, among the channels and people chosen: the
        # participation figures are of them, not of the whole organization
        narrowed = narrowed_frames(
            {**given, "reactions": f.reactions},
            channels=tuple(self.channels.value),
            user_ids=self.user_ids(),
        )
        if name != "participation_distribution":
            narrowed["reactions"] = f.reactions
        for frame, value in narrowed.items():
            if frame in params:
                opts[frame] = value
        if "tz" in params:
            tz = str(self.tz.value)
            if tz == "sender" and name not in ("activity_heatmap", "messages_over_time"):
                tz = "UTC"
            opts["tz"] = tz
        if self.anonymize:
            opts |= {"anonymize": True, "key": self._key}
        since, days = period_window(str(self.period.value), self.last())
        if "as_of" in params:
            # the data ends with its newest message: the period holding it is still counting
            # (a dataset synced from a server whose clock is elsewhere says nothing later)
            opts["as_of"] = self.last()
        if name == "channel_scorecard":
            # its own window, ending at the data's end, and the period of equal length before
            # it: from all the messages, not only the period's
            opts["as_of"] = self.last()
            if days is not None:
                opts["period"] = f"{days}D"
            since = None
        result: ViewResult = fn(
            self.messages(), since=since, exclude_bots=not self.bots.value, **opts
        )
        return result

    def render(self, name: str) -> ViewResult:
        """Compute view ``name`` for the filters and show its figure and table."""
        self.load()
        t0 = time.perf_counter()
        state = self.state()
        recent = self._recent.setdefault(name, OrderedDict())
        if state in recent:
            # filters set back to ones this view was drawn for: the same result and figure
            recent.move_to_end(state)
            result, png, words = recent[state]
        else:
            # shown at once, while the view computes and draws (the heavier views take about a
            # second on a medium organization)
            self.timing.value = (
                '<span class="chatops-muted chatops-explorer-computing">'
                '<i class="fa fa-spinner fa-spin"></i> '
                f"Computing {escape(VIEWS[name][0])}…</span>"
            )
            result = self._result(name)
            png = figure_png(result.plot(), fresh=True)
            words = describe_change(result, self.movers() if name in MOVERS_VIEWS else None)
            recent[state] = (result, png, words)
            while len(recent) > RECENT:
                recent.popitem(last=False)
        self.results[name] = result
        self._images[name].value = png
        self.changes[name].value = f'<p class="chatops-muted">{escape(words)}</p>' if words else ""
        self.tables[name].show(result.frame)
        self._drawn[name] = state
        self.seconds[name] = time.perf_counter() - t0
        if name == "topic_lifecycle":
            self._fill_topics(result)
        self.timing.value = (
            f'<span class="chatops-muted">{escape(VIEWS[name][0])}: '
            f"{self.seconds[name]:.2f} s</span>"
        )
        return result

    def movers(self) -> Movers | None:
        """Who moved the most: messages by channel, group and person in the period chosen
        (seven days under "all") against the period of equal length before it, among the
        channels, people, roles and groups chosen; None without a message."""
        m = self.messages()
        if m.empty:
            return None
        _, days = period_window(str(self.period.value), self.last())
        return movers(
            m,
            users=self.frames.users,
            user_groups=self.frames.user_groups,
            period=f"{days or 7}D",
            end=self.last(),
            exclude_bots=not self.bots.value,
        )

    def render_current(self) -> None:
        """Draw the tab on screen if its view was drawn for other filters (or never)."""
        i = self.tabs.selected_index if hasattr(self, "tabs") else 0
        names = list(VIEWS)
        if i is not None and i < len(names) and self._drawn.get(names[i]) != self.state():
            self.render(names[i])

    def render_all(self) -> dict[str, ViewResult]:
        """Draw every view for the filters (what opening each tab does); the results by name."""
        self.load()
        for name in VIEWS:
            if self._drawn.get(name) != self.state():
                self.render(name)
        return dict(self.results)

    def export_excel(self, name: str, path: str | Path | None = None) -> Path:
        """Write view ``name``'s tables (or ``search``'s results) to an .xlsx file."""
        self.load()
        result = self.search_result if name == "search" else self.results.get(name)
        if result is None:
            raise ValueError(f"{name} has not been drawn yet")
        if path is None:
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            path = self.export_dir / f"{name}-{stamp}.xlsx"
        new_dir(Path(path).parent)
        out = result.to_excel(path)
        data = base64.b64encode(out.read_bytes()).decode("ascii")
        link = self.search_excel_link if name == "search" else self._excel_links[name]
        link.value = (
            f'Saved <code>{escape(str(out))}</code> · <a download="{escape(out.name)}" '
            f'href="data:application/vnd.openxmlformats-officedocument.spreadsheetml.sheet;'
            f'base64,{data}">download</a>'
        )
        return out
