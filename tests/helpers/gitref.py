"""The per-file reference for git dates, computed with separate git calls per file.

``git log -1 REV -- path`` (git's default history simplification) names the commit;
then the rename rule: when that commit renamed the file from elsewhere without edits
(R100 in the whole-tree ``git diff-tree -M``), or is an ignored commit, look further
back under the old name. A file created by an ignored commit keeps that commit's date.
"""

from __future__ import annotations

import subprocess
from pathlib import Path


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "--literal-pathspecs", "-c", "core.quotepath=false", *args],
                          cwd=root, capture_output=True, text=True, check=True).stdout


def _change_of(root: Path, commit: str, path: str) -> tuple[str, str | None]:
    """(status, old path) of ``path`` in a non-merge commit, renames across the tree."""
    fields = _git(root, "diff-tree", "-r", "-z", "--root", "-M", "--name-status",
                  "--no-commit-id", commit).split("\0")
    i = 0
    while i < len(fields) - 1:
        status = fields[i]
        if status[:1] in "RC":
            old, new = fields[i + 1], fields[i + 2]
            i += 3
        else:
            old, new = None, fields[i + 1]
            i += 2
        if new == path:
            return status, old
    raise AssertionError(f"{commit} does not change {path}")


def reference_date(root: Path, path: str, ignored: set[str] = frozenset(),  # type: ignore[assignment]
                   kind: str = "c", rev: str = "HEAD") -> str | None:
    """The date the batched pass must give ``path`` (repository-relative) at ``rev``."""
    while True:
        line = _git(root, "log", "-1", f"--format=%H %P|%{kind}I", rev, "--", path).strip()
        if not line:
            return None
        ids, when = line.split("|")
        commit, *parents = ids.split()
        if len(parents) > 1:
            return when  # a merge that made this content (git shows no other kind here)
        status, old = _change_of(root, commit, path)
        skip = commit in ignored
        if status[:1] == "R" and old is not None and (skip or status == "R100"):
            path, rev = old, f"{commit}^"
        elif skip and status[:1] != "A":
            rev = f"{commit}^"
        else:
            return when


def newest(*dates: str | None) -> str | None:
    """The latest of ISO dates (None ignored): a list page's expected date."""
    from datetime import datetime
    known = [d for d in dates if d]
    return max(known, key=datetime.fromisoformat) if known else None
