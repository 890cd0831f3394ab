"""sitemapkit.spark on a real PySpark local[2] session: the same 2,000,000 URLs over 16
partitions, 5% repeated across partitions, built in Spark SQL; and Spark's own part
files written as sitemaps by `sitemapkit write DIR`."""

from __future__ import annotations

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
    with pytest.raises(PartitionError, match=r"partition 0, entry 31: loc "
                       r"'https://elsewhere.example/x' breaks rule 'loc-outside-site'"):
        write_sitemaps(df, tmp_path, data.BASE, unique=True, fsync=False)
    assert not (tmp_path / "sitemap.xml").exists()


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
