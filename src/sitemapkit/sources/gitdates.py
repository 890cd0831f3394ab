"""Last-commit dates for many files from one batched ``git log`` pass per repository.

Host-agnostic: give it file paths, get back ``{path: datetime}`` (the commit's own
UTC offset kept) plus a reason for every path it could not date. Per repository it
runs a constant number of git processes (rev-parse, ls-files, status, one log limited to
the pages' paths, and two long-running helpers when needed: diff-tree where a page was
added, cat-file for merges and ignore revisions; at most 8), whatever the number of
files or commits, and no log at all for a cached HEAD. ``git --version`` is asked once
per process: a git too old for the walk is a warning, as are no git at all and ignore
revisions git cannot resolve.
The walk itself is in ``history``, its helpers in ``gitask``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Literal

from .._display import count
from ..errors import GitDatesError
from ..options import IGNORE_REVS_FILE, POLICIES
from .gitlog import git_check
from .gitrepo import Repo

__all__ = ["POLICIES", "GitDates", "GitDatesError", "GitOptions", "Policy", "git_dates"]

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
        return found if found is not None else self.dates.get(_absolute(path))

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
        return self.states.get(_absolute(path))

    def notes_for(self, paths: Iterable[str | os.PathLike[str]]) -> list[str]:
        """One line per reason, counting only ``paths`` (the pages a sitemap lists)."""
        return self._notes({_absolute(p) for p in paths})

    def _notes(self, absolute: set[str]) -> list[str]:
        counts: dict[str, int] = {}
        for path in absolute:
            state = self.states.get(path)
            if state is not None:
                counts[state] = counts.get(state, 0) + 1
        return [f"{n:,} page{'s' if n != 1 else ''} {STATES[state][n != 1]}: "
                f"{WHAT[self.policies.get(state, 'omit')]}"  # in STATES' order, every run
                for state in STATES if (n := counts.get(state, 0))]


def git_dates(paths: Iterable[str | os.PathLike[str]],
              options: GitOptions | None = None, *,
              extra: Iterable[str | os.PathLike[str]] = ()) -> GitDates:
    """Date every path from its repository's history (see module docstring).

    ``extra`` paths (a page's included files, its translation catalog) are dated in the
    same pass when git can; they get no policy and no note of their own, since they are
    not pages (``states`` still says why one is undated, for the pages showing it).
    """
    opts = options or GitOptions()
    opts.check()
    result = GitDates()
    counted = {_absolute(p) for p in paths}
    wanted = sorted(counted | {_absolute(p) for p in extra})
    fallback: dict[str, list[str]] = {}
    git = shutil.which("git")
    unusable = "no-git" if git is None else None
    pages, what = count(len(counted), "page"), WHAT[opts.no_git]
    if git is not None and wanted and (too_old := git_check(git)[1]) is not None:
        unusable = "old-git"
        if counted:
            result.warnings.append(f"{too_old}: {pages} could not be dated ({what})")
    elif git is None and counted:
        result.warnings.append(f"no git executable on PATH: {pages} could not be dated "
                               f"({what}); install git, or set lastmod to none")
    by_repo: dict[str, list[str]] = {}
    roots: dict[str, str | None] = {}
    for path in wanted:
        root = _repo_root(path.rpartition(os.sep)[0] or os.sep, roots)
        if unusable is not None:
            fallback.setdefault(unusable, []).append(path)
        elif root is None:
            fallback.setdefault("not-a-repo", []).append(path)
        else:
            by_repo.setdefault(root, []).append(path)
    for root, files in by_repo.items():
        assert git is not None
        Repo(git, root, opts, result).date(files, fallback)
    _apply_policies(fallback, opts, result, counted)
    result.notes = result._notes(counted)
    return result


def _absolute(path: str | os.PathLike[str]) -> str:
    """os.path.abspath, skipping the work for paths that are already clean (the usual)."""
    if isinstance(path, str) and path.startswith(os.sep) and "/." not in path and \
            "//" not in path and not path.endswith(os.sep) and os.sep == "/":
        return path
    return os.path.abspath(path)


def _repo_root(directory: str, memo: dict[str, str | None]) -> str | None:
    """Nearest ancestor holding ``.git`` (a directory, or a file for submodules)."""
    if directory not in memo:
        parent = os.path.dirname(directory)
        if os.path.exists(os.path.join(directory, ".git")):
            memo[directory] = directory
        elif parent == directory:
            memo[directory] = None
        else:
            memo[directory] = _repo_root(parent, memo)
    return memo[directory]


def _apply_policies(fallback: dict[str, list[str]], opts: GitOptions, out: GitDates,
                    counted: set[str]) -> None:
    now = datetime.now(timezone.utc).replace(microsecond=0)
    for state, files in fallback.items():
        policy = out.policies[state] = opts.policy(state)
        for path in files:
            out.states[path] = state
            if path not in counted:  # an extra path: undated (its pages' notes say why)
                continue
            if policy == "mtime" and os.path.exists(path):
                out.dates[path] = datetime.fromtimestamp(int(os.stat(path).st_mtime),
                                                         timezone.utc)
            elif policy == "build-time":
                out.dates[path] = now
            else:
                out.unknown[path] = state


