"""Message text: search, the keywords of a channel or period, topic threads, links.

Search and keywords need the text, which a dataset keeps only when it was made with content
(``chatops data sync --content``, ``Dataset.sync(..., content=True)``) and read with
``frames(content=True)``; without it they raise a ValueError that says so. Topic threads work
either way (they show the text when it is kept).

Links are the web app's own: ``<site>/#narrow/channel/<id>-<name>/topic/<topic>/near/<id>``, each
part encoded as Zulip's ``encodeHashComponent`` does (``encodeURIComponent``, then ``%`` as
``.``, and ``.``, ``(``, ``)`` as ``.2E``, ``.28``, ``.29``; spaces in a channel name become
``-`` first).
"""

from __future__ import annotations

import dataclasses
import math
import re
import shlex
from collections import Counter
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ._common import (
    TimeLike,
    check_tz,
    coverage_of,
    prepare_messages,
    strip_resolved,
    user_names,
)
from ._figure import axes, empty, finish, tidy
from .schema import validate
from .views._result import ViewResult

__all__ = [
    "NO_CONTENT",
    "Keywords",
    "SearchResults",
    "TopicThread",
    "encode_hash_component",
    "keywords",
    "message_link",
    "search_messages",
    "tokens",
    "topic_thread",
]

#: What to do when the text is not kept.
NO_CONTENT = (
    "the dataset keeps no message text: sync it with content kept "
    "(chatops data sync --content, or Dataset.sync(..., content=True)) "
    "and read it with frames(content=True)"
)

_HASH = {"%": ".", "(": ".28", ")": ".29", ".": ".2E"}


def encode_hash_component(text: str) -> str:
    """``text`` encoded for a Zulip URL fragment, as the web app's ``encodeHashComponent``."""
    encoded = quote(text, safe="-_.!~*'()")
    return re.sub(r"[%().]", lambda m: _HASH[m.group(0)], encoded)


def message_link(
    site: str | None,
    message_id: int,
    stream_id: int | None = None,
    channel: str | None = None,
    topic: str | None = None,
) -> str:
    """The web app's link to a message: in its channel and topic, else (direct) by id alone."""
    base = (site or "").rstrip("/")
    if stream_id is None or pd.isna(stream_id) or topic is None or pd.isna(topic):
        return f"{base}/#narrow/near/{int(message_id)}"
    slug = encode_hash_component(f"{int(stream_id)}-{(channel or 'unknown').replace(' ', '-')}")
    return (
        f"{base}/#narrow/channel/{slug}/topic/{encode_hash_component(str(topic))}"
        f"/near/{int(message_id)}"
    )


def _links(df: pd.DataFrame, site: str | None) -> list[str]:
    return [
        message_link(site, i, s, None if pd.isna(c) else str(c), None if pd.isna(t) else str(t))
        for i, s, c, t in zip(df["id"], df["stream_id"], df["channel"], df["topic"], strict=True)
    ]


def _has_text(messages: pd.DataFrame) -> pd.Series:
    if "content" not in messages.columns or not messages["content"].notna().any():
        raise ValueError(NO_CONTENT)
    text: pd.Series = messages["content"].astype("string").fillna("")
    return text


def _pick(df: pd.DataFrame, channels: Iterable[int | str] | None, senders: Any) -> pd.Series:
    mask = pd.Series(True, index=df.index)
    if channels is not None:
        wanted = list(channels)
        ids = {int(c) for c in wanted if isinstance(c, int | np.integer)}
        names = {str(c) for c in wanted if not isinstance(c, int | np.integer)}
        mask &= df["stream_id"].isin(list(ids)).fillna(False).astype(bool) | df["channel"].astype(
            "string"
        ).isin(list(names)).fillna(False).astype(bool)
    if senders is not None:
        wanted = list(senders)
        ids = {int(s) for s in wanted if isinstance(s, int | np.integer)}
        names = {str(s) for s in wanted if not isinstance(s, int | np.integer)}
        by_name = pd.Series(False, index=df.index)
        for col in ("sender", "sender_email"):
            if col in df.columns:
                by_name |= df[col].astype("string").isin(list(names)).fillna(False).astype(bool)
        mask &= df["sender_id"].isin(list(ids)).fillna(False).astype(bool) | by_name
    return mask


def _local(ts: pd.Series, tz: str) -> pd.Series:
    out: pd.Series = ts.dt.tz_convert(check_tz(tz))
    return out


# -- search ------------------------------------------------------------------------------------


