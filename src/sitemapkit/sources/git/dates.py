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
from datetime import datetime, timezone

from ..._display import count
from ...errors import GitDatesError
from ...options import POLICIES
from .commands import git_check
from .model import WHAT, GitDates, GitOptions, Policy, absolute
from .repo import Repo

__all__ = ["POLICIES", "GitDates", "GitDatesError", "GitOptions", "Policy", "git_dates"]

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
    counted = {absolute(p) for p in paths}
    wanted = sorted(counted | {absolute(p) for p in extra})
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


