"""Fetching messages (spec 4.10, facts 2.x): narrows, anchors, pages, and single messages.

What a user may read is decided by :func:`access_condition` in SQL, so that a page of a large
history is one query; the records are built by :class:`messages.Formatter`.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from . import bounds, channels, users
from . import realm as realm_mod
from .errors import ApiError
from .messages import (
    MAX_FETCH,
    MENTIONED,
    READ,
    STARRED,
    Formatter,
    access_message,
    dm_recipient_ids,
    normalise_topic,
    user_set_key,
)
from .store import Row, Store


class Narrow:
    """SQL conditions for a narrow, checked term by term."""

    def __init__(self, store: Store, viewer: Row) -> None:
        self.store = store
        self.viewer = viewer
        self.where: list[str] = []
        self.params: list[Any] = []
        self.flag_join = False

    def add(self, operator: str, operand: Any, negated: bool) -> None:
        op = operator.lower()
        neg = "NOT " if negated else ""
        if op in ("channel", "stream"):
            stream = self._stream(operand)
            self.where.append(f"{neg}(m.stream_id = ?)")
            self.params.append(stream["id"])
        elif op in ("channels", "streams"):
            self.where.append(f"{neg}(m.stream_id IN ({self._channels(operand)}))")
        elif op == "topic":
            topic = normalise_topic(str(operand))
            self.where.append(f"{neg}(m.stream_id IS NOT NULL AND m.topic = ? COLLATE NOCASE)")
            self.params.append(topic)
        elif op == "sender":
            who = self._user(operand)
            self.where.append(f"{neg}(m.sender_id = ?)")
            self.params.append(who["id"])
        elif op in ("dm", "pm-with"):
            refs = (
                operand if isinstance(operand, list) else [e for e in str(operand).split(",") if e]
            )
            ids = {self._user(r)["id"] for r in refs} | {self.viewer["id"]}
            row = self.store.one(
                "SELECT id FROM recipients WHERE user_set = ?", [user_set_key(ids)]
            )
            self.where.append(f"{neg}(m.recipient_id = ?)")
            self.params.append(row["id"] if row else -1)
        elif op == "search":
            for word in str(operand).split():
                self.where.append(f"{neg}(m.content LIKE ? OR m.topic LIKE ?)")
                self.params += [f"%{word}%", f"%{word}%"]
        elif op == "id":
            self.where.append(f"{neg}(m.id = ?)")
            self.params.append(_int_operand(operand))
        elif op == "is":
            self._is(str(operand), neg)
        elif op == "has":
            if operand == "attachment":
                self.where.append(
                    f"{neg}EXISTS (SELECT 1 FROM attachment_messages am WHERE am.message_id = m.id)"
                )
            elif operand == "link":
                self.where.append(f"{neg}(m.content LIKE '%http%')")
            elif operand == "reaction":
                self.where.append(
                    f"{neg}EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)"
                )
            else:
                raise ApiError(f"Invalid narrow operand: {operand}", code="BAD_NARROW")
        else:
            raise ApiError(f"Invalid narrow operator: {operator}", code="BAD_NARROW")

    def _is(self, what: str, neg: str) -> None:
        uid = self.viewer["id"]
        if what in ("dm", "private"):
            self.where.append(f"{neg}(m.stream_id IS NULL)")
        elif what in ("unread", "starred", "mentioned"):
            bit = {"unread": READ, "starred": STARRED, "mentioned": MENTIONED}[what]
            test = "(f.flags & ?) = 0" if what == "unread" else "(f.flags & ?) != 0"
            self.where.append(
                f"{neg}EXISTS (SELECT 1 FROM message_flags f WHERE f.user_id = ? "
                f"AND f.message_id = m.id AND {test})"
            )
            self.params += [uid, bit]
        elif what == "resolved":
            self.where.append(f"{neg}(m.topic LIKE ?)")
            self.params.append(realm_mod.RESOLVED_TOPIC_PREFIX + "%")
        else:
            raise ApiError(f"Invalid narrow operand: {what}", code="BAD_NARROW")

    def _channels(self, operand: Any) -> str:
        """SQL for the channel ids of ``channels:public`` / ``channels:web-public``.

        As the real server's narrow (``by_channels``): every public channel whose history is
        public, subscribed or not, or every unarchived web-public channel; what the viewer may
        read is still limited by :func:`access_condition`.
        """
        if operand == "public":
            return (
                "SELECT id FROM streams WHERE invite_only = 0 AND history_public_to_subscribers = 1"
            )
        if operand == "web-public":
            return "SELECT id FROM streams WHERE is_web_public = 1 AND is_archived = 0"
        raise ApiError(
            f"Invalid narrow operator: unknown channels operand {operand}", code="BAD_NARROW"
        )

    def _stream(self, operand: Any) -> Row:
        if isinstance(operand, int) or (isinstance(operand, str) and operand.isdigit()):
            stream = channels.get_stream(self.store, _int_operand(operand))
        else:
            stream = channels.stream_by_name(self.store, str(operand))
        if stream is None:
            raise ApiError("Invalid narrow operator: unknown channel", code="BAD_NARROW")
        return stream

    def _user(self, operand: Any) -> Row:
        if isinstance(operand, int) or (isinstance(operand, str) and operand.isdigit()):
            row = users.get_user(self.store, _int_operand(operand))
        else:
            row = users.user_by_email(self.store, str(operand))
        if row is None:
            raise ApiError("Invalid narrow operator: unknown user", code="BAD_NARROW")
        return row


def _int_operand(operand: Any) -> int:
    """An id operand as the API's integer, or BAD_NARROW (never a server error)."""
    try:
        value = int(operand)
    except (TypeError, ValueError):
        raise ApiError(f"Invalid narrow operand: {operand}", code="BAD_NARROW") from None
    if isinstance(operand, bool) or not bounds.INT_MIN <= value <= bounds.INT_MAX:
        raise ApiError(f"Invalid narrow operand: {operand}", code="BAD_NARROW")
    return value


