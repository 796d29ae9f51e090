"""Message Markdown to HTML, with mentions, and the upload links a message carries."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from markdown_it import MarkdownIt

from .linkifiers import Compiled, markdown_rule

_md = MarkdownIt("commonmark", {"linkify": False, "html": False}).enable("strikethrough")
_md.core.ruler.push("linkifiers", markdown_rule)

MENTION = re.compile(r"(?<![\w])@(_?)\*\*([^*\n]+?)\*\*")
STREAM_WILDCARDS = {"all", "everyone", "stream", "channel"}
TOPIC_WILDCARDS = {"topic"}
UPLOAD_LINK = re.compile(r"/user_uploads/(\d+/[0-9a-f]{1,2}/[A-Za-z0-9_\-]{24}/[^)\s\]\"'<>]+)")
PLAIN = re.compile(r"^[\w .,!?'\-:;()]+$")


@dataclass
class Mentions:
    user_ids: set[int] = field(default_factory=set)
    silent_user_ids: set[int] = field(default_factory=set)
    group_ids: set[int] = field(default_factory=set)
    stream_wildcard: bool = False
    topic_wildcard: bool = False


def find_mentions(content: str, names: dict[str, int], groups: dict[str, int]) -> Mentions:
    """Mentions in raw content: ``@**Name**``, ``@**Name|id**``, ``@*group*``, wildcards."""
    found = Mentions()
    for silent, target in MENTION.findall(content):
        name, _, ident = target.partition("|")
        if not silent and name in STREAM_WILDCARDS and not ident:
            found.stream_wildcard = True
            continue
        if not silent and name in TOPIC_WILDCARDS and not ident:
            found.topic_wildcard = True
            continue
        uid = int(ident) if ident.isdigit() else names.get(name)
        if uid is not None:
            (found.silent_user_ids if silent else found.user_ids).add(uid)
    for gname in re.findall(r"(?<![\w])@\*([^*\n]+)\*(?!\*)", content):
        if gname in groups:
            found.group_ids.add(groups[gname])
    return found


def render(content: str, linkifiers: Sequence[Compiled] = ()) -> str:
    """HTML for raw Markdown content; plain one-line text takes a fast path.

    ``linkifiers`` (from :func:`.linkifiers.compiled`) turn their matches into links.
    """
    if PLAIN.match(content) and not any(m.find(content) for m in linkifiers):
        return f"<p>{html.escape(content, quote=False)}</p>"
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        silent, target = match.group(1), match.group(2)
        name = target.partition("|")[0]
        cls = "user-mention silent" if silent else "user-mention"
        spans.append(f'<span class="{cls}">@{html.escape(name, quote=False)}</span>')
        return f"chatopsmention{len(spans) - 1}x"

    env = {"linkifiers": linkifiers}
    rendered: str = _md.render(MENTION.sub(hold, content), env).strip()
    for i, span in enumerate(spans):
        rendered = rendered.replace(f"chatopsmention{i}x", span, 1)
    return rendered


def upload_path_ids(content: str) -> set[str]:
    return set(UPLOAD_LINK.findall(content))
