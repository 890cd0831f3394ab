"""The documentation site in docs/, built as a user builds theirs: a real `mkdocs build
--strict` with our own plugin over this repository's history. Every page is listed and
dated by its source file's last commit, as git answers per file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from gitref import reference_date
from sitemap_check import read_set

ROOT = Path(__file__).resolve().parent.parent
MAX_README = 16 * 1024


def _site_url() -> str:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text("utf-8"))
    return str(config["site_url"])


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, str]:
    if subprocess.run(["git", "rev-parse", "--is-shallow-repository"], cwd=ROOT,
                      capture_output=True, text=True).stdout.strip() == "true":
        pytest.fail("this clone is shallow: the docs' dates need the whole history "
                    "(git fetch --unshallow)")
    out = tmp_path_factory.mktemp("docs") / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, done.stdout + done.stderr
    return out, done.stderr


def test_the_docs_build_strict_with_our_plugin_and_every_page_is_listed(built):
    out, log = built
    pages = sorted(p.relative_to(ROOT / "docs") for p in (ROOT / "docs").rglob("*.md"))
    urls = {u.loc for u in read_set(out, _site_url()).urls}
    expected = {_site_url() + ("" if p.stem == "index" else p.with_suffix("").as_posix() + "/")
                for p in pages}
    assert urls == expected
    assert re.search(r"sitemapkit: (\d+) URLs in 1 shard, \1 with lastmod", log), log
    assert "validate: valid" in log


def test_every_page_is_dated_by_its_files_last_commit(built):
    out, _ = built
    for url in read_set(out, _site_url()).urls:
        rel = url.loc[len(_site_url()):].rstrip("/") or "index"
        source = f"docs/{rel}.md"
        if not (ROOT / source).exists():
            source = f"docs/{rel}/index.md"
        uncommitted = subprocess.run(["git", "status", "--porcelain", "--", source], cwd=ROOT,
                                     capture_output=True, text=True).stdout
        if uncommitted:  # a working tree with edits: only a commit can date them
            assert url.lastmod is None, url
            continue
        assert url.lastmod == reference_date(ROOT, source), (url.loc, source)


def test_the_readme_is_short_and_links_into_the_docs():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme.encode()) <= MAX_README
    assert readme.index("## Quick start") < readme.index("## Two commands on a fresh machine")
    linked = set(re.findall(r"\]\((docs/[^)#]+\.md)", readme))
    assert len(linked) >= 10
    assert all((ROOT / page).is_file() for page in linked), linked
    assert (ROOT / "CHANGELOG.md").is_file()
    urls = re.search(r"^\[project\.urls\]\n(.*?)\n\n", (ROOT / "pyproject.toml").read_text(),
                     re.M | re.S)
    assert urls, "pyproject.toml needs [project.urls]"
    assert {"Documentation", "Source", "Issues", "Changelog"} <= \
        set(re.findall(r"^(\w+) = ", urls[1], re.M))


def test_every_numbered_guarantee_is_cited_by_a_test_that_proves_it():
    """docs/guarantees.md numbers the rules of what is removed and what is read; each
    one is cited ("guarantees rule N", or "rules N and M") by a test module."""
    root = Path(__file__).parent.parent
    text = (root / "docs/guarantees.md").read_text()
    section = text.split("**What is removed, what is read.**")[1].split("\n- **")[0]
    numbered = {int(n) for n in re.findall(r"^  (\d+)\. \*", section, re.M)}
    assert numbered == set(range(1, len(numbered) + 1)) and len(numbered) >= 8
    cited: set[int] = set()
    for test in (root / "tests").rglob("test_*.py"):
        for found in re.finditer(r"guarantees rules? ([\d, and]+)", test.read_text()):
            cited |= {int(n) for n in re.findall(r"\d+", found.group(1))}
    assert numbered - cited == set(), f"rules no test cites: {sorted(numbered - cited)}"
