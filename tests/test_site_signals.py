"""``sitemapkit site`` on hand-made outputs, for the rules no generator shows alone:
the generator's sitemap as the floor (every URL it listed that is left out is named,
a worse set is a warning that ``--validate strict`` fails on), pages kept whatever
their folders are called, canonical forms, hreflang read from the pages, and the
page's own edit link."""

from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import Repo
from sitemap_check import read_set

from conftest import unreadable_page
from sitemapkit.sources.built.editlinks import edit_link_source

BASE = "https://example.com/"


def page(out: Path, path: str, head: str = "", body: str = "") -> None:
    target = out / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(f"<!DOCTYPE html><html><head><title>t</title>{head}</head>"
                      f"<body>{body}</body></html>")


def urlset(out: Path, locs: list[str], dated: bool = False, where: str = "sitemap.xml") -> None:
    stamp = "<lastmod>2024-01-01</lastmod>" if dated else ""
    (out / where).parent.mkdir(parents=True, exist_ok=True)
    (out / where).write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
        'schemas/sitemap/0.9">' + "".join(f"<url><loc>{BASE}{loc}</loc>{stamp}</url>"
                                           for loc in locs) + "</urlset>")


def site(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url",
                           BASE, "--lastmod", "none", *args], capture_output=True, text=True,
                          cwd=out.parent, timeout=120)


def listed(out: Path) -> set[str]:
    return {u.loc.removeprefix(BASE) for u in read_set(out, BASE).urls}


def test_every_url_the_generator_listed_and_left_out_is_named(tmp_path):
    out = tmp_path / "out"
    page(out, "index.html")
    page(out, "functions/images/resize/index.html")  # folder names never drop a page
    page(out, "tools/search/index.html")
    page(out, "templates/404/index.html")
    page(out, "_static/demo/index.html")
    page(out, "secret/index.html", '<meta name=robots content="noindex,follow">')
    page(out, "old/index.html", '<meta http-equiv=refresh content="0; url=/">')
    page(out, "copy/index.html", f"<link rel=canonical href={BASE}tools/search/>")
    page(out, "404.html")
    page(out, "de/404/index.html")  # a localized 404 page (Astro Starlight's)
    page(out, "de/index.html")
    page(out, "fr/404.html")  # listed as /fr/404, served as fr/404.html (Jekyll's form)
    urlset(out, ["", "functions/images/resize/", "tools/search/", "templates/404/",
                 "_static/demo/", "secret/", "old/", "copy/", "404.html", "de/404/",
                 "de/", "fr/404"])
    report = tmp_path / "report.jsonl"
    done = site(out, "--report", str(report))
    assert done.returncode == 0, done.stderr
    assert listed(out) == {"", "functions/images/resize/", "tools/search/", "templates/404/",
                           "_static/demo/", "de/"}
    rows = {r["url"].removeprefix(BASE): r for r in map(json.loads,
                                                         report.read_text().splitlines())
            if r["change"] == "left out"}  # what the generator listed, left out
    assert {u: r["reason"] for u, r in rows.items()} == {
        "secret/": "noindex pages", "old/": "redirect stubs", "404.html": "404 pages",
        "de/404/": "404 pages", "fr/404": "404 pages",
        "copy/": "pages with a canonical URL pointing elsewhere"}
    assert rows["copy/"]["detail"] == f"{BASE}tools/search/"
    assert rows["secret/"]["page"] == "secret/index.html"
    assert "6 of the 12 URLs the generator's sitemap.xml listed are left out" in done.stderr
    assert "warning:" not in done.stderr  # each page said it is not one


def test_a_worse_set_is_a_warning_and_fails_strict(tmp_path):
    out = tmp_path / "out"
    page(out, "index.html")
    page(out, "a/index.html")
    urlset(out, ["", "a/", "gone/"], dated=True)
    before = (out / "sitemap.xml").read_text()
    done = site(out, "--validate", "strict", "--report", str(tmp_path / "r.jsonl"))
    assert done.returncode == 1
    assert "1 of the 3 URLs the generator's sitemap.xml listed are left out: 1 no page in " \
           "the output at this URL (e.g. " + BASE + "gone/)" in done.stderr
    assert "2 URLs that the generator's sitemap.xml gave a lastmod go out without one" \
        in done.stderr
    assert "error: strict:" in done.stderr and "Traceback" not in done.stderr
    assert "nothing was written: --validate strict fails on the 2 warnings above" \
        in done.stderr, done.stderr
    assert (out / "sitemap.xml").read_text() == before  # strict fails: the old set stays
    assert site(out).returncode == 0  # without strict: written, with the same warnings
    assert (out / "sitemap.xml").read_text() != before
    again = site(out)  # a re-run over its own output has nothing to compare with
    assert again.returncode == 0 and "warning:" not in again.stderr


