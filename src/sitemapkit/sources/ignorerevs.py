"""The commits a page's date passes over (formatting sweeps): ``ignore_revs`` and the
ignore-revs file, each resolved as ``git blame --ignore-rev`` resolves it (full ids,
abbreviations, tags) in one ``git cat-file --batch-check``. What git cannot resolve,
and a named ignore-revs file that is missing, is a warning quoting git, never ignored
in silence; the conventional ``.git-blame-ignore-revs`` may be absent."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from ..options import IGNORE_REVS_FILE
from .gitlog import git_command

if TYPE_CHECKING:
    from .gitdates import GitDates, GitOptions


def ignored_commits(git: str, root: Path, opts: GitOptions, out: GitDates) -> set[str]:
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
    answers = _resolve(git, root, list(named), out) if named else {}
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


def _resolve(git: str, root: Path, revs: list[str], out: GitDates) -> dict[str, str] | None:
    """Each revision as ``git cat-file --batch-check`` answers it, in one call (None,
    with a warning, when git fails)."""
    out.git_calls += 1
    done = subprocess.run(git_command(git, "cat-file",
                                      "--batch-check=%(objectname) %(objecttype)"),
                          cwd=root, capture_output=True, check=False,
                          input="".join(f"{r}^{{commit}}\n" for r in revs).encode())
    lines = done.stdout.decode(errors="replace").splitlines()
    if done.returncode == 0 and len(lines) == len(revs):
        return dict(zip(revs, lines, strict=True))
    words = done.stderr.decode(errors="replace").strip().splitlines()
    out.warnings.append(f"git cat-file failed in {root}: "
                        f"{words[-1] if words else f'exit status {done.returncode}'}; the "
                        "ignore revisions could not be checked")
    return None
