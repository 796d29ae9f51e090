"""The engines the views run on, chosen here and nowhere else.

Every view takes ``engine`` (one of :data:`ENGINES`, ``pandas`` by default; the option is
declared once with the others in :class:`~chatops.analytics.views.ViewOptions`), and the
view's registration (:func:`~chatops.analytics.views._registry.register`) hands each call to
:func:`run`:

- ``pandas``: ``messages`` and the other frames are in memory; an in-process DuckDB reads
  them where they are (:mod:`._memory`);
- ``duckdb``: ``messages`` is a :class:`~chatops.analytics.Dataset` or its folder, read by
  DuckDB (:mod:`._duck`);
- ``spark``: the same, read by Apache Spark (:mod:`._spark`), in the active ``SparkSession``
  or a local one, from the folder or its URI (``s3a://``, ``hdfs://``, ``file://``), the SQL
  translated by sqlglot (:mod:`._spark_sql`).

On each, the view's SQL (its ``sql`` in the registry, written with the helpers of
:mod:`._sql`) counts over the kept messages (``since``, ``until``, ``exclude_bots``, as
:class:`~._sql.Kept` describes them) and the view's pandas code finishes from those counts.
That SQL is the view's one computation: the engines share every definition, and a view has
no code of its own for one engine. The view's function checks the arguments first, on every
engine. A view without SQL (V11, the server's /stats) is its pandas code, which takes the kept
messages as a frame.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, Union

import pandas as pd

from ..coverage import coverage_from_manifest, unnamed, viewpoint_of
from ._duck import DuckSource, open_duckdb
from ._memory import LISTS, in_memory
from ._source import TABLES, SqlSource
from ._sql import Kept

if TYPE_CHECKING:
    from ..dataset import Dataset

__all__ = [
    "ENGINES",
    "DuckSource",
    "Kept",
    "MessagesSource",
    "Sql",
    "SqlSource",
    "messages_only",
    "run",
]

R = TypeVar("R")

#: The engines a view accepts.
ENGINES = ("pandas", "duckdb", "spark")

#: What a view takes as ``messages``: a frame (pandas), a dataset or its folder (duckdb,
#: spark), or the folder's URI (spark).
MessagesSource = Union[pd.DataFrame, "Dataset", str, "os.PathLike[str]"]  # noqa: UP007

#: A view's SQL: its result from the kept messages and the call's arguments.
Sql = Callable[[Kept, dict[str, Any]], R]


def run(params: dict[str, Any], view: Callable[..., R | None], sql: Sql[R] | None = None) -> R:
    """Run a view's call with the engine its ``params["engine"]`` names.

    Args:
        params: every argument of the call, by name, defaults filled in (``engine`` included).
        view: the view's own function. With ``sql``, it checks the arguments (raising on a
            mistake before any work; with a dataset, once the dataset's frames are filled in)
            and returns None; without, it is the view's code over frames (a dataset's kept
            messages come to it as a frame).
        sql: the view's SQL, its one definition on every engine: over the frames in memory
            (``pandas``, by an in-process DuckDB), over the dataset's folder (``duckdb``) or
            through Spark (``spark``).
    """
    params = dict(params)
    engine = params.pop("engine")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "pandas":
        messages = messages_only(params["messages"])
        result = view(**params, engine=engine)
        if sql is not None:
            result = in_memory(params, sql)
        if result is None:
            raise TypeError(f"{getattr(view, '__name__', 'the view')} returned no result")
        if getattr(result, "viewpoint", None) is None and hasattr(result, "viewpoint"):
            whose = unnamed(viewpoint_of(messages.attrs), bool(params.get("anonymize")))
            result.viewpoint = whose  # type: ignore[attr-defined]
        return result
    if engine == "spark":
        from ._spark import open_spark

        return run_sql(params, view, sql, open_spark, engine)
    return run_sql(params, view, sql, open_duckdb, engine)


def run_sql(
    params: dict[str, Any],
    view: Callable[..., R | None],
    sql: Callable[[Kept, dict[str, Any]], R] | None,
    open_source: Callable[[Any], SqlSource],
    engine: str,
) -> R:
    """A view's call (``params``: every argument but ``engine``) over a dataset read by the
    source ``open_source`` opens on ``params["messages"]``.

    ``sql`` is the view's SQL, run over the kept messages where they are, once ``view`` has
    checked the arguments with the dataset's tables filled in. Two calls take the kept
    messages into memory as frames instead: one that passes a long frame (``reactions``,
    ``edits``, ``dm_recipients``) in place of the dataset's, whose SQL then runs over the
    frames in memory (:func:`~._memory.in_memory`), and a view without SQL, whose own code
    (``view``) takes them.
    """
    params = dict(params)
    source = params["messages"]
    if isinstance(source, pd.DataFrame):
        raise ValueError(
            f"engine={engine!r} reads a dataset: pass a Dataset or the path of its folder "
            "as messages, not a frame"
        )
    if not isinstance(source, str | os.PathLike | Path) and not hasattr(source, "manifest"):
        raise ValueError(
            f"engine={engine!r} takes a Dataset or a dataset folder, got {type(source).__name__}"
        )
    given = [name for name in LISTS if params.get(name) is not None]
    with open_source(source) as src:
        for name in TABLES:
            if name in params and params[name] is None:
                params[name] = src.table(name)
        whose = unnamed(
            coverage_from_manifest(src.manifest).viewpoint,
            bool(params.get("anonymize")),
        )
        if sql is not None:
            view(**params, engine=engine)
        if sql is not None and not given and not src._empty:
            return _seen_by(sql(Kept(src, params), params), whose)
        where, args = src.where(
            params.get("since"),
            params.get("until"),
            bool(params.get("exclude_bots")),
            params.get("users"),
        )
        for name in LISTS:
            if name in params and params[name] is None:
                scope = ("TRUE", []) if name == "edits" else (where, args)
                params[name] = src.long_frame(name, *scope)
        params["messages"] = src.messages(where, args)
    if sql is not None:
        return _seen_by(in_memory(params, sql), whose)
    result = view(**params, engine="pandas")
    assert result is not None
    return _seen_by(result, whose)


def _seen_by(result: R, whose: str | None) -> R:
    """``result`` with its ``viewpoint`` (a view result's) set to ``whose``."""
    if hasattr(result, "viewpoint"):
        result.viewpoint = whose
    return result


def messages_only(messages: Any) -> pd.DataFrame:
    """``messages`` when it is a frame; a clear error when a dataset came without the engine."""
    if isinstance(messages, pd.DataFrame):
        return messages
    raise ValueError(
        f"messages must be a pandas DataFrame with engine='pandas' (got {type(messages).__name__});"
        " a Dataset or a dataset folder needs engine='duckdb' or engine='spark'"
    )
