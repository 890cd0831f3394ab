"""Cold git dates (a fresh clone, as CI and Read the Docs build): the pass's CPU against
the one history read it cannot avoid, ``git log --name-status --no-renames -- docs``,
and the cold overhead of whole ``mkdocs build`` and ``sphinx-build`` runs.

The repository is generated (``gitrepo_gen.make_code_heavy_repo``): 12,000 commits, 4
in 5 touching only code, pull-request merges, renames, a mass move and a file moved in
from outside docs/, 1,000 pages. Scale with SITEMAPKIT_BENCH_COMMITS and
SITEMAPKIT_BENCH_COLD_PAGES (rounds: SITEMAPKIT_BENCH_COLD_ROUNDS). CPU is user +
system of this process and its children, best of the rounds; the configurations run
round-robin. Nothing here asserts a timing.
"""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

import pytest

from conftest import NOTES, TIMES
from gitrepo_gen import make_code_heavy_repo
from sitemapkit.gitdates import GitOptions, git_dates

COMMITS = int(os.environ.get("SITEMAPKIT_BENCH_COMMITS", "12000"))
PAGES = int(os.environ.get("SITEMAPKIT_BENCH_COLD_PAGES", "1000"))
ROUNDS = int(os.environ.get("SITEMAPKIT_BENCH_COLD_ROUNDS", "5"))


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), \
        resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _spent(fn) -> tuple[object, float]:
    before = _cpu()
    result = fn()
    return result, _cpu() - before


def _commit_all(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    env = {**os.environ, "GIT_AUTHOR_DATE": "2025-06-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2025-06-01T00:00:00Z", "GIT_AUTHOR_NAME": "b",
           "GIT_AUTHOR_EMAIL": "b@example.invalid", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    subprocess.run(["git", "commit", "-qm", "home page"], cwd=root, check=True, env=env)


@pytest.fixture(scope="module")
def md_repo(tmp_path_factory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("cold") / "repo"
    pages = make_code_heavy_repo(root, pages=PAGES, commits=COMMITS)
    _commit_all(root, {"docs/index.md": "# Home\n"})
    return root, [*pages, "docs/index.md"]


def test_cold_pass_against_the_path_limited_log(benchmark, md_repo):
    """The cold pass (no cache) and the warm one (cache at HEAD) beside the log."""
    root, pages = md_repo
    paths = [str(root / p) for p in pages]
    cache = root.parent / "cache"
    log = ["git", "log", "--name-status", "--no-renames", "--", "docs"]
    runs: dict[str, list[float]] = {"log": [], "cold": [], "warm": []}

    def all_rounds() -> None:
        for _ in range(ROUNDS):
            runs["log"].append(_spent(lambda: subprocess.run(
                log, cwd=root, stdout=subprocess.DEVNULL, check=True))[1])
            result, cold = _spent(lambda: git_dates(paths, GitOptions(cache_dir=None)))
            runs["cold"].append(cold)
            assert result.from_git == len(paths) and not result.warnings  # type: ignore[attr-defined]
            git_dates(paths, GitOptions(cache_dir=str(cache)))  # fills the cache
            runs["warm"].append(_spent(lambda: git_dates(
                paths, GitOptions(cache_dir=str(cache))))[1])

    benchmark.group = "git-cold"
    benchmark.pedantic(all_rounds, rounds=1)
    log_cpu, cold, warm = (min(runs[k]) for k in ("log", "cold", "warm"))
    TIMES["git-cold-log-cpu"], TIMES["git-cold-pass-cpu"] = log_cpu, cold
    TIMES["git-warm-pass-cpu"] = warm
    NOTES.append(f"cold git pass, {COMMITS:,} commits / {len(paths):,} pages: "
                 f"{cold:.3f} CPU-s = {cold / log_cpu:.2f}x `{' '.join(log)}` "
                 f"({log_cpu:.3f} CPU-s; target <= 2x); warm (cached HEAD) {warm:.3f} CPU-s")


def _overhead(name: str, plain: list[float], ours: list[float]) -> None:
    base, with_us = min(plain), min(ours)
    TIMES[f"{name}-cold-plain-cpu"], TIMES[f"{name}-cold-sitemapkit-cpu"] = base, with_us
    NOTES.append(f"{name} {PAGES:,} pages over {COMMITS:,} commits, cold cache: sitemapkit "
                 f"adds {(with_us / base - 1) * 100:+.1f}% CPU ({with_us:.2f} s vs "
                 f"{base:.2f} s; target <= +5%)")


def test_mkdocs_build_cold(benchmark, md_repo):
    """`mkdocs build` with the Material theme, without and with the plugin (cache_dir
    '': every build is cold). User CPU, as in test_bench_mkdocs."""
    import test_bench_mkdocs as mk

    root, _ = md_repo
    runs: dict[str, list[float]] = {"plain": [], "sitemapkit": []}
    configs = {name: "theme: material\n" + mk.CONFIGS[name] for name in runs}

    def build(name: str) -> float:
        saved, mk.CONFIGS[name] = mk.CONFIGS[name], configs[name]
        try:
            return mk.build(root, name)[1]
        finally:
            mk.CONFIGS[name] = saved

    build("plain")  # warm-up: imports and file system caches

    def all_rounds() -> None:
        for _ in range(ROUNDS):
            for name in runs:
                runs[name].append(build(name))

    benchmark.group = "mkdocs-cold"
    benchmark.pedantic(all_rounds, rounds=1)
    _overhead("mkdocs build", runs["plain"], runs["sitemapkit"])


def test_sphinx_build_cold(benchmark, tmp_path_factory):
    """`sphinx-build -b html` without and with the extension (no cache: cold)."""
    from test_bench_sphinx import build

    root = tmp_path_factory.mktemp("coldsphinx") / "repo"
    make_code_heavy_repo(root, pages=PAGES, commits=COMMITS, suffix=".rst")
    _commit_all(root, {"docs/index.rst": "Home\n====\n"})
    out = root.parent / "out"
    runs: dict[str, list[float]] = {"plain": [], "sitemapkit": []}
    build(root, "plain", out)  # warm-up

    def all_rounds() -> None:
        for _ in range(ROUNDS):
            for name in runs:
                runs[name].append(build(root, name, out)[1])

    benchmark.group = "sphinx-cold"
    benchmark.pedantic(all_rounds, rounds=1)
    _overhead("sphinx-build", runs["plain"], runs["sitemapkit"])
