"""Random real histories: the batched pass must equal git's own per-file answer.

Each example builds a repository of 30 to 80 commits with branches and merges
(clean, conflicting, evil and octopus), edits, pure renames and renames with edits (across
folders, into and out of docs/), deletions and re-additions, reverts to earlier
content, ignored mechanical commits, odd file names, and code churn: commits that
touch only code, code files added and deleted, files moved into and out of docs/.
Every tracked file's date from one ``git_dates`` call must equal
``gitref.reference_date``.
"""

from __future__ import annotations

import os
import random
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

from gitref import reference_date
from gitrepo import Repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit.gitdates import GitOptions, git_dates

DIRS = ["docs", "docs/guide", "docs/blog", "blog/docs", "", "other/deep"]
NAMES = ["a.md", "b.md", "c d.md", "über.md", "-dash.md", "index.md", "x&y.md"]
OPS = ["edit", "edit", "add", "add", "rename", "rename-edit", "delete", "readd", "revert",
       "sweep", "branch", "merge", "merge", "octopus", "churn", "churn", "churn", "code-add",
       "code-delete", "move-in", "move-out"]
def iso(d: datetime | None) -> str | None:
    return d.isoformat() if d else None


EXAMPLES = int(os.environ.get("SITEMAPKIT_GIT_EXAMPLES", "10"))


class History:
    """Applies drawn operations to a real repository, keeping what the test needs."""

    def __init__(self, root: Path, seed: int) -> None:
        self.repo = Repo(root)
        self.rng = random.Random(seed)
        self.when = datetime(2020, 1, 1, tzinfo=timezone.utc)
        self.ignored: set[str] = set()
        self.serial = 0
        self.past: dict[str, list[str]] = {}  # path -> contents it ever had
        self.deleted: list[str] = []
        self.branches: list[str] = []
        code = {f"src/m{i}.py": f"code {i}\n" for i in range(40)}  # docs/ is a small part,
        self.commit_files({f"docs/{n}": self.text() for n in NAMES[:3]} | {"README.md": "r"}
                          | code)  # so git_dates limits its log to docs/ and verifies

    # --- helpers ---------------------------------------------------------------
    def text(self) -> str:
        """Twenty lines, unique: a one-line edit keeps it similar enough to be a rename."""
        self.serial += 1
        return "".join(f"line {i} of a page written as version {self.serial}\n"
                       for i in range(20))

    def tracked(self) -> list[str]:
        return sorted(p for p in self.repo.git("ls-files", "-z").split("\0") if p)

    def commit_files(self, files: dict[str, str], message: str = "change") -> str:
        for path, text in files.items():
            self.repo.write(path, text)
            self.past.setdefault(path, []).append(text)
        return self.commit(message)

    def commit(self, message: str = "change") -> str:
        self.when += timedelta(hours=self.rng.randint(1, 30))
        offset = timezone(timedelta(hours=self.rng.choice([-5, 0, 2, 9])))
        stamp = self.when.astimezone(offset).isoformat()
        author = (self.when - timedelta(days=self.rng.randint(0, 9))).astimezone(offset)
        return self.repo.commit(stamp, author_when=author.isoformat(), message=message)

    def new_path(self) -> str:
        for _ in range(20):
            d = self.rng.choice(DIRS)
            path = f"{d}/{self.rng.choice(NAMES)}" if d else self.rng.choice(NAMES)
            if not (self.repo.root / path).exists():
                return path
        return f"docs/extra-{self.serial}.md"

    def pick(self) -> str | None:
        files = [p for p in self.tracked() if p != "README.md"]
        return self.rng.choice(files) if files else None

    def edit_line(self, path: str) -> str:
        lines = (self.repo.root / path).read_text("utf-8").splitlines(keepends=True)
        self.serial += 1
        lines[self.rng.randrange(len(lines))] = f"edited line, version {self.serial}\n"
        return "".join(lines)

    def code_files(self) -> list[str]:
        return [p for p in self.tracked() if p.startswith("src/")]

    # --- operations --------------------------------------------------------------
    def op_churn(self) -> None:
        """A commit that touches only code, as most commits of a real project do."""
        files = self.code_files()
        if files:
            chosen = self.rng.sample(files, k=min(len(files), self.rng.randint(1, 4)))
            self.commit_files({path: self.text() for path in chosen}, "code")

    def op_code_add(self) -> None:
        self.serial += 1
        self.commit_files({f"src/new{self.serial}.py": self.text()}, "code")

    def op_code_delete(self) -> None:
        files = self.code_files()
        if len(files) > 1:
            path = self.rng.choice(files)
            self.repo.git("rm", "-q", "--", path)
            self.deleted.append(path)
            self.commit("code")

    def op_move_in(self) -> None:
        """A file from outside docs/ moved in (pure, or with an edit)."""
        outside = [p for p in self.tracked() if not p.startswith("docs/") and p != "README.md"]
        if outside:
            self._move(self.rng.choice(outside), "docs", edit=self.rng.random() < 0.3)

    def op_move_out(self) -> None:
        inside = [p for p in self.tracked() if p.startswith("docs/")]
        if inside:
            self._move(self.rng.choice(inside), self.rng.choice(["other/deep", "src", ""]),
                       edit=self.rng.random() < 0.3)

    def _move(self, path: str, folder: str, edit: bool) -> None:
        name = path.rsplit("/", 1)[-1]
        target = f"{folder}/{name}" if folder else name
        if (self.repo.root / target).exists():
            target = f"{folder or 'other'}/moved{self.serial}-{name}"
        (self.repo.root / target).parent.mkdir(parents=True, exist_ok=True)
        self.repo.git("mv", "--", path, target)
        if edit:
            self.repo.write(target, self.edit_line(target))
        self.commit("move")

    def apply(self, op: str) -> None:
        getattr(self, "op_" + op.replace("-", "_"))()

    def op_edit(self) -> None:
        path = self.pick()
        if path:
            self.commit_files({path: self.edit_line(path)})

    def op_add(self) -> None:
        self.commit_files({self.new_path(): self.text()})

    def op_rename(self, edit: bool = False) -> None:
        path = self.pick()
        if not path:
            return
        target = self.new_path()
        (self.repo.root / target).parent.mkdir(parents=True, exist_ok=True)
        self.repo.git("mv", "--", path, target)
        if edit:
            self.repo.write(target, self.edit_line(target))
        self.commit("rename")

    def op_rename_edit(self) -> None:
        self.op_rename(edit=True)

    def op_delete(self) -> None:
        path = self.pick()
        if path:
            self.repo.git("rm", "-q", "--", path)
            self.deleted.append(path)
            self.commit("delete")

    def op_readd(self) -> None:
        gone = [p for p in self.deleted if not (self.repo.root / p).exists()]
        if gone:
            path = self.rng.choice(gone)
            old = self.past.get(path, [])
            self.commit_files({path: self.rng.choice(old) if old and self.rng.random() < 0.5
                               else self.text()})

    def op_revert(self) -> None:
        path = self.pick()
        if path and len(self.past.get(path, [])) > 1:
            self.commit_files({path: self.past[path][-2]}, "revert")

    def op_sweep(self) -> None:
        files = self.tracked()
        chosen = self.rng.sample(files, k=min(len(files), 3))
        for path in chosen:
            self.repo.write(path, (self.repo.root / path).read_text("utf-8") + "\n")
        self.ignored.add(self.commit("format sweep"))

    def op_branch(self) -> None:
        if self.branches:
            return
        name = f"topic{len(self.ignored)}-{self.when.timestamp():.0f}"
        self.repo.git("checkout", "-q", "-b", name)
        self.branches.append(name)

    def op_merge(self) -> None:
        if not self.branches:
            return
        name = self.branches.pop()
        self.repo.git("checkout", "-q", "main")
        if self.rng.random() < 0.5:
            self.op_edit()  # something on main too, so the merge has two sides
        side = self.rng.choice(["ours", "theirs"])
        self.repo.git("-c", "merge.renames=true", "merge", "-q", "--no-ff", "--no-commit",
                      "-X", side, name, check=False)
        if self.rng.random() < 0.3:  # an evil merge: new content only the merge has
            path = self.pick()
            if path:
                self.repo.write(path, self.edit_line(path))
        self.repo.git("add", "-A")
        self.commit("merge")


    def op_octopus(self) -> None:
        """Three or four branches merged at once, each bringing its own files, so a page's
        content may come from any parent of the merge, not only the second."""
        if self.branches:
            return
        start = self.repo.git("rev-parse", "HEAD").strip()
        files = [p for p in self.tracked() if p != "README.md"]
        self.rng.shuffle(files)
        names = []
        for n in range(self.rng.choice([2, 3])):
            if len(files) < n + 1:
                break
            name = f"octo{n}-{self.when.timestamp():.0f}"
            self.repo.git("checkout", "-q", "-b", name, start)
            self.commit_files({files[n]: self.edit_line(files[n])})
            names.append(name)
        self.repo.git("checkout", "-q", "main")
        if len(names) < 2:
            return
        merged = self.repo.git("merge", "-q", "--no-ff", "--no-commit", *names, check=False)
        if (self.repo.root / ".git" / "MERGE_HEAD").exists():
            self.commit("octopus merge")
        else:  # refused (it never conflicts: each branch has its own file)
            raise AssertionError(f"octopus merge failed: {merged}")