@dataclasses.dataclass
class SearchResults(ViewResult):
    """Messages whose text matches: ``frame`` columns ``id``, ``time`` (in ``tz``), ``channel``,
    ``topic``, ``sender``, ``snippet`` (the text around the first match), ``link``."""

    view = "search"
    query: str = ""
    regex: bool = False
    matches: int = 0

    def plot(self, ax: Axes | None = None) -> Figure:
        """Matches per channel (direct messages together)."""
        fig, (ax,) = axes(ax, size=(8.0, 3.6))
        if self.frame.empty:
            empty(ax, f"no message matches {self.query!r}")
        else:
            per = self.frame["channel"].astype("string").fillna("(direct message)").value_counts()
            per = per.head(15).iloc[::-1]
            ax.barh([str(i) for i in per.index], per.to_numpy(), color="#4C72B0")
            ax.set_xlabel("matching messages")
            tidy(ax)
        ax.set_title(f"Messages matching {self.query!r} ({self.matches:,})")
        return finish(fig, self.coverage)


def _pattern(query: str, regex: bool, case: bool) -> re.Pattern[str]:
    flags = 0 if case else re.IGNORECASE
    if regex:
        try:
            return re.compile(query, flags)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {query!r}: {exc}") from exc
    try:
        words = shlex.split(query)
    except ValueError as exc:
        raise ValueError(f"unbalanced quotes in search {query!r}") from exc
    if not words:
        raise ValueError("empty search: give one or more words")
    # every word (or "quoted phrase") must occur, as whole words, in any order
    ahead = "".join(rf"(?=.*?(?<!\w){re.escape(w)}(?!\w))" for w in words)
    return re.compile(ahead, flags | re.DOTALL)


def search_messages(
    messages: pd.DataFrame,
    query: str,
    *,
    regex: bool = False,
    case: bool = False,
    channels: Iterable[int | str] | None = None,
    senders: Iterable[int | str] | None = None,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    users: pd.DataFrame | None = None,
    exclude_bots: bool = False,
    tz: str = "UTC",
    site: str | None = None,
    limit: int | None = None,
    coverage: str | None = None,
) -> SearchResults:
    """Messages whose text matches ``query``, newest first.

    Args:
        messages: a messages frame with ``content`` (``frames(content=True)``).
        query: words that must all occur as whole words (``"quoted phrases"`` kept together),
            or a regular expression with ``regex=True``.
        case: match case (default: any case).
        channels: channel names or ids to search in (default all, direct messages included).
        senders: user ids, names or emails of the senders to keep.
        since, until, users, exclude_bots: the period and bots, as for every view.
        tz: the time zone of the ``time`` column.
        site: the server's address, for the links.
        limit: at most this many results (the newest).
    """
    pattern = _pattern(query, regex, case)
    _has_text(messages)
    df = prepare_messages(
        messages, users=users, since=since, until=until, exclude_bots=exclude_bots
    )
    text = df["content"].astype("string").fillna("")
    df = df[_pick(df, channels, senders).to_numpy()]
    text = text.loc[df.index]
    hit = text.str.contains(pattern, regex=True).fillna(False).astype(bool)
    found = df[hit.to_numpy()].iloc[::-1]
    if limit is not None:
        found = found.head(int(limit))
    names = user_names(df, users)
    snippets = []
    plain = None if regex else re.compile(re.escape(shlex.split(query)[0]), pattern.flags)
    for body in text.loc[found.index]:
        m = (plain or pattern).search(body)
        at = m.start() if m else 0
        lo, hi = max(0, at - 60), min(len(body), at + 100)
        snippets.append(
            ("…" if lo else "") + body[lo:hi].replace("\n", " ") + ("…" if hi < len(body) else "")
        )
    frame = pd.DataFrame(
        {
            "id": found["id"].astype("int64").to_numpy(),
            "time": _local(found["timestamp"], tz).to_numpy(),
            "channel": found["channel"].astype("string").to_numpy(),
            "topic": found["topic"].astype("string").to_numpy(),
            "sender": [names.get(int(s), f"user {int(s)}") for s in found["sender_id"]],
            "snippet": pd.array(snippets, dtype="string"),
            "link": pd.array(_links(found, site), dtype="string"),
        }
    )
    frame["time"] = pd.to_datetime(frame["time"], utc=True).dt.tz_convert(tz)
    return SearchResults(frame, coverage_of(coverage, messages), query, regex, int(hit.sum()))


# -- keywords ----------------------------------------------------------------------------------

_STOP = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just let me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your yours yourself yourselves i'm it's
    don't can't that's there's we're you're i've we'll i'll""".split()
)
_CODE = re.compile(r"```.*?```|`[^`]*`", re.DOTALL)
_NOISE = re.compile(
    r"https?://\S+|<[^>]+>|@\*\*[^*]*\*\*|@_\*\*[^*]*\*\*|#\*\*[^*]*\*\*|:[a-z0-9_+-]+:"
)
_WORD = re.compile(r"[^\W\d_](?:[\w'-]*[^\W_])?")


