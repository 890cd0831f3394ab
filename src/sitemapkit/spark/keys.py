"""The keys of a Spark write, made in the JVM, so no row crosses into Python to be keyed.

A URL's key is two 64-bit words of its canonical loc that Spark SQL computes
natively: ``xxhash64(loc)`` and ``xxhash64(loc, loc)`` (XXH64 seeded with the first),
127 bits once packed (``digest_keys``). Spark's MD5, its one built-in 128-bit hash,
took 1.2 s of JVM time for 4,000,000 URLs against 0.3 s for the pair, a fifth of
the whole write. For a loc that is canonical as it stands
(``sources.inputs.partitions.CANONICAL_PATTERN``: the usual case) that is the hash of
the column's text, computed where the data is. The others
(an upper-case host, a default port, a space) are keyed by the writer's form of them:
the driver's check collects them from the write pass and fixes the few partitions
they change (``extra_repeats``); the engine's check keys them in Python before its
shuffle, the only rows that cross twice.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .. import _urlset
from ..sources.inputs.partitions import (
    CANONICAL_PATTERN,
    KEY_BYTES,
    digest_of,
    digest_words,
    writer_loc,
)
from ..write.partition import repeated_keys, sorted_keys

KEY = ("_sitemapkit_key_1", "_sitemapkit_key_2")  # the engine's columns, named so no user
ORDER = "_sitemapkit_order"  # column is taken for them
REPEAT = "_sitemapkit_repeat"
ENGINE_COLUMNS = (*KEY, ORDER, REPEAT)


def digest(F: Any) -> list[Any]:
    """The two key columns of each row's loc as text (null for a null loc)."""
    loc = F.col("loc").cast("string")
    return [F.when(loc.isNotNull(), F.xxhash64(loc)).alias(KEY[0]),
            F.when(loc.isNotNull(), F.xxhash64(loc, loc)).alias(KEY[1])]


def with_keys(frame: Any) -> Any:
    """The frame with its two key columns."""
    from pyspark.sql import functions as F

    return frame.select("*", *digest(F))


def canonical(F: Any) -> Any:
    """True where the loc is canonical as it stands, so the hash of its text is its key."""
    return F.coalesce(F.col("loc").cast("string").rlike(f"^{CANONICAL_PATTERN}$"),
                      F.lit(False))


def column_keys(first: Any, second: Any) -> tuple[Any, Any]:
    """The two Arrow key columns (arrays, or chunked alike) as packed key words
    (``digest_words``: a numpy (n, 2) int64 array, 0 where null) and where they are
    present (a numpy bool array), filled a chunk at a time: no whole-column copies."""
    import numpy as np

    words = np.empty((len(first), 2), dtype=np.int64)
    present = np.empty(len(first), dtype=bool)
    at = 0
    for one, two in zip(getattr(first, "chunks", [first]), getattr(second, "chunks", [second]),
                        strict=True):
        n = len(one)
        present[at:at + n] = one.is_valid().to_numpy(zero_copy_only=False)
        for i, column in enumerate((one, two)):
            words[at:at + n, i] = (column.fill_null(0) if column.null_count else column) \
                .to_numpy(zero_copy_only=False)
        at += n
    return digest_words(words), present


def driver_keys(frame: Any) -> tuple[list[bytes], dict[int, Drops]]:
    """The first pass of the driver's check, all in the JVM: every partition's keys
    collected as Arrow in row order (16 bytes a URL), sorted; and for each partition
    with repeats, where they stand in it (``Drops``), so its write leaves them out
    with no key sent again."""
    import numpy as np
    import pyarrow.compute as pc
    from pyspark.sql import functions as F

    table = _to_arrow(frame.select(F.spark_partition_id().alias("p"), *digest(F)))
    if table.num_rows == 0:
        return [], {}
    pids = table.column("p").to_numpy()
    words, valid = column_keys(table.column(KEY[0]), table.column(KEY[1]))
    del table
    if not bool(np.all(pids[1:] >= pids[:-1])):  # Spark hands partitions back in order
        raise RuntimeError("sitemapkit.spark: the keys came back out of partition order")
    bounds = np.searchsorted(pids, np.arange(int(pids[-1]) + 2))
    del pids
    everywhere = bool(valid.all())

    def ordered(lo: int, hi: int) -> bytes:
        part = words[lo:hi] if everywhere else words[lo:hi][valid[lo:hi]]
        return sorted_keys(part.tobytes(), _urlset)

    with ThreadPoolExecutor(min(8, os.cpu_count() or 1)) as pool:  # the sort frees the GIL
        arrays = list(pool.map(ordered, bounds[:-1], bounds[1:]))
    plans: dict[int, Drops] = {}
    for pid, repeated in repeated_keys(arrays).items():
        lo, hi = int(bounds[pid]), int(bounds[pid + 1])
        rows = fixed(words[lo:hi].tobytes())
        hit = pc.is_in(rows, value_set=fixed(repeated)).to_numpy(zero_copy_only=False)
        where = np.flatnonzero(hit & valid[lo:hi])
        plans[pid] = Drops(hi - lo, where.astype(np.int64).tobytes(), words[lo:hi][where].tobytes())
    return arrays, plans


