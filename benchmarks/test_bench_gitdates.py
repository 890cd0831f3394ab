"""Git dates: our one batched pass against per-file `git log -1 --follow` (same run).

Per-file is timed on every file at 2,000 files; at 10,000 it is timed on a
1,000-file sample and scaled (it would take minutes), which the note says.
"""

from __future__ import annotations

import random
import subprocess
import time

import pytest

from conftest import NOTES, TIMES, best_of
from gitrepo_gen import make_repo
from sitemapkit.gitdates import git_dates

SAMPLE = 1000


@pytest.fixture(scope="module", params=[2000, 10000], ids=lambda n: f"{n}files")
def repo(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("gitbench") / "repo"
    names = make_repo(root, request.param)
    return root, [root / n for n in names]


def per_file(root, paths) -> float:
    started = time.perf_counter()
    for path in paths:
        subprocess.run(["git", "log", "-1", "--follow", "--format=%cI", "--",
                        str(path.relative_to(root))], cwd=root, capture_output=True, check=True)
    return time.perf_counter() - started


def test_batched_pass(benchmark, repo):
    root, paths = repo
    n = len(paths)
    benchmark.group = "git-dates"
    result, TIMES[f"git-batched-{n}"] = best_of(benchmark, git_dates, paths)
    assert result.from_git == n
    sample = paths if n <= 2000 else random.Random(3).sample(paths, SAMPLE)
    # spot-check correctness against the per-file reference
    for path in sample[:50]:
        ref = subprocess.run(["git", "log", "-1", "--format=%cI", "--",
                              str(path.relative_to(root))], cwd=root, capture_output=True,
                             text=True, check=True).stdout.strip()
        assert result.get(path).isoformat() == ref
    elapsed = per_file(root, sample) * n / len(sample)
    TIMES[f"git-per-file-{n}"] = elapsed
    ours = TIMES[f"git-batched-{n}"]
    scaled = "" if len(sample) == n else f" (timed on {len(sample):,} files, scaled)"
    NOTES.append(f"git dates, {n:,} files / 1,000 commits: batched {ours:.3f} s with "
                 f"{result.git_calls} git processes; per-file {elapsed:.1f} s{scaled}: "
                 f"{elapsed / ours:.0f}x")
