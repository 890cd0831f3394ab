"""Languages, output validation and IndexNow through real `mkdocs build` (with
mkdocs-static-i18n) and `sphinx-build` runs; the search engine is a 127.0.0.1 server."""

from __future__ import annotations

from pathlib import Path

import pytest
from docs_projects import mkdocs_build, mkdocs_project, sphinx_build, sphinx_project
from sitemap_check import read_set

from sitemapkit.validate import ValidateOptions, validate

SITE = "https://example.com/"
KEY = "a1b2c3d4e5f6a7b8"
I18N = {"i18n": {"docs_structure": "folder", "languages": [
    {"locale": "en", "default": True, "name": "English", "build": True},
    {"locale": "fr", "name": "Français", "build": True},
    {"locale": "de", "name": "Deutsch", "build": True}]}}
I18N_PAGES = {"en/index.md": "# Home\n", "en/guide.md": "# Guide\n", "en/only.md": "# Only\n",
              "fr/index.md": "# Accueil\n", "fr/guide.md": "# Guide FR\n",
              "de/index.md": "# Start\n"}


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize("order", ["i18n first", "sitemapkit first"])
def test_mkdocs_static_i18n_clusters_without_fallback_copies(tmp_path, order):
    ours = {"sitemapkit": {"validate": "strict"}}
    plugins = [I18N, ours] if order == "i18n first" else [ours, I18N]
    repo = mkdocs_project(tmp_path / "p", I18N_PAGES, {"plugins": plugins})
    done = mkdocs_build(repo.root, "--strict")
    site = repo.root / "site"
    urls = {u.loc: u.alternates for u in read_set(site, SITE).urls}
    home = [("en", SITE), ("fr", SITE + "fr/"), ("de", SITE + "de/"), ("x-default", SITE)]
    guide = [("en", SITE + "guide/"), ("fr", SITE + "fr/guide/"), ("x-default", SITE + "guide/")]
    assert urls == {SITE: home, SITE + "fr/": home, SITE + "de/": home,
                    SITE + "guide/": guide, SITE + "fr/guide/": guide, SITE + "only/": []}
    # fr/only/, de/guide/ and de/only/ are fallback copies of English pages: not listed
    assert (site / "de/guide/index.html").exists()
    assert "3 fallback copies of default-language pages left out" in done.stderr
    assert "sitemapkit: validate: valid" in done.stderr


def test_mkdocs_x_default_off_and_chosen(tmp_path):
    repo = mkdocs_project(tmp_path / "p", I18N_PAGES,
                          {"plugins": [I18N, {"sitemapkit": {"x_default": "fr"}}]})
    mkdocs_build(repo.root)
    home = {u.loc: u.alternates for u in read_set(repo.root / "site", SITE).urls}[SITE]
    assert home[-1] == ("x-default", SITE + "fr/")
    edit(repo.root / "mkdocs.yml", "x_default: fr", "x_default: false")
    mkdocs_build(repo.root)
    home = {u.loc: u.alternates for u in read_set(repo.root / "site", SITE).urls}[SITE]
    assert [lang for lang, _ in home] == ["en", "fr", "de"]


def test_mkdocs_validate_fails_the_build_on_a_broken_robots_line(tmp_path):
    pages = {"index.md": "# Home\n", "robots.txt": "User-agent: *\nSitemap: /old.xml\n"}
    repo = mkdocs_project(tmp_path / "p", pages, {"plugins": [{"sitemapkit": {"validate": True}}]})
    done = mkdocs_build(repo.root, check=False)
    assert done.returncode != 0
    assert "[rule 35 robots] robots.txt Sitemap: '/old.xml' is not an absolute URL" in done.stderr
    edit(repo.root / "mkdocs.yml", "validate: true", "validate: false")
    assert mkdocs_build(repo.root).returncode == 0


def test_mkdocs_indexnow_submits_changed_pages(tmp_path, engine):
    # the local record only: example.com is no site of ours to read (test_live_record.py
    # has the live site as the record)
    settings = {"indexnow": {"key": KEY, "endpoint": engine.url + "/indexnow"},
                "changes_from": "local"}
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", "a.md": "# A\n",
                                           "b.md": "# B\n"},
                          {"plugins": [{"sitemapkit": settings}]})
    done = mkdocs_build(repo.root)
    assert engine.seen == [] and "first run here" in done.stderr
    assert (repo.root / f"site/{KEY}.txt").read_text() == KEY
    mkdocs_build(repo.root)
    assert engine.seen == []  # nothing changed
    repo.commit("2024-08-08T08:00:00+00:00", {"docs/a.md": "# A\n\nnew\n"})
    mkdocs_build(repo.root)
    assert [s.json()["urlList"] for s in engine.seen] == [[SITE + "a/"]]
    assert engine.seen[0].json()["host"] == "example.com"
    engine.default = (503, 0)
    repo.commit("2024-08-09T08:00:00+00:00", {"docs/b.md": "# B\n\nnew\n"})
    done = mkdocs_build(repo.root)  # a failure is a warning, not a failed build
    assert "WARNING" in done.stderr and "HTTP 503" in done.stderr


def test_mkdocs_indexnow_failure_fails_when_asked(tmp_path, engine):
    engine.default = (403, 0)
    settings = {"indexnow": {"key": KEY, "endpoint": engine.url, "fail_on_error": True},
                "changes_from": "local"}
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n"},
                          {"plugins": [{"sitemapkit": settings}]})
    mkdocs_build(repo.root)
    repo.commit("2024-08-08T08:00:00+00:00", {"docs/index.md": "# Home\n\nnew\n"})
    done = mkdocs_build(repo.root, check=False)
    assert done.returncode != 0 and "HTTP 403 the key is not valid" in done.stderr


def test_mkdocs_bad_indexnow_key_is_a_config_error(tmp_path):
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n"},
                          {"plugins": [{"sitemapkit": {"indexnow": {"key": "short"}}}]})
    done = mkdocs_build(repo.root, check=False)
    assert done.returncode != 0 and "8-128 characters" in done.stderr


def test_sphinx_validate_and_indexnow(tmp_path, engine):
    extra = (f'sitemapkit_validate = "strict"\nsitemapkit_indexnow = {{"key": "{KEY}", '
             f'"endpoint": "{engine.url}"}}\nsitemapkit_changes_from = "local"')
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n\n.. toctree::\n\n   a\n",
                                           "a.rst": "A\n=\n"}, extra=extra)
    done = sphinx_build(repo.root, "html", "-W")
    assert "sitemapkit: validate: valid" in done.stdout and engine.seen == []
    repo.commit("2024-09-09T09:00:00+00:00", {"a.rst": "A\n=\n\nmore\n"})
    sphinx_build(repo.root, "html", "-W")
    assert [s.json()["urlList"] for s in engine.seen] == [["https://example.org/docs/a.html"]]
    out = repo.root / "_build/html"
    assert (out / f"{KEY}.txt").read_text() == KEY
    report = validate([out], ValidateOptions(base_url="https://example.org/docs/"))
    assert report.ok(strict=True), [f.text() for f in report.findings]
