"""The Sphinx extension through real sphinx-build runs over real git histories."""

from __future__ import annotations

import shutil

import pytest
from docs_projects import sphinx_build, sphinx_project
from sitemap_check import parse_urlset, read_set

from conftest import snapshot
from sitemapkit.cli import main
from sitemapkit.validate import ValidateOptions, validate

BASE = "https://example.org/docs/"
INDEX = """Home
====

.. toctree::

   guide
   über uns
   a b
   hidden
   private
   tuned
"""
PAGES = {
    "index.rst": INDEX,
    "guide.rst": "Guide\n=====\n\nText.\n",
    "über uns.rst": "Über\n====\n\nText.\n",
    "a b.rst": "A b\n===\n\nText.\n",
    "hidden.rst": ":sitemap: exclude\n\nHidden\n======\n",
    "private.rst": ".. meta::\n   :robots: noindex, nofollow\n\nPrivate\n=======\n",
    "tuned.rst": ":sitemap-priority: 0.9\n:sitemap-changefreq: weekly\n\nTuned\n=====\n",
    "orphan.rst": ":orphan:\n\nOrphan\n======\n",
    "404.rst": ":orphan:\n\nNot found\n=========\n",
    "drafts/wip.rst": ":orphan:\n\nWIP\n===\n",
}
EXPECTED_HTML = ["", "a%20b.html", "guide.html", "orphan.html", "tuned.html",
                 "%C3%BCber%20uns.html"]


def urls(out, base=BASE):
    return {u.loc.removeprefix(base): u for u in read_set(out, base).urls}


@pytest.fixture
def project(tmp_path):
    repo = sphinx_project(tmp_path / "p", PAGES, extra='sitemapkit_exclude = ["drafts/*"]')
    repo.commit("2024-06-01T08:00:00-05:00", {"guide.rst": "Guide\n=====\n\nNew text.\n"})
    return repo


def test_html_lists_every_document_with_its_git_date(project):
    done = sphinx_build(project.root, "html")
    got = urls(project.root / "_build/html")
    assert sorted(got) == sorted(["index.html" if x == "" else x for x in EXPECTED_HTML])
    assert got["guide.html"].lastmod == "2024-06-01T08:00:00-05:00"
    assert got["a%20b.html"].lastmod == project.last_change("a b.rst")
    assert (got["tuned.html"].priority, got["tuned.html"].changefreq) == ("0.9", "weekly")
    assert "sitemapkit: 6 URLs in 1 shard, 6 with lastmod" in done.stdout
    robots = (project.root / "_build/html/robots.txt")
    assert not robots.exists()  # sub-path site: the line belongs in the host's root file
    assert f"add 'Sitemap: {BASE}sitemap.xml' there" in done.stdout


def test_dirhtml(project):
    sphinx_build(project.root, "dirhtml", builder="dirhtml")
    assert sorted(urls(project.root / "_build/dirhtml")) == sorted(
        x.removesuffix(".html") + "/" if x else "" for x in EXPECTED_HTML)


def test_parallel_and_serial_builds_are_byte_identical(project):
    sphinx_build(project.root, "serial")
    sphinx_build(project.root, "parallel", "-j", "2")
    serial, parallel = (snapshot(project.root / f"_build/{d}") for d in ("serial", "parallel"))
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        assert serial[name] == parallel[name]


def test_incremental_rebuilds_keep_every_page(project):
    out = project.root / "_build/html"
    sphinx_build(project.root, "html")
    first = snapshot(out)["sitemap.xml"]
    sphinx_build(project.root, "html")  # nothing changed: nothing re-read
    assert snapshot(out)["sitemap.xml"] == first
    project.commit("2024-09-09T09:09:09+09:00", {"a b.rst": "A b\n===\n\nChanged.\n"})
    sphinx_build(project.root, "html")
    after = urls(out)
    assert sorted(after) == sorted(u.loc.removeprefix(BASE) for u in parse_urlset(first))
    assert after["a%20b.html"].lastmod == "2024-09-09T09:09:09+09:00"
    first_urls = {u.loc: u.lastmod for u in parse_urlset(first)}
    changed = {loc for loc, lm in first_urls.items()
               if lm != after[loc.removeprefix(BASE)].lastmod}
    assert changed == {BASE + "a%20b.html"}


def test_failed_build_leaves_the_old_sitemap(project):
    out = project.root / "_build/html"
    sphinx_build(project.root, "html")
    before = snapshot(out)
    project.commit("2024-10-10T10:10:10Z", {"guide.rst": "Guide\n=====\n\nBroken.\n"})
    failed = sphinx_build(project.root, "html", check=False,
                          env={"SITEMAPKIT_TEST_FAIL": "1"})
    assert failed.returncode != 0
    after = snapshot(out)
    assert after["sitemap.xml"] == before["sitemap.xml"]
    assert after["sitemap.xml.gz"] == before["sitemap.xml.gz"]


def test_epub_and_singlehtml_write_no_sitemap(project):
    for builder in ("epub", "singlehtml", "text"):
        sphinx_build(project.root, builder, builder=builder)
        assert not (project.root / f"_build/{builder}/sitemap.xml").exists()


@pytest.mark.parametrize("base", ["https://example.org/docs", "https://example.org/docs/"])
def test_base_url_with_or_without_trailing_slash(tmp_path, base):
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n"}, base=base)
    sphinx_build(repo.root, "html")
    assert list(urls(repo.root / "_build/html")) == ["index.html"]


