"""PySpark adapter: ``write_sitemaps(df, out, base_url)`` on the active SparkSession.

Each Spark partition becomes one partition of the set, its Arrow batches straight
into the hot unit's byte path (``sources.arrowcols``: no Python object per row), and
each row is read from the DataFrame once. A URL in two partitions is written once,
the first partition's copy kept (``spark.passes``):

1. one job reads, checks and formats every partition into shards that it keeps,
   unwritten, in the output's storage with its URLs' 128-bit keys (the single
   process's own, so a URL spelled two ways is one URL);
2. the repeats are found from the kept keys one range at a time, so the driver holds
   one range (``write.kept.MERGE_RANGE_BYTES``) whatever the URL count: on the driver
   (``duplicates="driver"``) or one Spark task a range (``"engine"``); ``"auto"``
   (the default) takes the driver until the keys pass ``driver_budget`` bytes, and
   says in a note which it took and why;
3. a small job, one task a partition over ``spark.range``, cuts the repeats out of
   the kept shards, gzips and stages them; the driver commits once.

A run that fails or is killed leaves the live set as it was; what it kept is removed
by the run, or by the next commit in the same place. ``unique=True`` skips the check
for data you guarantee has no duplicate URLs: one job. Timestamps are formatted with
their offset in Spark itself (``spark.sql.session.timeZone``), never as naive local
times.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from typing import Any

from ..errors import ConfigError
from ..sources.inputs.partitions import table_columns
from ..write import kept as kept_keys
from ..write.kept import KeptKeys, kept_names
from ..write.options import WriterOptions, resolve
from ..write.partition import DRIVER_KEYS_BUDGET, check_duplicates_option, choose_check
from ..write.result import WriteResult
from ..write.setcommit import commit
from .passes import Job

__all__ = ["write_sitemaps"]

W3C_TIMESTAMP = "yyyy-MM-dd'T'HH:mm:ssXXX"  # Spark datetime pattern: offset as +hh:mm or Z


def write_sitemaps(df: Any, out: str | os.PathLike[str], base_url: str, *,
                   unique: bool = False, duplicates: str = "auto",
                   npartitions: int | None = None, driver_budget: int = DRIVER_KEYS_BUDGET,
                   options: WriterOptions | None = None,
                   storage_options: Mapping[str, Any] | None = None,
                   **overrides: Any) -> WriteResult:
    """Write a Spark DataFrame with columns loc and any of lastmod, changefreq, priority
    as one sitemap set."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampNTZType, TimestampType

    started = time.perf_counter()
    opts, prefix = resolve(options, overrides, base_url)
    if not isinstance(df, DataFrame):
        raise ConfigError(f"sitemapkit.spark.write_sitemaps takes a Spark DataFrame, not "
                          f"{type(df).__name__}")
    check_duplicates_option(duplicates, driver_budget)
    columns = table_columns(df.columns, "the Spark DataFrame")
    selected = []
    for name in columns:
        kind = df.schema[name].dataType
        if isinstance(kind, TimestampNTZType):
            raise ConfigError("column lastmod is TIMESTAMP_NTZ (no time zone), so its times "
                              "could be any zone's: cast it to TIMESTAMP or format it with "
                              "an offset first")
        if isinstance(kind, TimestampType):
            selected.append(F.date_format(F.col(name), W3C_TIMESTAMP).alias(name))
        else:
            selected.append(F.col(name))
    frame = df.select(*selected)
    if npartitions:
        frame = frame.repartition(npartitions)
    job = Job(os.fspath(out), prefix, opts, storage_options)
    notes: list[str] = []
    if unique:
        manifests = job.write_unique(frame)
    else:
        manifests = _checked(job, frame, duplicates, driver_budget, notes)
    result = commit(out, manifests, prefix, options=opts, storage_options=storage_options)
    result.notes[:0] = notes
    result.elapsed = time.perf_counter() - started
    return result


def _checked(job: Job, frame: Any, duplicates: str, driver_budget: int,
             notes: list[str]) -> list[dict[str, Any]]:
    """The checked write: prepare, merge, finish; whatever fails, nothing this run
    kept stays behind (the live set is untouched until the commit)."""
    text = job.opts.format == "text"  # read twice: a text line keeps no lastmod to cut by
    if text:
        frame = frame.persist()  # both reads see the same partitions
    spark = frame.sparkSession
    storage = job.storage()
    try:
        answers = job.prepare(frame, text)
        parts = [KeptKeys.from_dict(a["keys"]) for a in answers]
        how = duplicates
        if how == "auto":
            how = choose_check(sum(p.count for p in parts), driver_budget, notes)
        sections, ranges = job.merge(spark, parts, how == "driver",
                                     kept_keys.MERGE_RANGE_BYTES)
        if text:
            manifests = job.write_again(frame, sections)
        else:
            manifests = job.finish(spark, [a["prepared"] for a in answers], sections)
        storage.drop_kept(kept_names(parts, ranges))
        return manifests
    except BaseException:
        storage.drop_kept()  # every kept object here is this run's (one writer a place)
        raise
    finally:
        if text:
            frame.unpersist()
