"""The ``engine="spark"`` of the views: the dataset's Parquet folder read by Apache Spark.

With ``engine="spark"`` a view takes a :class:`~chatops.analytics.Dataset`, the path of its
folder, or the folder's URI (``s3a://bucket/chatops``, ``hdfs://…``, ``file:///…``: anything
the session's Hadoop file systems read). The view runs in the active ``SparkSession`` (a
notebook attached to a cluster, a ``spark-submit`` job), or in a local one started for it
(:func:`local_session`) when none is active. Spark reads the part files the manifest lists, and
the view's SQL (written once, in DuckDB's dialect, :mod:`._sql`) runs as Spark SQL translated by
sqlglot (:mod:`._spark_sql`): only aggregates come back to Python, where the same finishing
code as the other engines' makes the result.

A call that brings a long frame of its own (``reactions=``, ``edits=``, ``dm_recipients=``), and
V11 (which has no SQL), take the kept messages back to the driver as a frame (as with DuckDB):
that is one row per message, so on a cluster's history give those calls a smaller period.

A view sets the session's time zone to UTC while it runs (its local times are computed from UTC
instants with named zones) and sets it back after; the views on Spark in one process therefore
run one at a time (Spark spreads each one's work over the cluster).

Needs the ``spark`` extra (``pip install 'chatops-workbench[spark]'``) and a Java runtime.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import pandas as pd
import pyarrow as pa

from ..schema import validate
from ._source import SqlSource
from ._spark_sql import to_spark

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from ..dataset import Dataset

__all__ = ["SparkSource", "local_session", "open_spark"]

#: each source's prefix for its temporary views, unique in the process
_SOURCES = itertools.count(1)
#: held by an open source: the session's time zone is the session's, not the view's
_ONE_AT_A_TIME = threading.Lock()
_log = logging.getLogger(__name__)


def _pyspark() -> Any:
    try:
        import pyspark.sql
    except ImportError:
        raise ImportError(
            "engine='spark' needs pyspark: pip install 'chatops-workbench[spark]'"
            " (and a Java runtime)"
        ) from None
    return pyspark.sql


def local_session(cores: int | None = None) -> SparkSession:
    """The active (or default) Spark session, as it is; else a local one (``local[cores]``,
    every core by default) with no web UI and few shuffle partitions.

    Args:
        cores: the local cores Spark runs on (when it starts the session).
    """
    sql = _pyspark()
    from pyspark.errors import PySparkException

    try:
        # the caller's session from any thread, its settings untouched (the builder would
        # apply its own to it)
        return sql.SparkSession.active()  # type: ignore[no-any-return]
    except PySparkException:
        pass
    n = cores or os.cpu_count() or 1
    spark = (
        sql.SparkSession.builder.master(f"local[{n}]")
        .appName("chatops")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(max(4, 2 * n)))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark  # type: ignore[no-any-return]


def _is_uri(source: Any) -> bool:
    return isinstance(source, str) and len(urlparse(source).scheme) > 1


class SparkSource(SqlSource):
    """A dataset folder (or its URI) seen through Spark, its messages as the view ``m``.

    Args:
        dataset: a :class:`~chatops.analytics.Dataset`, the path of its folder or its URI.
        spark: the session to run in (the active one, or a local one, by default).
    """

    engine = "spark"
    zone_data = "the Java runtime's time-zone data"

    def __init__(
        self, dataset: Dataset | str | os.PathLike[str], spark: SparkSession | None = None
    ):
        super().__init__()
        self.spark = spark or local_session()
        _ONE_AT_A_TIME.acquire()
        try:
            self._open(dataset)
        except BaseException:
            _ONE_AT_A_TIME.release()
            raise

    def _open(self, dataset: Dataset | str | os.PathLike[str]) -> None:
        from ..dataset import Dataset
        from ..dataset._files import check_manifest

        self.prefix = f"chatops_{os.getpid()}_{next(_SOURCES)}_"
        self._zones: frozenset[str] | None = None
        # the source's temporary views in the order made (each True once cached)
        self._views: dict[str, bool] = {}
        self.dataset: Dataset | None = None
        if _is_uri(dataset):
            self.root = str(dataset).rstrip("/")
            text = self._read_text(f"{self.root}/manifest.json")
            if text is None:
                raise ValueError(f"{self.root} holds no dataset (no manifest.json): sync first")
            self.manifest = check_manifest(json.loads(text), self.root)
            paths = [f["path"] for n in self.manifest["narrows"].values() for f in n["files"]]
            files = [f"{self.root}/{p}" for p in paths]
        else:
            self.dataset = dataset if isinstance(dataset, Dataset) else Dataset(dataset)
            self.root = str(self.dataset.cache)
            self.manifest = self.dataset.manifest
            # the local file system named: a cluster's session would read a bare path from its
            # default one (HDFS)
            files = [f"file://{Path(p).absolute()}" for p in self.dataset._files()]
        self._empty = not files
        if files:
            self._read(files, local=self.dataset is not None)
        # last, so a dataset refused leaves the session as it was: the views' local times are
        # computed with named zones from UTC instants
        self._zone = self.spark.conf.get("spark.sql.session.timeZone")
        self.spark.conf.set("spark.sql.session.timeZone", "UTC")

    def _read(self, files: list[str], local: bool) -> None:
        """The part files as the view ``m``.

        Spark checks a long list of paths with a job of its own (past
        ``parallelPartitionDiscovery.threshold``, 32), which pays on an object store but took
        5 of 6 s for the 610 local files of 10 million messages: local files are checked in the
        driver.
        """
        key = "spark.sql.sources.parallelPartitionDiscovery.threshold"
        before = self.spark.conf.get(key)
        if local:
            self.spark.conf.set(key, str(max(32, len(files) + 1)))
        try:
            self.spark.read.parquet(*files).createOrReplaceTempView(self.prefix + "m")
        finally:
            if before is None:
                self.spark.conf.unset(key)
            else:
                self.spark.conf.set(key, before)
        self._views[self.prefix + "m"] = False

    def _read_text(self, uri: str) -> str | None:
        """The text of the file at ``uri``, read by Spark (None when there is none)."""
        from pyspark.errors import AnalysisException

        try:
            rows = self.spark.read.text(uri, wholetext=True).collect()
        except AnalysisException as exc:
            if exc.getCondition() == "PATH_NOT_FOUND":
                return None
            raise
        return str(rows[0][0]) if rows else None

    def _org_table(self, name: str) -> pd.DataFrame | None:
        if self.dataset is not None:
            return self.dataset._org_table(name, name)
        from pyspark.errors import AnalysisException

        try:
            table = self.spark.read.parquet(f"{self.root}/tables/{name}.parquet").toArrow()
        except AnalysisException as exc:
            if exc.getCondition() == "PATH_NOT_FOUND":
                return None
            raise
        return validate(table.to_pandas(), name)

    def _run(self, sql: str, params: list[Any] | None = None) -> Any:
        """The last of the Spark statements of ``sql`` as a Spark frame (the others run)."""
        *before, last = to_spark(sql, self.prefix)
        for statement in before:
            self._note(statement)
            self.spark.sql(statement)
        self._note(last)
        return self.spark.sql(last, args=params) if params else self.spark.sql(last)

    def _note(self, statement: str) -> None:
        """Keep account of the temporary views ``statement`` makes, caches or drops."""
        words = statement.split(" AS ", 1)[0].split()
        if words[:1] == ["CACHE"]:
            self._views[words[-1]] = True
        elif words[:1] == ["CREATE"]:
            self._views.setdefault(words[-1], False)
        elif words[:2] == ["DROP", "VIEW"]:
            self._views.pop(words[-1], None)

    def arrow(self, sql: str, params: list[Any] | None = None) -> pa.Table:
        table: pa.Table = self._run(sql, params).toArrow()
        return table

    def known_zones(self) -> frozenset[str] | None:
        """The zones of the driver's Java runtime (the executors' are taken to be the same);
        None in a session without one (Spark Connect)."""
        if self._zones is None:
            jvm = getattr(self.spark, "_jvm", None)
            if jvm is None:
                return None
            self._zones = frozenset(str(z) for z in jvm.java.time.ZoneId.getAvailableZoneIds())
        return self._zones

    def load(self, name: str, table: pa.Table) -> None:
        view = self.prefix + name
        self.spark.createDataFrame(table).createOrReplaceTempView(view)
        self._views.setdefault(view, False)

    def execute(self, sql: str) -> list[tuple[Any, ...]]:
        table = self.arrow(sql)
        return list(zip(*(column.to_pylist() for column in table.columns), strict=True))

    def close(self) -> None:
        """Drop the source's temporary views and their caches; the session's zone as it was.

        Each step is tried whatever the others did (a view that failed midway, a session
        stopped): what could not be undone is logged, and the error that ended the view, if
        any, is the one raised.
        """
        try:
            # newest first: a view is dropped before the views it reads
            for name, cached in reversed(list(self._views.items())):
                try:
                    if cached:
                        self.spark.sql(f"UNCACHE TABLE IF EXISTS {name}")
                    self.spark.catalog.dropTempView(name)
                except Exception as exc:
                    _log.warning("could not drop Spark's temporary view %s: %s", name, exc)
            self._views.clear()
            try:
                if self._zone is not None:
                    self.spark.conf.set("spark.sql.session.timeZone", self._zone)
            except Exception as exc:
                _log.warning("could not set the Spark session's time zone back: %s", exc)
        finally:
            _ONE_AT_A_TIME.release()


def open_spark(source: Any) -> SparkSource:
    """The dataset (a :class:`~chatops.analytics.Dataset`, its folder or its URI) read by
    Spark, in the active session or a local one."""
    return SparkSource(source)