def test_language_folder_sitemaps_are_read_replaced_and_removed(tmp_path):
    out = tmp_path / "out"
    for path in ("index.html", "a/index.html", "de/index.html", "de/a/index.html",
                 "pt-BR/index.html"):
        page(out, path)
    urlset(out, ["", "a/"])
    urlset(out, ["de/", "de/a/"], where="de/sitemap.xml")
    # the .gz twin MkDocs and Zensical write: removed with it, since it is a sitemap
    (out / "de/sitemap.xml.gz").write_bytes(gzip.compress((out / "de/sitemap.xml").read_bytes()))
    urlset(out, ["pt-BR/"], where="pt-BR/sitemap.xml")
    urlset(out, ["1.0/"], where="1.0/sitemap.xml")  # a version folder, not a language
    page(out, "1.0/index.html", f'<link rel=canonical href="{BASE}">')  # not listed twice
    done = site(out, "--validate")
    assert done.returncode == 0, done.stderr
    assert not (out / "de/sitemap.xml").exists() and not (out / "de/sitemap.xml.gz").exists()
    assert not (out / "pt-BR/sitemap.xml").exists() and (out / "1.0/sitemap.xml").exists()
    assert "and 2 in language folders" in done.stderr and "duplicate" not in done.stderr
    assert "stale" not in done.stderr  # de/ pages are in de/sitemap.xml


@pytest.mark.parametrize("canonical, listed_as", [
    ("https://example.com/docs/intro", "docs/intro"),  # Docusaurus: no trailing slash
    ("https://example.com/docs/intro/", "docs/intro/"),
    ("https://example.com/docs/intro/index.html", "docs/intro/index.html"),
    ("https://example.com/docs/intro/index/", "docs/intro/"),  # Sphinx dirhtml: not served
    ("/docs/intro", "docs/intro"),
])
def test_a_page_and_its_canonical_are_one_page(tmp_path, canonical, listed_as):
    out = tmp_path / "out"
    page(out, "docs/intro/index.html", f'<link rel="canonical" href="{canonical}">')
    page(out, "index.html")
    done = site(out)
    assert done.returncode == 0, done.stderr
    assert listed(out) == {"", listed_as}


def alternates(lang_links: dict[str, str]) -> str:
    return "".join(f'<link rel=alternate hreflang={lang} href="{BASE}{href}">'
                   for lang, href in lang_links.items())


def test_hreflang_from_the_pages_when_they_agree(tmp_path):
    out = tmp_path / "out"
    pair = alternates({"en": "a/", "de": "de/a/"})
    page(out, "a/index.html", pair)
    page(out, "de/a/index.html", pair)
    page(out, "b/index.html", alternates({"en": "b/", "de": "de/b/"}))
    page(out, "de/b/index.html", alternates({"de": "de/b/"}))  # does not name b/ back
    done = site(out)
    assert done.returncode == 0, done.stderr
    urls = {u.loc.removeprefix(BASE): sorted(u.alternates) for u in read_set(out, BASE).urls}
    assert urls["a/"] == urls["de/a/"] == [("de", BASE + "de/a/"), ("en", BASE + "a/")]
    assert urls["b/"] == urls["de/b/"] == []
    assert "2 pages' hreflang links disagree" in done.stderr


def test_hreflang_that_all_claim_one_language_is_refused(tmp_path):
    out = tmp_path / "out"
    for path in ("a/", "b/"):
        page(out, path + "index.html", alternates({"en": path}))
    done = site(out)
    assert "all claim en: no translations" in done.stderr
    assert all(not u.alternates for u in read_set(out, BASE).urls)