def parse_narrow(raw: Any) -> list[tuple[str, Any, bool]]:
    if raw in (None, ""):
        return []
    if not isinstance(raw, list):
        raise ApiError("Invalid narrow", code="BAD_NARROW")
    terms = []
    for term in raw:
        if isinstance(term, dict) and "operator" in term and "operand" in term:
            terms.append((str(term["operator"]), term["operand"], bool(term.get("negated", False))))
        elif isinstance(term, list) and len(term) == 2:
            terms.append((str(term[0]), term[1], False))
        else:
            raise ApiError("Invalid narrow element", code="BAD_NARROW")
    return terms


def access_condition(store: Store, viewer: Row) -> tuple[str, list[Any]]:
    """SQL for 'the viewer may read message m'."""
    readable = channels.readable_streams(store, viewer)
    parts: list[str] = []
    params: list[Any] = []
    whole = [sid for sid, first in readable.items() if first == 0]
    if whole:
        parts.append(f"+m.stream_id IN ({','.join(str(s) for s in whole)})")
    for sid, first in readable.items():
        if first:
            parts.append("(+m.stream_id = ? AND m.id >= ?)")
            params += [sid, first]
    dms = dm_recipient_ids(store, viewer["id"])
    if dms:
        parts.append(
            f"(+m.stream_id IS NULL AND +m.recipient_id IN ({','.join(str(d) for d in dms)}))"
        )
    if not parts:
        return "0", []
    return "(" + " OR ".join(parts) + ")", params


