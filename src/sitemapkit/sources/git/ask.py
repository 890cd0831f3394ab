"""Questions a git pass asks while it runs, each kind answered by one long-running git
process: which file an added page was renamed from (the whole-tree ``diff-tree -M`` of
that one commit), and what a name is (``cat-file --batch-check``): the ignore
revisions, and the blob a path holds in another parent of a merge.

Asking only where a page's chain needs it is what keeps a cold pass near the cost of
one path-limited log: rename detection runs on the few commits where a page appeared,
not on every commit of the history, and a merge is checked for the pages it changed,
not diffed whole.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import tempfile
from pathlib import Path
from typing import IO

from .commands import Changes, GitFailed, git_command

_ECHO = b"sitemapkit-end-of-answer"  # diff-tree --stdin prints a non-commit line as is


class _Process:
    """One git process asked one question at a time over its stdin and stdout."""

    def __init__(self, git: str, root: Path, args: list[str]) -> None:
        self.args = args
        self.stderr: IO[bytes] = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(git_command(git, *args), cwd=root,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, bufsize=0)

    def ask(self, question: bytes, until: bytes) -> bytes:
        """Write one question; read until the answer ends with ``until``."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        answer = b""
        try:
            self.proc.stdin.write(question)
            fd = self.proc.stdout.fileno()
            while not answer.endswith(until):
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
        if not answer.endswith(until):
            raise GitFailed(self._failure())
        return answer[:-len(until)]

    def _failure(self) -> str:
        assert self.proc.stdin is not None
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        code = self.proc.wait()
        self.stderr.seek(0)
        words = self.stderr.read().decode(errors="replace").strip().splitlines()
        return f"git {self.args[0]} failed: {words[-1] if words else f'exit status {code}'}"

    def close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None and not stream.closed:
                with contextlib.suppress(OSError):
                    stream.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.stderr.close()


class Asker:
    """One repository's two helpers, each started on first use and counted in
    ``calls``; ``close`` ends them."""

    def __init__(self, git: str, root: Path) -> None:
        self.git, self.root = git, root
        self.calls = 0
        self._diffs: _Process | None = None
        self._names: _Process | None = None
        self._seen: dict[str, Changes] = {}

    def renames(self, commit: str) -> Changes:
        """{path: (status, old path)} of ``commit`` against its first parent over the
        whole tree, renames detected as ``git diff-tree -M`` does."""
        if commit not in self._seen:
            if self._diffs is None:
                self.calls += 1
                self._diffs = _Process(self.git, self.root, [
                    "diff-tree", "--stdin", "-r", "-z", "--root", "--always", "-M", "--name-status",
                    "--diff-merges=first-parent", "--format=%x1e"])
            try:
                answer = self._diffs.ask(f"{commit}\n".encode() + _ECHO + b"\n",
                                         _ECHO + b"\n")
            except GitFailed:
                self._diffs.close()
                self._diffs = None  # a later question starts a new process
                raise
            self._seen[commit] = _parse_diff(answer)
        return self._seen[commit]

    def name(self, name: str) -> str:
        """``cat-file --batch-check``'s answer for ``name``: "<id> <type>", or "<name>
        missing" (or "ambiguous")."""
        if self._names is None:
            self.calls += 1
            self._names = _Process(self.git, self.root, [
                "cat-file", "--batch-check=%(objectname) %(objecttype)"])
        try:
            return self._names.ask(f"{name}\n".encode(), b"\n").decode(errors="replace")
        except GitFailed:
            self._names.close()
            self._names = None
            raise

    def blob(self, commit: str, path: str) -> str | None:
        """The object id at ``commit:path``; None when there is nothing there."""
        if "\n" in path:  # the batch protocol is line-based: ask this one alone
            done = subprocess.run(git_command(self.git, "rev-parse", "--verify", "-q",
                                              f"{commit}:{path}"),
                                  cwd=self.root, capture_output=True, check=False)
            self.calls += 1
            words = done.stderr.decode(errors="replace").strip().splitlines()
            if done.returncode != 0 and words:  # -q: a missing path says nothing
                raise GitFailed(f"git rev-parse failed: {words[-1]}")
            return done.stdout.decode().strip() or None
        found, _, kind = self.name(f"{commit}:{path}").partition(" ")
        return found if kind in ("blob", "commit", "tree") else None  # commit: a submodule

    def close(self) -> None:
        for process in (self._diffs, self._names):
            if process is not None:
                process.close()
        self._diffs = self._names = None


def _parse_diff(answer: bytes) -> Changes:
    """diff-tree's answer: a ``\\x1e`` header, then NUL-separated statuses and paths."""
    body = answer.partition(b"\0")[2]
    changes: Changes = {}
    tokens = iter(body.split(b"\0"))
    for token in tokens:
        status = token.strip(b"\n").decode()
        if not status:
            continue
        old = os.fsdecode(next(tokens)) if status[:1] in "RC" else None
        changes[os.fsdecode(next(tokens))] = (status, old)
    return changes
