"""Reference twin of the hot unit's LocSet: the duplicate table of the writer and the
validator, and the table of hreflang cluster digests (``values=True``). C twin:
``ext/_locset.pxi``.

A URL is a repeat only when its 128-bit key (``loc_hash``: BLAKE2b of its bytes, the
same in every process and run, whatever ``PYTHONHASHSEED``) equals an earlier one's:
at 10**10 distinct URLs the chance that any two share a key is about 1.5e-19.
``SITEMAPKIT_TEST_KEY_BITS=N`` (a test switch, said on stderr when on) narrows the
first of the key's two 64-bit words to N bits, so tests can make the first words
collide everywhere and check that the second tells the URLs apart.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

from .._compat import blake2b

MAX_TAG = 65535  # the C twin keeps 16-bit tags: this stands for this file or a later one
_FULL = (1 << 64) - 1


def _key_mask() -> int:
    """All 64 bits, or the top N with SITEMAPKIT_TEST_KEY_BITS=N (said, never silent)."""
    given = os.environ.get("SITEMAPKIT_TEST_KEY_BITS", "")
    if not given:
        return _FULL
    bits = int(given) if given.isdigit() and 1 <= int(given) <= 64 else 64
    sys.stderr.write(f"sitemapkit: warning: SITEMAPKIT_TEST_KEY_BITS={given}: duplicate keys "
                     f"narrowed to {bits} bits (a test switch; the check word still tells "
                     "URLs apart)\n")
    return _FULL ^ ((1 << (64 - bits)) - 1)


KEY_MASK = _key_mask()


def loc_hash(data: bytes) -> tuple[int, int]:
    """(slot word, check word) of a loc's bytes: BLAKE2b-128, two little-endian words;
    the slot word narrowed by the test switch, and never 0."""
    digest = blake2b(data, digest_size=16).digest()
    first = int.from_bytes(digest[:8], "little") & KEY_MASK
    return first or 1, int.from_bytes(digest[8:], "little")


class LocSet:
    """Seen-URL set for the cross-shard duplicate check, keyed by ``loc_hash``.

    ``tagged=True`` also keeps, per URL, a tag (the validator's file number, where
    MAX_TAG stands for that file or any later one: the C twin keeps 16 bits);
    ``values=True`` keeps a value from 0 to 2**63 - 1 per str hash instead (``get``,
    ``put``)."""

    def __init__(self, tagged: bool = False, values: bool = False) -> None:
        if tagged and values:
            raise ValueError("a LocSet keeps tags or values, not both")
        self.tagged, self.values = tagged, values
        self._hashes: dict[int, int] = {}  # 128-bit key (values: str hash) -> tag or value

    def reserve(self, n: int) -> None:
        """The C twin makes room for ``n`` more keys at once; a dict grows by itself."""

    @staticmethod
    def _seen_key(loc: str) -> int:
        first, check = loc_hash(loc.encode("utf-8", "surrogatepass"))
        return first << 64 | check

    def add(self, loc: str) -> bool:
        """True if ``loc`` is new."""
        return self.first(loc, 0) == -1

    def first(self, key: str, tag: int) -> int:
        """-1 if ``key`` is new (remembered with ``tag``); else the tag it was first seen
        with (a tagged set; an untagged one answers 0)."""
        if self.values:
            raise TypeError("a values set takes get() and put()")
        k = self._seen_key(key)
        if k in self._hashes:
            return self._hashes[k] if self.tagged else 0
        self._hashes[k] = min(tag, MAX_TAG) if self.tagged else 0
        return -1

    @staticmethod
    def _key(key: str | int) -> int:
        """A str's hash, or an int taken as the hash itself (one kind per table)."""
        if isinstance(key, int):
            if not 0 <= key < 1 << 64:
                raise OverflowError(f"an int key is 0 to 2**64 - 1, not {key}")
            return key or 1
        if not isinstance(key, str):
            raise TypeError(f"a LocSet key is a str or an int, not {type(key).__name__}")
        return hash(key) or 1

    def get(self, key: str | int) -> int:
        """The value stored for ``key`` (a values set), or -1."""
        if not self.values:
            raise TypeError("get() needs LocSet(values=True)")
        return self._hashes.get(self._key(key), -1)

    def put(self, key: str | int, value: int) -> None:
        """Store ``value`` (0 to 2**63 - 1) for ``key``, replacing any earlier one."""
        if not self.values:
            raise TypeError("put() needs LocSet(values=True)")
        if not 0 <= value < 1 << 63:
            raise (ValueError if value < 0 else OverflowError)(
                f"a LocSet value is 0 to 2**63 - 1, not {value}")
        self._hashes[self._key(key)] = value

    def items(self) -> Iterator[tuple[int, int]]:
        """(key hash, value) of every entry of a values set, in no particular order."""
        if not self.values:
            raise TypeError("items() needs LocSet(values=True)")
        return iter(list(self._hashes.items()))

    def __contains__(self, key: str) -> bool:
        return (self._key(key) if self.values else self._seen_key(key)) in self._hashes

    def __len__(self) -> int:
        return len(self._hashes)