def test_no_base_url_is_a_warning_and_no_sitemap_as_in_sphinx_sitemap(tmp_path):
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n"}, base="")
    done = sphinx_build(repo.root, "html", check=False)
    assert done.returncode == 0, done.stderr  # the build goes on, without a sitemap
    assert "WARNING: sitemapkit: no base URL" in done.stderr
    assert "READTHEDOCS_CANONICAL_URL" in done.stderr
    assert not (repo.root / "_build/html/sitemap.xml").exists()
    assert sphinx_build(repo.root, "strict", "-W", check=False).returncode != 0
    assert sphinx_build(repo.root, "text", builder="text").returncode == 0  # not a site


def test_readthedocs_canonical_url_is_the_fallback_base(tmp_path):
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n"}, base="")
    sphinx_build(repo.root, "html", env={"READTHEDOCS_CANONICAL_URL": "https://p.rtfd.io/en/1"})
    assert list(urls(repo.root / "_build/html", "https://p.rtfd.io/en/1/")) == ["index.html"]


def test_shallow_clone_warns_and_w_fails(project, tmp_path):
    clone = tmp_path / "clone"
    project.git("clone", "-q", "--depth", "1", f"file://{project.root}", str(clone))
    done = sphinx_build(clone, "html")
    assert "fetch-depth: 0" in done.stderr
    assert all(u.lastmod is None for u in urls(clone / "_build/html").values())
    assert sphinx_build(clone, "strict", "-W", check=False).returncode != 0


def test_host_root_site_gets_robots_txt_and_keeps_an_extra_path_one(tmp_path):
    base = "https://example.org/"
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n",
                                           "extra/robots.txt": "User-agent: *\nDisallow: /x/\n"},
                          base=base, extra='html_extra_path = ["extra"]')
    sphinx_build(repo.root, "html")
    sphinx_build(repo.root, "html")
    assert (repo.root / "_build/html/robots.txt").read_text() == \
        f"User-agent: *\nDisallow: /x/\n\nSitemap: {base}sitemap.xml\n"


def test_url_scheme_and_sphinx_sitemap_migration(tmp_path):
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n", "old.rst": ":orphan:\n"},
                          extra=('language = "de"\nversion = "2.1"\n'
                                 'sitemap_url_scheme = "{lang}{version}{link}"\n'
                                 'sitemap_filename = "map.xml"\n'
                                 'sitemap_excludes = ["old.html"]'))
    done = sphinx_build(repo.root, "html")
    sset = read_set(repo.root / "_build/html", BASE, entry_point="map.xml")
    assert sset.locs == [BASE + "de/2.1/index.html"]
    assert "'sitemap_url_scheme' is sphinx-sitemap's name" in done.stdout


def test_large_project_shards(tmp_path):
    pages = {"index.rst": "Home\n====\n\n.. toctree::\n   :glob:\n\n   p*\n"}
    pages |= {f"p{i:02d}.rst": f"P{i}\n===\n" for i in range(23)}
    repo = sphinx_project(tmp_path / "p", pages, extra="sitemapkit_max_urls = 10")
    sphinx_build(repo.root, "html", "-j", "2")
    sset = read_set(repo.root / "_build/html", BASE, max_urls=10)
    assert sset.kind == "index" and len(sset.locs) == 24 and len(sset.shards) == 3
    shutil.rmtree(repo.root / "_build")


def test_languages_give_reciprocal_clusters_and_one_root_index(tmp_path, capsys):
    """Two language builds (``-D language=de``), each with the full cluster on every page;
    ``sitemapkit index`` joins them and ``validate`` checks reciprocity across both."""
    pages = {"index.rst": "Home\n====\n\n.. toctree::\n\n   guide\n",
             "guide.rst": "Guide\n=====\n", "locale/fr/README": "not a published language\n"}
    repo = sphinx_project(tmp_path / "p", pages, base=BASE + "en/", extra=(
        'sitemapkit_languages = {"en": "/docs/en/", "de": "https://example.org/docs/de/"}\n'
        'sitemapkit_x_default = "en"\nlocale_dirs = ["locale"]'))
    sphinx_build(repo.root, "en", "-W")
    sphinx_build(repo.root, "de", "-W", "-D", "language=de", "-D", f"html_baseurl={BASE}de/")
    mismatch = sphinx_build(repo.root, "x", "-D", "language=de", check=False)
    assert "is not this language's URL" in mismatch.stderr
    shutil.rmtree(repo.root / "_build/x")
    build = repo.root / "_build"
    en, de = read_set(build / "en", BASE + "en/"), read_set(build / "de", BASE + "de/")
    assert en.locs == [BASE + "en/guide.html", BASE + "en/index.html"]
    for sset in (en, de):
        for url in sset.urls:
            page = url.loc.rsplit("/", 1)[1]
            assert url.alternates == [("en", BASE + "en/" + page), ("de", BASE + "de/" + page),
                                      ("x-default", BASE + "en/" + page)]
    assert main(["index", str(build / "en"), str(build / "de"), "-o",
                 str(build / "sitemap.xml"), "--base-url", BASE]) == 0
    assert "crawlers read robots.txt only at the host root" in capsys.readouterr().err
    report = validate([build], ValidateOptions(base_url=BASE))
    assert report.ok(strict=True), [f.text() for f in report.findings]
    assert report.urls == 4 and not report.has("hreflang-unlisted")
    assert not (build / "robots.txt").exists()  # BASE is a sub-path: a note instead


def test_language_missing_from_languages_is_a_config_warning(tmp_path):
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n"},
                          extra='sitemapkit_languages = {"en": "en/"}\nlanguage = "fr"')
    done = sphinx_build(repo.root, "html", "-W", check=False)
    assert done.returncode != 0 and "language 'fr' is not in sitemapkit_languages" in done.stderr
    assert not (repo.root / "_build/html/sitemap.xml").exists()