@settings(max_examples=EXAMPLES, deadline=None, derandomize=bool(os.environ.get("CI")),
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(ops=st.lists(st.sampled_from(OPS), min_size=30, max_size=80),
       seed=st.integers(0, 2**32), kind=st.sampled_from(["committer", "author"]))
def test_batched_dates_equal_gits_per_file_answer(tmp_path_factory, ops, seed, kind):
    work = tmp_path_factory.mktemp("history")
    history = History(work / "repo", seed)
    root = history.repo.root
    cached = GitOptions(date_kind=kind, cache_dir=str(work / "cache"), ignore_revs_file=None)
    cut = seed % len(ops)  # a cache written part-way: the final call updates it
    for i, op in enumerate(ops):
        history.apply(op)
        if i == cut:
            git_dates([root / f for f in history.tracked()], cached)
    if history.branches:
        history.op_merge()
    files = history.tracked()
    options = GitOptions(date_kind=kind, ignore_revs=tuple(history.ignored),
                         ignore_revs_file=None)
    result = git_dates([root / f for f in files], options)
    got = {f: result.get(root / f) for f in files}
    want = {f: reference_date(root, f, history.ignored, kind[0]) for f in files}
    assert {f: iso(d) for f, d in got.items()} == want
    octopus = len(history.repo.git("rev-list", "--min-parents=3", "HEAD").split())
    # constant whatever the size, plus at most one diff per extra parent of an octopus merge
    assert result.git_calls <= 8 + 3 * octopus and not result.warnings
    incremental = git_dates([root / f for f in files], cached)
    assert incremental.dates == git_dates([root / f for f in files], replace(cached,
                                                                      cache_dir=None)).dates
    docs = [f for f in files if f.startswith("docs/")]  # the log limited to docs/
    limited = git_dates([root / f for f in docs], options)
    assert {f: iso(limited.get(root / f)) for f in docs} == {f: want[f] for f in docs}
    alone = files[len(files) // 2]  # a date never depends on what else was asked
    assert git_dates([root / alone], options).get(root / alone) == got[alone]
