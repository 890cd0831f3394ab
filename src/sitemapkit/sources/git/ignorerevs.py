"""The commits a page's date passes over (formatting sweeps): ``ignore_revs`` and the
ignore-revs file, each resolved as ``git blame --ignore-rev`` resolves it (full ids,
abbreviations, tags) by the pass's ``git cat-file --batch-check``. What git cannot resolve,
and a named ignore-revs file that is missing, is a warning quoting git, never ignored
in silence; the conventional ``.git-blame-ignore-revs`` may be absent."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ...options import IGNORE_REVS_FILE
from .ask import Asker
from .commands import GitFailed

if TYPE_CHECKING:
    from .model import GitDates, GitOptions


def ignored_commits(ask: Asker, root: Path, opts: GitOptions, out: GitDates) -> set[str]:
    """Full ids of the commits to ignore (lower-case names as given when git could not
    check them); warnings go to ``out``."""
    named = {r.strip(): "ignore_revs" for r in opts.ignore_revs if r.strip()}
    given = opts.ignore_revs_file
    if given:
        path = root / given
        if path.is_file():
            for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
                rev = line.split("#", 1)[0].strip()
                if rev:
                    named.setdefault(rev, f"{given} line {number}")
        elif given != IGNORE_REVS_FILE:
            out.warnings.append(
                f"the ignore-revs file {given} does not exist in {root}: no commit from it "
                "is ignored (git blame refuses it: \"could not open object name list\")")
    answers = _resolve(ask, root, list(named), out) if named else {}
    if answers is None:
        return {rev.lower() for rev in named}  # git could not check them (warned)
    commits = set()
    for rev, where in named.items():
        if answers[rev].endswith(" commit"):
            commits.add(answers[rev].split()[0])
        else:
            out.warnings.append(f"ignore revision {rev!r} ({where}) is not a commit of "
                                f"{root}: git cat-file says \"{answers[rev]}\"; it is not "
                                "ignored")
    return commits


def _resolve(ask: Asker, root: Path, revs: list[str], out: GitDates
             ) -> dict[str, str] | None:
    """Each revision as ``git cat-file --batch-check`` answers it (None, with a
    warning, when git fails)."""
    try:
        return {rev: ask.name(f"{rev}^{{commit}}") for rev in revs}
    except GitFailed as exc:
        out.warnings.append(f"{exc} in {root}; the ignore revisions could not be checked")
        return None
