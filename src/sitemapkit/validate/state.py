"""What one validation run learns across files: locs seen, clusters, index references."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import ModuleType
from typing import Protocol

from .._urlset import LocSet
from .._urlset._locset_py import MAX_TAG
from ..protocol import CHANGEFREQS, PLAIN_PRIORITIES
from ..rules.dates import lastmod_key, normalize_lastmod
from ..rules.model import EntryError
from .clusters import Cluster, ClusterRecord
from .findings import Report, Say


class ClusterSink(Protocol):
    """Where members go: the first reading's record, or the second reading."""

    def add(self, key: str, cluster: Cluster, file_no: int, line: int) -> None: ...


@dataclass
class FileResult:
    """One file's outcome, for index resolution and the unreferenced check."""

    path: Path
    kind: str  # urlset, index, text, other, broken
    urls: int = 0
    errors: int = 0
    newest_lastmod: str | None = None
    references: list[tuple[str, str | None, int]] = field(default_factory=list)  # loc, key, line
    referenced: bool = False  # some index of the run lists it


@dataclass
class RunState:
    """Shared by every file of one run (rules 15 and 36 span shards)."""

    report: Report
    max_bytes: int
    future_limit: int
    allow_namespaces: frozenset[str] = frozenset()
    # url key -> the file number where it was first seen: 64-bit hashes and 32-bit
    # tags in the hot unit's LocSet (about 13 bytes a URL in C; 12M URLs in ~160 MB)
    seen: LocSet = field(default_factory=lambda: LocSet(tagged=True))
    file_names: list[str] = field(default_factory=list)
    clusters: ClusterSink = field(default_factory=ClusterRecord)  # rule 36 across files
    lastmod_cache: dict[str, tuple[str, int] | None] = field(default_factory=dict)
    page_check: Callable[[str, Say], None] | None = None
    # the hot-unit twin whose UrlScan takes plain <url> blocks (None: expat reads all);
    # ``seen`` must come from the same twin
    scan_unit: ModuleType | None = None
    sources: list[tuple[Path, str | None]] = field(default_factory=list)  # per file number
    dates_from_git: bool = False  # ValidateOptions.dates_from_git

    def add_cluster(self, key: str, cluster: Cluster, file_no: int, line: int) -> None:
        """One hreflang member, for the check across files (``clusters``)."""
        self.clusters.add(key, cluster, file_no, line)

    def file_note(self, name: str) -> Callable[[str], None]:
        """A note about one file, named, for the run's notes (no finding: it passes)."""
        return lambda message: self.report.notes.append(f"{name}: {message}")

    def file_number(self, name: str, path: Path, scope: str | None) -> int:
        """Number a file (duplicate tags, cluster listings); its path and scope are
        kept for a second reading of its clusters."""
        self.file_names.append(name)
        self.sources.append((path, scope))
        return len(self.file_names) - 1

    def check_duplicate(self, key: str, file_no: int, say: Say,
                        what: str = "loc") -> None:
        first = self.seen.first(key, file_no)
        if first >= 0:
            say("error", "duplicate", self.duplicate_message(key, first, file_no, what))

    def duplicate_message(self, key: str, first: int, file_no: int, what: str = "loc") -> str:
        """Rule 15's message for ``key``, first seen in file number ``first``."""
        if first == MAX_TAG:  # the set keeps 16 bits: a file from the 65,536th on
            where = "also in an earlier file, or earlier in this one"
        else:
            where = ("earlier in this file" if first == file_no
                     else f"also in {self.file_names[first]}")
        return f"{what} {key!r} is listed twice ({where})"

    def check_lastmod(self, text: str, say: Say,
                      id_: str = "lastmod-format") -> tuple[str, int] | None:
        """(canonical form, UTC seconds) of a valid lastmod (rule 16); warns on a future
        one (rule 18). Results are cached: a site has few distinct lastmods."""
        try:
            known = self.lastmod_cache[text]
        except KeyError:
            known = self._parse_lastmod(text, say, id_)
        else:
            if known is None:
                say("error", id_, f"lastmod {text!r} is not YYYY-MM-DD or "
                    "YYYY-MM-DDThh:mm:ss[.f](Z|+hh:mm)")
        if known is not None and known[1] > self.future_limit:
            say("warning", "lastmod-future", f"lastmod {text!r} is more than 24 hours in the "
                "future; engines reject future timestamps")
        return known

    def _parse_lastmod(self, text: str, say: Say,
                       id_: str) -> tuple[str, int] | None:
        stripped = text.strip(" \t\r\n")
        if stripped != text:
            say("warning", "lastmod-whitespace", f"lastmod {text!r} has surrounding whitespace")
        known: tuple[str, int] | None = None
        try:
            canonical = normalize_lastmod(stripped, None)
            assert canonical is not None
            known = (canonical, lastmod_key(canonical))
        except EntryError as exc:
            detail = f" ({exc.detail})" if exc.detail else ""
            say("error", id_, f"lastmod {text!r} is not YYYY-MM-DD or "
                f"YYYY-MM-DDThh:mm:ss[.f](Z|+hh:mm){detail}")
        if len(self.lastmod_cache) < 100_000 and stripped == text:
            self.lastmod_cache[text] = known
        return known


def check_changefreq(text: str, say: Say) -> None:
    if text not in CHANGEFREQS:
        say("error", "changefreq", f"changefreq {text!r} is not one of "
            f"{', '.join(CHANGEFREQS)} (lower case)")


def check_priority(text: str, say: Say) -> None:
    if text in PLAIN_PRIORITIES:
        return
    try:
        number = Decimal(text.strip())
        ok = number.is_finite() and 0 <= number <= 1 and "e" not in text.lower()
    except InvalidOperation:
        ok = False
    if not ok:
        say("error", "priority", f"priority {text!r} is not a decimal from 0.0 to 1.0")
