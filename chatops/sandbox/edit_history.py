"""A message's edit history: ``GET /messages/{id}/history``, with the real server's word diff.

Built from the edit history that :mod:`.message_edit` stores with each message (newest entry
first, each holding the values from before its edit); refused when the organization hides edit
history.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any

from . import realm as realm_mod
from .errors import ApiError
from .messages import access_message, display_topic
from .rendering import render
from .store import Row, Store

__all__ = ["html_diff", "message_history"]


def message_history(
    store: Store, user: Row, message_id: int, *, allow_empty_topic_name: bool = False
) -> list[dict[str, Any]]:
    """``GET /messages/{id}/history``: snapshots oldest first, each the message after an edit.

    As the real server builds it from the stored edit history (newest first, each entry with
    the values before that edit): the first snapshot is the message as sent; each later one
    carries ``prev_*`` for what its edit changed, and ``content_html_diff`` for content edits.
    """
    if not realm_mod.settings(store)["allow_edit_history"]:
        raise ApiError("Message edit history is disabled in this organization")
    message = access_message(store, user, message_id)

    def topic(name: str) -> str:
        return display_topic(name, allow_empty_topic_name)

    content = str(message["content"])
    rendered = str(message["rendered_content"] or render(content))
    current_topic = str(message["topic"])
    snapshots: list[dict[str, Any]] = []
    for entry in json.loads(message["edit_history"] or "[]"):
        snap: dict[str, Any] = {
            "content": content,
            "rendered_content": rendered,
            "timestamp": entry["timestamp"],
            "topic": topic(current_topic),
            "user_id": entry.get("user_id"),
        }
        if "prev_topic" in entry:
            current_topic = str(entry["prev_topic"])
            snap["prev_topic"] = topic(current_topic)
        if "prev_content" in entry:
            snap["prev_content"] = entry["prev_content"]
            snap["prev_rendered_content"] = entry["prev_rendered_content"]
            snap["content_html_diff"] = html_diff(str(entry["prev_rendered_content"]), rendered)
            content = str(entry["prev_content"])
            rendered = str(entry["prev_rendered_content"])
        if "prev_stream" in entry:
            snap["prev_stream"] = entry["prev_stream"]
            snap["stream"] = entry["stream"]
        snapshots.append(snap)
    snapshots.append(
        {
            "content": content,
            "rendered_content": rendered,
            "timestamp": message["timestamp"],
            "topic": topic(current_topic),
            "user_id": message["sender_id"],
        }
    )
    return snapshots[::-1]


_HTML_TOKEN = re.compile(r"<[^>]*>|[^<\s]+|\s+")


def html_diff(before: str, after: str) -> str:
    """Word-level difference of two rendered versions, in the real server's markup.

    Inserted words are wrapped in ``<span class="highlight_text_inserted">``, deleted ones in
    ``<span class="highlight_text_deleted">``; tags of the new version are kept, and the whole
    is one ``<div>``.
    """
    old, new = _HTML_TOKEN.findall(before), _HTML_TOKEN.findall(after)
    out: list[str] = []

    def words(tokens: list[str], cls: str) -> None:
        for token in tokens:
            if token.startswith("<") or token.isspace():
                if cls == "highlight_text_inserted" or token.isspace():
                    out.append(token)
            else:
                out.append(f'<span class="{cls}">{token}</span>')

    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            out.extend(new[j1:j2])
        if op in ("replace", "delete"):
            words(old[i1:i2], "highlight_text_deleted")
        if op in ("replace", "insert"):
            words(new[j1:j2], "highlight_text_inserted")
    return "<div>" + "".join(out) + "</div>"
