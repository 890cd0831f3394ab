"""Git dates for files at a commit that is not checked out, in any repository on the
machine (a plain one, a bare clone): ``RefTrees`` checks each (repository, commit)
out in a work tree of its own, and the one git pass dates every path under them,
one batched pass per tree, each equal to ``git log -1 <commit> -- path`` with the
rename rule (tests/helpers/gitref.py)."""

from __future__ import annotations

import subprocess

from gitref import reference_date
from gitrepo import Repo

from sitemapkit.sources.git.dates import git_dates
from sitemapkit.sources.git.reftrees import RefTrees


def test_files_at_two_branches_of_a_repository_and_of_a_bare_clone(tmp_path):
    repo = Repo(tmp_path / "a")
    repo.commit("2024-01-01T10:00:00+01:00", {"docs/p.md": "one\n", "docs/q.md": "one\n"})
    repo.git("branch", "old")
    repo.commit("2024-02-01T10:00:00+01:00", {"docs/p.md": "two\n"})
    repo.git("mv", "docs/q.md", "docs/r.md")
    repo.commit("2024-03-01T10:00:00+01:00")  # a pure rename on main
    repo.git("checkout", "-q", "old")
    repo.commit("2024-04-01T10:00:00+01:00", {"docs/q.md": "old, fixed late\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("2024-05-01T10:00:00+01:00", {"docs/p.md": "work in progress\n"})
    bare = tmp_path / "a-clone.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.root), str(bare)], check=True)
    main_before = repo.git("rev-parse", "HEAD~1").strip()
    old = repo.git("rev-parse", "old").strip()
    with RefTrees() as trees:
        at_old = trees.at(str(repo.root / ".git"), old)
        at_main = trees.at(str(bare), main_before)
        assert at_old is not None and at_main is not None
        assert trees.at(str(repo.root / ".git"), old) == at_old  # one tree per pair
        paths = {str(at_old / "docs/p.md"): reference_date(repo.root, "docs/p.md", rev=old),
                 str(at_old / "docs/q.md"): reference_date(repo.root, "docs/q.md", rev=old),
                 str(at_main / "docs/p.md"): reference_date(repo.root, "docs/p.md",
                                                            rev=main_before),
                 str(at_main / "docs/r.md"): reference_date(repo.root, "docs/r.md",
                                                            rev=main_before)}
        found = git_dates(paths)
        assert {p: found.get(p).isoformat() for p in paths} == paths
        assert paths[str(at_old / "docs/q.md")] == "2024-04-01T10:00:00+01:00"
        assert paths[str(at_main / "docs/r.md")] == "2024-01-01T10:00:00+01:00"  # renamed
        assert paths[str(at_main / "docs/p.md")] == "2024-02-01T10:00:00+01:00"
        assert trees.at(str(bare), "0" * 40) is None  # not in this clone: said, not raised
        assert list(trees.failed) == [(str(bare.resolve()), "0" * 40)]
    assert not at_old.exists() and not at_main.exists()
    listed = repo.git("worktree", "list").splitlines()
    assert len(listed) == 1, listed
    assert subprocess.run(["git", "worktree", "list"], cwd=bare, capture_output=True,
                          text=True).stdout.count("\n") == 1