# --- the page's own edit link -------------------------------------------------------------
EDIT = "https://github.com/o/r/edit/main/"
TRACKED = {"docs/guide/install.md", "README.md", "mkdocs.yml", "docs/de/guide/install.md",
           "content/en/Where.md"}


@pytest.mark.parametrize("html, key, want", [
    # the theme's marked link wins over a body link that comes first
    (f'<p><a href="{EDIT}README.md">readme</a></p><a href="{EDIT}docs/guide/install.md" '
     'rel="edit">x</a>', "guide/install", "docs/guide/install.md"),
    # minified: unquoted, upper case, entities; marked by its class
    (f"<A CLASS=theme-edit-this-page HREF={EDIT}docs/guide/install.md?plain=1&amp;x=1>E</A>",
     "guide/install", "docs/guide/install.md"),
    # marked by its text
    (f'<a href="{EDIT}docs/guide/install.md"><span>Edit this page</span></a>', "x/y",
     "docs/guide/install.md"),
    # unmarked links: only one whose file maps to the page's URL
    (f'<a href="{EDIT}mkdocs.yml">config</a><a href="{EDIT}docs/guide/install.md">src</a>',
     "guide/install", "docs/guide/install.md"),
    # a body link alone never dates the page
    ('<a href="https://github.com/o/r/blob/main/README.md">readme</a>', "guide/install", None),
    (f'<a href="{EDIT}docs/de/guide/install.md">de</a>', "guide/install", None),
    # Hugo lower-cases the URL: Where.md serves where/
    (f"<a href={EDIT}content/en/Where.md>source</a>", "where", "content/en/Where.md"),
    # a link inside a comment or a script is not a link
    (f'<!-- <a rel=edit href="{EDIT}README.md">x</a> --><script>"<a rel=edit href='
     f'{EDIT}README.md>"</script>', "guide/install", None),
])
def test_only_the_pages_own_edit_link_counts(tmp_path, html, key, want):
    path = tmp_path / "p.html"
    path.write_text(f"<html><head></head><body>{html}</body></html>")
    assert edit_link_source(path, TRACKED, key, frozenset({"de"})) == want


def test_a_page_too_large_to_read_for_its_edit_link_is_said(tmp_path):
    from sitemapkit.sources.built.editlinks import PageTooLarge
    from sitemapkit.sources.built.listing import PAGE_READ_LIMIT
    path = tmp_path / "p.html"
    with open(path, "wb") as fh:
        fh.write(f'<html><head></head><body><a rel=edit href="{EDIT}README.md">x</a>'.encode())
        fh.write(b" " * PAGE_READ_LIMIT)
    with pytest.raises(PageTooLarge):
        edit_link_source(path, TRACKED, "guide/install", frozenset())


def test_edit_links_date_pages_through_git(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.commit("2024-01-10T09:00:00+01:00", {"docs/guide/install.md": "x\n", "README.md": "r\n"})
    repo.commit("2024-05-10T09:00:00+01:00", {"README.md": "newer\n"})
    out = tmp_path / "out"
    page(out, "guide/install/index.html", body=f'<a href="{EDIT}README.md">r</a>'
         f'<a href="{EDIT}docs/guide/install.md" title="Edit this page">e</a>')
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url",
                           BASE, "--source", str(repo.root), "--cache-dir", ""],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert [u.lastmod for u in read_set(out, BASE).urls] == ["2024-01-10T09:00:00+01:00"]


# --- what the generator left behind, missing or unreadable: said, never silent ------------
def test_a_missing_or_unreadable_sphinx_environment_is_a_note(tmp_path):
    repo = Repo(tmp_path / "s")
    repo.commit("2024-01-10T09:00:00+01:00", {
        "conf.py": 'project = "T"\nexclude_patterns = ["_build"]\n', ".gitignore": "_build/\n",
        "index.rst": "Home\n====\n\n.. include:: part.rst\n", "part.rst": "Part.\n"})
    repo.commit("2024-05-10T09:00:00+01:00", {"part.rst": "Part, newer.\n"})
    out = repo.root / "_build/html"
    subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", ".", str(out)],
                   cwd=repo.root, check=True, capture_output=True)
    run = [sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url", BASE,
           "--source", str(repo.root), "--cache-dir", ""]
    done = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Sphinx environment" not in done.stderr, done.stderr
    dates = {u.loc: u.lastmod for u in read_set(out, BASE).urls}
    assert dates[BASE] == "2024-05-10T09:00:00+01:00"  # its include counts
    (out / ".doctrees/environment.pickle").write_bytes(b"not a pickle")
    done = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert "cannot read the Sphinx environment" in done.stderr and "Traceback" not in done.stderr
    dates = {u.loc: u.lastmod for u in read_set(out, BASE).urls}
    assert dates[BASE] == "2024-01-10T09:00:00+01:00"  # by its file name only
    shutil.rmtree(out / ".doctrees")
    done = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert "no Sphinx environment (.doctrees/environment.pickle)" in done.stderr


