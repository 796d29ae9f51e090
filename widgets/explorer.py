"""The explorer: the ten analytics views of a dataset under one set of filters.

    >>> from chatops.widgets import Explorer
    >>> Explorer(Dataset("~/.cache/chatops/datasets/chat.example.com/me@example.com"))  # doctest: +SKIP

Like the admin panels, it reads nothing when it is made: it says it is loading when first shown
and reads the dataset's frames then (a script calls :meth:`Explorer.load`).

Filters: period, channels, people, roles, bots in or out, time zone (``sender``: each sender's
own). A change re-renders the view on screen at once and every other view when it is opened
(each view remembers the filters it was drawn for, and keeps its last few drawings: setting the
filters back to ones it was drawn for shows that drawing again without computing it). While a
view computes, the line above the tabs says so (a spinner and "Computing <view>…"), then how
long it took. Each view shows its figure and its table
(a :class:`~chatops.widgets._controls.TableView`: Export CSV) with Export Excel beside it.
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
from ..analytics import Dataset, ViewResult
from ..analytics._figure import figure_png
from ..analytics.pseudonyms import PseudonymKey, load_key
from ..analytics.text import NO_CONTENT, keywords, search_messages, topic_thread
from ..analytics.views import REGISTRY
from ._base import kernel_loop
from ._controls import TableView
from ._style import STYLE as PANEL_STYLE

__all__ = ["VIEWS", "Explorer"]

#: The options the explorer gives a view besides its filters (none for the others).
VIEW_OPTIONS: dict[str, dict[str, Any]] = {
    "messages_over_time": {"freq": "W", "split": "is_bot"},
    "channel_scorecard": {"period": "30D"},
}
#: The views in tab order (the registry's, V1 to V10), with their title and the explorer's
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
PERIODS = {"all": None, "last 7 days": 7, "last 30 days": 30, "last 90 days": 90, "last year": 365}
ROLES = ("owner", "administrator", "moderator", "member", "guest")
ZONES = ("UTC", "sender", "Europe/Berlin", "Europe/London", "America/New_York", "Asia/Kolkata")


def _link(value: Any) -> str:
    if value is None or pd.isna(value):
        return ""
    return f'<a href="{escape(str(value))}" target="_blank" rel="noopener">open</a>'


class Explorer:
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
        #: the last few drawings of each view by filters (result and PNG), newest last
        self._recent: dict[str, OrderedDict[tuple[Any, ...], tuple[ViewResult, bytes]]] = {}
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
            "(its filters, ten views, thread, search and keywords are widgets: run the notebook "
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
        self.people = w.SelectMultiple(options=people, description="People", rows=5)
        self.roles = w.SelectMultiple(options=ROLES, description="Roles", rows=5)
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
            (self.bots, "bots"),
            (self.tz, "tz"),
        ):
            c.add_class(f"chatops-explorer-{slug}")
            c.observe(lambda _c: self._guard(self.render_current), names="value")
        self.filters = w.VBox(
            [
                w.HBox([self.period, self.tz, self.bots]),
                w.HBox([self.channels, self.people, self.roles]),
            ]
        )
        self.filters.add_class("chatops-explorer-filters")

    def state(self) -> tuple[Any, ...]:
        """The filters as they are set (a view drawn for other filters is drawn again)."""
        self.load()
        return (
            self.period.value,
            tuple(self.channels.value),
            tuple(self.people.value),
            tuple(self.roles.value),
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
        users = self.frames.users
        if users is not None and (self.people.value or self.roles.value):
            u = users
            if self.people.value:
                u = u[u["full_name"].astype("string").isin(list(self.people.value)).fillna(False)]
            if self.roles.value:
                u = u[u["role_name"].astype("string").isin(list(self.roles.value)).fillna(False)]
            keep &= m["sender_id"].isin(list(u["user_id"].dropna())).fillna(False)
        out = m[keep.to_numpy(dtype=bool)]
        out.attrs.update(m.attrs)
        return out

    def since(self) -> pd.Timestamp | None:
        """The first moment the period filter keeps (None: all of it)."""
        self.load()
        days = PERIODS[str(self.period.value)]
        if days is None or self.frames.messages.empty:
            return None
        last = self.frames.messages["timestamp"].max()
        return pd.Timestamp(last) - pd.Timedelta(days=days)

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
        for name, (title, _opts) in VIEWS.items():
            table = TableView(
                title,
                lambda name=name: self._result(name).frame,  # type: ignore[misc]
                export_dir=self.export_dir,
                slug=name,
                guard=self._guard,
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
            self._pages[name] = w.VBox([image, *extra, w.HBox([excel, link]), table.widget])
            self._pages[name].add_class(f"chatops-explorer-view-{name}")

    def _result(self, name: str) -> ViewResult:
        fn = REGISTRY[name].function
        opts = dict(VIEWS[name][1])
        params = inspect.signature(fn).parameters
        f = self.frames
        for frame in (
            "users",
            "channels",
            "subscriptions",
            "reactions",
            "edits",
            "dm_recipients",
            "user_groups",
        ):
            if frame in params:
                opts[frame] = getattr(f, frame)
        if "tz" in params:
            tz = str(self.tz.value)
            if tz == "sender" and name not in ("activity_heatmap", "messages_over_time"):
                tz = "UTC"
            opts["tz"] = tz
        if self.anonymize:
            opts |= {"anonymize": True, "key": self._key}
        result: ViewResult = fn(
            self.messages(), since=self.since(), exclude_bots=not self.bots.value, **opts
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
            result, png = recent[state]
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
            recent[state] = (result, png)
            while len(recent) > RECENT:
                recent.popitem(last=False)
        self.results[name] = result
        self._images[name].value = png
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

    # -- threads

    def _thread_picker(self) -> w.HBox:
        self.topic = w.Dropdown(options=[], description="Topic", layout=w.Layout(width="420px"))
        self.open_thread = w.Button(description="Read thread", icon="comments")
        self.open_thread.on_click(lambda _b: self._guard(self.show_thread))
        self.topic.add_class("chatops-explorer-topic")
        self.open_thread.add_class("chatops-explorer-read-thread")
        return w.HBox([self.topic, self.open_thread])

    def _fill_topics(self, result: ViewResult) -> None:
        fr = result.frame
        if fr.empty:
            self.topic.options = []
            return
        cols = [c for c in ("channel", "topic", "stream_id", "messages") if c in fr.columns]
        rows = fr[cols].sort_values("messages", ascending=False, kind="stable")
        self.topic.options = [
            (f"#{ch} > {tp} ({n})", (int(sid), str(tp)))
            for ch, tp, sid, n in zip(
                rows["channel"], rows["topic"], rows["stream_id"], rows["messages"], strict=True
            )
        ]
        # the busiest topic is picked (a Dropdown given new options may be left on none)
        self.topic.value = self.topic.options[0][1] if self.topic.options else None

    def show_thread(self, stream_id: int | None = None, topic: str | None = None) -> pd.DataFrame:
        """Show a topic's thread (default: the one picked) in the Thread tab."""
        self.load()
        if stream_id is None or topic is None:
            if self.topic.value is None:
                raise ValueError("pick a topic first")
            stream_id, topic = self.topic.value
        f = self.frames
        tz = str(self.tz.value)
        thread = topic_thread(
            f.messages,
            int(stream_id),
            str(topic),
            reactions=f.reactions,
            edits=f.edits,
            users=f.users,
            tz="UTC" if tz == "sender" else tz,
            site=self.site,
        )
        self.thread_title.value = (
            f"<b>#{escape(thread.channel)} &gt; {escape(thread.topic)}</b> · "
            f"{len(thread.frame)} messages · {_link(thread.link)}"
            + (
                ""
                if self.content
                else f' · <span class="chatops-muted">{escape(NO_CONTENT)}</span>'
            )
        )
        self.thread_table.show(thread.frame)
        self.tabs.selected_index = len(VIEWS)
        return thread.frame

    # -- text

    def _build_text_tabs(self) -> None:
        self.thread_title = w.HTML(value="Pick a topic in Topic lifecycle and press Read thread.")
        self.thread_table = TableView(
            "Thread",
            lambda: self.thread_table.frame,
            export_dir=self.export_dir,
            slug="thread",
            guard=self._guard,
            cells={"link": _link},
        )
        self.thread_page = w.VBox([self.thread_title, self.thread_table.widget])
        self.thread_page.add_class("chatops-explorer-thread")
        self.query = w.Text(
            placeholder='words, "a phrase", or a regular expression', description="Search"
        )
        self.regex = w.Checkbox(value=False, description="Regular expression")
        go = w.Button(description="Search", icon="search")
        go.on_click(lambda _b: self._guard(self.search))
        self.search_table = TableView(
            "Search results",
            lambda: self.search_table.frame,
            export_dir=self.export_dir,
            slug="search",
            guard=self._guard,
            cells={"link": _link},
        )
        self.search_result: ViewResult | None = None
        self.search_excel_link = w.HTML(value="")
        excel = w.Button(description="Export Excel", icon="table")
        excel.on_click(lambda _b: self._guard(lambda: self.export_excel("search")))
        self.keywords_image = w.Image(format="png", layout=w.Layout(max_width="100%"))
        self.keywords_table = TableView(
            "Keywords",
            lambda: self.keywords_table.frame,
            export_dir=self.export_dir,
            slug="keywords",
            guard=self._guard,
        )
        kw = w.Button(description="Keywords of the channels picked", icon="key")
        kw.on_click(lambda _b: self._guard(self.show_keywords))
        if self.content:
            self.search_page = w.VBox(
                [
                    w.HBox([self.query, self.regex, go]),
                    w.HBox([excel, self.search_excel_link]),
                    self.search_table.widget,
                ]
            )
            self.keywords_page = w.VBox([kw, self.keywords_image, self.keywords_table.widget])
        else:
            note = f'<div class="chatops-muted">Search and keywords need the text: {escape(NO_CONTENT)}.</div>'
            self.search_page = w.VBox([w.HTML(value=note)])
            self.keywords_page = w.VBox([w.HTML(value=note)])

    def search(self, query: str | None = None, *, regex: bool | None = None) -> pd.DataFrame:
        """Search the kept text under the filters; the results table."""
        self.load()
        if not self.content:
            raise ValueError(NO_CONTENT)
        q = self.query.value if query is None else query
        r = search_messages(
            self.messages(),
            q,
            regex=self.regex.value if regex is None else regex,
            since=self.since(),
            users=self.frames.users,
            exclude_bots=not self.bots.value,
            tz="UTC" if self.tz.value == "sender" else str(self.tz.value),
            site=self.site,
        )
        self.search_result = r
        self.search_table.show(r.frame)
        return r.frame

    def show_keywords(self) -> pd.DataFrame:
        """The keywords of the channels picked (one channel), else of the period picked."""
        self.load()
        if not self.content:
            raise ValueError(NO_CONTENT)
        chans = list(self.channels.value)
        if len(chans) > 1:
            raise ValueError("pick one channel (or none and a period) for its keywords")
        since = self.since()
        r = keywords(
            self.frames.messages,
            channel=chans[0] if chans else None,
            since=since,
            users=self.frames.users,
            exclude_bots=not self.bots.value,
        )
        self.keywords_image.value = figure_png(r.plot())
        self.keywords_table.show(r.frame)
        return r.frame
