"""PySpark adapter: ``write_sitemaps(df, out, base_url)`` on the active SparkSession.

Each Spark partition becomes one ``write_partition`` call inside
``mapPartitionsWithIndex`` on an executor; only the manifests (a few hundred bytes
per shard) are collected to the driver, which commits once. By default rows are
first partitioned by a hash of the normalized loc, so a URL in two input partitions
meets itself in one and is written once; ``unique=True`` skips that shuffle for data
you guarantee has no duplicate URLs. Timestamps are formatted with their offset in
Spark itself (``spark.sql.session.timeZone``), never as naive local times.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .errors import ConfigError, PartitionError
from .sources.partitions import entries_from_rows, partition_key, sort_key, table_columns
from .write.options import WriterOptions, resolve
from .write.partition import write_partition
from .write.result import WriteResult
from .write.setcommit import commit

__all__ = ["write_sitemaps"]

_SITEMAPKIT_ERROR = re.compile(r"sitemapkit\.[\w.]*(?:Error|Exception): (.+)")
W3C_TIMESTAMP = "yyyy-MM-dd'T'HH:mm:ssXXX"  # Spark datetime pattern: offset as +hh:mm or Z


def write_sitemaps(df: Any, out: str | os.PathLike[str], base_url: str, *,
                   unique: bool = False, npartitions: int | None = None,
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
    rdd = df.select(*selected).rdd.map(tuple)
    out_text, ordered = os.fspath(out), not unique
    if not unique:
        n = npartitions or rdd.getNumPartitions()
        rdd = rdd.keyBy(lambda row: partition_key(row[0], prefix)) \
            .partitionBy(n, lambda key: key).values()
    elif npartitions:
        rdd = rdd.repartition(npartitions)

    def write(pid: int, rows: Iterable[Any]) -> Iterator[dict[str, Any]]:
        part = list(rows)
        if ordered:
            part.sort(key=sort_key)
        yield write_partition(entries_from_rows(part, columns), out_text, prefix, pid,
                              options=opts, storage_options=storage_options).to_dict()

    try:
        manifests = rdd.mapPartitionsWithIndex(write).collect()
    except Exception as exc:  # Spark wraps a worker's exception in a Java one
        raised = _SITEMAPKIT_ERROR.findall(str(exc))
        if raised:
            raise PartitionError(f"{raised[-1]}; nothing was committed") from None
        raise
    result = commit(out, manifests, prefix, options=opts, storage_options=storage_options)
    result.elapsed = time.perf_counter() - started
    return result
