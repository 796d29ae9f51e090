"""The demo's history: messages, read flags and reactions, then edits, moves and resolutions.

Every row is drawn from the demo's random generator in one fixed order, prepared in memory and
bulk-inserted, so that a seed gives the same history byte for byte and the work grows linearly
with the number of messages.
"""

from __future__ import annotations

import bisect
import itertools
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .. import realm as realm_mod
from ..messages import READ, recipient_for_users
from ..rendering import MentionTargets, render
from ..store import Store
from .accounts import Account
from .words import REACTIONS, SENTENCES, TOPIC_WORDS


def _zipf_weights(n: int, s: float = 1.1) -> list[float]:
    return [1.0 / (k**s) for k in range(1, n + 1)]


class _Picker:
    def __init__(self, rng: random.Random, items: list[Any], s: float = 1.1) -> None:
        self.rng = rng
        self.items = items
        self.cum = list(itertools.accumulate(_zipf_weights(len(items), s)))

    def __call__(self) -> Any:
        x = self.rng.random() * self.cum[-1]
        return self.items[bisect.bisect_left(self.cum, x)]


def add_history(
    store: Store,
    rng: random.Random,
    plan: dict[str, int],
    accounts: dict[str, Account],
    people: list[int],
    channel_ids: list[int],
    start: int,
    now: int,
) -> None:
    """The messages, read flags and reactions, then the edits and moves of :func:`_edits`.

    Every row is prepared in memory and bulk-inserted; the message indexes are built once the
    rows are in, so the work grows linearly with the number of messages.
    """
    names = {r["id"]: r["full_name"] for r in store.query("SELECT id, full_name FROM users")}
    joined = {r["id"]: r["date_joined"] for r in store.query("SELECT id, date_joined FROM users")}
    targets = MentionTargets(names={n: i for i, n in names.items()}, full_names=names)
    recipients = {
        r["stream_id"]: r["id"]
        for r in store.query("SELECT id, stream_id FROM recipients WHERE stream_id IS NOT NULL")
    }
    subs = {
        sid: [
            r["user_id"]
            for r in store.query("SELECT user_id FROM subscriptions WHERE stream_id = ?", [sid])
        ]
        for sid in channel_ids
    }
    pick_channel = _Picker(rng, channel_ids, 1.0)
    topics: dict[int, list[str]] = {sid: [] for sid in channel_ids}
    total = plan["messages"]
    span = now - 3600 - start
    times = sorted(start + int(span * (rng.random() ** 0.7)) for _ in range(total))
    dm_pairs = [tuple(sorted(rng.sample(people, 2))) for _ in range(max(3, len(people) // 3))]
    dm_pairs.append(tuple(sorted((accounts["member"].user_id, accounts["admin"].user_id))))
    rows: list[tuple[Any, ...]] = []
    flags: list[tuple[int, int, int]] = []
    reactions: list[tuple[int, int, str, str, str]] = []
    next_id = int(store.scalar("SELECT coalesce(max(id), 0) FROM messages")) + 1
    recent_cut = total - min(total, 400)
    pick_person = {sid: _Picker(rng, subs[sid] or people, 1.2) for sid in channel_ids}
    by_joining = {sid: _ByJoining(subs[sid] or people, joined) for sid in channel_ids}
    # who had joined is chosen with a generator of its own: the organization's other
    # choices (channels, topics, texts, reactions...) are the ones the seed always made
    later = random.Random(start)
    pairs_by_joining = _PairsByJoining(dm_pairs, joined)
    emoji_pick = _Picker(rng, REACTIONS, 1.3)
    rendered = _RenderCache(targets)
    dm_recipients: dict[tuple[int, ...], int] = {}
    # what the edits need, gathered on the way instead of queried back
    groups: dict[tuple[int, str], list[int]] = {}
    last_seen: dict[tuple[int, str], int] = {}
    to_edit: list[tuple[int, int, str, str, int]] = []
    with store.atomic():
        indexes = _drop_indexes(store, ("messages",))
        for n, ts in enumerate(times):
            mid = next_id + n
            if rng.random() < 0.08:
                a, b = _joined_pair(later, rng.choice(dm_pairs), pairs_by_joining, joined, ts)
                sender = rng.choice((a, b))
                rid = dm_recipients.get((a, b))
                if rid is None:
                    rid = dm_recipients[(a, b)] = recipient_for_users(store, (a, b))
                content = rng.choice(SENTENCES)
                rows.append((mid, sender, rid, None, "", content, rendered(content), "website", ts))
                if n >= recent_cut:
                    other = b if sender == a else a
                    flags.append((other, mid, 0))
                continue
            sid = pick_channel()
            topic = _pick_topic(rng, topics[sid])
            sender = _joined(later, pick_person[sid](), by_joining[sid], joined, ts)
            content = rng.choice(SENTENCES)
            if rng.random() < 0.03:
                target = rng.choice(people)
                content = f"@**{names[target]}** {content}"
            html = rendered(content)
            rows.append(
                (
                    mid,
                    sender,
                    recipients[sid],
                    sid,
                    topic,
                    content,
                    html,
                    rng.choice(["website", "website", "ZulipMobile", "ZulipTerminal", "API"]),
                    ts,
                )
            )
            if topic != "":
                key = (sid, topic)
                members = groups.get(key)
                if members is None:
                    members = groups[key] = []
                members.append(mid)
                last_seen[key] = ts  # times are sorted: the last one seen is the latest
            if mid % 37 == 0:
                to_edit.append((mid, sender, content, html, ts))
            if n >= recent_cut:
                for uid in subs[sid][:30]:
                    flags.append((uid, mid, READ if uid == sender or rng.random() < 0.5 else 0))
            if rng.random() < 0.12:
                _react(rng, emoji_pick, mid, subs[sid] or people, reactions)
            if len(rows) >= 20_000:
                _flush(store, rows, flags, reactions)
        _flush(store, rows, flags, reactions)
        _joined_before_posting(store)
        _edits(store, rng, now, groups, last_seen, to_edit, recipients, rendered)
        for sql in indexes:
            store.execute(sql)


class _ByJoining:
    """People in the order they joined, to choose one who had joined by a given time."""

    def __init__(self, people: list[int], joined: dict[int, int]) -> None:
        self.people = sorted(people, key=lambda u: (joined[u], u))
        self.times = [joined[u] for u in self.people]

    def choose(self, rng: random.Random, ts: int) -> int | None:
        k = bisect.bisect_right(self.times, ts)
        return rng.choice(self.people[:k]) if k else None


def _joined(
    rng: random.Random, first: int, members: _ByJoining, joined: dict[int, int], ts: int
) -> int:
    """``first`` if they had joined by ``ts``, else one of ``members`` who had (chosen with
    ``rng``); else ``first`` (:func:`_joined_before_posting` moves their join date)."""
    if joined[first] <= ts:
        return first
    other = members.choose(rng, ts)
    return first if other is None else other


class _PairsByJoining:
    """Pairs in the order both had joined, to choose one that could talk at a given time."""

    def __init__(self, pairs: list[tuple[int, ...]], joined: dict[int, int]) -> None:
        self.pairs = sorted(pairs, key=lambda p: (max(joined[u] for u in p), p))
        self.times = [max(joined[u] for u in p) for p in self.pairs]

    def choose(self, rng: random.Random, ts: int) -> tuple[int, ...] | None:
        k = bisect.bisect_right(self.times, ts)
        return rng.choice(self.pairs[:k]) if k else None


def _joined_pair(
    rng: random.Random,
    first: tuple[int, ...],
    pairs: _PairsByJoining,
    joined: dict[int, int],
    ts: int,
) -> tuple[int, ...]:
    """``first`` if both had joined by ``ts``, else a pair that had (chosen with ``rng``);
    else ``first``."""
    if max(joined[u] for u in first) <= ts:
        return first
    other = pairs.choose(rng, ts)
    return first if other is None else other


def _joined_before_posting(store: Store) -> None:
    """Everyone joined before their first message: a join date after it moves to an hour
    before it."""
    firsts = store.query("SELECT sender_id, min(timestamp) AS t FROM messages GROUP BY sender_id")
    for r in firsts:
        store.execute(
            "UPDATE users SET date_joined = ? WHERE id = ? AND date_joined >= ?",
            [r["t"] - 3600, r["sender_id"], r["t"]],
        )


def _pick_topic(rng: random.Random, tlist: list[str]) -> str:
    """The topic of a channel's next message: mostly the latest, sometimes a new one."""
    if not tlist or rng.random() < 0.04:
        word = rng.choice(TOPIC_WORDS)
        topic = f"{word} {len(tlist) + 1}" if rng.random() < 0.9 else ""
        tlist.append(topic)
    return tlist[-1] if rng.random() < 0.6 else rng.choice(tlist[-8:])


def _react(
    rng: random.Random,
    emoji_pick: _Picker,
    message_id: int,
    who: list[int],
    reactions: list[tuple[int, int, str, str, str]],
) -> None:
    """One to three reactions to a message, by people of its channel."""
    for _ in range(rng.choice([1, 1, 2, 3])):
        name, code = emoji_pick()
        reactions.append((message_id, rng.choice(who), name, code, "unicode_emoji"))


class _RenderCache:
    """``render`` memoized: the demo draws its contents from a small vocabulary."""

    def __init__(self, mentions: MentionTargets) -> None:
        self._seen: dict[str, str] = {}
        self._mentions = mentions

    def __call__(self, content: str) -> str:
        html = self._seen.get(content)
        if html is None:
            html = self._seen[content] = render(content, mentions=self._mentions)
        return html


def _drop_indexes(store: Store, tables: tuple[str, ...]) -> list[str]:
    """Drop the explicit indexes of ``tables``; returns the SQL that builds them again."""
    marks = ", ".join("?" for _ in tables)
    found = store.query(
        f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL "
        f"AND tbl_name IN ({marks}) ORDER BY name",
        list(tables),
    )
    for row in found:
        store.execute(f'DROP INDEX "{row["name"]}"')
    return [str(row["sql"]) for row in found]


@contextmanager
def bulk_load(store: Store) -> Iterator[None]:
    """No journal and no fsync while the demo is written; the previous settings after.

    A generation that stops half-way leaves a file that is thrown away (``open_data_dir``
    generates into a ``.partial`` file), so the journal would protect nothing.
    """
    journal = str(store.scalar("PRAGMA journal_mode"))
    synchronous = int(store.scalar("PRAGMA synchronous"))
    store.execute("PRAGMA journal_mode=MEMORY")
    store.execute("PRAGMA synchronous=OFF")
    try:
        yield
    finally:
        store.execute(f"PRAGMA synchronous={synchronous}")
        store.execute(f"PRAGMA journal_mode={journal}")


def _flush(
    store: Store,
    rows: list[tuple[Any, ...]],
    flags: list[tuple[int, int, int]],
    reactions: list[tuple[int, int, str, str, str]],
) -> None:
    store.executemany(
        "INSERT INTO messages (id, sender_id, recipient_id, stream_id, topic, content, rendered_content, client, timestamp) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        rows,
    )
    store.executemany(
        "INSERT OR IGNORE INTO message_flags (user_id, message_id, flags) VALUES (?, ?, ?)", flags
    )
    store.executemany(
        "INSERT OR IGNORE INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type) "
        "VALUES (?, ?, ?, ?, ?)",
        reactions,
    )
    rows.clear()
    flags.clear()
    reactions.clear()


# The columns an edit or move may change, in the order of a change's first fields.
_CHANGED = (
    "stream_id",
    "recipient_id",
    "topic",
    "content",
    "rendered_content",
    "last_edit_timestamp",
    "last_moved_timestamp",
)


class _Changes:
    """What the edits do to each message, worked out in memory and written at once."""

    def __init__(self) -> None:
        self.columns: dict[int, list[Any]] = {}
        self.histories: dict[int, list[dict[str, Any]]] = {}

    def change(self, mid: int) -> list[Any]:
        """The new values of message ``mid``'s :data:`_CHANGED` columns (None: unchanged)."""
        found = self.columns.get(mid)
        if found is None:
            found = self.columns[mid] = [None] * len(_CHANGED)
        return found

    def add_history(self, mid: int, entry: dict[str, Any]) -> None:
        history = [entry, *self.histories.get(mid, ())]
        history.sort(key=lambda e: -int(e["timestamp"]))  # most recent first
        self.histories[mid] = history

    def write(self, store: Store) -> None:
        """One ``UPDATE`` per changed message."""
        # The messages of a moved or resolved topic share their history entries: encode each
        # distinct history once.
        encoded: dict[tuple[int, ...], str] = {}

        def encode(history: list[dict[str, Any]]) -> str:
            key = tuple(id(e) for e in history)
            text = encoded.get(key)
            if text is None:
                text = encoded[key] = json.dumps(history)
            return text

        store.executemany(
            "UPDATE messages SET stream_id = coalesce(?, stream_id), "
            "recipient_id = coalesce(?, recipient_id), topic = coalesce(?, topic), "
            "content = coalesce(?, content), rendered_content = coalesce(?, rendered_content), "
            "last_edit_timestamp = ?, last_moved_timestamp = ?, edit_history = ? WHERE id = ?",
            ((*c, encode(self.histories[mid]), mid) for mid, c in sorted(self.columns.items())),
        )


def _edits(
    store: Store,
    rng: random.Random,
    now: int,
    groups: dict[tuple[int, str], list[int]],
    last_seen: dict[tuple[int, str], int],
    to_edit: list[tuple[int, int, str, str, int]],
    recipients: dict[int, int],
    rendered: _RenderCache,
) -> None:
    """Edit some messages, move some topics, resolve some, each with its edit history.

    ``groups`` holds the ids of each named topic in order of its first message, ``last_seen``
    its latest timestamp; ``to_edit`` the channel messages whose content is edited.
    """
    changes = _Changes()
    for mid, sender, content, html, ts in to_edit:
        new = content + " (edited)"
        when = ts + 120
        c = changes.change(mid)
        c[3], c[4], c[5] = new, rendered(new), when
        changes.add_history(
            mid,
            {
                "user_id": sender,
                "timestamp": when,
                "prev_content": content,
                "prev_rendered_content": html,
            },
        )
    moderators = [
        r["id"]
        for r in store.query(
            "SELECT id FROM users WHERE role <= 300 AND is_bot = 0 AND is_active = 1 ORDER BY id"
        )
    ]
    _move_topics(changes, rng, now, groups, last_seen, recipients, moderators)
    changes.write(store)


def _move_topics(
    changes: _Changes,
    rng: random.Random,
    now: int,
    groups: dict[tuple[int, str], list[int]],
    last_seen: dict[tuple[int, str], int],
    recipients: dict[int, int],
    moderators: list[int],
) -> None:
    """Move one topic in twenty-five to another channel, rename one, resolve about three in
    ten of the rest; each by a moderator an hour after its last message."""
    prefix = realm_mod.RESOLVED_TOPIC_PREFIX
    stream_ids = sorted({sid for sid, _ in groups})
    # where each topic's messages are now: a topic moved into a channel that already has a
    # topic of that name joins it, and moves with it if that one is moved later
    current: dict[tuple[int, str], list[int]] = {k: list(v) for k, v in groups.items()}
    for index, (key, _) in enumerate(groups.items()):
        sid, topic = key
        roll = rng.random()
        ids = sorted(current[key])
        mover = rng.choice(moderators)
        when = min(now - 60, last_seen[key] + 3600)
        if index % 25 == 3 and len(stream_ids) > 1:  # moved to another channel
            target = rng.choice([s for s in stream_ids if s != sid])
            entry: dict[str, Any] = {
                "user_id": mover,
                "timestamp": when,
                "prev_stream": sid,
                "stream": target,
            }
            for mid in ids:
                c = changes.change(mid)
                c[0], c[1], c[6] = target, recipients[target], when
                changes.add_history(mid, entry)
            del current[key]
            current.setdefault((target, topic), []).extend(ids)
        elif index % 25 == 11:  # renamed
            renamed = f"{topic} (renamed)"
            entry = {"user_id": mover, "timestamp": when, "prev_topic": topic, "topic": renamed}
            for mid in ids:
                c = changes.change(mid)
                c[2], c[6] = renamed, when
                changes.add_history(mid, entry)
            del current[key]
        elif roll < 0.3:  # resolved: not a move, so no last_moved_timestamp
            entry = {
                "user_id": mover,
                "timestamp": when,
                "prev_topic": topic,
                "topic": prefix + topic,
            }
            for mid in ids:
                changes.change(mid)[2] = prefix + topic
                changes.add_history(mid, entry)
            del current[key]
