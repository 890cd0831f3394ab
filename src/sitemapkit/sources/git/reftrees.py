"""Files as they are at a commit of any repository on this machine (a branch a site
generator built without checking it out, a clone in the generator's cache, bare or
not): one detached work tree per repository and commit (``Revisions``), alive until
``close``. A path under such a tree is dated by the git pass like any other, in one
batched pass per repository and commit, with that commit's history, renames and
ignore-revs."""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

from .commands import GitFailed
from .revision import Revisions


class RefTrees:
    """Work trees by (git directory, commit); a failure is kept per pair and said once."""

    def __init__(self, git: str = "git") -> None:
        self.git = git
        self.trees: dict[tuple[str, str], Revisions] = {}
        self.failed: dict[tuple[str, str], str] = {}

    def at(self, gitdir: str, commit: str) -> Path | None:
        """The work tree of ``gitdir``'s repository at ``commit``; None when git cannot
        check it out (the reason is in ``failed``)."""
        key = (os.path.realpath(gitdir), commit)
        if key in self.failed:
            return None
        found = self.trees.get(key)
        if found is not None and found.tree is not None:
            return found.tree
        top = Path(key[0])
        if top.name == ".git" and top.is_dir():
            top = top.parent  # a repository with a work tree of its own; else a bare one
        revisions = Revisions(top, self.git)
        try:
            tree = revisions.at(commit)
        except (GitFailed, OSError) as exc:
            revisions.close()
            self.failed[key] = str(exc)
            return None
        self.trees[key] = revisions
        return tree

    def close(self) -> None:
        for revisions in self.trees.values():
            revisions.close()
        self.trees.clear()

    def __enter__(self) -> RefTrees:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
