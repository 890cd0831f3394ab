"""`mkdocs build` with and without sitemapkit, and with git-revision-date-localized.

Generated sites of 2,000 and 10,000 pages over ~1,000 commits. sitemapkit runs cold
(no git-date cache, as on a fresh CI clone) and warm (its cache filled by an earlier
build, as on a developer's machine). The other plugin is only run at 2,000 pages (it
takes minutes at 10,000). All in one session.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

from conftest import NOTES, TIMES
from gitrepo_gen import make_repo

SIZES = [int(s) for s in os.environ.get("SITEMAPKIT_BENCH_PAGES", "2000,10000").split(",")]
CONFIGS = {
    "plain": "plugins: []\n",
    "sitemapkit": "plugins:\n  - sitemapkit:\n      cache_dir: ''\n",  # cold: a fresh clone
    "sitemapkit-warm-cache": "plugins:\n  - sitemapkit\n",  # .cache/sitemapkit kept
    "git-revision-date-localized": "plugins:\n  - git-revision-date-localized\n",
}


@pytest.fixture(scope="module", params=SIZES, ids=lambda n: f"{n}pages")
def site(request, tmp_path_factory):
    root = tmp_path_factory.mktemp("mkbench") / "site"
    make_repo(root, request.param)
    (root / "docs/index.md").write_text("# Home\n")
    return root, request.param


def build(root, name: str) -> tuple[float, float, str]:
    # A short nav: an auto nav of every page makes MkDocs itself quadratic in pages.
    (root / "mkdocs.yml").write_text(f"site_name: Bench\nsite_url: https://example.com/\n"
                                     f"nav: [index.md]\n{CONFIGS[name]}")
    shutil.rmtree(root / "site", ignore_errors=True)  # outside the timing, for every config
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=root,
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    after = os.times()
    # User CPU only: system time on this machine's tmp file system grows build after
    # build (deleting and re-creating thousands of directories) and would swamp it.
    cpu = after.children_user - before.children_user
    return wall, cpu, done.stderr


def test_mkdocs_build(benchmark, site):
    """Configs run round-robin, so drift in the machine (file system, caches) hits all
    of them alike; best of the rounds for each."""
    root, pages = site
    names = [n for n in CONFIGS if n != "git-revision-date-localized" or (
        pages <= 2000 and importlib.util.find_spec(
            "mkdocs_git_revision_date_localized_plugin") is not None)]
    runs: dict[str, list[tuple[float, float, str]]] = {n: [] for n in names}
    rounds = 3
    build(root, "plain")  # warm-up: imports and file system caches
    build(root, "sitemapkit-warm-cache")  # fills the git-date cache the warm config reads

    def all_rounds() -> None:
        for _ in range(rounds):
            for name in names:
                runs[name].append(build(root, name))

    benchmark.group = f"mkdocs-{pages}"
    benchmark.pedantic(all_rounds, rounds=1)
    for name in names:
        TIMES[f"mkdocs-{pages}-{name}"] = min(r[0] for r in runs[name])
        TIMES[f"mkdocs-{pages}-{name}-cpu"] = min(r[1] for r in runs[name])
    for name in ("sitemapkit", "sitemapkit-warm-cache"):
        own = [float(m) for r in runs[name]
               for m in re.findall(r"sitemapkit: .* \(([\d.]+) s[;)]", r[2])]
        NOTES.append(f"mkdocs {pages:,} pages: {name}'s own time in on_post_build "
                     f"{min(own):.3f} s")
    plain, plain_cpu = TIMES[f"mkdocs-{pages}-plain"], TIMES[f"mkdocs-{pages}-plain-cpu"]
    for name in names[1:]:
        wall, cpu = TIMES[f"mkdocs-{pages}-{name}"], TIMES[f"mkdocs-{pages}-{name}-cpu"]
        NOTES.append(f"mkdocs {pages:,} pages: {name} adds {(wall / plain - 1) * 100:+.1f}% "
                     f"wall ({wall:.2f} s vs {plain:.2f} s), "
                     f"{(cpu / plain_cpu - 1) * 100:+.1f}% user CPU ({cpu:.2f} s vs "
                     f"{plain_cpu:.2f} s)")
