"""sitemapkit.spark on a real PySpark local[2] session: the same 2,000,000 URLs over 16
partitions, 5% repeated across partitions, built in Spark SQL; and Spark's own part
files written as sitemaps by `sitemapkit write DIR`."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys

import pytest
import scaleout_data as data
from sitemap_check import read_large_set, read_set

pytest.importorskip("pyspark", reason="the test extra installs pyspark")
if shutil.which("java") is None:  # .ci/run installs it; locally it must be there too
    pytest.fail("PySpark needs Java (17): install a JRE", pytrace=False)

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from sitemapkit._display import size
from sitemapkit.errors import ConfigError, PartitionError
from sitemapkit.spark import write_sitemaps

pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore::FutureWarning"),
              pytest.mark.filterwarnings("ignore::ResourceWarning"),
              pytest.mark.filterwarnings("ignore::UserWarning")]


@pytest.fixture(scope="module")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable  # executors run this venv's sitemapkit
    session = (SparkSession.builder.master("local[2]").appName("sitemapkit-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "16")
               .getOrCreate())
    session.sparkContext.setLogLevel("FATAL")
    yield session
    session.stop()


def urls(spark):
    """scaleout_data's rows, built in Spark SQL (16 partitions of contiguous ids)."""
    per = data.rows_per_partition()
    ids = spark.range(0, data.PARTITIONS * per, 1, data.PARTITIONS)
    part, row = (F.col("id") / per).cast("int"), F.col("id") % per

    def own(p, r):
        return F.concat(F.lit(data.BASE + "item/"), p.cast("string"), F.lit("/"),
                        r.cast("string"), F.when(r % 7 == 0, F.lit("?c=a&d='x'"))
                        .otherwise(F.lit("")))

    copy = own((part + 1) % data.PARTITIONS, row + 1)
    loc = F.when(row % 20 == 0, copy).otherwise(own(part, row))
    day = F.lpad((part + 1).cast("string"), 2, "0")
    lastmod = F.to_timestamp(F.concat(F.lit("2024-02-"), day, F.lit(" 08:00:00")))
    return ids.select(loc.alias("loc"), lastmod.alias("lastmod"),
                      F.when(row % 3 == 0, F.lit(None)).otherwise(F.lit("daily"))
                      .alias("changefreq"))


def files(out) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_two_million_urls_once_each_identical_across_runs(spark, tmp_path):
    first = write_sitemaps(urls(spark), tmp_path / "a", data.BASE, fsync=False)
    assert (first.url_count, first.duplicate_count) == (data.expected_urls(),
                                                        data.expected_duplicates())
    locs = read_large_set(tmp_path / "a", data.BASE)
    assert len(locs) == data.expected_urls()
    assert sorted(os.listdir(tmp_path / "a")) == sorted([*first.shard_files, "sitemap.xml"])
    write_sitemaps(urls(spark), tmp_path / "b", data.BASE, fsync=False)
    assert files(tmp_path / "a") == files(tmp_path / "b")  # the same input: the same bytes


def test_other_input_partitioning_writes_the_same_set(spark, tmp_path):
    """Repartitioned (and kept between the keys pass and the write): each URL once, the
    same set and counts; only which partition's copy is kept may differ."""
    subset = urls(spark).where(F.col("loc").rlike("/item/[0-3]/"))
    first = write_sitemaps(subset, tmp_path / "a", data.BASE, fsync=False)
    again = write_sitemaps(subset.repartition(5), tmp_path / "b", data.BASE, npartitions=16,
                           fsync=False)
    assert first.duplicate_count > 0
    assert (again.url_count, again.duplicate_count) == (first.url_count, first.duplicate_count)
    assert sorted(read_large_set(tmp_path / "b", data.BASE)) == \
        sorted(read_large_set(tmp_path / "a", data.BASE))


def test_timestamps_carry_their_offset(spark, tmp_path):
    df = spark.sql("SELECT 'https://shop.example.com/t' AS loc, "
                   "TIMESTAMP '2024-03-04 05:06:07' AS lastmod")
    write_sitemaps(df, tmp_path, data.BASE, fsync=False)
    assert read_set(tmp_path, data.BASE).urls[0].lastmod == "2024-03-04T05:06:07+00:00"
    ntz = spark.sql("SELECT 'https://shop.example.com/t' AS loc, "
                    "TIMESTAMP_NTZ '2024-03-04 05:06:07' AS lastmod")
    with pytest.raises(ConfigError, match="TIMESTAMP_NTZ"):
        write_sitemaps(ntz, tmp_path, data.BASE)


