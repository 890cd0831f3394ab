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


def make_code_heavy_repo(root: Path, pages: int = 1000, commits: int = 12000,
                         code_files: int = 600, seed: int = 7, suffix: str = ".md"
                         ) -> list[str]:
    """A repository shaped like a real project's: most commits touch only code.

    About 4 in 5 commits change only ``src/`` or ``tests/``; the rest edit pages. Along
    the way: feature branches merged back (some carrying page edits), pages renamed
    inside the docs folder, one section mass-moved, files moved into and out of
    ``docs/``, code added and deleted. Returns the page paths at the final commit.
    """
    rng = random.Random(seed)
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    docs = [f"docs/section-{i % 40}/page-{i}{suffix}" for i in range(pages)]
    code = [f"src/pkg/mod_{i}.py" if i % 3 else f"tests/test_{i}.py"
            for i in range(code_files)]
    out: list[bytes] = []
    t0 = 1_500_000_000
    mark = 0
    main_mark = 0

    def blob(name: str, c: int) -> bytes:
        body = _page_body(rng, c) if name.startswith("docs/") else ""
        text = (f"# {name}\n\nrevision {c}\n{body}" if name.endswith(".md") else
                f":orphan:\n\n{name}\n{'=' * len(name)}\n\nrevision {c}\n\n{body}"
                if name.endswith(".rst") else
                f"# {name}\nVALUE = {c}\n" + "def f():\n    return 1\n" * rng.randint(2, 40))
        data = text.encode()
        return b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(data), data)

    def commit(c: int, ops: list[bytes], parent: int, merge: int = 0,
               branch: str = "main") -> int:
        nonlocal mark
        mark += 1
        when = f"{t0 + c * 1800} +0{c % 6}30"
        msg = f"commit {c}".encode()
        out.append(f"commit refs/heads/{branch}\nmark :{mark}\n".encode())
        out.append(f"committer Bench <b@example.invalid> {when}\n".encode())
        out.append(b"data %d\n%s\n" % (len(msg), msg))
        if parent:
            out.append(f"from :{parent}\n".encode())
        if merge:
            out.append(f"merge :{merge}\n".encode())
        out.extend(ops)
        return mark

    main_mark = commit(0, [blob(n, 0) for n in docs + code] +
                       [blob(f"README{suffix}", 0)], 0)
    c = 1
    while c < commits:
        roll = rng.random()
        if c == commits // 2:  # mass move of one section
            moved = [d for d in docs if d.startswith("docs/section-3/")]
            ops = [b"R docs/section-3 docs/guide/section-3\n"]
            docs = [d.replace("docs/section-3/", "docs/guide/section-3/") for d in docs]
            main_mark = commit(c, ops, main_mark) if moved else main_mark
        elif c == commits // 3:  # a file moved in from outside docs
            ops = [f"R README{suffix} docs/readme{suffix}\n".encode()]
            docs.append(f"docs/readme{suffix}")
            main_mark = commit(c, ops, main_mark)
        elif c % 25 == 0:  # a feature branch of 3 commits, merged back (pull requests)
            side = main_mark
            for _ in range(3):
                touched = rng.sample(code, 2) + (rng.sample(docs, 1) if rng.random() < .3
                                                 else [])
                side = commit(c, [blob(n, c) for n in touched], side, branch="side")
                c += 1
            main_mark = commit(c, [blob(rng.choice(code), c)], main_mark, side)
        elif c % 997 == 0:  # rename a page inside docs (pure, or with an edit)
            old = rng.choice(docs)
            new = old.replace("page-", "renamed-page-")
            docs[docs.index(old)] = new
            ops = [f"R {old} {new}\n".encode()] + ([blob(new, c)] if c % 2 else [])
            main_mark = commit(c, ops, main_mark)
        elif c % 1201 == 0:  # code added and deleted
            gone = code.pop(rng.randrange(len(code)))
            new = f"src/pkg/new_{c}.py"
            code.append(new)
            main_mark = commit(c, [f"D {gone}\n".encode(), blob(new, c)], main_mark)
        elif roll < 0.8:
            main_mark = commit(c, [blob(n, c) for n in rng.sample(code, rng.randint(1, 5))],
                               main_mark)
        else:
            touched = rng.sample(docs, rng.randint(1, 4)) + (
                rng.sample(code, 1) if rng.random() < 0.3 else [])
            main_mark = commit(c, [blob(n, c) for n in touched], main_mark)
        c += 1
    out.append(f"reset refs/heads/main\nfrom :{main_mark}\n".encode())
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(out),
                   check=True)
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=root, check=True)
    subprocess.run(["git", "repack", "-adq"], cwd=root, check=True)  # as a clone has it
    return docs


def _page_body(rng: random.Random, c: int) -> str:
    """About 3 KB of ordinary documentation: sections, paragraphs, a list, a code
    block and a table, so a build spends on each page what real pages cost."""
    words = ["the", "option", "sets", "a", "value", "for", "each", "build", "page", "when",
             "site", "config", "returns", "file", "search", "engine", "date", "git"]
    parts = []
    for section in range(4):
        parts.append(f"\n## Section {section} (revision {c})\n\n")
        parts.append(" ".join(rng.choice(words) for _ in range(60)) + ".\n\n")
        parts.append("".join(f"- item {i}: {rng.choice(words)} {rng.choice(words)}\n"
                             for i in range(4)))
        parts.append(f"\n```python\ndef f(x):\n    return x * {section}\n```\n\n")
        parts.append("| name | value |\n|---|---|\n" +
                     "".join(f"| {rng.choice(words)} | {i} |\n" for i in range(3)))
    return "".join(parts)
