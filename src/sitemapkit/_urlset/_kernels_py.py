"""The hot unit's byte kernels, pure reference: the gzip trailer's CRC-32, line ends
in an input block, and the partition key. The C twin has them in ``_crc32.pxi``,
``_kernels.pxi`` (``count_lines``, the byte classes) and ``_blake2b.pxi``."""

from __future__ import annotations

import heapq
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator

from ._locset_py import loc_hash

CRC32_CLMUL = False  # the C twin folds with carry-less multiplication where it can


def crc32(data: bytes | bytearray | memoryview, value: int = 0, wide: bool = True) -> int:
    """The gzip trailer's CRC-32: ``zlib.crc32`` (``wide`` picks the C twin's method)."""
    return zlib.crc32(data, value)


def loc_key(data: bytes) -> tuple[int, int]:
    """The partition key of a canonical loc's bytes: the duplicate check's own 128-bit
    BLAKE2b (``loc_hash``, so a URL is hashed once), as (slot word shifted right one
    bit, check word as a signed 64-bit number): 127 bits, so at 10**10 URLs the chance
    that any two distinct ones share a key is about 3e-19. The first word is never
    negative: threads cut key ranges on it. Keys order by (first, second) word."""
    first, check = loc_hash(data)
    return first >> 1, check - (1 << 64) if check >> 63 else check


def pack_keys(keys: Iterable[tuple[int, int]]) -> bytes:
    """Keys as the hot unit hands them on: two native 64-bit words a key, 16 bytes."""
    return array("q", [word for key in keys for word in key]).tobytes()


def unpack_keys(data: bytes) -> list[tuple[int, int]]:
    words = array("q")
    words.frombytes(data)
    return list(zip(words[::2], words[1::2], strict=True))


def count_lines(data: bytes) -> int:
    """Line ends in a block of input (the line reader's line numbers)."""
    return data.count(b"\n")


def ascending_keys(data: bytes, what: str, whose: str, lo: int | None = None,
                   hi: int | None = None) -> list[tuple[int, int]]:
    """Key bytes (``KEY_BYTES`` a key) as keys, refused unless ascending and distinct.
    With ``lo`` or ``hi``, only the keys whose first word is ``lo <= word < hi`` (found
    by bisection), and only those and the pair across their start are checked: ranges
    that tile the keys check every pair once."""
    if type(data) is not bytes or len(data) % KEY_BYTES:
        raise ValueError(f"{what} key bytes (16 bytes a key)")
    keys = unpack_keys(data)
    start = 0 if lo is None else bisect_left(keys, (lo, _MIN))
    end = len(keys) if hi is None else max(start, bisect_left(keys, (hi, _MIN)))
    if any(keys[j - 1] >= keys[j] for j in range(max(start, 1), end)):
        raise ValueError(f"{what.split(':')[0]}: {whose} must be ascending and distinct")
    return keys if (start, end) == (0, len(keys)) else keys[start:end]


KEY_BYTES = 16  # a partition key: two 64-bit words
_MIN = -(1 << 63)


class LocKeys:
    """A keyed buffer's partition keys: those of the URLs it added, and the ones it
    must answer DUPLICATE for (an earlier partition wrote them)."""

    def __init__(self, drop: bytes) -> None:
        self.drop = frozenset(ascending_keys(drop, "key_locs: drop is", "the drop keys"))
        self.added: list[tuple[int, int]] = []

    def keep(self, loc: str) -> bool:
        """Record a new canonical loc's key; False when it is one to drop."""
        key = loc_key(loc.encode("ascii"))
        if key in self.drop:
            return False
        self.added.append(key)
        return True

    def take(self, ascending: bool) -> bytes:
        out = sorted(self.added) if ascending else self.added
        self.added = []
        return pack_keys(out)


def repeats(arrays: list[bytes], lo: int | None = None,
            hi: int | None = None) -> list[bytes]:
    """For each partition's keys (ascending and distinct key bytes), the keys an earlier
    partition of the list holds, in the same form: a k-way merge, 16 bytes a URL, with
    no set of every URL built (the driver's step across partitions).

    With ``lo`` and ``hi``, only the keys whose first word is ``lo <= word < hi``
    (``ascending_keys``): threads take ranges side by side."""
    for bound in (lo, hi):
        if bound is not None and not -(1 << 63) <= bound < (1 << 63):
            raise OverflowError("repeats: lo and hi are 64-bit keys")
    parsed = [ascending_keys(data, "repeats: each partition's keys are",
                             "each partition's keys", lo, hi) for data in arrays]
    found: list[list[tuple[int, int]]] = [[] for _ in parsed]
    previous = None
    for key, pid in heapq.merge(*(_tagged(keys, pid) for pid, keys in enumerate(parsed))):
        if key == previous:
            found[pid].append(key)
        previous = key
    return [pack_keys(keys) for keys in found]


def _tagged(keys: list[tuple[int, int]], pid: int
            ) -> Iterator[tuple[tuple[int, int], int]]:
    return ((key, pid) for key in keys)
