"""Git processes for the history walk: the command line every call uses, the version
check, a log read as NUL-separated tokens and the commits someone waits at, and the
status run beside the walk."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

Group = dict[str, list[str]]  # path as named at the waiting commit -> targets
Changes = dict[str, tuple[str, str | None]]  # path -> (status, old path)
_FS = (sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())  # os.fsdecode's
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
    renames: bool = True  # ask the whole-tree diff where a page was added
    paths: tuple[str, ...] = ()  # limit the log to these; () = everything

    def covers(self, path: str) -> bool:
        """Whether the log's pathspec includes ``path`` (literal pathspecs)."""
        return not self.paths or any(path == p or path.startswith(p + "/")
                                     for p in self.paths)


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


Raw = dict[str, tuple[str, bytes]]  # path -> (status, object id after the commit)
_Commit = tuple[str, list[str], str, Raw]


def commits_waited_at(stream: Stream, waiting: dict[str, Group],
                      tip: str | None = None) -> Iterator[_Commit]:
    """(commit, parents, date, {path: (status, object id)}) for commits someone waits
    at, from a ``--raw -z`` log. The changes of commits nobody waits at are skipped
    without building anything. A ``tip`` the pathspec leaves out (a commit that touches
    none of it) hands its waiting group to the first commit listed, its nearest
    ancestor that does."""
    header: tuple[str, list[str], str] | None = None
    changes: Raw = {}
    tokens = stream.tokens
    for token in tokens:
        if token.startswith(b"\n"):
            token = token.lstrip(b"\n")
        if token.startswith(b"\x1e"):
            if header is not None:
                yield (*header, changes)
            commit, parents, when = token[1:].decode().split("\x1f")
            if tip is not None and tip != commit and tip in waiting:
                into = waiting.setdefault(commit, {})
                for name, targets in waiting.pop(tip).items():
                    into.setdefault(name, []).extend(targets)
            tip = None
            header = (commit, parents.split(), when) if commit in waiting else None
            changes = {}
            continue
        if not token.startswith(b":"):
            continue
        path = next(tokens)  # ":mode mode old-id new-id status", then the path
        if header is not None:
            _, blob, status = token.rsplit(b" ", 2)
            changes[path.decode(*_FS)] = (status.decode(), blob)
    if header is not None:
        yield (*header, changes)


class Background:
    """A git command running beside the walk; its exit status is checked at the end."""

    def __init__(self, git: str, root: Path, args: list[str]) -> None:
        self.args = args
        self.proc = subprocess.Popen(git_command(git, *args), cwd=root,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def stop(self) -> None:
        """Let it end unheard (the pass failed before it was needed). Not killed: a
        status killed half-way can leave the repository's index.lock behind."""
        self.proc.communicate()

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
