"""Linkifiers (spec 4.15): a regular expression with named groups and an RFC 6570 URL template.

They take effect in rendering: matches in message content become links (a markdown-it core rule,
:func:`markdown_rule`) and matches in a topic become the message's ``topic_links``.

Patterns are checked and matched with RE2, as the real server does: what RE2 refuses
(look-around, back-references) is refused with RE2's own words, and matching takes time linear
in the text whatever the pattern, so no pattern can hold up rendering.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Any

import re2
import uritemplate
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from ..linkify import Matcher, re2_message
from .bus import event_bus
from .errors import ApiError
from .store import Row, Store

MAX_PATTERN_LENGTH = 1000
MAX_URL_TEMPLATE_LENGTH = 1024
URL = re.compile(r"https?://[^\s<>\"]+[^\s<>\".,;:!?)\]]")

#: A linkifier ready to match: its pattern compiled with RE2 and its URL template.
Compiled = Matcher


def _field_error(field: str, msg: str) -> ApiError:
    return ApiError(msg, errors={field: [msg]})


def validate(pattern: str, url_template: str) -> tuple[str, str]:
    """Check a pattern and template; raise 400 with ``errors`` (field -> messages) when bad."""
    pattern, url_template = pattern.strip(), url_template.strip()
    if not pattern:
        raise _field_error("pattern", "This field cannot be blank.")
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise _field_error(
            "pattern", f"Ensure this value has at most {MAX_PATTERN_LENGTH} characters."
        )
    try:
        compiled = Matcher(pattern)
    except re2.error as exc:
        raise _field_error("pattern", f"Bad regular expression: {re2_message(exc)}") from None
    if not url_template:
        raise _field_error("url_template", "This field cannot be blank.")
    if len(url_template) > MAX_URL_TEMPLATE_LENGTH:
        raise _field_error(
            "url_template", f"Ensure this value has at most {MAX_URL_TEMPLATE_LENGTH} characters."
        )
    if url_template.count("{") != url_template.count("}") or not re.match(
        r"^(https?://|/)", url_template
    ):
        raise _field_error("url_template", "Invalid URL template.")
    try:
        variables = set(uritemplate.URITemplate(url_template).variable_names)
    except Exception:
        raise _field_error("url_template", "Invalid URL template.") from None
    groups = set(compiled.group_names)
    unknown, unused = sorted(variables - groups), sorted(groups - variables)
    if unknown:
        raise _field_error(
            "__all__", f"Group '{unknown[0]}' in URL template is not present in linkifier pattern."
        )
    if unused:
        raise _field_error(
            "__all__", f"Group '{unused[0]}' in linkifier pattern is not present in URL template."
        )
    return pattern, url_template


def _record(row: Row) -> dict[str, Any]:
    return {"id": row["id"], "pattern": row["pattern"], "url_template": row["url_template"]}


def list_linkifiers(store: Store) -> list[dict[str, Any]]:
    return [_record(r) for r in store.query("SELECT * FROM linkifiers ORDER BY ord, id")]


def _announce(store: Store) -> None:
    ids = [int(r["id"]) for r in store.query("SELECT id FROM users WHERE is_active = 1")]
    event_bus(store).publish(
        {"type": "realm_linkifiers", "realm_linkifiers": list_linkifiers(store)}, ids
    )


def _check_unique(store: Store, pattern: str, url_template: str, exclude: int | None) -> None:
    if store.one(
        "SELECT 1 FROM linkifiers WHERE pattern = ? AND url_template = ? AND id IS NOT ?",
        [pattern, url_template, exclude],
    ):
        raise _field_error(
            "__all__", "Linkifier with this Pattern and URL template already exists."
        )


def add(store: Store, user: Row, pattern: str, url_template: str) -> int:
    """``POST /realm/filters``; returns the linkifier id."""
    pattern, url_template = validate(pattern, url_template)
    with store.atomic():
        _check_unique(store, pattern, url_template, None)
        order = int(store.scalar("SELECT coalesce(max(ord), -1) + 1 FROM linkifiers"))
        new_id = store.insert(
            "linkifiers", {"pattern": pattern, "url_template": url_template, "ord": order}
        )
    _announce(store)
    return new_id


def _get(store: Store, filter_id: int) -> Row:
    row = store.one("SELECT * FROM linkifiers WHERE id = ?", [filter_id])
    if row is None:
        raise ApiError("Linkifier not found.")
    return row


def update(store: Store, user: Row, filter_id: int, pattern: str, url_template: str) -> None:
    """Spec 4.15 ``PATCH /realm/filters/{filter_id}``: replace pattern and template."""
    _get(store, filter_id)
    pattern, url_template = validate(pattern, url_template)
    with store.atomic():
        _check_unique(store, pattern, url_template, filter_id)
        store.execute(
            "UPDATE linkifiers SET pattern = ?, url_template = ? WHERE id = ?",
            [pattern, url_template, filter_id],
        )
    _announce(store)


def remove(store: Store, user: Row, filter_id: int) -> None:
    _get(store, filter_id)
    with store.atomic():
        store.execute("DELETE FROM linkifiers WHERE id = ?", [filter_id])
    _announce(store)


def reorder(store: Store, user: Row, ordered_ids: list[int]) -> None:
    """``PATCH /realm/linkifiers``: the ids of all linkifiers in their new order."""
    existing = {int(r["id"]) for r in store.query("SELECT id FROM linkifiers")}
    if len(ordered_ids) != len(set(ordered_ids)):
        raise ApiError("The ordered list must not contain duplicated linkifiers")
    if set(ordered_ids) != existing:
        raise ApiError("The ordered list must enumerate all existing linkifiers exactly once")
    with store.atomic():
        store.executemany(
            "UPDATE linkifiers SET ord = ? WHERE id = ?",
            [(i, lid) for i, lid in enumerate(ordered_ids)],
        )
    _announce(store)


# -- taking effect ---------------------------------------------------------------------------
def compiled(store: Store) -> list[Compiled]:
    """The organization's linkifiers, in order, ready for :func:`find`.

    A stored pattern RE2 cannot compile (only possible in a database written before patterns
    were checked with RE2) links nothing rather than failing every message.
    """
    out: list[Compiled] = []
    for r in store.query("SELECT pattern, url_template FROM linkifiers ORDER BY ord, id"):
        try:
            out.append(Matcher(r["pattern"], r["url_template"]))
        except (re2.error, ValueError):
            continue
    return out


def find(text: str, linkifiers: Sequence[Compiled]) -> list[tuple[int, int, str]]:
    """Non-overlapping ``(start, end, url)`` matches; earlier linkifiers win overlaps."""
    taken: list[tuple[int, int, str]] = []  # kept sorted and disjoint
    for matcher in linkifiers:
        for m in matcher.find(text):
            i = bisect.bisect_left(taken, (m.start,))
            if (i > 0 and taken[i - 1][1] > m.start) or (i < len(taken) and taken[i][0] < m.end):
                continue
            taken.insert(i, (m.start, m.end, m.url))
    return taken


def topic_links(topic: str, linkifiers: Sequence[Compiled]) -> list[dict[str, str]]:
    """The ``topic_links`` of a message: linkifier matches and plain URLs in its topic."""
    found = find(topic, linkifiers)
    for m in URL.finditer(topic):
        if not any(m.start() < e and s < m.end() for s, e, _ in found):
            found.append((m.start(), m.end(), m.group(0)))
    return [{"text": topic[s:e], "url": url} for s, e, url in sorted(found)]


def markdown_rule(state: StateCore) -> None:
    """markdown-it core rule: turn linkifier matches in text (not in links or code) into links."""
    linkifiers: Sequence[Compiled] = state.env.get("linkifiers") or ()
    if not linkifiers:
        return
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        out: list[Token] = []
        depth = 0
        for tok in block.children:
            if tok.type == "link_open":
                depth += 1
            elif tok.type == "link_close":
                depth -= 1
            if tok.type != "text" or depth > 0:
                out.append(tok)
                continue
            text, pos = tok.content, 0
            for start, end, url in find(text, linkifiers):
                if start > pos:
                    out.append(_text(text[pos:start]))
                link = Token("link_open", "a", 1)
                link.attrs = {"href": url}
                out += [link, _text(text[start:end]), Token("link_close", "a", -1)]
                pos = end
            if pos == 0:
                out.append(tok)
            elif pos < len(text):
                out.append(_text(text[pos:]))
        block.children = out


def _text(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok
