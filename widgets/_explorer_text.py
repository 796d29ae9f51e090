"""The explorer's Thread, Search and Keywords tabs (a part of :class:`~.explorer.Explorer`)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

import ipywidgets as w
import pandas as pd

from ..analytics import AnalyticsFrames, ViewResult
from ..analytics._figure import figure_png
from ..analytics.text import NO_CONTENT, keywords, search_messages, topic_thread
from ._controls import TableView

__all__ = ["KEYWORDS_HINT", "KEYWORDS_SEVERAL", "TextTabs"]

#: what the Keywords tab says until a channel (or a period) is chosen
KEYWORDS_HINT = (
    "Choose one channel under Channels (or a period other than all), then press "
    "<b>Keywords of the channels picked</b>: it shows the words that set it apart."
)
KEYWORDS_SEVERAL = (
    "Keywords compare one channel with the rest: choose a single channel under Channels."
)


def _link(value: Any) -> str:
    if value is None or pd.isna(value):
        return ""
    return f'<a href="{escape(str(value))}" target="_blank" rel="noopener">open</a>'


class TextTabs:
    """The thread of a topic, search and keywords of the kept text, over the explorer's
    filters; :class:`~.explorer.Explorer` gives the filters and the frames."""

    frames: AnalyticsFrames
    content: bool
    site: str
    export_dir: Path
    tabs: w.Tab
    channels: w.SelectMultiple
    bots: w.Checkbox
    tz: w.Dropdown

    def load(self) -> Any:  # the explorer's
        raise NotImplementedError

    def _guard(self, action: Callable[[], Any]) -> Any:  # the explorer's
        raise NotImplementedError

    def readable(self, frame: pd.DataFrame) -> pd.DataFrame:  # the explorer's
        raise NotImplementedError

    def export_excel(self, name: str, path: str | Path | None = None) -> Path:  # the explorer's
        raise NotImplementedError

    def messages(self) -> pd.DataFrame:  # the explorer's
        raise NotImplementedError

    def since(self) -> pd.Timestamp | None:  # the explorer's
        raise NotImplementedError

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
        self.tabs.selected_index = list(self.tabs.children).index(self.thread_page)
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
            display=self.readable,
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
            display=self.readable,
            cells={"link": _link},
        )
        self.search_result: ViewResult | None = None
        self.search_excel_link = w.HTML(value="")
        excel = w.Button(description="Export Excel", icon="table")
        excel.on_click(lambda _b: self._guard(lambda: self.export_excel("search")))
        # shown once there are keywords to draw (an empty image is a broken one in a browser)
        self.keywords_image = w.Image(
            format="png", layout=w.Layout(max_width="100%", display="none")
        )
        self.keywords_note = w.HTML(value=f'<div class="chatops-muted">{KEYWORDS_HINT}</div>')
        self.keywords_note.add_class("chatops-explorer-keywords-note")
        self.keywords_table = TableView(
            "Keywords",
            lambda: self.keywords_table.frame,
            export_dir=self.export_dir,
            slug="keywords",
            guard=self._guard,
            display=self.readable,
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
            self.keywords_page = w.VBox(
                [kw, self.keywords_note, self.keywords_image, self.keywords_table.widget]
            )
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
        """The keywords of the channel chosen (one channel), else of the period chosen; with
        neither (or several channels) a sentence says what to choose and no figure shows.
        Returns the keywords table (empty when there is nothing to compare)."""
        self.load()
        if not self.content:
            raise ValueError(NO_CONTENT)
        chans = list(self.channels.value)
        since = self.since()
        if len(chans) > 1 or (not chans and since is None):
            hint = KEYWORDS_SEVERAL if len(chans) > 1 else KEYWORDS_HINT
            self.keywords_note.value = f'<div class="chatops-muted">{hint}</div>'
            self.keywords_image.layout.display = "none"
            self.keywords_image.value = b""
            self.keywords_table.show(pd.DataFrame())
            return self.keywords_table.frame
        r = keywords(
            self.frames.messages,
            channel=chans[0] if chans else None,
            since=since,
            users=self.frames.users,
            exclude_bots=not self.bots.value,
        )
        self.keywords_note.value = ""
        self.keywords_image.value = figure_png(r.plot())
        self.keywords_image.layout.display = None
        self.keywords_table.show(r.frame)
        return r.frame