def fetch_messages(
    store: Store,
    viewer: Row,
    *,
    anchor: str | int = "newest",
    num_before: int = 0,
    num_after: int = 0,
    include_anchor: bool = True,
    narrow: Any = None,
    message_ids: list[int] | None = None,
    apply_markdown: bool = True,
    client_gravatar: bool = True,
    allow_empty_topic_name: bool = False,
) -> dict[str, Any]:
    """``GET /messages``: a window of messages around an anchor, oldest first."""
    if num_before < 0 or num_after < 0:
        raise ApiError("num_before and num_after must be non-negative")
    if num_before + num_after > MAX_FETCH:
        raise ApiError(f"Too many messages requested (maximum {MAX_FETCH}).")
    cond, params = access_condition(store, viewer)
    nar = Narrow(store, viewer)
    for operator, operand, negated in parse_narrow(narrow):
        nar.add(operator, operand, negated)
    where = " AND ".join([cond, *nar.where])
    all_params = params + nar.params
    fmt = Formatter(
        store,
        viewer,
        apply_markdown=apply_markdown,
        client_gravatar=client_gravatar,
        allow_empty_topic_name=allow_empty_topic_name,
    )
    if message_ids is not None:
        marks = ",".join("?" * len(message_ids)) or "NULL"
        rows = store.query(
            f"SELECT m.* FROM messages m WHERE {where} AND m.id IN ({marks}) ORDER BY m.id",
            all_params + list(message_ids),
        )
        return {"messages": fmt.format(rows, _flags(store, viewer, rows)), "history_limited": False}

    window = message_window(
        store,
        viewer,
        where,
        all_params,
        anchor=anchor,
        num_before=num_before,
        num_after=num_after,
        include_anchor=include_anchor,
    )
    rows = window.rows
    return {
        "messages": fmt.format(rows, _flags(store, viewer, rows)),
        "anchor": window.anchor,
        "found_anchor": window.found_anchor,
        "found_oldest": window.found_oldest,
        "found_newest": window.found_newest,
        "history_limited": False,
    }


#: the anchor of ``newest`` (and of ``first_unread`` with nothing unread), as the API says it
LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000


@dataclass
class Window:
    """Messages around an anchor, oldest first, with what the server says about the ends."""

    rows: list[Row]
    anchor: int
    found_anchor: bool
    found_oldest: bool
    found_newest: bool


def resolve_anchor(
    store: Store, viewer: Row, where: str, params: list[Any], anchor: str | int
) -> int:
    """The anchor as a message id: ``oldest`` is 0, ``newest`` is past every message id."""
    if anchor == "newest":
        return LARGER_THAN_MAX_MESSAGE_ID
    if anchor == "oldest":
        return 0
    if anchor == "first_unread":
        first = store.scalar(
            f"SELECT min(m.id) FROM messages m JOIN message_flags f ON f.message_id = m.id "
            f"AND f.user_id = ? AND (f.flags & {READ}) = 0 WHERE {where}",
            [viewer["id"], *params],
        )
        return LARGER_THAN_MAX_MESSAGE_ID if first is None else int(first)
    return min(max(int(anchor), 0), LARGER_THAN_MAX_MESSAGE_ID)


def message_window(
    store: Store,
    viewer: Row,
    where: str,
    params: list[Any],
    *,
    anchor: str | int,
    num_before: int,
    num_after: int,
    include_anchor: bool,
) -> Window:
    """The range of ``GET /messages`` and ``POST /messages/flags/narrow`` (facts 3.3).

    As the real server decides it: ``found_oldest`` when fewer than ``num_before`` messages
    came back before the anchor, ``found_newest`` when fewer than ``num_after`` came back
    after it (so a page that exactly reaches the newest message does not say so; the next,
    empty, page does), and always at an anchor of ``oldest`` / ``newest`` respectively.
    """
    if not include_anchor and num_before and num_after:
        raise ApiError("The anchor can only be excluded at an end of the range")
    anchor_id = resolve_anchor(store, viewer, where, params, anchor)
    anchored_to_left = anchor_id == 0
    anchored_to_right = anchor_id >= LARGER_THAN_MAX_MESSAGE_ID
    if anchored_to_right:
        num_after = 0
    before: list[Row] = []
    if num_before and not anchored_to_left:
        before = store.query(
            f"SELECT m.* FROM messages m WHERE {where} AND m.id < ? ORDER BY m.id DESC LIMIT ?",
            [*params, anchor_id, num_before],
        )[::-1]
    at: list[Row] = []
    if (
        not anchored_to_left
        and not anchored_to_right
        and (include_anchor or not (num_before or num_after))
    ):
        at = store.query(
            f"SELECT m.* FROM messages m WHERE {where} AND m.id = ?", [*params, anchor_id]
        )
    after: list[Row] = []
    if num_after:
        after = store.query(
            f"SELECT m.* FROM messages m WHERE {where} AND m.id > ? ORDER BY m.id ASC LIMIT ?",
            [*params, anchor_id, num_after],
        )
    return Window(
        rows=before + at + after,
        anchor=anchor_id,
        found_anchor=bool(at),
        found_oldest=anchored_to_left or len(before) < num_before,
        found_newest=anchored_to_right or len(after) < num_after,
    )


