"""What a git pass is asked and what it answers: the options (``GitOptions``) and the
result (``GitDates``), apart from the pass so that its parts can name them without
importing the pass back."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from ...options import IGNORE_REVS_FILE, POLICIES

Policy = Literal["omit", "mtime", "build-time"]
STATES = {  # state -> (one page ..., several pages ...)
    "uncommitted": ("has uncommitted changes", "have uncommitted changes"),
    "untracked": ("is untracked", "are untracked"),
    "not-in-git": ("is not in git (ignored, or outside the repository)",
                   "are not in git (ignored, or outside the repository)"),
    "no-git": ("could not be dated: no git executable",) * 2,
    "old-git": ("could not be dated: git is too old (see the warning)",) * 2,
    "not-a-repo": ("is not in a git repository", "are not in a git repository"),
    "no-commits": ("is in a repository with no commits", "are in a repository with no commits"),
    "git-error": ("could not be dated: git failed (see the warning)",) * 2,
    "shallow": ("last changed beyond the shallow clone's boundary",) * 2,
    "no-history": ("has no commit in the walked history", "have no commit in the walked history"),
    "future": ("is dated by a commit more than 24 hours in the future (see the warning)",
               "are dated by a commit more than 24 hours in the future (see the warning)"),
}
WHAT = {"omit": "lastmod omitted", "mtime": "used the file's mtime",
        "build-time": "used the build time"}


@dataclass(frozen=True)
class GitOptions:
    """How dates are found; every state defaults to omitting lastmod rather than lying."""

    date_kind: Literal["committer", "author"] = "committer"
    ignore_revs: tuple[str, ...] = ()
    ignore_revs_file: str | None = IGNORE_REVS_FILE  # relative to the repo root
    uncommitted: Policy = "omit"
    untracked: Policy = "omit"
    not_in_git: Policy = "omit"
    no_git: Policy = "omit"
    shallow: Literal["warn", "error"] = "warn"
    cache_dir: str | None = None

    def policy(self, state: str) -> Policy:
        return {"uncommitted": self.uncommitted, "untracked": self.untracked,
                "not-in-git": self.not_in_git}.get(state, self.no_git)

    def check(self) -> None:
        if self.date_kind not in ("committer", "author"):
            raise ValueError(f"date_kind must be 'committer' or 'author', not {self.date_kind!r}")
        if self.shallow not in ("warn", "error"):
            raise ValueError(f"shallow must be 'warn' or 'error', not {self.shallow!r}")
        for name in ("uncommitted", "untracked", "not_in_git", "no_git"):
            if getattr(self, name) not in POLICIES:
                raise ValueError(f"{name} must be one of {POLICIES}, not "
                                 f"{getattr(self, name)!r}")


@dataclass
class GitDates:
    """Dates found, reasons for the rest, and aggregate notes (one line per case)."""

    dates: dict[str, datetime] = field(default_factory=dict)  # keys: absolute paths
    unknown: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    git_calls: int = 0
    from_git: int = 0
    states: dict[str, str] = field(default_factory=dict)  # path -> why git gave no date
    policies: dict[str, Policy] = field(default_factory=dict)  # state -> policy applied

    def get(self, path: str | os.PathLike[str]) -> datetime | None:
        found = self.dates.get(path) if isinstance(path, str) else None  # the usual key
        return found if found is not None else self.dates.get(absolute(path))

    def update(self, other: GitDates) -> None:
        """Take in a second pass over other paths (a page's parts found late)."""
        self.dates.update(other.dates)
        self.unknown.update(other.unknown)
        self.states.update(other.states)
        self.warnings += [w for w in other.warnings if w not in self.warnings]
        self.git_calls += other.git_calls
        self.from_git += other.from_git

    def state(self, path: str | os.PathLike[str]) -> str | None:
        """Why git gave ``path`` no date (a ``STATES`` key), or None."""
        return self.states.get(absolute(path))

    def notes_for(self, paths: Iterable[str | os.PathLike[str]]) -> list[str]:
        """One line per reason, counting only ``paths`` (the pages a sitemap lists)."""
        return self._notes({absolute(p) for p in paths})

    def _notes(self, absolute: set[str]) -> list[str]:
        counts: dict[str, int] = {}
        for path in absolute:
            state = self.states.get(path)
            if state is not None:
                counts[state] = counts.get(state, 0) + 1
        return [f"{n:,} page{'s' if n != 1 else ''} {STATES[state][n != 1]}: "
                f"{WHAT[self.policies.get(state, 'omit')]}"  # in STATES' order, every run
                for state in STATES if (n := counts.get(state, 0))]


def absolute(path: str | os.PathLike[str]) -> str:
    """os.path.abspath, skipping the work for paths that are already clean (the usual)."""
    if isinstance(path, str) and path.startswith(os.sep) and "/." not in path and \
            "//" not in path and not path.endswith(os.sep) and os.sep == "/":
        return path
    return os.path.abspath(path)
