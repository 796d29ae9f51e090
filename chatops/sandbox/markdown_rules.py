"""The real server's Markdown dialect on top of markdown-it: what differs from CommonMark.

The real server renders with Python-Markdown and its own extensions
(``zerver/lib/markdown``); its documented outputs are
``zerver/tests/fixtures/markdown_test_cases.json``. Here, as there:

* a newline inside a paragraph is a line break (``<br>``);
* bare URLs, ``www.`` and ``domain.tld`` addresses (IANA top-level domains) and email addresses
  become links;
* ``_`` and ``__`` are not emphasis; ``~~text~~`` is ``<del>``; tables are on; reference
  definitions are not (``[name]: url`` stays text);
* text and inline code escape only ``&``, ``<`` and ``>``;
* code blocks are ``<div class="codehilite">`` blocks, highlighted by Pygments when they name a
  language (``data-code-language``), with trailing spaces removed;
* ``quote`` and ``spoiler`` fences are quotes and spoiler blocks;
* ``:name:`` of a known emoji is the real server's emoji span (the names are the sandbox's own,
  from the ``emoji`` package: most agree with the real server's, some such as ``smile`` do not).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import OptionsDict
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from .emoji_data import EXTRA_EMOJI, tables
from .tlds import TLDS

# -- autolinks (the real server's get_web_link_regex) ------------------------------------------
_PAREN_GROUP = r"[^\s()\"]*?(?:\(%s\)[^\s()\"]*?)*"


def _nested_parens() -> str:
    chunk = _PAREN_GROUP
    for _ in range(6):
        chunk = chunk % (_PAREN_GROUP,)
    return chunk % (r"[^\s()\"]*",)


WEB_LINK = re.compile(
    rf"""
    (?<![^\s'"\(,:<])                 # after whitespace, a quote, ( , : < or the start
    (?P<url>
        (?:(?:https?://[\w.:@-]+?     # with a scheme anything goes
            |(?:[\w-]+\.)+(?:{"|".join(re.escape(t) for t in TLDS)})
           )
           (?:/{_nested_parens()})?   # an optional path, with balanced parentheses
        )
        |(?:[\w.-]+@[\w.-]+\.\w+)     # an email address
    )
    (?=[!:;?),.'">]*(?:\Z|\s))        # then only punctuation before a space or the end
    """,
    re.VERBOSE | re.IGNORECASE,
)


#: a cheap test before the full expression: a dot, an @ or a scheme
_MAYBE_LINK = re.compile(r"[.@]|://")


def _href(url: str) -> str:
    if re.match(r"https?://", url, re.IGNORECASE):
        return url
    if "@" in url:
        return "mailto:" + url
    return "http://" + url


def _text_token(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok


def autolink_rule(state: StateCore) -> None:
    """markdown-it core rule: bare URLs in text (not in links or code) become links."""
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
            text = tok.content
            if tok.type != "text" or depth > 0 or not _MAYBE_LINK.search(text):
                out.append(tok)
                continue
            pos = 0
            for match in WEB_LINK.finditer(text):
                start, end = match.span("url")
                if start > pos:
                    out.append(_text_token(text[pos:start]))
                link = Token("link_open", "a", 1)
                link.attrs = {"href": _href(match.group("url"))}
                out += [link, _text_token(text[start:end]), Token("link_close", "a", -1)]
                pos = end
            if pos == 0:
                out.append(tok)
            elif pos < len(text):
                out.append(_text_token(text[pos:]))
        block.children = out


# -- emoji ---------------------------------------------------------------------------------------
EMOJI_SYNTAX = re.compile(r":([\w\-+]+):")


def _emoji_html(name: str) -> str | None:
    """The real server's HTML for ``:name:``, or None for a name it does not know."""
    if name in EXTRA_EMOJI:
        return (
            f'<img alt=":{name}:" class="emoji" '
            f'src="/static/generated/emoji/images/emoji/unicode/{name}.png" title="{name}">'
        )
    code = tables()[0].get(name)
    if code is None:
        return None
    label = name.replace("_", " ")
    return (
        f'<span aria-label="{label}" class="emoji emoji-{code}" role="img" title="{label}">'
        f":{name}:</span>"
    )


def emoji_rule(state: StateCore) -> None:
    """markdown-it core rule: ``:name:`` of a known emoji (outside links and code) as its span."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        out: list[Token] = []
        depth = 0
        for tok in block.children:
            depth += {"link_open": 1, "link_close": -1}.get(tok.type, 0)
            text = tok.content
            if tok.type != "text" or depth > 0 or ":" not in text:
                out.append(tok)
                continue
            pos = 0
            for match in EMOJI_SYNTAX.finditer(text):
                html = _emoji_html(match.group(1))
                if html is None:
                    continue
                if match.start() > pos:
                    out.append(_text_token(text[pos : match.start()]))
                span = Token("html_inline", "", 0)
                span.content = html
                out.append(span)
                pos = match.end()
            if pos == 0:
                out.append(tok)
            elif pos < len(text):
                out.append(_text_token(text[pos:]))
        block.children = out


# -- inline syntax -------------------------------------------------------------------------------
def underscore_rule(state: StateInline, silent: bool) -> bool:
    """``_`` and ``__`` are plain text, never emphasis (the real server turns that off)."""
    if state.src[state.pos] != "_":
        return False
    end = state.pos
    while end < state.posMax and state.src[end] == "_":
        end += 1
    if not silent:
        state.pending += state.src[state.pos : end]
    state.pos = end
    return True


# -- rendering -----------------------------------------------------------------------------------
def escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_code(text: str) -> str:
    """As Pygments escapes code: quotes too."""
    return escape_text(text).replace('"', "&quot;").replace("'", "&#39;")


def _code_block(code: str, lang: str) -> str:
    code = "\n".join(line.rstrip() for line in code.rstrip("\n").split("\n")) + "\n"
    body, attr = escape_code(code), ""
    if lang:
        try:
            lexer = get_lexer_by_name(lang)
        except ClassNotFound:
            attr = f' data-code-language="{escape_code(lang)}"'
        else:
            attr = f' data-code-language="{escape_code(lexer.name)}"'
            body = highlight(code, lexer, HtmlFormatter(nowrap=True))
    return f'<div class="codehilite"{attr}><pre><span></span><code>{body}</code></pre></div>\n'


def _render_text(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    return escape_text(tokens[idx].content)


def _render_code_inline(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    return f"<code>{escape_text(tokens[idx].content)}</code>"


def _render_code_block(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    return _code_block(tokens[idx].content, "")


def _render_fence(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    token = tokens[idx]
    info = token.info.strip()
    lang, _, rest = info.partition(" ")
    md: MarkdownIt = env["_markdown"]
    if lang.lower() == "quote":
        return f"<blockquote>\n{md.render(token.content, env)}</blockquote>\n"
    if lang.lower() == "spoiler":
        header = md.render(rest.strip(), env) if rest.strip() else ""
        content = md.render(token.content, env)
        return (
            f'<div class="spoiler-block"><div class="spoiler-header">\n{header}</div>'
            f'<div class="spoiler-content" aria-hidden="true">\n{content}</div></div>\n'
        )
    return _code_block(token.content, lang)


def _render_del(tag: str) -> Any:
    def rule(
        self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
    ) -> str:
        return tag

    return rule


def parser() -> MarkdownIt:
    """A markdown-it parser for the real server's dialect (without linkifiers and mentions)."""
    md = (
        MarkdownIt(
            "commonmark", {"linkify": False, "html": False, "breaks": True, "xhtmlOut": False}
        )
        .enable(["strikethrough", "table"])
        .disable("reference")
    )
    md.inline.ruler.before("emphasis", "zulip_underscore", underscore_rule)
    md.core.ruler.push("autolinks", autolink_rule)
    md.core.ruler.push("emoji", emoji_rule)
    md.add_render_rule("text", _render_text)
    md.add_render_rule("code_inline", _render_code_inline)
    md.add_render_rule("code_block", _render_code_block)
    md.add_render_rule("fence", _render_fence)
    md.add_render_rule("s_open", _render_del("<del>"))
    md.add_render_rule("s_close", _render_del("</del>"))
    return md
