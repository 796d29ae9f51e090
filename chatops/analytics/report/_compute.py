"""The report's sections: each registered view computed for the period, with its sentence,
its figure as PNG and a compact table.

Views are called through :data:`~chatops.analytics.views.REGISTRY` only (their functions,
plots and sentences), so a view's new figure or sentence reaches the report unchanged. A
view's frames are given by the names its signature asks for, as the explorer does; a
sentence's arguments are bound the same way (``messages``, ``reactions``, ``topics``,
``result``, ``users``, ``days``).
"""

from __future__ import annotations

import base64
import dataclasses
import inspect
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pandas as pd

from .._figure import figure_png
from ..change import Movers, describe_change, movers
from ..dataset.records import AnalyticsFrames
from ..pseudonyms import PseudonymKey
from ..views import REGISTRY, View
from ..views._result import ViewResult
from ._period import Period
from ._tables import compact_table

__all__ = ["FIGURE_DPI", "Section", "compute_sections", "period_frames"]

#: the figures' resolution: twice the 100 dpi they are shown at, sharp on paper and on HiDPI
FIGURE_DPI = 200
#: frames a view may ask for by name (besides the messages)
_FRAMES = (
    "users",
    "channels",
    "subscriptions",
    "reactions",
    "edits",
    "dm_recipients",
    "user_groups",
    "topics",
    "topic_links",
)


@dataclass(frozen=True)
class Section:
    """One view in the report: its number, title, sentence, figure and table."""

    number: int
    name: str
    title: str
    sentence: str
    #: the figure as base64 PNG at :data:`FIGURE_DPI`, and its size in CSS pixels (half)
    png: str
    width: int
    height: int
    #: the compact table (``chatops.audit.report.pages.Table``)
    table: Any
    #: why the view could not be computed (then no figure and no table)
    error: str | None = None
    #: the view's change against the previous period, and who moved the most (time series)
    change: str = ""


def period_frames(frames: AnalyticsFrames, period: Period) -> AnalyticsFrames:
    """The frames with the messages (and the reactions, edits and recipients of those messages)
    of ``period`` only; users, channels and the rest as they are."""
    m = frames.messages
    keep = pd.Series(True, index=m.index)
    if period.since is not None:
        keep &= m["timestamp"] >= pd.Timestamp(period.since)
    if period.until is not None:
        keep &= m["timestamp"] < pd.Timestamp(period.until)
    messages = m[keep].copy()
    # the period's channels, topics and senders only: a sentence's "quietest channel" is one
    # that posted in the period, as it would be over a dataset of the period alone
    for col in messages.columns:
        if isinstance(messages[col].dtype, pd.CategoricalDtype):
            messages[col] = messages[col].cat.remove_unused_categories()
    # the coverage note, not its detail object (pandas copies ``attrs`` at every step)
    messages.attrs = {k: v for k, v in m.attrs.items() if k != "coverage_detail"}
    ids = set(messages["id"].tolist()) if len(messages) != len(m) else None

    def of_messages(df: pd.DataFrame) -> pd.DataFrame:
        return df if ids is None else df[df["message_id"].isin(ids)]

    topics = frames.topics
    if topics is not None and ids is not None and "last_timestamp" in topics.columns:
        active = pd.Series(True, index=topics.index)
        if period.since is not None:
            active &= topics["last_timestamp"] >= pd.Timestamp(period.since)
        if period.until is not None:
            active &= topics["first_timestamp"] < pd.Timestamp(period.until)
        topics = topics[active]
    return AnalyticsFrames(
        messages=messages,
        users=frames.users,
        channels=frames.channels,
        subscriptions=frames.subscriptions,
        reactions=of_messages(frames.reactions),
        edits=of_messages(frames.edits),
        dm_recipients=of_messages(frames.dm_recipients),
        topics=topics,
        topic_links=frames.topic_links,
        user_groups=frames.user_groups,
    )


def _view_options(view: View[Any], period: Period) -> dict[str, Any]:
    """The options the report gives a view besides its frames: the explorer's, sized to the
    period (daily buckets for a month or less; the scorecard's window the period's length)."""
    days = period.days
    if view.name == "messages_over_time":
        return {"freq": "D" if days is not None and days <= 31 else "W", "split": "is_bot"}
    if view.name == "channel_scorecard":
        return {"period": f"{days}D" if days is not None else "30D"}
    return {}


def _compute(
    view: View[Any],
    f: AnalyticsFrames,
    period: Period,
    exclude_bots: bool,
    key: PseudonymKey | None = None,
) -> Any:
    """The view over the whole history with the period as its ``since``/``until``: a view that
    compares with the time before (the scorecard's previous window) or follows people from
    their first post (cohorts) sees what came before the period."""
    params = inspect.signature(view.function).parameters
    opts = _view_options(view, period)
    opts = {k: v for k, v in opts.items() if k in params}
    for name in _FRAMES:
        if name in params:
            opts[name] = getattr(f, name)
    if key is not None:  # ids in every frame, table and figure as keyed pseudonyms
        opts |= {"anonymize": True, "key": key}
    return view.function(
        f.messages,
        since=None if period.since is None else pd.Timestamp(period.since),
        until=None if period.until is None else pd.Timestamp(period.until),
        exclude_bots=exclude_bots,
        **opts,
    )