def test_docusaurus_without_its_build_metadata_is_a_note(tmp_path):
    project = tmp_path / "d"
    project.mkdir()
    (project / "docusaurus.config.js").write_text("export default {};\n")
    out = project / "build"
    page(out, "docs/intro/index.html")
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url",
                           BASE, "--source", str(project), "--lastmod", "none"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "no .docusaurus/ in" in done.stderr and "`docusaurus build` writes it" in done.stderr
    # the config is code: read as written, only for want of the build's record, a warning
    assert "warning: no build record of docusaurus.config.js in " in done.stderr and \
        "url and baseUrl are read from docusaurus.config.js as written" in done.stderr, \
        done.stderr


def test_an_unreadable_generator_sitemap_is_a_warning_not_silence(tmp_path):
    out = tmp_path / "out"
    page(out, "index.html")
    (out / "sitemap.xml").write_text("<urlset><url><loc>broken")
    done = site(out, "--validate", "strict")
    assert "cannot read the generator's sitemap sitemap.xml (" in done.stderr
    assert "what it listed is not compared" in done.stderr and done.returncode == 1
    assert (out / "sitemap.xml").read_text() == "<urlset><url><loc>broken"  # strict: kept
    assert site(out).returncode == 0
    assert listed(out) == {""}  # without strict, replaced all the same


def test_a_git_failure_under_the_edit_links_is_a_warning(tmp_path):
    repo = Repo(tmp_path / "r")
    repo.commit("2024-01-10T09:00:00+01:00", {"docs/guide/install.md": "x\n"})
    (repo.root / ".git/index").write_bytes(b"not an index")
    out = tmp_path / "out"
    page(out, "guide/install/index.html", body=f'<a href="{EDIT}docs/guide/install.md" '
         'rel="edit">e</a>')
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url",
                           BASE, "--source", str(repo.root), "--cache-dir", ""],
                          capture_output=True, text=True, timeout=120)
    assert "git ls-files failed in" in done.stderr and "index" in done.stderr
    assert "1 pages without a source are not mapped by their edit links" in done.stderr
    assert "Traceback" not in done.stderr


def mixed_output(out: Path) -> None:
    """Pages of every kind the scan tells apart, in top-level files, nested folders and
    a hidden folder, so that any split of the work between processes crosses them."""
    page(out, "index.html", '<meta name="generator" content="Hugo 0.150">')
    page(out, "top.html", '<link rel=canonical href="https://other.example.org/top.html">')
    page(out, "404.html")
    (out / "frag.html").write_text("<div>a fragment</div>")
    page(out, ".hidden/x.html")
    for s in range(7):
        for n in range(5):
            head = ['<meta name="robots" content="noindex">',
                    '<meta http-equiv="refresh" content="0; url=/s0/p0/">',
                    f'<link rel="canonical" href="{BASE}s{s}/p0/">',
                    f'<link rel="canonical" href="{BASE}s{s}/p{n}">',
                    '<meta name="generator" content="Hugo 0.150">'][n]
            page(out, f"s{s}/p{n}/index.html", head)
        page(out, f"s{s}/deep/er/page.html", f'<link rel="alternate" hreflang="de" '
             f'href="{BASE}de/s{s}/">')


