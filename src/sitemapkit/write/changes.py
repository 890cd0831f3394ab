"""Which URLs changed since the previous run: the writer's per-URL lastmod record.

IndexNow wants only URLs that changed. The hot unit hands over the (loc, lastmod)
pairs of each shard it closes (``UrlsetBuffer.pairs()``); the record compares them
with the record the previous run left, and replaces the record after a successful
commit. Off unless asked: the record costs memory per URL.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .._files import atomic_write

RECORD_VERSION = 1


@dataclass
class Changes:
    """URLs new or with a moved lastmod, and URLs gone, compared with the last record."""

    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    baseline: bool = False  # no previous record: this run only starts one
    why: str = ""  # with baseline: what was tried, when something was
    record: LastmodRecord | None = field(default=None, repr=False)  # the one saved
    previous: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def all(self) -> list[str]:
        return self.changed + self.removed

    def requeue(self, urls: list[str]) -> None:
        """Put ``urls`` back to their previous state in the record, so the next run
        reports them again (a dry run, or a submission that failed)."""
        if self.record is None or not urls:
            return
        lastmods = self.record.lastmods
        for url in urls:
            if url in self.previous:
                lastmods[url] = self.previous[url]
            else:
                lastmods.pop(url, None)
        self.record.save()


class LastmodRecord:
    """Collects (loc, lastmod) of every written URL during one run."""

    def __init__(self, path: str | os.PathLike[str], base: str) -> None:
        self.path, self.base = Path(path), base
        self.lastmods: dict[str, str] = {}

    def add(self, pairs: list[tuple[str, str]]) -> None:
        """One shard's (loc, lastmod or "") pairs."""
        self.lastmods.update(pairs)

    def previous(self) -> dict[str, str] | None:
        """The record the last run left for this site, if any."""
        return self._read()

    def compare(self, previous: dict[str, str] | None = None) -> Changes:
        """Against ``previous`` (loc -> lastmod or ""; a published set read back) when
        given, else against the record the last run left."""
        previous = self._read() if previous is None else previous
        if previous is None:
            return Changes(baseline=True, record=self)
        changed = [loc for loc, lm in self.lastmods.items() if previous.get(loc) != lm]
        removed = [loc for loc in previous if loc not in self.lastmods]
        return Changes(changed, removed, record=self, previous=previous)

    def _read(self) -> dict[str, str] | None:
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("version") != RECORD_VERSION or \
                data.get("base") != self.base or not isinstance(data.get("lastmods"), dict):
            return None  # another site or format: start over rather than guess
        return {str(k): str(v) for k, v in data["lastmods"].items()}

    def save(self) -> None:
        """Atomic replace: a crash leaves the old record, never half a new one."""
        atomic_write(self.path, json.dumps({"version": RECORD_VERSION, "base": self.base,
                                            "lastmods": self.lastmods}, separators=(",", ":")))