def test_bad_row_names_partition_offset_and_rule(spark, tmp_path):
    df = spark.createDataFrame([(f"{data.BASE}ok/{i}",) for i in range(30)]
                               + [("https://elsewhere.example/x",)], ["loc"]).coalesce(1)
    for unique in (True, False):  # in the one write, and in the checked write's first job
        with pytest.raises(PartitionError, match=r"partition 0, entry 31: loc "
                           r"'https://elsewhere.example/x' breaks rule 'loc-outside-site'"):
            write_sitemaps(df, tmp_path, data.BASE, unique=unique, fsync=False)
        assert os.listdir(tmp_path) == []  # nothing kept or staged is left behind


def test_spark_part_files_through_the_cli(spark, tmp_path):
    """The usual hand-off: the engine writes part files, the CLI writes the sitemaps."""
    parts = tmp_path / "parts"
    small = urls(spark).limit(40_000).repartition(4)
    small.write.option("header", True).csv(str(parts))
    small.write.parquet(str(tmp_path / "pq"))
    assert (parts / "_SUCCESS").exists()
    expected = small.select("loc").distinct().count()
    for source in (parts, tmp_path / "pq"):
        out = tmp_path / f"out-{source.name}"
        proc = subprocess.run([sys.executable, "-m", "sitemapkit", "write", str(source), "-o",
                               str(out), "--base-url", data.BASE, "--jobs", "2"],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
        assert len(read_set(out, data.BASE).locs) == expected


SCHEMA = "loc string, lastmod string"


def mixed_rows():
    """Rows over 4 partitions that repeat each other in the same spelling and in other
    ones (an upper-case scheme and host, the default port, a space), with lastmods
    that tell which copy was kept."""
    rows = []
    for p in range(4):
        for i in range(300):
            rows.append((f"{data.BASE}m/{p}/{i}", f"2024-01-{p + 1:02d}"))
        if p:
            rows += [(f"{data.BASE}m/{p - 1}/{i}", f"2024-02-{p + 1:02d}")
                     for i in range(0, 300, 7)]
            rows += [(f"HTTPS://SHOP.example.com/m/{p - 1}/1", "2024-03-01"),
                     (f"https://shop.example.com:443/m/{p - 1}/2", "2024-03-02"),
                     (f"{data.BASE}s p/{p}", "2024-03-03")]
    rows.append((f"{data.BASE}s%20p/0", "2024-03-04"))  # the space's writer form
    return rows


def single_process(rows, tmp_path):
    """The same rows through `sitemapkit write` of one file: what the engines must match."""
    src = tmp_path / "all.tsv"
    src.write_text("loc\tlastmod\n" + "".join(f"{loc}\t{mod}\n" for loc, mod in rows))
    out = tmp_path / "cli"
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "write", str(src), "-o",
                           str(out), "--base-url", data.BASE, "--no-fsync"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return {(u.loc, u.lastmod) for u in read_set(out, data.BASE).urls}


@pytest.mark.parametrize("check", ["driver", "engine"])
def test_both_checks_keep_the_single_process_set_and_its_first_copies(spark, tmp_path, check):
    """Repeats in other spellings too: whichever check, each URL once with the lastmod of
    the copy `sitemapkit write` of the same rows keeps (the first in input order)."""
    rows = mixed_rows()
    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), SCHEMA)
    result = write_sitemaps(df, tmp_path / "out", data.BASE, fsync=False, duplicates=check)
    want = single_process(rows, tmp_path)
    assert {(u.loc, u.lastmod) for u in read_set(tmp_path / "out", data.BASE).urls} == want
    assert result.url_count == len(want)
    assert result.duplicate_count == len(rows) - len(want)


