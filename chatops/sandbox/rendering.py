"""Message Markdown to HTML, with mentions, and the upload links a message carries."""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .linkifiers import Compiled, markdown_rule
from .markdown_rules import parser

_md = parser()  # the real server's dialect (see markdown_rules)
_md.core.ruler.push("linkifiers", markdown_rule)  # after the autolinks

MENTION = re.compile(r"(?<![\w])@(_?)\*\*([^*\n]+?)\*\*")
STREAM_WILDCARDS = {"all", "everyone", "stream", "channel"}
TOPIC_WILDCARDS = {"topic"}
UPLOAD_LINK = re.compile(r"/user_uploads/(\d+/[0-9a-f]{1,2}/[A-Za-z0-9_\-]{24}/[^)\s\]\"'<>]+)")
#: text that renders as itself: no markup, and no dot, colon or @ inside a word (autolinks)
#: (starting with a letter or digit but not as a list item, and not ending in a space)
PLAIN = re.compile(r"^(?!\d+[.)](?:\s|$))\w(?:[\w ,!?'\-;()]|[.:](?=[\s.,!?:;)]|$))*(?<! )$")


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


@dataclass
class MentionTargets:
    """Who ``@**Name**`` and ``@*group*`` can name: full names and group names to ids."""

    names: Mapping[str, int] = field(default_factory=dict)
    groups: Mapping[str, int] = field(default_factory=dict)
    #: the displayed name of each user id (``@**Name|id**`` shows the user's own name)
    full_names: Mapping[int, str] = field(default_factory=dict)


GROUP_MENTION = re.compile(r"(?<![\w])@(_?)\*([^*\n]+)\*(?!\*)")


def _mention_html(silent: str, target: str, who: MentionTargets) -> str | None:
    """The real server's HTML for one ``@**...**`` mention, or None when it names nobody."""
    name, _, ident = target.partition("|")
    at = "" if silent else "@"
    quiet = " silent" if silent else ""
    if not ident and name in STREAM_WILDCARDS:
        return (
            f'<span class="user-mention channel-wildcard-mention{quiet}" '
            f'data-user-id="*">{at}{html.escape(name, quote=False)}</span>'
        )
    if not ident and name in TOPIC_WILDCARDS:
        return f'<span class="topic-mention{quiet}">{at}{html.escape(name, quote=False)}</span>'
    uid = int(ident) if ident.isdigit() else who.names.get(name)
    if uid is None:
        return None
    shown = who.full_names.get(uid, name)
    return (
        f'<span class="user-mention{quiet}" data-user-id="{uid}">'
        f"{at}{html.escape(shown, quote=False)}</span>"
    )


def render(
    content: str, linkifiers: Sequence[Compiled] = (), mentions: MentionTargets | None = None
) -> str:
    """HTML for raw Markdown content; plain one-line text takes a fast path.

    ``linkifiers`` (from :func:`.linkifiers.compiled`) turn their matches into links;
    ``mentions`` resolves ``@**Name**`` and ``@*group*`` as the real server renders them
    (``<span class="user-mention" data-user-id="N">@Name</span>``). A mention that names
    nobody stays text, as on the real server.
    """
    if PLAIN.match(content) and not any(m.find(content) for m in linkifiers):
        return f"<p>{html.escape(content, quote=False)}</p>"
    who = mentions or MentionTargets()
    spans: list[str] = []

    def hold(span: str) -> str:
        spans.append(span)
        return f"chatopsmention{len(spans) - 1}x"

    def user(match: re.Match[str]) -> str:
        span = _mention_html(match.group(1), match.group(2), who)
        return match.group(0) if span is None else hold(span)

    def group(match: re.Match[str]) -> str:
        silent, name = match.group(1), match.group(2)
        gid = who.groups.get(name)
        if gid is None:
            return match.group(0)
        quiet, at = (" silent", "") if silent else ("", "@")
        return hold(
            f'<span class="user-group-mention{quiet}" data-user-group-id="{gid}">'
            f"{at}{html.escape(name, quote=False)}</span>"
        )

    env = {"linkifiers": linkifiers, "_markdown": _md}
    held = GROUP_MENTION.sub(group, MENTION.sub(user, content))
    rendered: str = _md.render(held, env).strip()
    for i, span in enumerate(spans):
        rendered = rendered.replace(f"chatopsmention{i}x", span, 1)
    return rendered


def upload_path_ids(content: str) -> set[str]:
    return set(UPLOAD_LINK.findall(content))
