"""PySpark adapter: ``write_sitemaps(df, out, base_url)`` on the active SparkSession.

Each Spark partition becomes one ``write_partition`` call inside ``mapInArrow`` on
an executor: the partition's Arrow batches go straight into the hot unit's byte path
(``sources.arrowcols``), no Python object per row, and each row crosses from the JVM
into Python once. Only the manifests (a few hundred bytes per shard) are collected to
the driver, which commits once. A URL in two partitions is written once, the first
partition's copy kept. Two ways to find the repeats (``duplicates``):

- ``"driver"``: the JVM keys every URL (two XXH64 words, ``spark.keys``) and the
  driver collects the keys, 16 bytes a URL, and finds each partition's repeats; each
  partition is then written once without them, in its own order, as ``sitemapkit
  write`` of the parts would.
- ``"engine"``: Spark's own shuffle finds them (the rows moved by key, the first in
  input order kept), and the driver holds only the manifests, whatever the URL count.
  The partitions written are the shuffle's, each in input order.
- ``"auto"`` (the default): the driver's check unless its keys would pass
  ``driver_budget`` bytes (``DRIVER_KEYS_BUDGET``) or what the driver's JVM can
  collect, which a count in the JVM tells.

``unique=True`` skips the check for data you guarantee has no duplicate URLs.
Timestamps are formatted with their offset in Spark itself
(``spark.sql.session.timeZone``), never as naive local times.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import time
from collections.abc import Iterator, Mapping
from typing import Any

from .. import _urlset
from ..errors import ConfigError, PartitionError
from ..sources.inputs.partitions import KEY_BYTES, table_columns
from ..write.options import WriterOptions, resolve
from ..write.partition import (
    DRIVER_KEYS_BUDGET,
    check_duplicates_option,
    choose_check,
    repeat_examples,
    sorted_keys,
    write_partition,
)
from ..write.result import WriteResult
from ..write.setcommit import commit
from ..write.storage import open_storage, staged
from .keys import Drops, driver_keys, engine_marked, extra_repeats, with_keys
from .screen import PartitionOrderError, Screen

__all__ = ["write_sitemaps"]

_SITEMAPKIT_ERROR = re.compile(r"sitemapkit\.[\w.]*(?:Error|Exception): (.+)")
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
    if npartitions:  # a shuffle: kept, so both passes see the same partitions
        frame = frame.repartition(npartitions).persist()
    notes: list[str] = []
    try:
        how = "none" if unique else duplicates
        if how == "auto":
            budget, limit = _budget(frame.sparkSession, driver_budget)
            how = choose_check(frame.count(), budget, notes, limit)
        if how != "driver":
            manifests = _write(frame if unique else engine_marked(frame, prefix), out,
                               prefix, opts, storage_options, check=False)
        else:
            manifests = _driver_check(frame, out, prefix, opts, storage_options, notes)
    finally:
        if npartitions:
            frame.unpersist()
    for manifest in manifests:
        manifest.pop("_own", None)
    result = commit(out, manifests, prefix, options=opts, storage_options=storage_options)
    result.notes[:0] = notes
    result.elapsed = time.perf_counter() - started
    return result


JVM_KEY_BYTES = 24  # a key as it crosses the driver's JVM: two longs, a partition id, bits


def _budget(spark: Any, driver_budget: int) -> tuple[int, str]:
    """The driver check's budget: ``driver_budget``, or less when the driver's JVM could
    not collect the keys (they cross it as Arrow, about 24 bytes a URL, against a
    quarter of ``spark.driver.memory`` or ``spark.driver.maxResultSize``; at the
    defaults, 1 GB each, 16,000,000 URLs ended the local session)."""
    conf = spark.sparkContext.getConf()
    to_bytes = spark.sparkContext._jvm.org.apache.spark.network.util.JavaUtils.byteStringAsBytes
    heap = int(to_bytes(conf.get("spark.driver.memory", "1g")))
    results = int(to_bytes(conf.get("spark.driver.maxResultSize", "1g")))
    room = min(heap, results or heap) // 4 // JVM_KEY_BYTES * KEY_BYTES
    if room < driver_budget:
        return room, "what the driver's JVM can collect (a quarter of spark.driver.memory " \
            "or spark.driver.maxResultSize, at 24 bytes a URL)"
    return driver_budget, "driver_budget"


def _driver_check(frame: Any, out: str | os.PathLike[str], prefix: str, opts: WriterOptions,
                  storage_options: Mapping[str, Any] | None,
                  notes: list[str]) -> list[dict[str, Any]]:
    """The driver's check: the keys pass in the JVM; every partition written once,
    leaving out its repeats; then, rarely, the partitions a repeat in another spelling
    made wrong, again."""
    from pyspark.sql import functions as F

    arrays, drops = driver_keys(frame)
    try:
        manifests = _write(frame, out, prefix, opts, storage_options, check=True,
                           positions=drops)
    except PartitionOrderError as exc:  # rows met in another order: by key
        notes.append(f"{exc}; it was written again leaving out its repeats by key "
                     "(persist() the DataFrame to spare that pass)")
        manifests = _write(with_keys(frame), out, prefix, opts, storage_options, check=True,
                           keys={pid: sorted_keys(d.keys, _urlset) for pid, d in drops.items()})
    again = extra_repeats(arrays, drops, {m["partition"]: m.pop("_own", b"")
                                         for m in manifests})
    if again:  # a URL repeated in another spelling: those partitions again
        redone = _write(with_keys(frame), out, prefix, opts, storage_options, check=True,
                        keys=again, where=F.spark_partition_id().isin(sorted(again)))
        _drop_superseded(out, storage_options, opts, manifests, redone)
        manifests = [m for m in manifests if m["partition"] not in again] + redone
    return manifests


def _write(frame: Any, out: str | os.PathLike[str], prefix: str, opts: WriterOptions,
           storage_options: Mapping[str, Any] | None, *, check: bool,
           positions: dict[int, Drops] | None = None, keys: dict[int, bytes] | None = None,
           where: Any = None) -> list[dict[str, Any]]:
    """The one pass of rows through Python: each partition screened (``Screen``) and
    written; its manifest back, with (``check``) the keys of the locs the JVM could not
    key. Repeats leave by the first pass's ``positions`` or by ``keys`` (the frame then
    carries its key columns); ``where``: which partitions (a condition on
    ``spark_partition_id()``, so the others never leave the JVM)."""
    out_text = os.fspath(out)
    shared = frame.sparkSession.sparkContext.broadcast((positions or {}, keys or {}))
    some = where is not None  # (the closure takes no Column: it holds a JVM handle)

    def write(batches: Iterator[Any]) -> Iterator[Any]:
        pid = _partition_id()
        if some:  # a partition the condition left empty is not this job's
            head = next(batches, None)
            if head is None:
                return
            batches = itertools.chain([head], batches)
        at, by_key = shared.value
        screen = Screen(prefix, pid, check, at.get(pid), by_key.get(pid, b""))
        manifest = write_partition(screen.rows(batches), out_text, prefix, pid,
                                   options=opts, storage_options=storage_options)
        manifest.duplicate_count += screen.dropped
        manifest.examples += repeat_examples(f"partition {pid}", screen.examples, "partition")
        yield _answer(pid, json.dumps(manifest.to_dict()).encode(), screen.own_keys)

    try:
        return [{**json.loads(data), "_own": own} for _, data, own in sorted(_collected(
            (frame if where is None else frame.where(where)).mapInArrow(write, _ANSWER)))]
    finally:
        shared.unpersist()


def _drop_superseded(out: str | os.PathLike[str], storage_options: Mapping[str, Any] | None,
                     opts: WriterOptions, first: list[dict[str, Any]],
                     redone: list[dict[str, Any]]) -> None:
    """The shards this run staged for a partition it then wrote again, and no index
    lists: removed here, so the commit does not report them as another run's."""
    again = {m["partition"] for m in redone}
    keep = {s["name"] for m in redone for s in m["shards"]}
    stale = [s["name"] for m in first if m["partition"] in again for s in m["shards"]
             if s["name"] not in keep]
    if stale:
        open_storage(out, fsync=opts.fsync, follow_symlink=opts.follow_symlink,
                     storage_options=storage_options).delete([staged(n) for n in stale])


_ANSWER = "pid int, data binary, own binary"  # each task's manifest and keys it made


def _partition_id() -> int:
    from pyspark import TaskContext

    context = TaskContext.get()
    if context is None:  # only ever called inside a task: a partition is never guessed
        raise RuntimeError("sitemapkit.spark: no Spark task context")
    return int(context.partitionId())


def _answer(pid: int, data: bytes, own: bytes) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_pydict({"pid": [pid], "data": [data], "own": [own]},
                                      schema=pa.schema([("pid", pa.int32()),
                                                        ("data", pa.binary()),
                                                        ("own", pa.binary())]))


def _collected(frame: Any) -> list[tuple[int, bytes, bytes]]:
    """(partition, manifest, keys) of every task, with a sitemapkit error raised on an executor
    (Spark wraps it in a Java one) given back as the ``PartitionError`` it was."""
    try:
        return [(row.pid, bytes(row.data), bytes(row.own)) for row in frame.collect()]
    except Exception as exc:
        raised = _SITEMAPKIT_ERROR.findall(str(exc))
        if raised and "PartitionOrderError: " in str(exc):
            raise PartitionOrderError(raised[-1]) from None
        if raised:
            raise PartitionError(f"{raised[-1]}; nothing was committed") from None
        raise
