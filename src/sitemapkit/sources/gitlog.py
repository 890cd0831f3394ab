"""Git processes for the history walk: the command line every call uses, a log read as
NUL-separated tokens, the commits someone waits at, the merges' combined diffs, and
the whole-tree diff ``verify`` checks a folder-limited walk against."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

Group = dict[str, list[str]]  # path as named at the waiting commit -> targets
Changes = dict[str, tuple[str, str | None]]  # path -> (status, old path)
_COMMIT_ID = re.compile("[0-9a-f]{40}")
MIN_GIT = (2, 31)  # ``log --diff-merges=first-parent`` came with git 2.31
_VERSION = re.compile(r"git version (\d+)\.(\d+)")


class GitFailed(RuntimeError):
    """A git process ended with an error; the message carries git's own words."""


@dataclass(frozen=True)
class WalkSpec:
    """Everything the walk needs to know about the repository and the user's options."""

    git: str
    root: Path
    date_kind: str  # "committer" or "author"
    ignored: frozenset[str] = frozenset()  # full or abbreviated lower-case commit ids
    boundary: frozenset[str] = frozenset()  # shallow clone: grafted commits
    renames: bool = True
    paths: tuple[str, ...] = ()  # limit the log to these (see Decision); () = everything


def git_command(git: str, *args: str) -> list[str]:
    """Every git call: literal pathspecs, names unquoted, no pager, no colour."""
    return [git, "--literal-pathspecs", "--no-pager", "-c", "core.quotepath=false",
            "-c", "color.ui=false", *args]


@functools.lru_cache(maxsize=8)
def git_check(git: str) -> tuple[str, str | None]:
    """(what ``git --version`` said, why this git cannot run the walk or None), asked
    once per process and executable."""
    try:
        done = subprocess.run([git, "--version"], capture_output=True, check=False,
                              timeout=60)
    except (OSError, subprocess.SubprocessError) as exc:
        return "", f"{git} could not be run ({exc})"
    said = (done.stdout or done.stderr).decode(errors="replace").strip()
    found = _VERSION.match(said)
    if done.returncode != 0 or found is None:
        return said, f"{git} --version did not answer with a version (it said {said!r})"
    if (int(found[1]), int(found[2])) < MIN_GIT:
        return said, (f"{git} is too old: it says {said!r}, and the history pass needs "
                      f"git {MIN_GIT[0]}.{MIN_GIT[1]} or newer (log --diff-merges)")
    return said, None