def test_past_the_driver_budget_the_engine_finds_the_repeats_and_says_so(spark, tmp_path):
    rows = mixed_rows()
    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), SCHEMA)
    result = write_sitemaps(df, tmp_path / "out", data.BASE, fsync=False, driver_budget=1024)
    assert result.notes == [f"duplicate check in the engine: the keys of {len(rows):,} URLs "
                            f"would take {size(16 * len(rows))} on the driver, past "
                            "driver_budget (1.0 KiB)"]
    assert {(u.loc, u.lastmod) for u in read_set(tmp_path / "out", data.BASE).urls} == \
        single_process(rows, tmp_path)
    quiet = write_sitemaps(df, tmp_path / "b", data.BASE, fsync=False)
    assert quiet.notes == [f"duplicate check on the driver: the keys of {len(rows):,} URLs "
                           f"take {size(16 * len(rows))}, within driver_budget (2.0 GiB)"]


@pytest.mark.parametrize("fmt", ["xml", "text"])
def test_rows_in_another_order_in_every_job_still_give_the_set(spark, tmp_path, fmt):
    """Rows shuffled afresh in every job (random order in Python), as a shuffle's output
    may come on a cluster: the rows are read once (a text sitemap's twice, its repeats
    then left out by key), so whatever order they come in, each URL is there once."""
    rows = mixed_rows()

    def shuffled(batches):
        import random

        import pyarrow as pa
        table = pa.Table.from_batches(list(batches))
        order = list(range(table.num_rows))
        random.SystemRandom().shuffle(order)
        yield from table.take(order).to_batches()

    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), SCHEMA).mapInArrow(
        shuffled, SCHEMA)
    result = write_sitemaps(df, tmp_path / "out", data.BASE, fsync=False, duplicates="driver",
                            format=fmt)
    want = sorted(loc for loc, _ in single_process(rows, tmp_path))
    entry = "sitemap-index.xml" if fmt == "text" else "sitemap.xml"  # text: an index
    locs = sorted(read_set(tmp_path / "out", data.BASE, entry).locs)
    assert locs == want
    assert (result.url_count, result.duplicate_count) == (len(want), len(rows) - len(want))
    assert not result.notes
    assert not [n for n in os.listdir(tmp_path / "out") if n.startswith(".sitemapkit-")]


@pytest.mark.parametrize("check", ["driver", "engine"])
def test_the_merge_holds_one_range_of_keys_at_a_time(spark, tmp_path, monkeypatch, check):
    """With room for a few hundred keys a step, the repeats are found over 256 ranges of
    keys (on the driver, or one Spark task each): the set of the single process, every
    first copy kept, and nothing the run kept left behind."""
    from sitemapkit.write import kept

    monkeypatch.setattr(kept, "MERGE_RANGE_BYTES", 16 * 300)
    assert len(kept.merge_plan([kept.KeptKeys(0, 1300, (0,) * 257)], 16 * 300)) == 5
    rows = mixed_rows()
    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), SCHEMA)
    result = write_sitemaps(df, tmp_path / "out", data.BASE, fsync=False, duplicates=check)
    want = single_process(rows, tmp_path)
    assert {(u.loc, u.lastmod) for u in read_set(tmp_path / "out", data.BASE).urls} == want
    assert (result.url_count, result.duplicate_count) == (len(want), len(rows) - len(want))
    assert sorted(os.listdir(tmp_path / "out")) == sorted([*result.shard_files, "sitemap.xml"])


def test_duplicates_option_is_checked_before_any_job(spark, tmp_path):
    df = spark.createDataFrame([(data.BASE,)], "loc string")
    with pytest.raises(ConfigError, match="duplicates='shuffle': use one of 'auto', 'driver', "
                       "'engine'"):
        write_sitemaps(df, tmp_path, data.BASE, duplicates="shuffle")
    with pytest.raises(ConfigError, match="driver_budget=-1"):
        write_sitemaps(df, tmp_path, data.BASE, driver_budget=-1)


FINISH_HOOK = '''
import os, threading
FIFO = os.environ.get("SITEMAPKIT_TEST_FINISH_FIFO")
if FIFO:  # every finish task stores its shards, says so, then waits for the kill
    from sitemapkit.write import prepared
    real = prepared.PreparedPartition.write
    def write(self, *args, **kwargs):
        real(self, *args, **kwargs)
        with open(FIFO, "w") as fh:
            fh.write(f"{os.getpgid(0)}\\n")
        threading.Event().wait()
    prepared.PreparedPartition.write = write
'''

