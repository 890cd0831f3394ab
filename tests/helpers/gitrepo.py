"""Real git repositories in tmp, with the dates of every commit set by the test."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class Repo:
    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "Test")
        self.git("config", "user.email", "test@example.invalid")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
        done = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True,
                              env={**os.environ, **(env or {})}, check=check)
        return done.stdout

    def write(self, path: str, text: str) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def commit(self, when: str, files: dict[str, str] | None = None, *,
               author_when: str | None = None, message: str = "change",
               add: bool = True) -> str:
        for path, text in (files or {}).items():
            self.write(path, text)
        if add:
            self.git("add", "-A")
        env = {"GIT_COMMITTER_DATE": when, "GIT_AUTHOR_DATE": author_when or when}
        self.git("commit", "-q", "--allow-empty", "-m", message, env=env)
        return self.git("rev-parse", "HEAD").strip()

    def last_change(self, path: str, kind: str = "c", rev: str = "HEAD") -> str:
        """Reference: per-file `git log -1` at ``rev``, skipping pure renames (R100)."""
        out = self.git("log", "--follow", "-M", "--name-status", f"--format=@%{kind}I",
                       rev, "--", path)
        when = None
        for line in out.splitlines():
            if line.startswith("@"):
                when = line[1:]
            elif line and when and not line.startswith("R100"):
                return when
        raise AssertionError(f"no change for {path}")
