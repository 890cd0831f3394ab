"""The hot unit's byte kernels, pure reference: the gzip trailer's CRC-32, line ends
in an input block, and the partition key. The C twin has them in ``_crc32.pxi``,
``_urlset_c.pyx`` (``count_lines``) and ``_blake2b.pxi``."""

from __future__ import annotations

import heapq
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterator

from .._compat import blake2b

CRC32_CLMUL = False  # the C twin folds with carry-less multiplication where it can


def crc32(data: bytes | bytearray | memoryview, value: int = 0, wide: bool = True) -> int:
    """The gzip trailer's CRC-32: ``zlib.crc32`` (``wide`` picks the C twin's method)."""
    return zlib.crc32(data, value)


def loc_key(data: bytes) -> int:
    """The 63-bit partition key of a canonical loc's bytes: BLAKE2b with an 8-byte
    digest, read big-endian, one bit shifted off (the same in every process and run,
    unlike ``hash()``)."""
    return int.from_bytes(blake2b(data, digest_size=8).digest(), "big") >> 1


def count_lines(data: bytes) -> int:
    """Line ends in a block of input (the line reader's line numbers)."""
    return data.count(b"\n")


def ascending_keys(data: bytes, what: str, whose: str, lo: int | None = None,
                   hi: int | None = None) -> array[int]:
    """``array('q')`` bytes as keys, refused unless ascending and distinct. With ``lo``
    or ``hi``, only the keys ``lo <= key < hi`` (found by bisection), and only those
    and the pair across their start are checked: ranges that tile the keys check
    every pair once."""
    if type(data) is not bytes or len(data) % 8:
        raise ValueError(f"{what} array('q') bytes (8 bytes a key)")
    keys = array("q")
    keys.frombytes(data)
    start = 0 if lo is None else bisect_left(keys, lo)
    end = len(keys) if hi is None else max(start, bisect_left(keys, hi))
    if any(keys[j - 1] >= keys[j] for j in range(max(start, 1), end)):
        raise ValueError(f"{what.split(':')[0]}: {whose} must be ascending and distinct")
    return keys if (start, end) == (0, len(keys)) else keys[start:end]


class LocKeys:
    """A keyed buffer's partition keys: those of the URLs it added, and the ones it
    must answer DUPLICATE for (an earlier partition wrote them)."""

    def __init__(self, drop: bytes) -> None:
        self.drop = frozenset(ascending_keys(drop, "key_locs: drop is", "the drop keys"))
        self.added = array("q")

    def keep(self, loc: str) -> bool:
        """Record a new canonical loc's key; False when it is one to drop."""
        key = loc_key(loc.encode("ascii"))
        if key in self.drop:
            return False
        self.added.append(key)
        return True

    def take(self, ascending: bool) -> bytes:
        out = array("q", sorted(self.added)) if ascending else self.added
        self.added = array("q")
        return out.tobytes()


def repeats(arrays: list[bytes], lo: int | None = None,
            hi: int | None = None) -> list[bytes]:
    """For each partition's keys (ascending and distinct, ``array('q')`` bytes), the keys
    an earlier partition of the list holds, in the same form: a k-way merge, 8 bytes a
    URL, with no set of every URL built (the driver's step across partitions).

    With ``lo`` and ``hi``, only the keys ``lo <= key < hi`` (``ascending_keys``): threads
    take ranges side by side."""
    for bound in (lo, hi):
        if bound is not None and not -(1 << 63) <= bound < (1 << 63):
            raise OverflowError("repeats: lo and hi are 64-bit keys")
    parsed = [ascending_keys(data, "repeats: each partition's keys are",
                             "each partition's keys", lo, hi) for data in arrays]
    found = [array("q") for _ in parsed]
    previous = None
    for key, pid in heapq.merge(*(_tagged(keys, pid) for pid, keys in enumerate(parsed))):
        if key == previous:
            found[pid].append(key)
        previous = key
    return [keys.tobytes() for keys in found]


def _tagged(keys: array[int], pid: int) -> Iterator[tuple[int, int]]:
    return ((key, pid) for key in keys)