KILLED_RUN = '''
import os, sys
os.environ["PYSPARK_PYTHON"] = sys.executable
from pyspark.sql import SparkSession
from sitemapkit.spark import write_sitemaps
out, base = sys.argv[1], sys.argv[2]
spark = (SparkSession.builder.master("local[2]").appName("sitemapkit-killed")
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").getOrCreate())
spark.sparkContext.setLogLevel("FATAL")
rows = [(f"{base}new/{p}/{i}",) for p in range(4) for i in range(400)]
rows += [(f"{base}new/0/{i}",) for i in range(50)]
write_sitemaps(spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), "loc string"),
               out, base, fsync=False)
'''


def test_a_driver_killed_in_the_finish_job_leaves_the_old_set_and_the_next_run_tidies(
        spark, tmp_path):
    """The driver's process group is killed while the finish job runs (both running
    tasks have staged their shards and wait: the event, never a clock): the live set is
    the old one, and the next run removes the prepared shards and keys the killed one
    kept, with everything else it staged."""
    import signal

    out = tmp_path / "site"
    old = [(f"{data.BASE}old/{i}",) for i in range(300)]
    write_sitemaps(spark.createDataFrame(old, "loc string"), out, data.BASE, fsync=False)
    before = files(out)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(FINISH_HOOK)
    fifo = tmp_path / "finishing"
    os.mkfifo(fifo)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(hook), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "SITEMAPKIT_TEST_FINISH_FIFO": str(fifo)}
    run = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(out), data.BASE], env=env,
                           start_new_session=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    groups: list[int] = []
    try:
        while len(groups) < 2:  # both cores' tasks are done storing and wait
            with open(fifo) as fh:
                groups += [int(line) for line in fh.read().split()]
    finally:
        for group in {run.pid, *groups}:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)
        run.wait()
    left = sorted(n for n in os.listdir(out) if n not in before)
    assert any(n.startswith(".sitemapkit-kept-p0") for n in left), left
    assert any(n.startswith(".sitemapkit-staged-") for n in left), left
    assert {n: files(out)[n] for n in before} == before  # the live set as it was
    assert sorted(read_set(out, data.BASE).locs) == sorted(loc for (loc,) in old)

    new = [(f"{data.BASE}new/{i}",) for i in range(200)]
    result = write_sitemaps(spark.createDataFrame(new, "loc string"), out, data.BASE,
                            fsync=False)
    assert sorted(os.listdir(out)) == sorted([*result.shard_files, *result.retained,
                                              "sitemap.xml"])  # the old shards: one more run
    # what it kept under names this run did not use again (it wrote 4 partitions, this
    # run 2) and what it staged went with this run's commit
    assert {n for n in left if n.startswith((".sitemapkit-kept-p00002", ".sitemapkit-kept-p00003",
                                             ".sitemapkit-staged-"))} <= set(result.removed)
    assert sorted(read_set(out, data.BASE).locs) == sorted(loc for (loc,) in new)


@pytest.fixture(scope="module")
def s3():
    pytest.importorskip("s3fs", reason="the test extra installs s3fs and moto[server]")
    from moto_s3 import moto_s3

    yield from moto_s3()


@pytest.mark.parametrize("check", ["driver", "engine"])
def test_spark_keeps_its_shards_on_s3_between_its_jobs(spark, s3, tmp_path, check):
    """On an object store (moto's S3 server on 127.0.0.1, through s3fs from the Python
    workers) the prepared shards and keys are kept as objects, read back by ranges,
    and gone once the set is live: the single process's set, nothing hidden left."""
    from moto_s3 import BUCKET, download

    fs, options = s3
    rows = mixed_rows()
    df = spark.createDataFrame(spark.sparkContext.parallelize(rows, 4), SCHEMA)
    result = write_sitemaps(df, f"s3://{BUCKET}/spark-{check}", data.BASE, duplicates=check,
                            storage_options=options, max_urls=200)
    local = download(fs, f"spark-{check}", tmp_path)
    assert sorted(p.name for p in local.iterdir()) == sorted([*result.shard_files,
                                                              "sitemap.xml"])
    assert {(u.loc, u.lastmod) for u in read_set(local, data.BASE, max_urls=200).urls} == \
        single_process(rows, tmp_path)
