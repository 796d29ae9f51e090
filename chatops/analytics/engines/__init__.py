"""The engines the views run on, chosen here and nowhere else.

Every view takes ``engine`` (one of :data:`ENGINES`, ``pandas`` by default; the option is
declared once with the others in :class:`~chatops.analytics.views.ViewOptions`), and the
view's registration (:func:`~chatops.analytics.views._registry.register`) hands each call to
:func:`run`:

- ``pandas``: the view's own code over frames in memory;
- ``duckdb``: ``messages`` is a :class:`~chatops.analytics.Dataset` or its folder, read by
  DuckDB (:mod:`._duck`); the view's SQL (its ``sql`` in the registry, written with the helpers
  of :mod:`._sql`) counts over the kept messages and the view's pandas code finishes from
  those counts, so the engines give the same result;
- ``spark``: the same, read by Apache Spark (:mod:`._spark`), in the active ``SparkSession``
  or a local one, from the folder or its URI (``s3a://``, ``hdfs://``, ``file://``); the same
  SQL, translated by sqlglot (:mod:`._spark_sql`).

The engines over the Parquet folder share every definition: the options, each view's SQL and
finishing code, and the kept messages (``since``, ``until``, ``exclude_bots``) as
:class:`~._sql.Kept` describes them. A view has no code of its own for one engine.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, Union

import pandas as pd

from ..coverage import unnamed, viewpoint_of
from ._duck import DuckSource, open_duckdb
from ._source import SqlSource, run_sql
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

#: What a view takes as ``messages``: a frame (pandas engine), a dataset or its folder (duckdb,
#: spark), or the folder's URI (spark).
MessagesSource = Union[pd.DataFrame, "Dataset", str, "os.PathLike[str]"]  # noqa: UP007

#: A view's SQL path: the result from the kept messages and the call's arguments, or None for
#: options it does not compute in SQL.
Sql = Callable[[Kept, dict[str, Any]], R | None]


def run(params: dict[str, Any], pandas: Callable[..., R], sql: Sql[R] | None = None) -> R:
    """Run a view's call with the engine its ``params["engine"]`` names.

    Args:
        params: every argument of the call, by name, defaults filled in (``engine`` included).
        pandas: the view's own code (the pandas engine), called with the same arguments.
        sql: the view's SQL path, if it has one.
    """
    params = dict(params)
    engine = params.pop("engine")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "pandas":
        result = pandas(**params, engine=engine)
        attrs = getattr(params["messages"], "attrs", {})
        if getattr(result, "viewpoint", None) is None and hasattr(result, "viewpoint"):
            whose = unnamed(viewpoint_of(attrs), bool(params.get("anonymize")))
            result.viewpoint = whose  # type: ignore[attr-defined]
        return result
    if engine == "spark":
        from ._spark import open_spark

        return run_sql(params, pandas, sql, open_spark, engine)
    return run_sql(params, pandas, sql, open_duckdb, engine)


def messages_only(messages: Any) -> pd.DataFrame:
    """``messages`` when it is a frame; a clear error when a dataset came without the engine."""
    if isinstance(messages, pd.DataFrame):
        return messages
    raise ValueError(
        f"messages must be a pandas DataFrame with engine='pandas' (got {type(messages).__name__});"
        " a Dataset or a dataset folder needs engine='duckdb' or engine='spark'"
    )
