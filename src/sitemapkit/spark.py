"""PySpark adapter: ``write_sitemaps(df, out, base_url)`` on the active SparkSession.

Each Spark partition becomes one ``write_partition`` call inside ``mapInArrow`` on
an executor: the partition's Arrow batches go straight into the hot unit's byte path
(``sources.arrowcols``), no Python object per row. Only the manifests (a few hundred
bytes per shard) are collected to the driver, which commits once. A URL in two partitions
is written once, the first partition's copy kept, with no rows shuffled: a first pass
collects each partition's sorted 16-byte URL keys (the hot unit computes them), the
driver merges them to find the repeats, and each partition is then written once
without them (the Dask adapter's and the folder mode's way). ``unique=True`` skips
the first pass for data you guarantee has no duplicate URLs. Timestamps are
formatted with their offset in Spark itself (``spark.sql.session.timeZone``), never
as naive local times.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import time
from collections.abc import Iterator, Mapping
from typing import Any

from .errors import ConfigError, PartitionError
from .sources.inputs.partitions import table_columns
from .write.options import WriterOptions, resolve
from .write.partition import partition_keys, repeated_keys, write_once
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
    frame = df.select(*selected)
    if npartitions:  # a shuffle: kept, so both passes see the same partitions
        frame = frame.repartition(npartitions).persist()
    out_text = os.fspath(out)
    drops: dict[int, bytes] = {}
    try:
        if not unique:  # the keys pass: 16 bytes a URL to the driver, nothing written

            def keys(batches: Iterator[Any]) -> Iterator[Any]:
                pid = _partition_id()
                yield _answer(pid, partition_keys(_rows(batches), prefix, pid, options=opts))

            found = dict(_collected(frame.mapInArrow(keys, _ANSWER)))
            drops = repeated_keys([found.get(pid, b"") for pid in range(max(found) + 1)]
                                  if found else [])

        def write(batches: Iterator[Any]) -> Iterator[Any]:
            pid = _partition_id()
            manifest = write_once(_rows(batches), out_text, prefix, pid, drops.get(pid, b""),
                                  options=opts, storage_options=storage_options)
            yield _answer(pid, json.dumps(manifest.to_dict()).encode())

        manifests = [json.loads(data) for _, data in sorted(_collected(
            frame.mapInArrow(write, _ANSWER)))]
    finally:
        if npartitions:
            frame.unpersist()
    result = commit(out, manifests, prefix, options=opts, storage_options=storage_options)
    result.elapsed = time.perf_counter() - started
    return result


_ANSWER = "pid int, data binary"  # what each task hands the driver: keys or a manifest


def _partition_id() -> int:
    from pyspark import TaskContext

    context = TaskContext.get()
    if context is None:  # only ever called inside a task: a partition is never guessed
        raise RuntimeError("sitemapkit.spark: no Spark task context")
    return int(context.partitionId())


def _rows(batches: Iterator[Any]) -> Any:
    """A partition's Arrow batches as the writer's input (``ArrowSource``): rows
    straight into the hot unit's byte path, no Python object per row."""
    import pyarrow as pa

    first = next(batches, None)
    if first is None:
        return []
    return pa.RecordBatchReader.from_batches(first.schema, itertools.chain([first], batches))


def _answer(pid: int, data: bytes) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_pydict({"pid": [pid], "data": [data]},
                                      schema=pa.schema([("pid", pa.int32()),
                                                        ("data", pa.binary())]))


def _collected(frame: Any) -> list[tuple[int, bytes]]:
    """(partition, data) of every task, with a sitemapkit error raised on an executor
    (Spark wraps it in a Java one) given back as the ``PartitionError`` it was."""
    try:
        return [(row.pid, bytes(row.data)) for row in frame.collect()]
    except Exception as exc:
        raised = _SITEMAPKIT_ERROR.findall(str(exc))
        if raised:
            raise PartitionError(f"{raised[-1]}; nothing was committed") from None
        raise