def test_the_scan_split_between_processes_equals_the_scan_in_one(tmp_path, monkeypatch):
    from sitemapkit.sources.built import scan as scanning
    out = tmp_path / "out"
    mixed_output(out)
    monkeypatch.setattr(scanning, "PARALLEL_UNITS", 10 ** 9)
    alone = scanning.scan(out, BASE)
    monkeypatch.setattr(scanning, "PARALLEL_UNITS", 0)
    monkeypatch.setattr(scanning, "_workers", lambda: 3)
    split = scanning.scan(out, BASE)
    assert split == alone
    assert [p.path for p in alone.pages] == sorted(p.path for p in alone.pages)
    assert len(alone.pages) == 2 + 7 * 3 and len(alone.left) == 2 + 7 * 3  # p3, p4, deep kept
    assert alone.generators == {"hugo": 8} and alone.other_base


def test_an_unreadable_page_is_named_when_a_worker_reads_it(tmp_path, monkeypatch):
    from sitemapkit.sources.built import scan as scanning
    out = tmp_path / "out"
    mixed_output(out)
    unreadable_page(out / "s3/p1/broken.html")
    monkeypatch.setattr(scanning, "PARALLEL_UNITS", 0)
    monkeypatch.setattr(scanning, "_workers", lambda: 2)
    found = scanning.scan(out, BASE)
    assert [(i.path, i.reason, i.detail) for i in found.left if i.reason == scanning.UNREAD] \
        == [("s3/p1/broken.html", scanning.UNREAD, "is a socket")]
    assert scanning.unread_warnings(found) == [
        "1 page or folder could not be read, so it is not listed: s3/p1/broken.html "
        "(is a socket)"]
    assert found.pages  # the others are read


