"""The options every view takes, declared once: their names, types, defaults and meaning.

A view declares them as ``**options: Unpack[ViewOptions]`` after its own keywords, so a type
checker checks a caller's ``since=...`` or ``engine=...`` as it checks the view's own, and
:func:`~._registry.register` gives the view the signature and the documentation that spell
them out (``help(view)``, ``inspect.signature(view)``) and fills in their defaults.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
import typing
from typing import Annotated, Any, TypedDict, cast

from .._common import TimeLike
from ..pseudonyms import PseudonymKey

__all__ = ["OPTIONS", "Option", "ViewOptions", "document", "signature", "with_defaults"]


@dataclasses.dataclass(frozen=True)
class Option:
    """What :class:`ViewOptions` says of one option besides its type."""

    default: Any
    doc: str


class ViewOptions(TypedDict, total=False):
    """The keyword options every view takes besides its own; each has a default.

    Example::

        >>> opts: ViewOptions = {"since": "2024-01-01", "exclude_bots": True}
        >>> channel_scorecard(messages, users=users, **opts)
    """

    since: Annotated[
        TimeLike | None, Option(None, "keep messages sent at or after this time (UTC when naive).")
    ]
    until: Annotated[
        TimeLike | None, Option(None, "keep messages sent before this time (UTC when naive).")
    ]
    exclude_bots: Annotated[
        bool, Option(False, "drop the messages (and reactions) of bots; needs ``users``.")
    ]
    anonymize: Annotated[
        bool,
        Option(
            False,
            "replace the user ids in every output frame by keyed pseudonyms "
            "(:func:`~chatops.analytics.pseudonym`: ``u-`` and 16 hex digits of HMAC-SHA256 "
            "under a secret key), drop names and emails, and leave the account that synced "
            "out of the coverage note; refused when no key is configured (``chatops data "
            "key`` makes one).",
        ),
    ]
    key: Annotated[
        PseudonymKey | str | None,
        Option(
            None,
            "the secret key of ``anonymize`` (at least 32 characters); default the "
            "``CHATOPS_PSEUDONYM_KEY`` environment variable, else the owner-only key file "
            "``chatops data key`` writes (:mod:`chatops.analytics.pseudonyms`). The same key "
            "gives the same pseudonyms across views and runs; there is no default key.",
        ),
    ]
    coverage: Annotated[
        str | None,
        Option(
            None,
            "a note on which channels and direct messages the data covers; default the one "
            'the dataset stores in ``messages.attrs["coverage"]``.',
        ),
    ]
    engine: Annotated[
        str,
        Option(
            "pandas",
            "``pandas`` (frames in memory, counted in process by DuckDB), ``duckdb`` "
            "(``messages`` is a ``Dataset`` or its folder, "
            "read by DuckDB) or ``spark`` (a ``Dataset``, its folder or its URI, read by "
            "Spark in the active session or a local one; :mod:`chatops.analytics.engines`).",
        ),
    ]


def _declared() -> dict[str, tuple[str, Option]]:
    """Each option's type as written (for signatures) and its :class:`Option`, in order."""
    hints = typing.get_type_hints(ViewOptions, include_extras=True)
    out: dict[str, tuple[str, Option]] = {}
    for name, declared in ViewOptions.__annotations__.items():
        # a TypedDict keeps each annotation as written (a ForwardRef: this module's annotations
        # are not evaluated), which is how a signature shows it
        written = getattr(declared, "__forward_arg__", declared)
        expr = ast.parse(str(written), mode="eval").body
        assert isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Tuple)
        (option,) = hints[name].__metadata__
        out[name] = (ast.unparse(expr.slice.elts[0]), option)
    return out


#: name -> (type as written, :class:`Option`), in the order of :class:`ViewOptions`
OPTIONS: dict[str, tuple[str, Option]] = _declared()


def with_defaults(options: ViewOptions) -> ViewOptions:
    """``options`` with every option the caller left out at its default."""
    return cast(ViewOptions, {name: o.default for name, (_, o) in OPTIONS.items()} | options)


def signature(view: inspect.Signature, returns: type) -> inspect.Signature:
    """A view's signature with its ``**options`` spelled out as keyword-only parameters,
    returning ``returns`` (its result class)."""
    own = [p for p in view.parameters.values() if p.kind is not p.VAR_KEYWORD]
    spelled = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=o.default, annotation=t)
        for name, (t, o) in OPTIONS.items()
    ]
    return view.replace(parameters=[*own, *spelled], return_annotation=returns)


def document(doc: str | None) -> str:
    """A view's docstring (its ``Args:`` section last) with the options added to ``Args:``."""
    text = (doc or "").rstrip()
    if "\n    Args:\n" not in text:
        text += "\n\n    Args:"
    lines = [
        line
        for name, (_, o) in OPTIONS.items()
        for line in textwrap.wrap(
            f"{name}: {o.doc}", width=96, initial_indent=" " * 8, subsequent_indent=" " * 12
        )
    ]
    return text + "\n" + "\n".join(lines) + "\n    "