def tokens(text: str) -> list[str]:
    """The words of a message: lower case, three letters or more, no stop words; code, links,
    mentions, emoji codes and HTML tags left out."""
    text = _NOISE.sub(" ", _CODE.sub(" ", text)).lower()
    return [w for w in _WORD.findall(text) if len(w) >= 3 and w not in _STOP]


@dataclasses.dataclass
class Keywords(ViewResult):
    """The terms that set a channel or a period apart from the rest.

    ``frame`` columns: ``term``, ``target_count``, ``rest_count``, ``target_per_10k``,
    ``rest_per_10k`` (per 10,000 words), ``log_odds`` (of the term in the target against the
    rest, with an informative Dirichlet prior: Monroe, Colaresi and Quinn 2008) and ``z`` (its
    z-score), highest ``z`` first.
    """

    view = "keywords"
    target: str = ""
    target_messages: int = 0
    rest_messages: int = 0

    def plot(self, ax: Axes | None = None) -> Figure:
        """The top terms as bars of their z-score."""
        top = self.frame.head(20).iloc[::-1]
        # tall enough for a label per bar (fewer would leave bars unnamed or shift the names)
        fig, (ax,) = axes(ax, size=(8.0, max(4.6, 0.3 * len(top) + 1.4)))
        if self.frame.empty:
            empty(ax, "no words to compare")
        else:
            y = np.arange(len(top))
            ax.barh(y, top["z"].to_numpy(dtype=float), color="#55A868")
            ax.set_yticks(y, [str(t) for t in top["term"]])
            ax.set_xlabel("z-score of the log-odds ratio (target against the rest)")
            tidy(ax)
        ax.set_title(f"Words that characterise {self.target}")
        return finish(fig, self.coverage)


def _counts(texts: Iterable[str]) -> Counter[str]:
    c: Counter[str] = Counter()
    for t in texts:
        c.update(tokens(t))
    return c


def keywords(
    messages: pd.DataFrame,
    *,
    channel: int | str | None = None,
    since: TimeLike | None = None,
    until: TimeLike | None = None,
    users: pd.DataFrame | None = None,
    exclude_bots: bool = False,
    top_n: int = 25,
    min_count: int = 3,
    prior: float = 500.0,
    coverage: str | None = None,
) -> Keywords:
    """The words of a channel, a period, or a channel in a period, against all other messages.

    Args:
        messages: a messages frame with ``content``.
        channel: the channel (name or id) whose words to find.
        since, until: the period whose words to find (with ``channel``: that channel then).
        users, exclude_bots: leave bots' messages out of both sides.
        top_n: how many terms to return.
        min_count: leave out terms the target uses fewer times.
        prior: the weight of the prior (the words' overall frequency); higher damps rare words.
    """
    if channel is None and since is None and until is None:
        raise ValueError("keywords needs a target: a channel, a period (since/until) or both")
    if top_n < 1 or min_count < 1 or not prior > 0:
        raise ValueError("top_n and min_count must be at least 1 and prior positive")
    df = prepare_messages(messages, users=users, since=None, until=None, exclude_bots=exclude_bots)
    text = _has_text(df)
    mask = pd.Series(True, index=df.index)
    parts = []
    if channel is not None:
        mask &= _pick(df, [channel], None)
        parts.append(f"#{channel}")
        if not mask.any():
            raise ValueError(f"no message in channel {channel!r}")
    if since is not None or until is not None:
        in_period = prepare_messages(
            df.assign(_row=np.arange(len(df))),
            users=None,
            since=since,
            until=until,
            exclude_bots=False,
        )["_row"].to_numpy()
        period = pd.Series(False, index=df.index)
        period.iloc[in_period] = True
        mask &= period
        parts.append(f"{since or '…'} to {until or '…'}")
    target, rest = _counts(text[mask]), _counts(text[~mask])
    n_t, n_r = sum(target.values()), sum(rest.values())
    cols = ["term", "target_count", "rest_count", "target_per_10k", "rest_per_10k", "log_odds", "z"]
    rows = []
    total = n_t + n_r
    for term, y_t in target.items():
        if y_t < min_count:
            continue
        y_r = rest.get(term, 0)
        a = prior * (y_t + y_r) / total
        a0 = prior
        delta = math.log((y_t + a) / (n_t + a0 - y_t - a)) - math.log(
            (y_r + a) / (n_r + a0 - y_r - a)
        )
        z = delta / math.sqrt(1.0 / (y_t + a) + 1.0 / (y_r + a))
        rows.append(
            (term, y_t, y_r, 1e4 * y_t / n_t, 1e4 * y_r / n_r if n_r else math.nan, delta, z)
        )
    frame = pd.DataFrame(rows, columns=cols)
    frame = frame.sort_values(["z", "term"], ascending=[False, True], kind="stable").head(top_n)
    frame = frame.astype({"target_count": "int64", "rest_count": "int64"}).reset_index(drop=True)
    return Keywords(
        frame,
        coverage_of(coverage, messages),
        " in ".join(parts),
        int(mask.sum()),
        int((~mask).sum()),
    )


