"""Sphinx: whole builds with no sitemap extension, sphinx-sitemap and sitemapkit, and
the extensions' own handlers timed directly at 60,000 documents. All in one session.

Scale with SITEMAPKIT_BENCH_DOCS (default 2000) and SITEMAPKIT_BENCH_HANDLER_DOCS
(default 60000). sphinx-sitemap runs with ``sitemap_show_lastmod = True`` (which
loads sphinx-last-updated-by-git); it is skipped when not installed.
"""

from __future__ import annotations

import gzip
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import NOTES, TIMES, best_of
from gitrepo_gen import make_repo

DOCS = int(os.environ.get("SITEMAPKIT_BENCH_DOCS", "2000"))
HANDLER_DOCS = int(os.environ.get("SITEMAPKIT_BENCH_HANDLER_DOCS", "60000"))
BASE = "https://example.org/docs/"
CONFIGS = {
    "plain": "extensions = []\n",
    "sphinx-sitemap": 'extensions = ["sphinx_sitemap"]\nsitemap_show_lastmod = True\n'
                      'sitemap_url_scheme = "{link}"\n',
    "sitemapkit": 'extensions = ["sitemapkit.sphinx"]\nsitemapkit_cache_dir = ""\n',
}


def _needs(name: str) -> None:
    if name == "sphinx-sitemap":
        pytest.importorskip("sphinx_sitemap")
        pytest.importorskip("sphinx_last_updated_by_git")


def _write_conf(docs: Path, name: str) -> None:
    (docs / "conf.py").write_text(f'project = "Bench"\nhtml_baseurl = "{BASE}"\n'
                                  f'html_theme = "basic"\n{CONFIGS[name]}')
    (docs / "index.rst").write_text("Home\n====\n")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("sphinxbench") / "repo"
    make_repo(root, DOCS, suffix=".rst")
    return root


def build(root: Path, name: str, out: Path) -> tuple[float, float, str]:
    docs = root / "docs"
    _write_conf(docs, name)
    subprocess.run(["rm", "-rf", str(out)], check=True)  # a full build each round
    before, started = os.times(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(docs),
                           str(out)], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    wall, after = time.perf_counter() - started, os.times()
    cpu = (after.children_user - before.children_user) + \
        (after.children_system - before.children_system)
    return wall, cpu, done.stdout + done.stderr


@pytest.mark.parametrize("name", list(CONFIGS))
def test_sphinx_build(benchmark, project, name, tmp_path):
    _needs(name)
    runs: list[tuple[float, float, str]] = []
    benchmark.group = f"sphinx-{DOCS}"
    benchmark.pedantic(lambda: runs.append(build(project, name, tmp_path / "out")), rounds=3)
    wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
    TIMES[f"sphinx-{DOCS}-{name}"], TIMES[f"sphinx-{DOCS}-{name}-cpu"] = wall, cpu
    plain_cpu = TIMES.get(f"sphinx-{DOCS}-plain-cpu")
    if plain_cpu and name != "plain":
        plain_wall = TIMES[f"sphinx-{DOCS}-plain"]
        NOTES.append(f"sphinx {DOCS:,} docs: {name} adds {(cpu / plain_cpu - 1) * 100:+.1f}% "
                     f"CPU ({cpu:.2f} s vs {plain_cpu:.2f} s), "
                     f"{(wall / plain_wall - 1) * 100:+.1f}% wall")


# --- the handlers alone, at 60,000 documents ----------------------------------
@pytest.fixture(scope="module")
def big_project(tmp_path_factory):
    root = tmp_path_factory.mktemp("sphinxhandlers") / "repo"
    make_repo(root, HANDLER_DOCS, commits=200, suffix=".rst")
    return root


def _app(root: Path, name: str):
    from docutils import nodes
    from docutils.utils import new_document
    from sphinx.application import Sphinx

    docs = root / "docs"
    _write_conf(docs, name)
    build = root / f"_build-{name}"
    app = Sphinx(str(docs), str(docs), str(build / "html"), str(build / "doctrees"), "html",
                 status=None, warning=None, freshenv=True)
    app.env.find_files(app.config, app.builder)
    assert len(app.env.found_docs) == HANDLER_DOCS + 1
    doctree = new_document("<bench>")
    doctree += nodes.paragraph(text="text")
    return app, sorted(app.env.found_docs), doctree