class Stream:
    """One git process read as NUL-separated tokens; stderr kept for the message."""

    def __init__(self, spec: WalkSpec, args: list[str]) -> None:
        self.args = args
        self.stderr: IO[bytes] = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(git_command(spec.git, *args), cwd=spec.root,
                                     stdout=subprocess.PIPE, stderr=self.stderr)
        assert self.proc.stdout is not None
        self.tokens = _tokens(iter(lambda: self.proc.stdout.read(1 << 16), b""))  # type: ignore[union-attr]

    def check(self) -> None:
        """After reading to the end: raise GitFailed when git did not exit cleanly."""
        code = self.proc.wait()
        if code != 0:
            self.stderr.seek(0)
            words = self.stderr.read().decode(errors="replace").strip() or f"exit status {code}"
            raise GitFailed(f"git {' '.join(self.args[:2])} failed: {words.splitlines()[-1]}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        assert self.proc.stdout is not None
        self.proc.stdout.close()
        self.proc.wait()
        self.stderr.close()


def _tokens(stream: Iterable[bytes]) -> Iterator[bytes]:
    """NUL-separated tokens from a byte stream, without holding it all."""
    rest = b""
    for chunk in stream:
        parts = (rest + chunk).split(b"\0")
        rest = parts.pop()
        yield from parts
    if rest:
        yield rest


_Commit = tuple[str, list[str], str, dict[str, tuple[str, str | None]]]


def commits_waited_at(stream: Stream, waiting: dict[str, Group]) -> Iterator[_Commit]:
    """(commit, parents, date, {path: (status, old path)}) for commits someone waits at.

    The changes of commits nobody waits at are skipped without building anything.
    """
    header: tuple[str, list[str], str] | None = None
    changes: dict[str, tuple[str, str | None]] = {}
    tokens = stream.tokens
    for token in tokens:
        if token.startswith(b"\n"):
            token = token.lstrip(b"\n")
        if token.startswith(b"\x1e"):
            if header is not None:
                yield (*header, changes)
            commit, parents, when = token[1:].decode().split("\x1f")
            header = (commit, parents.split(), when) if commit in waiting else None
            changes = {}
            continue
        if not token:
            continue
        status = token.decode()
        old = os.fsdecode(next(tokens)) if status[:1] in "RC" else None
        path = os.fsdecode(next(tokens))
        if header is not None:
            changes[path] = (status, old)
    if header is not None:
        yield (*header, changes)


class Combined:
    """Paths each merge changed against every parent, read on demand from the merges log
    (both logs list merges in the same order; others are kept until asked for)."""

    def __init__(self, spec: WalkSpec, revs: list[str]) -> None:
        self.spec, self.revs = spec, revs
        self.stream: Stream | None = None
        self.done: dict[str, set[str]] = {}
        self.current: tuple[str, set[str]] | None = None
        self.ended = False

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()

    def paths(self, merge: str) -> set[str]:
        if self.stream is None:
            limit = ["--full-history", "--sparse", "--", *self.spec.paths] \
                if self.spec.paths else []
            self.stream = Stream(self.spec, [
                "log", "-z", "--topo-order", "--merges", "--format=%x1e%H", "--name-status",
                "--no-renames", "--diff-merges=combined", *self.revs, *limit])
        while merge not in self.done:
            if self.ended:
                raise GitFailed(f"git log --merges did not list merge {merge}")
            token = next(self.stream.tokens, None)
            if token is None or token.lstrip(b"\n").startswith(b"\x1e"):
                if self.current is not None:  # the previous merge's list is complete
                    self.done[self.current[0]] = self.current[1]
                if token is None:
                    self.ended = True
                    self.stream.check()
                    continue
                self.current = (token.lstrip(b"\n")[1:].decode(), set())
            elif token.strip(b"\n") and self.current is not None:
                self.current[1].add(os.fsdecode(next(self.stream.tokens)))
        return self.done.pop(merge)


def changed_between(spec: WalkSpec, parent: str, commit: str) -> set[str]:
    """Every path whose content differs between two commits (one ``git diff-tree``):
    which parent of an octopus merge a page's content came through."""
    done = subprocess.run(git_command(spec.git, "diff-tree", "-r", "-z", "--no-renames",
                                      "--name-only", parent, commit),
                          cwd=spec.root, capture_output=True, check=False)
    if done.returncode != 0:
        words = done.stderr.decode(errors="replace").strip().splitlines()
        raise GitFailed(f"git diff-tree {parent} {commit} failed: "
                        f"{words[-1] if words else done.returncode}")
    return {os.fsdecode(p) for p in done.stdout.split(b"\0") if p}


def whole_tree_changes(spec: WalkSpec, commits: list[str]) -> dict[str, Changes]:
    """Each commit's whole-tree changes, from one ``git diff-tree --stdin``."""
    args = ["diff-tree", "--stdin", "-r", "-z", "--root", "--name-status",
            "-M" if spec.renames else "--no-renames"]
    done = subprocess.run(git_command(spec.git, *args), cwd=spec.root, capture_output=True,
                          input="".join(c + "\n" for c in commits).encode(), check=False)
    if done.returncode != 0:
        words = done.stderr.decode(errors="replace").strip().splitlines()
        raise GitFailed(f"git diff-tree failed: {words[-1] if words else done.returncode}")
    whole: dict[str, Changes] = {}
    current: Changes = {}
    tokens = iter(done.stdout.split(b"\0"))
    for token in tokens:
        text = token.decode().strip("\n")
        if _COMMIT_ID.fullmatch(text):  # statuses are upper case: this starts a commit
            current = whole.setdefault(text, {})
        elif text:
            old = os.fsdecode(next(tokens)) if text[:1] in "RC" else None
            current[os.fsdecode(next(tokens))] = (text, old)
    return whole


class Background:
    """A git command running beside the walk; its exit status is checked at the end."""

    def __init__(self, git: str, root: Path, args: list[str]) -> None:
        self.args = args
        self.proc = subprocess.Popen(git_command(git, *args), cwd=root,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def finish(self) -> tuple[bytes, str | None]:
        out, err = self.proc.communicate()
        if self.proc.returncode == 0:
            return out, None
        words = err.decode(errors="replace").strip().splitlines()
        return out, f"git {self.args[0]} failed: {words[-1] if words else self.proc.returncode}"


def parse_status(data: bytes) -> tuple[set[str], set[str]]:
    """(dirty, untracked) repo-relative paths from ``git status --porcelain=v1 -z``."""
    dirty: set[str] = set()
    untracked: set[str] = set()
    tokens = iter(data.split(b"\0"))
    for token in tokens:
        if not token:
            continue
        code, path = token[:2].decode(), os.fsdecode(token[3:])
        if code == "??":
            untracked.add(path)
        else:
            dirty.add(path)
            if code[0] in "RC":
                next(tokens, None)  # the rename's source path
    return dirty, untracked
