"""The MkDocs plugin through real `mkdocs build` runs over real git histories."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from docs_projects import NOINDEX_THEME, mkdocs_build, mkdocs_project
from gitrepo import Repo
from sitemap_check import read_set

SITE = "https://example.com/"
PAGES = {
    "index.md": "# Home\n",
    "guide/install.md": "# Install\n",
    "guide/index.md": "# Guide\n",
    "über.md": "# Über\n",
    "a&b.md": "# A and B\n",
    "with space.md": "# Space\n",
}


def lastmods(site: Path, base: str = SITE) -> dict[str, str | None]:
    return {u.loc: u.lastmod for u in read_set(site, base).urls}


def test_basic_build_lists_every_page_with_its_git_date(tmp_path):
    repo = mkdocs_project(tmp_path / "p", PAGES)
    repo.commit("2024-06-01T08:00:00-05:00", {"docs/guide/install.md": "# Install\n\nmore\n"})
    done = mkdocs_build(repo.root)
    assert "sitemapkit: 6 URLs in 1 shard, 6 with lastmod" in done.stderr
    site = repo.root / "site"
    got = lastmods(site)
    assert got == {
        SITE: repo.last_change("docs/index.md"),
        SITE + "a%26b/": repo.last_change("docs/a&b.md"),
        SITE + "guide/": repo.last_change("docs/guide/index.md"),
        SITE + "guide/install/": "2024-06-01T08:00:00-05:00",
        SITE + "with%20space/": repo.last_change("docs/with space.md"),
        SITE + "%C3%BCber/": repo.last_change("docs/über.md"),
    }
    assert gzip.decompress((site / "sitemap.xml.gz").read_bytes()) == \
        (site / "sitemap.xml").read_bytes()
    assert (site / "robots.txt").read_text() == f"Sitemap: {SITE}sitemap.xml\n"


def test_without_directory_urls(tmp_path):
    repo = mkdocs_project(tmp_path / "p", PAGES, {"use_directory_urls": False})
    mkdocs_build(repo.root)
    assert sorted(lastmods(repo.root / "site")) == sorted([
        SITE + "index.html", SITE + "a%26b.html", SITE + "guide/index.html",
        SITE + "guide/install.html", SITE + "with%20space.html", SITE + "%C3%BCber.html"])


def test_all_three_exclusions_and_the_404_page(tmp_path):
    pages = {
        "index.md": "# Home\n",
        "hidden.md": "---\nsitemap: false\n---\n# Hidden\n",
        "drafts/wip.md": "# WIP\n",
        "private.md": "---\nrobots: noindex, nofollow\n---\n# Private\n",
        "copy.md": "---\ncanonical: https://example.com/\n---\n# Copy\n",
        "tuned.md": "---\nsitemap:\n  changefreq: weekly\n  priority: 0.9\n---\n# Tuned\n",
        "404.md": "# Not found\n",
    }
    repo = mkdocs_project(tmp_path / "p", pages, {
        "theme": {"name": "mkdocs", "custom_dir": "overrides"},
        "plugins": [{"sitemapkit": {"exclude": ["drafts/*"]}}]})
    repo.commit("2024-05-06T00:00:00Z", {"overrides/main.html": NOINDEX_THEME})
    done = mkdocs_build(repo.root)
    urls = {u.loc: u for u in read_set(repo.root / "site", SITE).urls}
    assert sorted(urls) == [SITE, SITE + "tuned/"]
    assert (urls[SITE + "tuned/"].changefreq, urls[SITE + "tuned/"].priority) == ("weekly", "0.9")
    assert urls[SITE].changefreq is None and urls[SITE].priority is None
    assert "1 noindex pages left out" in done.stderr
    assert "1 pages with a canonical URL pointing elsewhere left out" in done.stderr


def test_changefreq_priority_defaults_and_rules(tmp_path):
    repo = mkdocs_project(tmp_path / "p", PAGES, {"plugins": [{"sitemapkit": {
        "changefreq": "monthly", "priority": 0.5,
        "rules": [{"match": "guide/*", "changefreq": "daily", "priority": 0.8}]}}]})
    mkdocs_build(repo.root)
    urls = {u.loc: (u.changefreq, u.priority) for u in read_set(repo.root / "site", SITE).urls}
    assert urls[SITE + "guide/install/"] == ("daily", "0.8")
    assert urls[SITE] == ("monthly", "0.5")


def test_dirty_rebuild_keeps_every_page_and_updates_the_changed_one(tmp_path):
    pages = {**PAGES, "hidden.md": "---\nsitemap: false\n---\n# Hidden\n",
             "private.md": "---\nrobots: noindex\n---\n# Private\n"}
    repo = mkdocs_project(tmp_path / "p", pages, {
        "theme": {"name": "mkdocs", "custom_dir": "overrides"}})
    repo.commit("2024-05-06T00:00:00Z", {"overrides/main.html": NOINDEX_THEME})
    mkdocs_build(repo.root)
    first = lastmods(repo.root / "site")
    repo.commit("2024-09-09T09:09:09+09:00", {"docs/guide/install.md": "# Install v2\n"})
    mkdocs_build(repo.root, "--dirty")
    second = lastmods(repo.root / "site")
    assert sorted(second) == sorted(first) and len(first) == 6  # exclusions hold too
    changed = {loc for loc in first if first[loc] != second[loc]}
    assert changed == {SITE + "guide/install/"}
    assert second[SITE + "guide/install/"] == "2024-09-09T09:09:09+09:00"


def test_shallow_clone_warns_and_strict_fails(tmp_path):
    repo = mkdocs_project(tmp_path / "p", PAGES)
    repo.commit("2024-07-07T07:07:07Z", {"docs/index.md": "# Home v2\n"})
    clone = tmp_path / "clone"
    repo.git("clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone))
    done = mkdocs_build(clone)
    assert "WARNING" in done.stderr and "fetch-depth: 0" in done.stderr
    assert all(v is None for v in lastmods(clone / "site").values())
    strict = mkdocs_build(clone, "--strict", check=False)
    assert strict.returncode != 0


def test_untracked_pages_get_no_lastmod_and_one_note(tmp_path):
    repo = mkdocs_project(tmp_path / "p", PAGES)
    repo.write("docs/new-a.md", "# New A\n")
    repo.write("docs/new-b.md", "# New B\n")
    done = mkdocs_build(repo.root)
    got = lastmods(repo.root / "site")
    assert got[SITE + "new-a/"] is None and got[SITE + "new-b/"] is None
    assert got[SITE] is not None
    assert done.stderr.count("2 pages are untracked: lastmod omitted") == 1


def test_missing_site_url_is_an_error(tmp_path):
    repo = mkdocs_project(tmp_path / "p", PAGES, {"site_url": None})
    done = mkdocs_build(repo.root, check=False)
    assert done.returncode != 0
    assert "site_url is required" in done.stderr
    assert not (repo.root / "site" / "sitemap.xml").exists()


@pytest.mark.parametrize("theme", ["material", "readthedocs", "mkdocs"])
def test_themes_get_our_sitemap_not_the_built_in_one(tmp_path, theme):
    repo = mkdocs_project(tmp_path / "p", PAGES, {"theme": {"name": theme}})
    mkdocs_build(repo.root)
    site = repo.root / "site"
    got = lastmods(site)
    assert len(got) == 6 and SITE in got  # Material needs the homepage in the urlset
    assert set(got.values()) == {"2024-05-05T10:00:00+02:00"}  # git dates, not build dates


def test_large_site_shards_with_an_index(tmp_path):
    pages = {f"p{i:03d}.md": f"# Page {i}\n" for i in range(25)}
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", **pages},
                          {"plugins": [{"sitemapkit": {"max_urls": 10}}]})
    done = mkdocs_build(repo.root)
    sset = read_set(repo.root / "site", SITE, max_urls=10)
    assert sset.kind == "index" and len(sset.shards) == 3 and len(sset.locs) == 26
    assert "26 URLs in 3 shards" in done.stderr
    assert (repo.root / "site/robots.txt").read_text() == f"Sitemap: {SITE}sitemap.xml\n"


def test_existing_robots_txt_is_kept_and_never_doubled(tmp_path):
    robots = "User-agent: *\nDisallow: /private/\n"
    repo = mkdocs_project(tmp_path / "p", {**PAGES, "robots.txt": robots})
    mkdocs_build(repo.root)
    mkdocs_build(repo.root, "--dirty")
    assert (repo.root / "site/robots.txt").read_text() == \
        f"{robots}\nSitemap: {SITE}sitemap.xml\n"


@pytest.mark.parametrize("line", ["Sitemap: HTTPS://Example.com/sitemap.xml",
                                  "  sitemap:https://example.com:443/sitemap.xml",
                                  "SITEMAP : https://example.com/sitemap.xml  # the index"])
def test_a_robots_line_naming_the_index_in_another_spelling_is_not_doubled(tmp_path, line):
    robots = f"User-agent: *\nDisallow:\n\n{line}\n"
    repo = mkdocs_project(tmp_path / "p", {**PAGES, "robots.txt": robots})
    mkdocs_build(repo.root)
    assert (repo.root / "site/robots.txt").read_text() == robots


def test_sub_path_site(tmp_path):
    base = "https://example.com/docs/v2/"
    repo = mkdocs_project(tmp_path / "p", PAGES, {"site_url": base})
    done = mkdocs_build(repo.root)
    assert set(lastmods(repo.root / "site", base)) >= {base, base + "guide/install/"}
    assert not (repo.root / "site/robots.txt").exists()
    assert f"add 'Sitemap: {base}sitemap.xml'" in done.stderr


def test_date_output_and_author_dates(tmp_path):
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n"},
                          {"plugins": [{"sitemapkit": {"lastmod": "date", "date_kind": "author"}}]})
    repo.commit("2024-03-01T23:30:00-05:00", {"docs/index.md": "# v2\n"},
                author_when="2024-02-29T23:30:00-05:00")
    mkdocs_build(repo.root)
    assert lastmods(repo.root / "site") == {SITE: "2024-02-29"}


def test_disabled_plugin_leaves_mkdocs_alone(tmp_path):
    repo = mkdocs_project(tmp_path / "p", PAGES, {"plugins": [{"sitemapkit": {"enabled": False}}],
                                                  "site_url": None})
    done = mkdocs_build(repo.root)
    assert (repo.root / "site/sitemap.xml").exists()  # MkDocs' own, untouched
    assert not (repo.root / "site/.sitemapkit-manifest.json").exists()
    assert "sitemapkit" not in done.stderr


def test_nested_docs_dir_in_a_subdirectory_repo(tmp_path):
    outer = Repo(tmp_path / "mono")
    outer.commit("2023-03-03T03:03:03Z", {"README.md": "r"})
    project = outer.root / "project"
    project.mkdir()
    (project / "mkdocs.yml").write_text(f"site_name: T\nsite_url: {SITE}\nplugins: [sitemapkit]\n")
    outer.commit("2024-04-04T04:04:04+04:00", {"project/docs/index.md": "# Home\n"})
    mkdocs_build(project)
    assert lastmods(project / "site") == {SITE: "2024-04-04T04:04:04+04:00"}


def test_serve_skips_our_sitemap_and_keeps_live_reload_fast(tmp_path):
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    repo = mkdocs_project(tmp_path / "p", PAGES)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", "--no-livereload",
                             "-a", f"127.0.0.1:{port}"], cwd=repo.root,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        body = None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and body is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/sitemap.xml",
                                            timeout=5) as r:
                    body = r.read().decode()
            except OSError:
                time.sleep(0.3)
        assert body is not None, "mkdocs serve did not come up"
        assert "<urlset" in body  # MkDocs' own preview sitemap, not ours
    finally:
        proc.terminate()
        output = proc.communicate(timeout=30)[0]
    assert "sitemapkit:" not in output
    assert not (repo.root / "site").exists()