def test_handlers_sitemapkit(benchmark, big_project):
    from sitemapkit import sphinx as ext

    app, docnames, doctree = _app(big_project, "sitemapkit")

    def run() -> None:  # what a build calls: doctree-read per document, then build-finished
        for docname in docnames:
            app.env.temp_data["docname"] = docname
            ext._collect(app, doctree)
        ext._finish(app, None)

    app.config.sitemapkit_cache_dir = ""  # cold: the whole git pass in every round
    benchmark.group = "sphinx-handlers"
    _, cold = best_of(benchmark, run)
    app.config.sitemapkit_cache_dir = None  # the default: cached beside the doctrees
    run()  # fills the cache
    warm = min(_timed(run) for _ in range(3))
    TIMES["sphinx-handlers-sitemapkit-cold"], TIMES["sphinx-handlers-sitemapkit"] = cold, warm
    assert _url_count(Path(app.outdir)) == HANDLER_DOCS + 1
    NOTES.append(f"sphinx handlers, {HANDLER_DOCS:,} docs: sitemapkit {cold:.3f} s with the "
                 f"git pass, {warm:.3f} s from its cache (unchanged HEAD)")


def _url_count(out: Path) -> int:
    """URLs in the written set (shards behind an index above 50,000 URLs)."""
    shards = sorted(out.glob("sitemap-0*.xml.gz"))
    texts = [gzip.decompress(p.read_bytes()) for p in shards] or \
        [(out / "sitemap.xml").read_bytes()]
    return sum(t.count(b"<url>") for t in texts)


def _timed(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


@pytest.mark.filterwarnings("ignore:.*is deprecated")  # sphinx-sitemap uses env.app
def test_handlers_sphinx_sitemap(benchmark, big_project):
    _needs("sphinx-sitemap")
    import sphinx_sitemap

    app, docnames, _ = _app(big_project, "sphinx-sitemap")
    # sphinx-last-updated-by-git's own pass is not timed: given to it for free.
    app.env.git_last_updated = {d: (1_600_000_000, True) for d in docnames}

    def run() -> None:  # builder-inited, html-page-context per page, build-finished
        sphinx_sitemap.record_builder_type(app)
        for docname in docnames:
            sphinx_sitemap.add_html_link(app, docname, "page.html", {}, None)
        sphinx_sitemap.create_sitemap(app, None)

    benchmark.group = "sphinx-handlers"
    _, theirs = best_of(benchmark, run)
    TIMES["sphinx-handlers-sphinx-sitemap"] = theirs
    # Its git dates come from sphinx-last-updated-by-git's env-updated pass: time it too.
    import sphinx_last_updated_by_git as by_git

    app.env.git_last_updated = {d: None for d in docnames}
    git_pass = _timed(lambda: by_git._env_updated(app, app.env))
    assert sum(v[0] is not None for v in app.env.git_last_updated.values()) == HANDLER_DOCS
    ours_warm = TIMES.get("sphinx-handlers-sitemapkit")
    ours_cold = TIMES.get("sphinx-handlers-sitemapkit-cold")
    if ours_warm and ours_cold:
        NOTES.append(f"sphinx handlers, {HANDLER_DOCS:,} docs: sphinx-sitemap {theirs:.2f} s "
                     f"/ sitemapkit from cache {ours_warm:.3f} s = {theirs / ours_warm:.1f}x "
                     f"(target >= 20x)")
        NOTES.append(f"sphinx handlers + git, {HANDLER_DOCS:,} docs: sphinx-sitemap + "
                     f"last-updated-by-git {theirs + git_pass:.2f} s / sitemapkit cold "
                     f"{ours_cold:.3f} s = {(theirs + git_pass) / ours_cold:.1f}x")
    written = (Path(app.outdir) / "sitemap.xml").read_text()
    assert len(re.findall("<url>", written)) == HANDLER_DOCS + 1
