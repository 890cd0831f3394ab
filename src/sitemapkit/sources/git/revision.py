"""A project as it was at a past commit (a deployed version's), checked out in one
detached worktree of its repository that moves from commit to commit. A version built
long ago is then mapped and dated by exactly the rules of a build at that commit: its
config, its files, and git's history up to it (renames, ignore-revs and all). Git
rewrites only the files two commits differ in, so versions taken oldest first cost
little after the first; the work tree is removed, and its registration pruned, at the
end, and a killed run's is removed by the next."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from ..._files import remove_dead_temp_folders
from .commands import GitFailed, git_command

PREFIX = "sitemapkit-version-"  # + pid + "-": a dead pid's folder is a killed run's


class Revisions:
    """Commits of the repository at ``top``, and one work tree to check them out in."""

    def __init__(self, top: Path, git: str = "git") -> None:
        self.top, self.git = top, git
        self.tree: Path | None = None
        self._parent: Path | None = None

    def _run(self, *args: str, cwd: Path | None = None, check: bool = True) -> str:
        done = subprocess.run(git_command(self.git, *args), cwd=cwd or self.top,
                              capture_output=True, check=False)
        if check and done.returncode != 0:
            words = done.stderr.decode(errors="replace").strip().splitlines()
            raise GitFailed(f"git {args[0]} failed in {cwd or self.top}: "
                            f"{words[-1] if words else f'exit status {done.returncode}'}")
        return done.stdout.decode(errors="replace") if done.returncode == 0 else ""

    def resolve(self, ref: str) -> str | None:
        """The full id of the commit ``ref`` names, or None when this clone lacks it."""
        if not ref or ref.startswith("-"):
            return None
        found = self._run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}",
                          check=False).strip()
        return found or None

    def oldest_first(self, commits: list[str]) -> list[str]:
        """``commits`` by committer time, oldest first (each checkout then rewrites
        what changed since the one before)."""
        if not commits:
            return []
        out = self._run("log", "--no-walk", "--format=%ct %H", *sorted(set(commits)),
                        check=False)  # no times: the order given, each checkout whole
        when = {h: int(t) for t, h in (line.split() for line in out.splitlines() if line)}
        return sorted(set(commits), key=lambda c: (when.get(c, 0), c))

    def at(self, commit: str) -> Path:
        """The work tree, checked out at ``commit``."""
        if self.tree is None:
            _remove_stale(self.top, self.git)
            self._parent = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
            self.tree = self._parent / "tree"
            self._run("worktree", "add", "--detach", "--quiet", str(self.tree), commit)
        else:
            self._run("checkout", "--detach", "--quiet", "--force", commit, cwd=self.tree)
        return self.tree

    def close(self) -> None:
        if self.tree is not None:
            self._run("worktree", "remove", "--force", str(self.tree), check=False)
            self.tree = None
        if self._parent is not None:
            shutil.rmtree(self._parent, ignore_errors=True)
            self._run("worktree", "prune", check=False)
            self._parent = None

    def __enter__(self) -> Revisions:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def _remove_stale(top: Path, git: str) -> None:
    """Work trees a killed run left in the temp folder, and their registrations."""
    if remove_dead_temp_folders(PREFIX):
        subprocess.run(git_command(git, "worktree", "prune"), cwd=top, capture_output=True,
                       check=False)