# -- topic threads -----------------------------------------------------------------------------


@dataclasses.dataclass
class TopicThread(ViewResult):
    """One topic's messages in order: ``frame`` columns ``id``, ``time`` (in ``tz``),
    ``sender``, ``content`` (when kept), ``reactions`` (``emoji ×n`` each), ``edits`` (edits of
    the text), ``moves`` (topic or channel moves, resolving included), ``link``."""

    view = "topic_thread"
    channel: str = ""
    topic: str = ""
    tz: str = "UTC"
    link: str = ""

    def plot(self, ax: Axes | None = None) -> Figure:
        """Messages of the thread per day."""
        fig, (ax,) = axes(ax, size=(8.0, 3.0))
        if self.frame.empty:
            empty(ax)
        else:
            per = self.frame["time"].dt.tz_localize(None).dt.floor("D").value_counts().sort_index()
            ax.bar(per.index, per.to_numpy(), width=0.8, color="#4C72B0")
            ax.set_ylabel("messages")
            tidy(ax)
        ax.set_title(f"#{self.channel} > {self.topic}")
        return finish(fig, self.coverage)


def topic_thread(
    messages: pd.DataFrame,
    stream_id: int,
    topic: str,
    *,
    reactions: pd.DataFrame | None = None,
    edits: pd.DataFrame | None = None,
    users: pd.DataFrame | None = None,
    tz: str = "UTC",
    site: str | None = None,
    coverage: str | None = None,
) -> TopicThread:
    """The messages of one topic (``topic`` with or without the resolved prefix ``"✔ "``).

    Args:
        messages: the messages frame (with ``content`` to show the text).
        stream_id: the topic's channel.
        topic: the topic's name.
        reactions, edits: to list each message's reactions, edits and moves.
        users: for the senders' names.
        tz: the time zone of the ``time`` column.
        site: the server's address, for the links.
    """
    check_tz(tz)
    df = validate(messages, "messages")

    name = strip_resolved(str(topic))
    topics = df["topic"].astype("string").fillna("").map(strip_resolved)
    m = df[
        (df["stream_id"] == int(stream_id)).fillna(False).to_numpy() & (topics == name).to_numpy()
    ]
    m = m.sort_values("id", kind="stable")
    if m.empty:
        raise ValueError(f"no topic {topic!r} in channel {stream_id}")
    ids = m["id"].astype("int64").to_numpy()
    react: dict[int, str] = {}
    if reactions is not None:
        r = validate(reactions, "reactions")
        r = r[r["message_id"].isin(list(ids)).fillna(False).to_numpy()]
        if not r.empty:
            per = r.groupby(["message_id", "emoji_name"], observed=True, sort=False).size()
            listed: dict[int, list[str]] = {}
            for (mid, emoji), n in zip(per.index.tolist(), per.tolist(), strict=True):
                listed.setdefault(int(mid), []).append(f"{emoji} ×{n}")
            react = {mid: ", ".join(parts) for mid, parts in listed.items()}
    n_edit = pd.Series(0, index=ids, dtype="int64")
    n_move = pd.Series(0, index=ids, dtype="int64")
    if edits is not None:
        e = validate(edits, "edits")
        e = e[e["message_id"].isin(list(ids)).fillna(False).to_numpy()]
        kinds = e["kind"].astype("string")
        ed = e[kinds == "edit"].groupby("message_id").size()
        mv = e[kinds != "edit"].groupby("message_id").size()
        n_edit.loc[ed.index.astype("int64")] = ed.to_numpy()
        n_move.loc[mv.index.astype("int64")] = mv.to_numpy()
    names = user_names(df, users)
    channel = str(m["channel"].iloc[0]) if m["channel"].notna().any() else str(stream_id)
    content = (
        m["content"].astype("string").to_numpy()
        if "content" in m.columns and m["content"].notna().any()
        else pd.array([pd.NA] * len(m), dtype="string")
    )
    frame = pd.DataFrame(
        {
            "id": ids,
            "time": _local(m["timestamp"], tz).to_numpy(),
            "sender": [names.get(int(s), f"user {int(s)}") for s in m["sender_id"]],
            "content": content,
            "reactions": pd.array([react.get(int(i), "") for i in ids], dtype="string"),
            "edits": n_edit.to_numpy(),
            "moves": n_move.to_numpy(),
            "link": _links(m, site),
        }
    )
    frame["time"] = pd.to_datetime(frame["time"], utc=True).dt.tz_convert(tz)
    frame["link"] = frame["link"].astype("string")
    first = frame["link"].iloc[0]
    return TopicThread(frame, coverage_of(coverage, messages), channel, name, tz, str(first))
