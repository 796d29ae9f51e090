"""engine="spark": every view over the dataset's Parquet folder, in Spark's local mode, equals
the frames in memory (and so the DuckDB engine, which equals them in test_duckdb_engine.py)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Iterator

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from chatops import analytics
from chatops.analytics import Dataset
from chatops.analytics.engines._spark_sql import to_spark
from chatops.sandbox import Sandbox

from .conftest import KEY
from .engines import CALLS, PUSHED_DOWN, compare

_MISSING = [
    what
    for what, there in (
        ("a Java runtime (apt-get install default-jre-headless)", shutil.which("java")),
        ("pyspark (pip install 'chatops-workbench[spark]')", importlib.util.find_spec("pyspark")),
    )
    if not there
]
if _MISSING:  # pragma: no cover
    if os.environ.get("CI"):  # ./run tests installs both: in CI a missing one fails
        raise RuntimeError(f"the Spark tests need {' and '.join(_MISSING)}")
    pytest.skip(f"the Spark tests need {' and '.join(_MISSING)}", allow_module_level=True)

from pyspark.sql import SparkSession  # noqa: E402


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    """A local session, as a notebook or spark-submit would hand the views, tuned for the tiny
    datasets of the tests: the JIT's first tier only, and no generated code (both save the
    JVM's CPU on queries over a few thousand rows)."""
    session = (
        SparkSession.builder.master("local[2]")
        .appName("chatops-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        # the caller's own zone: the views must not depend on it, and must leave it as it was
        .config("spark.sql.session.timeZone", "America/New_York")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def small_ds(sandbox: Sandbox, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    return Dataset.sync(
        sandbox.zuliprc("admin"), cache=tmp_path_factory.mktemp("spark") / "c", progress=False
    )


@pytest.mark.parametrize("view", list(CALLS))
def test_spark_equals_pandas_on_small(spark: SparkSession, small_ds: Dataset, view: str) -> None:
    assert compare(small_ds, view, engine="spark") > 0
    # the caller's session as it was: its zone, and none of the view's temporary views
    assert spark.conf.get("spark.sql.session.timeZone") == "America/New_York"
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith("chatops_")]


@pytest.mark.parametrize("view", PUSHED_DOWN)
def test_spark_equals_pandas_with_period_and_bots_pushed_down(
    spark: SparkSession, small_ds: Dataset, view: str
) -> None:
    frames = small_ds.frames()
    assert frames.users is not None
    ts = frames.messages["timestamp"]
    since, until = ts.quantile(0.25), ts.quantile(0.9)
    # the demo's bots post nothing: its busiest sender is taken for one, so there is something
    # for exclude_bots to drop
    busiest = int(frames.messages["sender_id"].value_counts().index[0])
    users = frames.users.assign(
        is_bot=frames.users["is_bot"] | (frames.users["user_id"] == busiest)
    )
    period = frames.messages[(ts >= since) & (ts < until)]
    assert (period["sender_id"] == busiest).sum() > 10
    kept = compare(
        small_ds,
        view,
        engine="spark",
        since=since,
        until=until,
        exclude_bots=True,
        users=users,
    )
    assert kept > 0
    # and the busiest sender's messages were dropped in Spark's scan
    options = CALLS[view][0]
    call = getattr(analytics, view)
    kept_out = call(
        small_ds,
        **options,
        since=since,
        until=until,
        users=users,
        exclude_bots=True,
        engine="spark",
    )
    left_in = call(
        small_ds,
        **options,
        since=since,
        until=until,
        users=users,
        exclude_bots=False,
        engine="spark",
    )
    assert kept_out.frames().keys() == left_in.frames().keys()
    assert any(not kept_out.frames()[n].equals(left_in.frames()[n]) for n in left_in.frames())


def test_spark_equals_pandas_on_options_with_frames_of_their_own(
    spark: SparkSession, small_ds: Dataset
) -> None:
    """The options whose SQL reads a small frame as a table (a user group's members, the senders'
    zones, presence), a long frame passed in (the kept messages come back as a frame), and
    pseudonyms (made in Python) give the frames' result."""
    frames = small_ds.frames()
    want = analytics.activity_heatmap(
        frames.messages, by="user_group", user_groups=frames.user_groups
    )
    got = analytics.activity_heatmap(small_ds, by="user_group", engine="spark")
    pd.testing.assert_frame_equal(got.frame, want.frame)
    users = frames.users.assign(
        timezone=["Asia/Kolkata", "America/New_York", None, "Not/AZone"] * (len(frames.users) // 4)
        + ["Europe/Berlin"] * (len(frames.users) % 4)
    )
    for view in (analytics.activity_heatmap, analytics.messages_over_time):
        want = view(frames.messages, users=users, tz="sender", default_tz="Australia/Lord_Howe")
        got = view(
            small_ds, users=users, tz="sender", default_tz="Australia/Lord_Howe", engine="spark"
        )
        pd.testing.assert_frame_equal(got.frame, want.frame)
        assert got.coverage == want.coverage and "senders have none" in str(got.coverage)
    seen = pd.DataFrame(
        {
            "user_id": frames.users["user_id"],
            "timestamp": frames.messages["timestamp"].max()
            - pd.to_timedelta(range(len(frames.users)), unit="D"),
        }
    )
    want = analytics.active_users(
        frames.messages, users=frames.users, presence=seen, definition="any"
    )
    got = analytics.active_users(small_ds, presence=seen, definition="any", engine="spark")
    pd.testing.assert_frame_equal(got.frame, want.frame)
    assert not want.frame.equals(analytics.active_users(frames.messages, users=frames.users).frame)
    ts = frames.messages["timestamp"]
    since = ts.quantile(0.5)
    mix = analytics.client_and_dm_mix(
        small_ds, dm_recipients=frames.dm_recipients, since=since, engine="spark"
    )
    pd.testing.assert_frame_equal(
        mix.frame,
        analytics.client_and_dm_mix(
            frames.messages, dm_recipients=frames.dm_recipients, since=since
        ).frame,
    )
    assert mix.viewpoint == small_ds.manifest["email"]
    assert compare(small_ds, "interaction_graph", engine="spark", anonymize=True, key=KEY) > 0


def test_a_zone_the_java_runtime_does_not_know_is_named_or_counted_as_none(
    spark: SparkSession, small_ds: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Java's time-zone data can lag Python's (a zone created since): asked for by name, such a
    zone is refused with an error naming it, before Spark fails on it; a sender's such zone
    counts as none (in ``default_tz``), as a zone this machine does not know does."""
    from chatops.analytics.engines._spark import SparkSource

    source = SparkSource(small_ds, spark)
    try:
        known = source.known_zones()
    finally:
        source.close()
    assert known is not None and {"Europe/Berlin", "Asia/Kolkata", "UTC"} <= known
    monkeypatch.setattr(SparkSource, "known_zones", lambda self: known - {"Asia/Kolkata"})
    with pytest.raises(
        ValueError, match="time zone 'Asia/Kolkata' is not in the Java runtime's time-zone data"
    ):
        analytics.activity_heatmap(small_ds, tz="Asia/Kolkata", engine="spark")
    frames = small_ds.frames()
    users = frames.users.assign(timezone="Asia/Kolkata")
    got = analytics.activity_heatmap(small_ds, users=users, tz="sender", engine="spark")
    want = analytics.activity_heatmap(
        frames.messages, users=frames.users.assign(timezone=None), tz="sender"
    )
    pd.testing.assert_frame_equal(got.frame, want.frame)
    assert got.coverage == want.coverage and "have none" in str(got.coverage)


def test_the_stats_view_runs_on_spark_through_the_narrow_frame(
    spark: SparkSession, small_ds: Dataset
) -> None:
    """V11 (/stats) has no SQL of its own: on Spark, as on DuckDB, the kept messages and the
    long frames come back narrow and its pandas code gives the same result."""
    f = small_ds.frames()
    want = analytics.zulip_stats(
        f.messages, users=f.users, channels=f.channels, dm_recipients=f.dm_recipients, edits=f.edits
    )
    got = analytics.zulip_stats(small_ds, engine="spark")
    assert list(got.frames()) == list(want.frames())
    for name, frame in want.frames().items():
        pd.testing.assert_frame_equal(got.frames()[name], frame, obj=name)
    assert len(want.frame) > 0


def test_spark_reads_the_dataset_by_its_uri(spark: SparkSession, small_ds: Dataset) -> None:
    """A ``file://`` URI goes through Spark's own file systems (as ``s3a://`` and ``hdfs://``
    do): the manifest and the organization's tables are read by Spark, not from a local path."""
    uri = small_ds.cache.absolute().as_uri()
    for view in ("newcomer_cohorts", "channel_scorecard"):
        assert compare(uri, view, engine="spark") > 0
    with pytest.raises(ValueError, match="holds no dataset"):
        analytics.active_users(small_ds.cache.parent.absolute().as_uri(), engine="spark")
    assert spark.conf.get("spark.sql.session.timeZone") == "America/New_York"
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith("chatops_")]


def test_a_view_that_fails_midway_leaves_the_session_as_it_was(
    spark: SparkSession, small_ds: Dataset
) -> None:
    """A view refused inside its SQL path (after the kept messages were made) drops what it
    made and sets the zone back; the next view runs."""
    with pytest.raises(ValueError, match="top_n must be positive"):
        analytics.reactions_and_engagement(small_ds, top_n=0, engine="spark")
    assert spark.conf.get("spark.sql.session.timeZone") == "America/New_York"
    assert not [t.name for t in spark.catalog.listTables() if t.name.startswith("chatops_")]
    assert compare(small_ds, "client_and_dm_mix", engine="spark") > 0


def test_the_callers_temporary_views_are_left_alone(spark: SparkSession, small_ds: Dataset) -> None:
    """A view's own temporary views are named for it: the caller's ``k`` and ``m`` (the names
    the views' SQL uses) neither change the result nor are changed."""
    spark.range(3).createOrReplaceTempView("k")
    spark.range(5).createOrReplaceTempView("m")
    try:
        assert compare(small_ds, "active_users", engine="spark") > 0
        assert spark.table("k").count() == 3 and spark.table("m").count() == 5
    finally:
        spark.catalog.dropTempView("k")
        spark.catalog.dropTempView("m")


def test_the_dataset_is_readable_by_spark_as_it_is(spark: SparkSession, small_ds: Dataset) -> None:
    """The messages folder read by Spark on its own: the partition column, the times (UTC
    instants, whatever the session's zone), the dictionary-encoded names as text, the lists."""
    read = spark.read.parquet(str(small_ds.cache / "messages"))
    kinds = {f.name: f.dataType.simpleString() for f in read.schema.fields}
    assert kinds["timestamp"] == "timestamp" and kinds["channel"] == "string"
    assert kinds["narrow"] == "string"
    assert kinds["reactions"].startswith("array<struct<user_id:bigint,emoji_name:string")
    assert kinds["edits"].startswith("array<struct<timestamp:timestamp,user_id:bigint,kind:string")
    assert kinds["dm_recipients"] == "array<bigint>"
    assert kinds["topic_links"] == "array<struct<text:string,url:string>>"
    want = small_ds.table()
    got = read.select("id", "timestamp", "channel", "narrow").orderBy("id").toArrow()
    assert got.num_rows == want.num_rows == small_ds.message_count
    assert got["id"].to_pylist() == want["id"].to_pylist()
    # the same instants (Spark gives them in the session's zone, Parquet holds UTC)
    assert (
        pc.equal(
            got["timestamp"].cast(pa.timestamp("us", "UTC")),
            want["timestamp"].cast(pa.timestamp("us", "UTC")),
        ).to_pylist()
        == [True] * want.num_rows
    )
    assert got["channel"].to_pylist() == want["channel"].cast(pa.string()).to_pylist()
    held = {k for k, n in small_ds.manifest["narrows"].items() if n["files"]}
    assert set(got["narrow"].to_pylist()) == held


@pytest.mark.parametrize(
    "zone", ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]
)
def test_local_times_and_weekdays_are_duckdbs_across_daylight_saving(
    spark: SparkSession, zone: str
) -> None:
    """``timezone()``, ``isodow()`` and ``date_trunc()`` as translated give DuckDB's values,
    hour by hour over a year's changes of clock (sqlglot's own ``isodow`` counts from Sunday)."""
    start = pd.Timestamp("2026-03-01", tz="UTC")
    times = pd.date_range(start, periods=24 * 366, freq="h").to_series(name="timestamp")
    frame = pd.DataFrame({"timestamp": times.to_numpy()})
    sql = (
        f"SELECT timestamp, timezone('{zone}', timestamp) AS local, "
        f"isodow(timezone('{zone}', timestamp)) AS dow, "
        f"date_trunc('day', timezone('{zone}', timestamp)) AS day FROM t ORDER BY timestamp"
    )
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.register("t", frame)
    want = con.sql(sql).df()
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        spark.sql(
            "SELECT explode(sequence(TIMESTAMP '2026-03-01 00:00:00', "
            f"TIMESTAMP '2026-03-01 00:00:00' + INTERVAL {24 * 366 - 1} HOURS, "
            "INTERVAL 1 HOUR)) AS timestamp"
        ).createOrReplaceTempView("p_t")
        (statement,) = to_spark(sql, "p_")
        got = spark.sql(statement).toArrow().to_pandas()
    finally:
        spark.conf.set("spark.sql.session.timeZone", "America/New_York")
        spark.catalog.dropTempView("p_t")
    assert list(got["timestamp"]) == list(want["timestamp"])
    assert list(got["dow"]) == list(want["dow"]) and set(want["dow"]) == set(range(1, 8))
    for column in ("local", "day"):
        assert list(pd.to_datetime(got[column])) == list(pd.to_datetime(want[column])), column


def test_a_missing_pyspark_is_named_with_the_extra_to_install(
    small_ds: Dataset, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(ImportError, match=r"pip install 'chatops-workbench\[spark\]'"):
        analytics.active_users(small_ds, engine="spark")


@pytest.fixture(scope="module")
def medium_ds(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dataset]:
    root = tmp_path_factory.mktemp("spark-medium")
    with Sandbox.start(root / "sb", size="medium", seed=7) as sb:
        yield Dataset.sync(sb.zuliprc("admin"), cache=root / "c", progress=False)


@pytest.mark.slow
@pytest.mark.parametrize("view", list(CALLS))
def test_spark_equals_pandas_on_medium(spark: SparkSession, medium_ds: Dataset, view: str) -> None:
    assert compare(medium_ds, view, engine="spark") > 0
