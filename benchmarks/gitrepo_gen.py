"""Build a docs repository with N files and ~1,000 commits via git fast-import."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path


def make_repo(root: Path, files: int, commits: int = 1000, seed: int = 1,
              suffix: str = ".md") -> list[str]:
    rng = random.Random(seed)
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    names = [f"docs/section-{i % 50}/page-{i}{suffix}" for i in range(files)]
    out: list[bytes] = []
    t0 = 1_600_000_000
    for c in range(commits):
        changed = names if c == 0 else rng.sample(names, 25)
        when = f"{t0 + c * 3600} +0{c % 6}30"
        msg = f"commit {c}".encode()
        out.append(b"commit refs/heads/main\n")
        out.append(f"committer Bench <b@example.invalid> {when}\n".encode())
        out.append(b"data %d\n%s\n" % (len(msg), msg))
        for name in changed:
            data = (f"# {name}\n\nrevision {c}\n" if suffix == ".md" else
                    f":orphan:\n\n{name}\n{'=' * len(name)}\n\nrevision {c}\n").encode()
            out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(data), data))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(out), check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)
    return names
