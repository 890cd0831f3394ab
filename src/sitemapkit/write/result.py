"""WriteResult: what one run wrote and what it refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from .._display import count, shown_path
from ..rules.model import EntryError
from .changes import Changes


@dataclass
class WriteResult:
    """What a run wrote and what it refused; ``summary()`` is the one-line report."""

    out_dir: Path
    entry_point: str
    files: list[str]
    index_files: list[str]
    shard_files: list[str]
    url_count: int
    shard_count: int
    duplicate_count: int = 0
    duplicates: list[tuple[int, str]] = field(default_factory=list)
    skipped_count: int = 0
    skipped: list[EntryError] = field(default_factory=list)
    skipped_by_rule: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # worth saying, no failure (a lock wait)
    elapsed: float = 0.0
    changes: Changes | None = None  # with changes_file: URLs changed since the last run
    base_url: str = ""  # normalized URL of out_dir
    location: str | None = None  # an fsspec URL or directory, for partitioned sets
    examples: list[str] = field(default_factory=list)  # partitioned: skipped and duplicates
    retained: list[str] = field(default_factory=list)  # previous shards kept one more commit
    removed: list[str] = field(default_factory=list)  # files unlinked: the replaced set's
    gzip: str = ""  # "gzip: zlib-ng level 6" (compress.description); "" after an engine

    def url(self, name: str) -> str:
        """A written file's URL: names come from options, so percent-encoded like a loc."""
        return self.base_url + quote(name)

    def summary(self) -> str:
        return (f"{count(self.url_count, 'URL')} in {count(self.shard_count, 'shard')}, "
                f"{self.skipped_count:,} skipped, {count(self.duplicate_count, 'duplicate')} "
                f"-> {self._shown_entry_point()} ({self.elapsed:.2f} s{self.gzip_suffix()})")

    def gzip_suffix(self) -> str:
        """The summary line's '; gzip: zlib-ng level 6', or nothing."""
        return f"; {self.gzip}" if self.gzip else ""

    def _shown_entry_point(self) -> str:
        if self.location and "://" in self.location:
            return f"{self.location}/{self.entry_point}"
        return shown_path(self.out_dir / self.entry_point)
