"""A Spark partition's Arrow batches on their way into the writer, on the executor.

The rows an earlier partition already has are left out here, by Arrow's kernels (no
Python object per row): at the positions the driver's check found them (each one's
loc hashed again first, so a partition that comes in another order fails rather than
loses a URL), by the key the JVM made (a partition written again), or by the engine's
own mark (the engine's check). They are counted, a few named. The engine's columns
go before the writer sees the batch. The locs the JVM could not key are keyed here,
in the writer's form, so the driver can find the repeats they hide
(``keys.extra_repeats``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from ..errors import ConfigError
from ..sources.inputs.partitions import CANONICAL_PATTERN, KEY_BYTES, digest_keys, digest_of
from .keys import ENGINE_COLUMNS, KEY, REPEAT, Drops, column_keys, fixed, writer_digest

EXAMPLES = 10


class PartitionOrderError(ConfigError):
    """A partition's rows came to the write in another order (or number) than to the
    first pass: its repeats are then left out by key instead (``spark.write_sitemaps``)."""


class Screen:
    """Leaves out one partition's repeats and keeps count of them.

    ``check`` False: rows pass as they are (``unique=True``, or the engine's marks).
    Else ``drops`` (the driver's first pass) or ``keys`` (a partition written again:
    its keys to leave out, packed) say which rows go."""

    def __init__(self, prefix: str, partition: int, check: bool, drops: Drops | None = None,
                 keys: bytes = b"") -> None:
        import numpy as np

        self.prefix, self.partition, self.check = prefix, partition, check
        self.dropped = 0
        self.examples: list[str] = []
        self._own: list[bytes] = []
        self._seen = 0  # rows of the partition so far
        self._drops = drops
        self._positions = (np.frombuffer(drops.positions, dtype=np.int64) if drops
                           else np.empty(0, dtype=np.int64))
        self._keys = frozenset(keys[i:i + KEY_BYTES] for i in range(0, len(keys), KEY_BYTES))
        self._key_set = fixed(keys)  # the same keys as an Arrow value set

    @property
    def own_keys(self) -> bytes:
        """The keys of the kept rows the JVM could not key (writer's form), packed."""
        return b"".join(self._own)

    def rows(self, batches: Iterator[Any]) -> Any:
        """The writer's input (``ArrowSource``): the screened batches, or [] for none."""
        import pyarrow as pa

        screened = (self._screen(b) for b in batches)
        first = next(screened, None)
        if first is None:
            self._finish()
            return []
        return pa.RecordBatchReader.from_batches(
            first.schema, itertools.chain([first], screened, self._end()))

    def _end(self) -> Iterator[Any]:
        """Nothing to add: checks the row count once the last batch is through."""
        self._finish()
        yield from ()

    def _finish(self) -> None:
        if self._drops is not None and self._seen != self._drops.rows:
            raise self._moved(f"{self._seen:,} rows where the first pass read "
                              f"{self._drops.rows:,}")

    def _moved(self, what: str) -> PartitionOrderError:
        return PartitionOrderError(f"partition {self.partition} came to the write in "
                                   f"another order than to the duplicate check ({what})")

    def _screen(self, batch: Any) -> Any:
        import pyarrow.compute as pc

        names = batch.schema.names
        if REPEAT in names:  # the engine marked them
            leave = pc.fill_null(batch.column(REPEAT), False)
        elif self.check:
            leave = self._repeats(batch)
        else:
            return batch
        self._seen += batch.num_rows
        if pc.any(leave).as_py():
            self.dropped += pc.sum(leave).as_py()
            if len(self.examples) < EXAMPLES:
                left = pc.filter(batch.column("loc"), leave)[:EXAMPLES - len(self.examples)]
                self.examples += [str(v) for v in left.to_pylist()]
            batch = batch.filter(pc.invert(leave))
        return batch.select([n for n in names if n not in ENGINE_COLUMNS]) \
            if any(n in ENGINE_COLUMNS for n in names) else batch

    def _repeats(self, batch: Any) -> Any:
        """Where a row repeats an earlier partition's URL (the first pass's positions,
        checked; or its JVM key in ``keys``), or, for a loc not canonical as it stands,
        its writer's form's key is in ``keys``; those keys are kept when the row is."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        leave = np.zeros(batch.num_rows, dtype=bool)
        if len(self._positions):
            self._at_positions(batch, leave)
        if self._keys and KEY[0] in batch.schema.names:
            words, present = column_keys(batch.column(KEY[0]), batch.column(KEY[1]))
            hit = pc.is_in(fixed(words.tobytes()), value_set=self._key_set)
            leave |= hit.to_numpy(zero_copy_only=False) & present
        locs = batch.column("loc")
        if not (pa.types.is_string(locs.type) or pa.types.is_large_string(locs.type)):
            return pa.array(leave)  # not text: the writer refuses each such loc
        plain = pc.fill_null(pc.match_substring_regex(locs, f"^{CANONICAL_PATTERN}$"), True)
        for i in pc.indices_nonzero(pc.invert(plain)).to_pylist():
            found = writer_digest(locs[i].as_py(), self.prefix)
            if found is None or leave[i]:
                continue
            key = digest_keys(found)
            if key in self._keys:
                leave[i] = True
            else:
                self._own.append(key)
        return pa.array(leave)

    def _at_positions(self, batch: Any, leave: Any) -> None:
        """The first pass's positions inside this batch, each row's loc hashed as the
        JVM hashed it and compared with the key found there."""
        import numpy as np

        lo, hi = np.searchsorted(self._positions, [self._seen, self._seen + batch.num_rows])
        if lo == hi:
            return
        here = self._positions[lo:hi] - self._seen
        expected = self._drops.keys[lo * KEY_BYTES:hi * KEY_BYTES]  # type: ignore[union-attr]
        locs = batch.column("loc").take(here).to_pylist()
        found = b"".join(digest_of(loc) if isinstance(loc, str) else b"\0" * KEY_BYTES
                         for loc in locs)
        if digest_keys(found) != expected:
            first = next(i for i in range(len(locs))
                         if digest_keys(found[i * KEY_BYTES:(i + 1) * KEY_BYTES])
                         != expected[i * KEY_BYTES:(i + 1) * KEY_BYTES])
            raise self._moved(f"row {self._seen + int(here[first]):,} holds {locs[first]!r}, "
                              "not the URL found there before")
        leave[here] = True
