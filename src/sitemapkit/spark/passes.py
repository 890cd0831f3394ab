"""The Spark jobs of a checked write, each row read from the DataFrame once.

1. ``prepare``: one task a partition reads, checks and formats its rows into shards
   (``write.prepared``) that it keeps in the output's storage with its URLs' keys
   (``Storage.keep``; a Spark task cannot hand a result to a later task), and answers
   with a few hundred bytes: the kept shards' names and its keys' range index.
2. ``merge``: the repeats found one range of keys at a time (``write.kept``), on the
   driver or one task a range.
3. ``finish``: one task a partition (``spark.range(n, numPartitions=n)``: no row of
   the DataFrame read again) cuts its repeats out of its kept shards (``drop_urls``),
   gzips and stages them, and removes what it kept.

Text sitemaps keep no lastmod to cut by: their first pass keeps only keys, and their
partitions are read a second time, each written leaving out its repeats by key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import PartitionError
from ..write.kept import KeptKeys, Sections, drops_of, keep_keys, merge_plan, merge_range
from ..write.options import WriterOptions
from ..write.partition import partition_keys, repeat_examples, write_once, write_partition
from ..write.prepared import PreparedPartition, prepare_partition
from ..write.storage import Storage, open_storage

_SITEMAPKIT_ERROR = re.compile(r"sitemapkit\.[\w.]*(?:Error|Exception): (.+)")
_ANSWER = "pid int, data binary"  # each task's answer: a partition (or range) and JSON


class Job:
    """What every task of one write needs: the output and the options."""

    def __init__(self, out: str, prefix: str, opts: WriterOptions,
                 storage_options: Mapping[str, Any] | None) -> None:
        self.out, self.prefix, self.opts = out, prefix, opts
        self.storage_options = dict(storage_options) if storage_options else None

    def storage(self) -> Storage:
        return open_storage(self.out, fsync=self.opts.fsync,
                            follow_symlink=self.opts.follow_symlink,
                            storage_options=self.storage_options)

    def write_unique(self, frame: Any) -> list[dict[str, Any]]:
        """``unique=True``: each partition written as it is, one job."""
        def task(batches: Iterator[Any]) -> Iterator[Any]:
            pid = _partition_id()
            manifest = write_partition(arrow_rows(batches), self.out, self.prefix, pid,
                                       options=self.opts,
                                       storage_options=self.storage_options)
            yield _answer(pid, manifest.to_dict())

        return _collected(frame.mapInArrow(task, _ANSWER))

    def prepare(self, frame: Any, text: bool) -> list[dict[str, Any]]:
        """Job 1: every partition prepared and kept (``text``: only its keys kept);
        each answer holds ``keys`` (a ``KeptKeys``) and ``prepared``."""
        def task(batches: Iterator[Any]) -> Iterator[Any]:
            pid = _partition_id()
            storage = self.storage()
            rows = arrow_rows(batches)
            if text:
                keys, prepared = partition_keys(rows, self.prefix, pid, options=self.opts), None
            else:
                kept = prepare_partition(rows, self.prefix, pid, options=self.opts,
                                         keep_in=storage)
                keys, prepared = kept.keys, kept.to_dict()
            yield _answer(pid, {"keys": keep_keys(storage, pid, keys).to_dict(),
                                "prepared": prepared})

        return _collected(frame.mapInArrow(task, _ANSWER))

    def merge(self, spark: Any, parts: list[KeptKeys], on_driver: bool,
              budget: int) -> tuple[dict[int, list[tuple[int, int, int]]], int]:
        """Step 2: each partition's drop sections, and how many ranges were merged."""
        plan = merge_plan(parts, budget)
        found: list[Sections]
        if on_driver:
            storage = self.storage()
            found = [merge_range(storage, parts, n, lo, hi) for n, (lo, hi) in enumerate(plan)]
        else:
            def task(batches: Iterator[Any]) -> Iterator[Any]:
                storage = self.storage()
                for batch in batches:
                    for n in batch.column(0).to_pylist():
                        lo, hi = plan[n]
                        yield _answer(n, {str(p): s for p, s in
                                          merge_range(storage, parts, n, lo, hi, 1).items()})

            answers = _collected(spark.range(0, len(plan), 1, len(plan)).mapInArrow(task,
                                                                                 _ANSWER))
            found = [{int(p): tuple(s) for p, s in a.items()}
                     for a in answers]
        sections: dict[int, list[tuple[int, int, int]]] = {}
        for each in found:
            for pid, where in each.items():
                sections.setdefault(pid, []).append(where)
        return sections, len(plan)

    def finish(self, spark: Any, prepared: list[dict[str, Any]],
               sections: dict[int, list[tuple[int, int, int]]]) -> list[dict[str, Any]]:
        """Job 3: each partition's kept shards stored without its repeats."""
        def task(batches: Iterator[Any]) -> Iterator[Any]:
            storage = self.storage()
            for batch in batches:
                for index in batch.column(0).to_pylist():
                    kept = PreparedPartition.from_dict(prepared[index], self.opts)
                    drop = drops_of(storage, sections.get(kept.partition, []))
                    manifest, named = kept.write(self.out, drop, self.storage_options)
                    manifest.examples += repeat_examples(f"partition {kept.partition}",
                                                         named, "partition")
                    yield _answer(kept.partition, manifest.to_dict())

        n = len(prepared)
        return _collected(spark.range(0, n, 1, n).mapInArrow(task, _ANSWER)) if n else []

    def write_again(self, frame: Any,
                    sections: dict[int, list[tuple[int, int, int]]]) -> list[dict[str, Any]]:
        """Text sitemaps' second read: each partition written leaving out its repeats."""
        def task(batches: Iterator[Any]) -> Iterator[Any]:
            pid = _partition_id()
            drop = drops_of(self.storage(), sections.get(pid, []))
            manifest = write_once(arrow_rows(batches), self.out, self.prefix, pid, drop,
                                  options=self.opts, storage_options=self.storage_options)
            yield _answer(pid, manifest.to_dict())

        return _collected(frame.mapInArrow(task, _ANSWER))


def arrow_rows(batches: Iterator[Any]) -> Any:
    """A task's Arrow batches as the writer's input, or [] when the partition is empty."""
    import itertools

    import pyarrow as pa

    first = next(batches, None)
    if first is None:
        return []
    return pa.RecordBatchReader.from_batches(first.schema, itertools.chain([first], batches))


def _partition_id() -> int:
    from pyspark import TaskContext

    context = TaskContext.get()
    if context is None:  # only ever called inside a task: a partition is never guessed
        raise RuntimeError("sitemapkit.spark: no Spark task context")
    return int(context.partitionId())


def _answer(pid: int, data: Any) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_pydict({"pid": [pid], "data": [json.dumps(data).encode()]},
                                      schema=pa.schema([("pid", pa.int32()),
                                                        ("data", pa.binary())]))


def _collected(frame: Any) -> list[Any]:
    """Every task's answer in partition order, with a sitemapkit error raised on an
    executor (Spark wraps it in a Java one) given back as the ``PartitionError`` it was."""
    try:
        rows = frame.collect()
    except Exception as exc:
        raised = _SITEMAPKIT_ERROR.findall(str(exc))
        if raised:
            raise PartitionError(f"{raised[-1]}; nothing was committed") from None
        raise
    return [json.loads(bytes(row.data)) for row in sorted(rows, key=lambda r: int(r.pid))]