def _sentence(
    view: View[Any],
    result: ViewResult,
    f: AnalyticsFrames,
    history: pd.DataFrame,
    period: Period,
    exclude_bots: bool,
) -> str:
    """The view's sentence, its arguments bound by name; empty when it asks for one the
    report does not have.

    A sentence that takes an ``end`` ("in the last 90 days of the data (to ...)") reads the
    history up to the period's end, and its ``days`` are at most the period's; the others read
    the period's messages.
    """
    params = inspect.signature(view.sentence).parameters
    dated = "end" in params
    given: dict[str, Any] = {
        "messages": history if dated else f.messages,
        "reactions": f.reactions,
        "topics": f.topics,
        "result": result,
        "users": f.users if exclude_bots else None,
    }
    if dated and f.messages.empty:
        return "No messages in this period."
    if dated and period.until is not None:
        given["end"] = pd.Timestamp(period.until - timedelta(microseconds=1))
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for p in params.values():
        if p.name == "days" and period.days is not None and isinstance(p.default, int):
            value: Any = min(p.default, period.days)
        elif p.name in given:
            value = given[p.name]
        elif p.default is not p.empty or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
            continue
        else:
            return ""
        if p.kind is p.POSITIONAL_ONLY:
            args.append(value)
        else:
            kwargs[p.name] = value
    return str(view.sentence(*args, **kwargs))


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height in pixels from a PNG's header."""
    width, height = struct.unpack(">II", png[16:24])
    return int(width), int(height)


def compute_sections(
    frames: AnalyticsFrames,
    period: Period,
    *,
    exclude_bots: bool = True,
    views: Iterable[str] | None = None,
    progress: Callable[[Iterable[View[Any]]], Iterable[View[Any]]] | None = None,
    dpi: int = FIGURE_DPI,
    key: PseudonymKey | None = None,
) -> list[Section]:
    """Every registered view (or those named) computed for ``period``, in order V1 to V11.

    A view that fails is a section saying why, so that one view's failure leaves the rest of
    the report readable.

    Args:
        frames: the dataset's frames (all of them; the period is applied here).
        period: what the report covers (:func:`~._period.resolve_period`).
        exclude_bots: leave bots' messages out of the views and sentences.
        views: names of the views to include (default: every one in the registry).
        progress: wraps the iteration over the views (a tqdm bar).
        dpi: the figures' resolution (shown at 100 dpi: :data:`FIGURE_DPI` is twice that).
        key: with a pseudonym key, every view runs with ``anonymize=True`` under it.

    Returns:
        one :class:`Section` per view.
    """
    chosen = list(REGISTRY.values()) if views is None else [REGISTRY[n] for n in views]
    f = period_frames(frames, period)
    whole = dataclasses.replace(frames, messages=frames.messages.copy(deep=False))
    # the coverage note, not its detail object (pandas copies ``attrs`` at every step)
    whole.messages.attrs = dict(f.messages.attrs)
    history = whole.messages
    if period.until is not None:
        history = history[history["timestamp"] < pd.Timestamp(period.until)]
    sections: list[Section] = []
    for view in progress(chosen) if progress is not None else chosen:
        try:
            result = _compute(view, whole, period, exclude_bots, key)
            sentence = _sentence(view, result, f, history, period, exclude_bots)
            png = figure_png(result.plot(), dpi=dpi)
            table = compact_table(view.name, result, f.users)
            change = describe_change(result, _movers(view, whole, period, exclude_bots))
        except Exception as exc:  # one view's failure is said in its section
            sections.append(
                Section(
                    view.number,
                    view.name,
                    view.title,
                    "",
                    "",
                    0,
                    0,
                    None,
                    f"{type(exc).__name__}: {exc}",
                )
            )
            continue
        width, height = _png_size(png)
        scale = dpi / 100
        sections.append(
            Section(
                view.number,
                view.name,
                view.title,
                sentence,
                base64.b64encode(png).decode("ascii"),
                round(width / scale),
                round(height / scale),
                table,
                change=change,
            )
        )
    return sections


#: the views under whose figure the report names who moved the most
MOVERS_VIEWS = ("messages_over_time", "zulip_stats")


def _movers(
    view: View[Any], f: AnalyticsFrames, period: Period, exclude_bots: bool
) -> Movers | None:
    """Who moved the most in the period's last seven days (or its length, when shorter than
    the whole history) against as many days before; None for the other views."""
    if view.name not in MOVERS_VIEWS or f.messages.empty:
        return None
    m = f.messages
    end = pd.Timestamp(period.until) if period.until is not None else m["timestamp"].max()
    days = 7 if period.since is None else max(1, (end - pd.Timestamp(period.since)).days)
    return movers(
        m[m["timestamp"] <= end],
        users=f.users,
        user_groups=f.user_groups,
        period=f"{days}D",
        end=end,
        exclude_bots=exclude_bots,
    )