@dataclass(frozen=True)
class Drops:
    """A partition's repeats as its first pass found them: its row count, the rows'
    positions (int64) and their keys, which the write checks before leaving a row out,
    so a partition that comes in another order fails instead of losing URLs."""

    rows: int
    positions: bytes
    keys: bytes


def fixed(keys: bytes) -> Any:
    import pyarrow as pa

    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(KEY_BYTES), len(keys) // KEY_BYTES,
                                                [None, pa.py_buffer(keys)])


def extra_repeats(arrays: Sequence[bytes], drops: dict[int, Drops],
                  own: dict[int, bytes]) -> dict[int, bytes]:
    """After the driver's check: the partitions whose write must be done again, each
    with its whole drop set. ``own`` holds, per partition, the keys of the locs the
    JVM could not key (their writer's form), as its write kept them. A URL repeated
    across partitions only in another spelling (``HTTPS://Shop.example.com/a`` here,
    ``https://shop.example.com/a`` there) is found here; usually none is."""
    if not any(own.values()):
        return {}
    merged = [sorted_keys((arrays[p] if p < len(arrays) else b"") + own.get(p, b""), _urlset)
              for p in range(max(len(arrays), max(own) + 1))]
    again: dict[int, bytes] = {}
    for pid, found in repeated_keys(merged).items():
        done = drops[pid].keys if pid in drops else b""
        known = set(_each(done))
        new = [key for key in _each(found) if key not in known]
        if new:
            again[pid] = sorted_keys(done + b"".join(new), _urlset)
    return again


def engine_marked(frame: Any, prefix: str) -> Any:
    """The engine's check: every row keyed (the locs the JVM cannot key, in Python
    first), one shuffle of the rows by key, each URL's first row in input order
    (partition, then position) kept and the others marked as repeats; each partition
    of the result then in input order."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType
    from pyspark.sql.window import Window

    ordered = frame.withColumn(ORDER, F.monotonically_increasing_id())
    schema = StructType([*ordered.schema.fields,
                         *(StructField(name, LongType(), True) for name in KEY)])

    def spelled(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in batches:
            words: list[list[int | None]] = [[], []]
            for loc in batch.column("loc").to_pylist():
                found = writer_digest(loc, prefix) if isinstance(loc, str) else None
                pair = struct.unpack("<qq", found) if found else (None, None)
                words[0].append(pair[0])
                words[1].append(pair[1])
            for name, column in zip(KEY, words, strict=True):
                batch = batch.append_column(name, pa.array(column, pa.int64()))
            yield batch

    keyed = (ordered.where(canonical(F)).select("*", *digest(F))
             .unionByName(ordered.where(~canonical(F)).mapInArrow(spelled, schema)))
    first = F.min(ORDER).over(Window.partitionBy(*KEY))
    repeat = F.col(KEY[0]).isNotNull() & (F.col(ORDER) != first)
    spread = max(frame.rdd.getNumPartitions(), frame.sparkSession.sparkContext.defaultParallelism)
    return (keyed.repartition(spread, *KEY)  # as many writers as before, none coalesced away
            .withColumn(REPEAT, repeat).sortWithinPartitions(ORDER))


def writer_digest(loc: str, prefix: str) -> bytes | None:
    """The digest of a loc in the writer's form, or None when it breaks a rule (the
    writer then reports it, so it is never taken for a repeat)."""
    text = writer_loc(loc, prefix)
    return None if text is None else digest_of(text)


def _each(keys: bytes) -> Iterator[bytes]:
    return (keys[i:i + KEY_BYTES] for i in range(0, len(keys), KEY_BYTES))


def _to_arrow(frame: Any) -> Any:
    """A DataFrame collected as one Arrow table (``toArrow`` from Spark 4; before it,
    the same method under its older private name)."""
    collect = getattr(frame, "toArrow", None) or frame._collect_as_arrow
    result = collect()
    if isinstance(result, list):  # Spark 3.5: a list of record batches
        import pyarrow as pa

        return pa.Table.from_batches(result) if result else pa.table({"p": pa.array([])})
    return result
