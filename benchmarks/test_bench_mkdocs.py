"""`mkdocs build` with and without sitemapkit, and with git-revision-date-localized.

Generated sites of 2,000 and 10,000 pages over ~1,000 commits. The other plugin
is only run at 2,000 pages (it takes minutes at 10,000). All in one session.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from conftest import NOTES, TIMES
from gitrepo_gen import make_repo

SIZES = [int(s) for s in os.environ.get("SITEMAPKIT_BENCH_PAGES", "2000,10000").split(",")]
CONFIGS = {
    "plain": "plugins: []\n",
    "sitemapkit": "plugins:\n  - sitemapkit:\n      cache_dir: ''\n",
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
    before = os.times()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build"], cwd=root,
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system -
                                                          before.children_system)
    return wall, cpu, done.stderr


@pytest.mark.parametrize("name", list(CONFIGS))
def test_mkdocs_build(benchmark, site, name):
    root, pages = site
    if name == "git-revision-date-localized":
        pytest.importorskip("mkdocs_git_revision_date_localized_plugin")
    if name == "git-revision-date-localized" and pages > 2000:
        pytest.skip("takes minutes at 10,000 pages; compared at 2,000")
    runs: list[tuple[float, float, str]] = []
    benchmark.group = f"mkdocs-{pages}"
    benchmark.pedantic(lambda: runs.append(build(root, name)), rounds=3 if pages <= 2000
                       else 2, warmup_rounds=1 if name == "plain" else 0)
    wall = min(r[0] for r in runs)
    cpu = min(r[1] for r in runs)
    TIMES[f"mkdocs-{pages}-{name}"] = wall
    TIMES[f"mkdocs-{pages}-{name}-cpu"] = cpu
    if name == "sitemapkit":
        own = [float(m) for r in runs for m in re.findall(r"sitemapkit: .* \(([\d.]+) s\)", r[2])]
        NOTES.append(f"mkdocs {pages:,} pages: sitemapkit's own time {min(own):.3f} s")
    plain = TIMES.get(f"mkdocs-{pages}-plain")
    if plain and name != "plain":
        NOTES.append(f"mkdocs {pages:,} pages: {name} adds "
                     f"{(wall / plain - 1) * 100:+.1f}% wall "
                     f"({wall:.2f} s vs {plain:.2f} s), "
                     f"{(cpu / TIMES[f'mkdocs-{pages}-plain-cpu'] - 1) * 100:+.1f}% CPU")