def _flags(store: Store, viewer: Row, rows: list[Row]) -> dict[int, int]:
    if not rows:
        return {}
    lo, hi = rows[0]["id"], rows[-1]["id"]
    return {
        r["message_id"]: r["flags"]
        for r in store.query(
            "SELECT message_id, flags FROM message_flags WHERE user_id = ? AND message_id BETWEEN ? AND ?",
            [viewer["id"], min(lo, hi), max(lo, hi)],
        )
    }


def get_message(
    store: Store,
    viewer: Row,
    message_id: int,
    *,
    apply_markdown: bool = True,
    allow_empty_topic_name: bool = False,
) -> dict[str, Any]:
    row = access_message(store, viewer, message_id)
    fmt = Formatter(
        store,
        viewer,
        apply_markdown=apply_markdown,
        allow_empty_topic_name=allow_empty_topic_name,
    )
    record = fmt.format([row], _flags(store, viewer, [row]))[0]
    return {"message": record, "raw_content": row["content"]}


def matches_narrow(store: Store, viewer: Row, msg_ids: list[int], narrow: Any) -> dict[str, Any]:
    """``GET /messages/matches_narrow``: which of the user's received messages match.

    Only messages the user received count (as on the real server, which asks its per-user
    message table). Each match gets ``match_content`` (the rendered content) and
    ``match_subject`` (the escaped topic); a ``search`` term highlights its words in both.
    """
    terms = parse_narrow(narrow)
    nar = Narrow(store, viewer)
    for operator, operand, negated in terms:
        nar.add(operator, operand, negated)
    ids = sorted({int(i) for i in msg_ids})
    out: dict[str, Any] = {}
    words = [
        w
        for op, operand, neg in terms
        if op.lower() == "search" and not neg
        for w in str(operand).split()
    ]
    for start in range(0, len(ids), 900):
        chunk = ids[start : start + 900]
        where = " AND ".join(
            [f"m.id IN ({','.join('?' * len(chunk))})", "f.user_id = ?", *nar.where]
        )
        for row in store.query(
            f"SELECT m.* FROM messages m JOIN message_flags f ON f.message_id = m.id WHERE {where}",
            [*chunk, viewer["id"], *nar.params],
        ):
            rendered = row["rendered_content"] or ""
            out[str(row["id"])] = {
                "match_content": highlight(rendered, words),
                "match_subject": highlight(html.escape(row["topic"], quote=False), words),
            }
    return {"messages": out}


def highlight(text: str, words: list[str]) -> str:
    """Wrap each occurrence of ``words`` outside HTML tags in ``<span class="highlight">``."""
    if not words:
        return text
    pattern = re.compile("|".join(re.escape(w) for w in words), re.IGNORECASE)
    parts = re.split(r"(<[^>]*>)", text)
    return "".join(
        part
        if part.startswith("<")
        else pattern.sub(lambda m: f'<span class="highlight">{m.group(0)}</span>', part)
        for part in parts
    )
