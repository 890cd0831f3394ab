"""The duplicate check of an engine whose tasks keep their keys in the output's storage,
in memory that does not grow with the URL count.

Each partition's first pass keeps its URLs' ascending keys (16 bytes a URL, the hot
unit's exact 128-bit keys) in the output's storage (``Storage.keep``), and says where
each of ``FINE`` equal ranges of the keys' 63-bit first word starts in them
(``KeptKeys``). The repeats are then found one range of first words at a time
(``merge_range``): every partition's slice of that range read, the hot unit's
``repeats`` over them, and each partition's keys that an earlier partition has kept as
one object a range. A merge holds one range's keys, whatever the URL count
(``MERGE_RANGE_BYTES``), so it runs on the driver range after range, or one engine task
a range when the keys would take the driver too long (``driver_budget``). A partition's
drop list is its sections of every range in order: ascending, as ``drop_urls`` takes it.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..sources.inputs.partitions import KEY_BYTES
from .partition import repeated_keys
from .storage import Storage

FINE = 256  # ranges of the first word each partition's keys are indexed by
MERGE_RANGE_BYTES = 32 << 20  # keys one merge step holds (2,097,152 URLs)


def keys_name(partition: int) -> str:
    return f"p{partition:05d}.keys"


def drops_name(number: int) -> str:
    return f"r{number:05d}.drops"


@dataclass(frozen=True)
class KeptKeys:
    """A partition's ascending keys as kept: how many, and where each of the ``FINE``
    ranges of first words starts in them (``FINE + 1`` key offsets)."""

    partition: int
    count: int
    starts: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"partition": self.partition, "count": self.count, "starts": list(self.starts)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> KeptKeys:
        return cls(int(data["partition"]), int(data["count"]), tuple(data["starts"]))


def keep_keys(storage: Storage, partition: int, keys: bytes) -> KeptKeys:
    """Task: a partition's ascending keys kept, with their range index."""
    if keys:
        storage.keep(keys_name(partition), [keys])
    firsts = memoryview(keys).cast("q")[::2]
    cuts = [bisect.bisect_left(firsts, (i << 63) // FINE) for i in range(1, FINE)]
    return KeptKeys(partition, len(firsts), (0, *cuts, len(firsts)))


def merge_plan(parts: Sequence[KeptKeys], budget: int = MERGE_RANGE_BYTES
               ) -> list[tuple[int, int]]:
    """The ranges (first and last fine range, end excluded) the merge goes through, each
    about ``budget`` bytes of keys (hashes: even shares)."""
    total = sum(p.count for p in parts) * KEY_BYTES
    n = max(1, min(FINE, -(-total // max(budget, 1))))
    bounds = [i * FINE // n for i in range(n + 1)]
    return list(zip(bounds, bounds[1:], strict=False))


Sections = dict[int, tuple[int, int, int]]  # partition -> (range number, start, end)


def merge_range(storage: Storage, parts: Sequence[KeptKeys], number: int, lo: int, hi: int,
                threads: int | None = None) -> Sections:
    """One merge step (driver or task): the keys of fine ranges ``lo:hi`` that an
    earlier partition has, for each partition, kept as the object ``drops_name(number)``;
    returns where each partition's lie in it."""
    ordered = sorted(parts, key=lambda p: p.partition)
    slices = [storage.read_kept(keys_name(p.partition), p.starts[lo] * KEY_BYTES,
                                p.starts[hi] * KEY_BYTES)
              if p.starts[hi] > p.starts[lo] else b"" for p in ordered]
    found = repeated_keys(slices, threads)
    del slices
    if not found:
        return {}
    sections: Sections = {}
    at = 0
    for index, keys in sorted(found.items()):
        sections[ordered[index].partition] = (number, at, at + len(keys))
        at += len(keys)
    storage.keep(drops_name(number), [found[i] for i in sorted(found)])
    return sections


def drops_of(storage: Storage, sections: Sequence[tuple[int, int, int]]) -> bytes:
    """Task: a partition's drop list, its sections of every range in range order."""
    return b"".join(storage.read_kept(drops_name(number), start, end)
                    for number, start, end in sorted(sections))


def kept_names(parts: Sequence[KeptKeys], ranges: int) -> list[str]:
    """The keys and drops objects of a run (the shards go with their partition's write)."""
    return [keys_name(p.partition) for p in parts if p.count] + \
        [drops_name(n) for n in range(ranges)]
