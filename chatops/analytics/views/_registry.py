"""The registry of the views: each view's function, result, title, plot, sentence and SQL.

A view module declares all of it where the function is defined::

    @register(
        number=3,
        title="Channel scorecard",
        result=ChannelScorecard,
        plot=plot_channel_scorecard,
        sentence=channel_share,
        sql=_sql,
    )
    def channel_scorecard(messages, *, channels=None, ..., **options: Unpack[ViewOptions]):
        ...

and everything else finds the view through :data:`REGISTRY`: a result draws itself with its
view's ``plot``, the explorer lists the views in order with their titles, and
:mod:`chatops.analytics.sentences` and :mod:`chatops.analytics.plots` re-export what is
registered.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar

from .. import engines
from ..coverage import without_account
from ..engines import Sql
from ..pseudonyms import load_key
from ._options import document, signature

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ._result import ViewResult

__all__ = ["REGISTRY", "View", "register"]

P = ParamSpec("P")
R = TypeVar("R", bound="ViewResult")


@dataclasses.dataclass(frozen=True)
class View(Generic[R]):
    """One analytics view and what belongs to it.

    Example::

        >>> v = REGISTRY["channel_scorecard"]
        >>> r = v.function(messages, channels=channels)   # a ChannelScorecard (v.result)
        >>> v.plot(r, None).savefig("scorecard.png"); v.title
        'Channel scorecard'
    """

    #: V1 to V11: the order the views are listed in
    number: int
    name: str
    title: str
    #: the view: frames (or, with an engine over the dataset, a dataset) and options -> ``result``
    function: Callable[..., R]
    result: type[R]
    #: draws a result: a new figure, or its main panel on the axes given
    plot: Callable[[R, Axes | None], Figure]
    #: the sentence an analyst writes under the figure (its arguments vary by view)
    sentence: Callable[..., str]
    #: the view's SQL (DuckDB's dialect), which every engine runs, if it has one
    #: (:mod:`chatops.analytics.engines`)
    sql: Sql[R] | None


#: The views by name, V1 to V11.
REGISTRY: dict[str, View[Any]] = {}


def register(
    *,
    number: int,
    title: str,
    result: type[R],
    plot: Callable[[R, Axes | None], Figure],
    sentence: Callable[..., str],
    sql: Sql[R] | None = None,
) -> Callable[[Callable[P, R | None]], Callable[P, R]]:
    """Register the decorated function as view ``number`` with what belongs to it.

    The function takes the shared options as ``**options: Unpack[ViewOptions]``; the view
    registered is a wrapper with those options spelled out in its signature and docstring,
    which checks the call's keywords, fills in the defaults and runs the engine the call names
    (:func:`chatops.analytics.engines.run`).

    A view with ``sql`` is counted by it on every engine, and its function only checks the
    arguments (raising on a mistake before any work) and returns None. A view without (V11)
    is its function's code over frames.

    Args:
        number: the view's number (V1 to V11), its place in :data:`REGISTRY`.
        title: the view's title, as the explorer's tab shows it.
        result: the result class; its ``view`` is the function's name.
        plot: draws a result.
        sentence: the sentence under the figure.
        sql: the view's SQL, its one definition for every engine.
    """

    def decorate(fn: Callable[P, R | None]) -> Callable[P, R]:
        name = fn.__name__
        if result.view != name:
            raise ValueError(f"{result.__name__}.view is {result.view!r}, not {name!r}")
        spelled = signature(inspect.signature(fn), result)

        @functools.wraps(fn)
        def view(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                bound = spelled.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{name}() {exc}") from None
            bound.apply_defaults()
            params = dict(bound.arguments)
            if params.get("anonymize") or params.get("key") is not None:
                # refused before any work when no key is configured; read once per call, and
                # held as a PseudonymKey from here on, whose repr never shows the secret
                params["key"] = load_key(params.get("key"))
            result = engines.run(params, fn, sql)
            if params.get("anonymize") and isinstance(result.coverage, str):
                # the note names the account that synced: an anonymized result does not
                result.coverage = without_account(result.coverage)
            return result

        view.__signature__ = spelled  # type: ignore[attr-defined]
        view.__doc__ = document(fn.__doc__)
        REGISTRY[name] = View(number, name, title, view, result, plot, sentence, sql)
        # listed by number, whichever module registered first
        for key in sorted(REGISTRY, key=lambda k: REGISTRY[k].number):
            REGISTRY[key] = REGISTRY.pop(key)
        return view

    return decorate