@pytest.mark.parametrize("body, want", [
    ("<url><loc>https://e.com/a/</loc></url><url>\n <loc> https://e.com/b/?x=1&amp;y=2 </loc>"
     "\n <lastmod>2024-01-01</lastmod></url>",
     {"https://e.com/a/": False, "https://e.com/b/?x=1&y=2": True}),
    ("<url><lastmod>2024-01-01</lastmod><loc>https://e.com/a/</loc></url>"  # lastmod first
     "<url><loc>https://e.com/b/</loc><changefreq>daily</changefreq><lastmod>2024-01-01"
     "</lastmod></url>", {"https://e.com/a/": True, "https://e.com/b/": True}),
    ("<url><loc>https://e.com/a/</loc></url><url><loc>https://e.com/a/</loc><lastmod>2024-"
     "01-01</lastmod></url>", {"https://e.com/a/": True}),  # listed twice: dated once
])
def test_the_generators_sitemap_is_read_in_every_shape(tmp_path, body, want):
    from sitemapkit.sources.built.floor import read_old
    (tmp_path / "sitemap.xml").write_text(
        f'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"{body}</urlset>\n")
    found = read_old(tmp_path, "sitemap.xml", "https://e.com/")
    assert found is not None and found.locs == want


def test_an_index_at_another_name_is_the_floor_and_our_set_takes_its_name(tmp_path):
    """Astro's shape: sitemap-index.xml naming sitemap-0.xml, robots.txt and every page's
    <link rel="sitemap"> pointing at the index. The set is written under that name, so
    they all still point at a live sitemap; the generator's child is removed; no second
    set is published beside it, and robots.txt keeps one Sitemap: line."""
    out = tmp_path / "out"
    link = '<link rel="sitemap" href="/sitemap-index.xml">'
    for path in ("index.html", "a/index.html", "b/index.html"):
        page(out, path, link)
    urlset(out, ["", "a/", "b/"], where="sitemap-0.xml")
    (out / "sitemap-index.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/'
        f'schemas/sitemap/0.9"><sitemap><loc>{BASE}sitemap-0.xml</loc></sitemap></sitemapindex>')
    (out / "robots.txt").write_text(
        f"User-agent: *\nAllow: /\n\nSitemap: {BASE}sitemap-index.xml\n")
    (out / "feed.xml").write_text('<?xml version="1.0"?><rss version="2.0"></rss>')
    done = site(out, "--validate", "strict")
    assert done.returncode == 0, done.stderr
    assert {u.loc for u in read_set(out, BASE, entry_point="sitemap-index.xml").urls} == {
        BASE, BASE + "a/", BASE + "b/"}
    assert not (out / "sitemap-0.xml").exists() and not (out / "sitemap.xml").exists()
    assert (out / "feed.xml").exists()
    assert (out / "robots.txt").read_text().count("Sitemap:") == 1
    assert "the sitemaps are written as sitemap-index.xml, the generator's entry point" \
        in done.stderr
    assert "replaced the generator's sitemap-index.xml (an index of 1 sitemap," in done.stderr


def _language_tree(root: Path, langs: tuple[str, ...], out_folders: tuple[str, ...]) -> Path:
    for lang in langs:
        (root / "docs" / lang / "docs").mkdir(parents=True)
        (root / "docs" / lang / "mkdocs.yml").write_text("site_name: T\n")
        (root / "docs" / lang / "docs" / "index.md").write_text("# x\n")
    out = root / "site"
    for folder in ("", *out_folders):
        (out / folder).mkdir(parents=True, exist_ok=True)
    return out


def test_per_language_configs_without_site_urls_are_placed_by_the_output_folders(tmp_path):
    """No site_url or site_dir: the languages whose folder the output holds are there,
    the one without is at the top; two without is unknown, said, and nothing mapped."""
    from sitemapkit.sources.built import detect
    from sitemapkit.sources.built.family import Built

    out = _language_tree(tmp_path / "a", ("de", "en"), ("de",))
    layout = detect(tmp_path / "a")
    assert layout is not None and layout.known is not None
    built = Built(out, "/", frozenset({"", "de"}))
    assert {key: [k.source for k in found] for key, found in layout.known(built).items()} == {
        "": [str(tmp_path / "a/docs/en/docs/index.md")],
        "de": [str(tmp_path / "a/docs/de/docs/index.md")]}
    out = _language_tree(tmp_path / "b", ("de", "en", "fr"), ("de",))
    layout = detect(tmp_path / "b" / "docs")  # --source may name the docs folder too
    assert layout is not None and layout.known is not None
    built = Built(out, "/", frozenset({"", "de"}))
    assert layout.known(built) == {} and built.notes == [
        "one config per language, but no output folder for en, fr: which of them is at "
        "the top is unknown, so their pages are not mapped to sources"]


@pytest.mark.parametrize(("value", "expected"), [
    ("2023-04-05", "2023-04-05"),
    ("2023-04-05T10:00:00+02:00", "2023-04-05T10:00:00+02:00"),
    ("2023-04-05T10:00:00", "2023-04-05"),  # no zone: the site's, unknown here: its day
    ("2023-04-05 10:00", "2023-04-05"),
    ("yesterday", None), (None, None), (17, None), ("2023-02-30", None),
])
def test_a_front_matter_date_is_taken_as_far_as_it_can_be_stood_behind(value, expected):
    from sitemapkit.sources.built.family import declared_lastmod

    assert declared_lastmod(value) == expected


def test_declared_dates_are_days_or_times_and_never_ahead_of_the_clock():
    from datetime import date, datetime, timedelta, timezone

    from sitemapkit.publish.dating import page_dates
    from sitemapkit.publish.pipeline import entries_from_rows
    from sitemapkit.sources.built.family import declared_lastmod
    from sitemapkit.sources.git.dates import GitDates
    from sitemapkit.sources.pages import PageRow

    assert declared_lastmod(datetime(2023, 4, 5, 10, 0)) == "2023-04-05"
    assert declared_lastmod(date(2023, 4, 5)) == "2023-04-05"
    ahead = (datetime.now(timezone.utc) + timedelta(days=3)).date().isoformat()
    rows = [PageRow("https://e.com/a", "a.md", "a.md", declared="2023-04-05"),
            PageRow("https://e.com/b", "b.md", "b.md", declared="2023-04-05T10:00:00+02:00"),
            PageRow("https://e.com/c", "c.md", "c.md", declared=ahead)]
    dated = page_dates(rows, GitDates())
    assert dated.declared == 2 and dated.days == {0}
    assert [e.lastmod for e in entries_from_rows(rows, dated, "datetime")] == [
        date(2023, 4, 5), datetime(2023, 4, 5, 10, tzinfo=timezone(timedelta(hours=2))), None]
    assert dated.notes == [f"c.md: its front matter's date {ahead} is in the future: dated "
                           "by git instead"]
