"""Rule 36 across files in about 35 bytes a URL: every member of an hreflang cluster
carries the same set, itself included.

While files are read, a member keeps only a 64-bit hash and the digest of the last
set it carried (with whether the set lists the member); each distinct set keeps its
number of hrefs and how many of them carry it. A set is whole when the two agree,
so a valid run needs nothing more. Only when some set is not whole are the files with
clusters read again, for the strings the findings name (sets of strings took ~400
bytes a URL: 12M translated URLs needed ~5 GB).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .._urlset import LocSet
from ..rules.hreflang import digest

Cluster = frozenset[tuple[str, str]]  # (hreflang lower-cased, href key)

_LOW = 0xFFFFFFFF  # a set's value: hrefs << 32 | members that carry it


class ClusterRecord:
    """What one run keeps of its clusters while the files are read."""

    def __init__(self, members: LocSet | None = None, sizes: LocSet | None = None) -> None:
        self.members = members if members is not None else LocSet(values=True)
        # digest -> hrefs << 32 | members that list the set and carry it last
        self.sizes = sizes if sizes is not None else LocSet(values=True)
        self.open = 0  # sets whose two numbers differ
        self.file_nos: set[int] = set()  # files with a cluster, read again if one is open

    def add(self, key: str, cluster: Cluster, file_no: int, line: int) -> None:
        """One member as the file lists it; a later listing of the member replaces it."""
        self.file_nos.add(file_no)
        d = digest(cluster)
        value = d << 1 | any(href == key for _, href in cluster)  # below 2**63
        old = self.members.get(key)
        if old == value:
            return
        self.members.put(key, value)
        if old >= 0 and old & 1:
            self._count(old >> 1, -1, None)
        self._count(d, value & 1, cluster)

    def _count(self, d: int, carried: int, cluster: Cluster | None) -> None:
        known = self.sizes.get(d)
        if known < 0:  # a new set: count its hrefs once
            assert cluster is not None
            hrefs, carry, was_open = len({href for _, href in cluster}), 0, False
        elif not carried:
            return
        else:
            hrefs, carry = known >> 32, known & _LOW
            was_open = hrefs != carry
        carry += carried
        self.sizes.put(d, hrefs << 32 | carry)
        self.open += (hrefs != carry) - was_open

    def broken(self) -> set[int]:
        """Digests of the sets some href does not carry (empty when none is open)."""
        if not self.open:
            return set()
        return {d for d, v in self.sizes.items() if v >> 32 != v & _LOW}


class Listing(NamedTuple):
    """Where a member of a broken set listed it last, read again for the findings."""

    cluster: Cluster
    digest: int
    name: str
    line: int


class ClusterRecall:
    """The second reading: each member whose last set is broken, in the order members
    first appeared, with the file and line of its last listing (as the first reading
    would have kept them)."""

    def __init__(self, record: ClusterRecord, broken: set[int]) -> None:
        self.record, self.broken = record, broken
        self.found: dict[str, Listing] = {}
        self.name = ""  # the file being read again, as findings name it

    def add(self, key: str, cluster: Cluster, file_no: int, line: int) -> None:
        last = self.record.members.get(key)
        if last >= 0 and last >> 1 in self.broken:
            self.found[key] = Listing(cluster, digest(cluster), self.name, line)

    def members(self) -> Iterable[tuple[str, Listing]]:
        """Each member of a broken set, at its last listing (which set the member's
        value; a file changed since the first reading is the only way it would not)."""
        for key, listing in self.found.items():
            if self.record.members.get(key) >> 1 == listing.digest:
                yield key, listing
