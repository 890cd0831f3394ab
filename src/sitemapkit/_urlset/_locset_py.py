"""Reference twin of the hot unit's LocSet: the duplicate table of the writer and the
validator, and the table of hreflang cluster digests (``values=True``)."""

from __future__ import annotations

from collections.abc import Iterator

MAX_TAG = 65535  # the C twin keeps 16-bit tags: this stands for this file or a later one


class LocSet:
    """Seen-URL set for the cross-shard duplicate check: stores 64-bit hashes only.

    ``tagged=True`` also keeps, per hash, a tag (the validator's file number, where
    MAX_TAG stands for that file or any later one: the C twin keeps 16 bits);
    ``values=True`` keeps a value from 0 to 2**63 - 1 instead (``get``, ``put``)."""

    def __init__(self, tagged: bool = False, values: bool = False) -> None:
        if tagged and values:
            raise ValueError("a LocSet keeps tags or values, not both")
        self.tagged, self.values = tagged, values
        self._hashes: dict[int, int] = {}

    def add(self, loc: str) -> bool:
        """True if ``loc`` is new (hash 0 is folded into 1, as in the C twin)."""
        return self.first(loc, 0) == -1

    def first(self, key: str, tag: int) -> int:
        """-1 if ``key`` is new (remembered with ``tag``); else the tag it was first seen
        with (a tagged set; an untagged one answers 0)."""
        h = hash(key) or 1
        if h in self._hashes:
            return self._hashes[h] if self.tagged else 0
        self._hashes[h] = min(tag, MAX_TAG) if self.tagged else 0
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
        return (hash(key) or 1) in self._hashes

    def __len__(self) -> int:
        return len(self._hashes)
