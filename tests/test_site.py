"""``sitemapkit site`` after real builds by generators that do not run our plugin: MkDocs,
ProperDocs, Zensical, Sphinx (html and dirhtml) and Hugo, each over a git history with
set dates. Every lastmod must be git's own per-file answer for the page's source; no
redirect stub, 404 or noindex page may be listed; the output must validate."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import pytest
import yaml
from gitref import reference_date
from gitrepo import Repo
from sitemap_check import read_set

from conftest import unreadable_page
from sitemapkit.site import HUGO_TEMPLATE
from sitemapkit.validate import ValidateOptions, validate

BASE = "https://example.com/"
BIN = Path(sys.executable).parent


def run(*args: object, cwd: Path | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if check and done.returncode != 0:
        raise AssertionError(f"{args[0]} failed:\n{done.stdout}\n{done.stderr}")
    return done


def site(out: Path, *args: str, source: Path | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    more = ["--source", str(source)] if source else []
    # without --source the git cache goes under the cwd: keep it in tmp, not the repo
    return run(sys.executable, "-m", "sitemapkit", "site", out, "--base-url", BASE, *more,
               *args, check=check, cwd=None if source else Path(out).parent)


def history(repo: Repo, pages: dict[str, str]) -> None:
    """Three commits in three time zones, each page touched in a different one."""
    names = sorted(pages)
    repo.commit("2024-01-10T09:00:00+01:00", pages, author_when="2023-12-24T18:00:00+01:00")
    repo.commit("2024-03-05T14:30:00-05:00", {n: pages[n] + "\nMore.\n" for n in names[::2]})
    repo.commit("2024-07-21T08:15:00+05:30", {n: pages[n] + "\nLast.\n" for n in names[1::3]})


def check_dates(out: Path, root: Path, sources: dict[str, str | tuple[str, ...] | None],
                absent: tuple[str, ...] = ()) -> dict[str, str | None]:
    """Each listed page (by path under BASE) has its source's reference date; a list
    page (a tuple: its own source, if any, and its members) the newest of theirs."""
    got = {u.loc.removeprefix(BASE): u.lastmod for u in read_set(out, BASE).urls}
    for path, source in sources.items():
        assert path in got, f"{path} not listed; listed: {sorted(got)}"
        if isinstance(source, tuple):
            dates = [reference_date(root, s) for s in source]
            want = max(dates, key=datetime.fromisoformat) if all(dates) and dates else None
        else:
            want = reference_date(root, source) if source else None
        assert got[path] == want, (path, source, got[path], want)
    for path in absent:
        assert path not in got, f"{path} must not be listed"
    report = validate([out], ValidateOptions(base_url=BASE))
    assert report.ok(), "\n".join(f.text() for f in report.findings)
    return got


# --- the MkDocs family ------------------------------------------------------------------
NOINDEX = ('{% extends "base.html" %}{% block extrahead %}{% if page and page.meta.robots %}'
           '<meta name="robots" content="{{ page.meta.robots }}">{% endif %}'
           '{% if page and page.meta.redirect %}<meta http-equiv="refresh" '
           'content="0; url={{ page.meta.redirect }}">{% endif %}{% endblock %}')
MK_PAGES = {"docs/index.md": "# Home\n", "docs/guide/README.md": "# Guide\n",
            "docs/guide/install.md": "# Install\n", "docs/über uns.md": "# Über\n",
            "docs/secret.md": "---\nrobots: noindex\n---\n# Secret\n",
            "docs/moved.md": "---\nredirect: ../guide/\n---\n# Moved\n"}


@pytest.mark.parametrize("tool", ["mkdocs", "properdocs"])
@pytest.mark.parametrize("directory_urls", [True, False], ids=["dir-urls", "file-urls"])
def test_mkdocs_family_without_the_plugin(tmp_path, tool, directory_urls):
    repo = Repo(tmp_path / "p")
    config = {"site_name": "T", "site_url": BASE, "use_directory_urls": directory_urls,
              "theme": {"name": "mkdocs", "custom_dir": "overrides"}}
    repo.write(f"{tool}.yml", yaml.safe_dump(config))
    repo.write("overrides/main.html", NOINDEX)
    repo.write(".gitignore", "site/\n.cache/\n")
    history(repo, MK_PAGES)
    run(sys.executable, "-m", tool, "build", "-q", cwd=repo.root)
    done = site(repo.root / "site", "--validate", "strict", source=repo.root)
    assert "validate: valid: 1 file, 4 URLs, 0 errors, 0 warnings (strict)" in done.stderr
    d = directory_urls
    sources = {("" if d else "index.html"): "docs/index.md",
               ("guide/" if d else "guide/index.html"): "docs/guide/README.md",
               ("guide/install/" if d else "guide/install.html"): "docs/guide/install.md",
               ("%C3%BCber%20uns/" if d else "%C3%BCber%20uns.html"): "docs/über uns.md"}
    check_dates(repo.root / "site", repo.root, sources,
                absent=("secret/", "secret.html", "moved/", "moved.html", "404.html"))
    assert "7 pages found: 4 to list, 3 left out (1 redirect stub, 1 noindex page, " \
        "1 404 page)" in done.stderr
    family = "ProperDocs'" if tool == "properdocs" else "MkDocs'"
    assert f"2 of the 6 URLs {family} sitemap.xml listed are left out: 1 redirect stub (e.g. " \
        f"moved{'/index' if d else ''}.html), 1 noindex page (e.g. secret" in done.stderr
    assert "warning:" not in done.stderr  # what it left out, each page said of itself
    assert "replaced" in done.stderr and "sitemap.xml" in done.stderr


def test_zensical_with_redirects_edit_links_and_both_url_styles(tmp_path):
    repo = Repo(tmp_path / "z")
    repo.write(".gitignore", "site/\n.cache/\n")
    pages = {"docs/index.md": "# Home\n", "docs/guide/install.md": "# Install\n",
             "docs/guide/README.md": "# Guide\n", "docs/api.md": "# API\n"}
    for directory_urls in (True, False):
        repo.write("zensical.toml", (
            f'[project]\nsite_name = "Z"\nsite_url = "{BASE}"\nrepo_url = '
            '"https://github.com/x/y"\nedit_uri = "edit/main/docs/"\n'
            f"use_directory_urls = {str(directory_urls).lower()}\n"
            '[project.theme]\nfeatures = ["content.action.edit"]\n'
            '[project.plugins.redirects.redirect_maps]\n"old.md" = "guide/install.md"\n'))
        if directory_urls:
            history(repo, pages)
        shutil.rmtree(repo.root / "site", ignore_errors=True)
        run(BIN / "zensical", "build", cwd=repo.root)
        before = (repo.root / "site/sitemap.xml").read_text()
        assert "<lastmod>" not in before  # what Zensical writes: no dates at all
        done = site(repo.root / "site", source=repo.root)
        d = directory_urls
        check_dates(repo.root / "site", repo.root, {
            ("" if d else "index.html"): "docs/index.md",
            ("guide/" if d else "guide/index.html"): "docs/guide/README.md",
            ("guide/install/" if d else "guide/install.html"): "docs/guide/install.md",
            ("api/" if d else "api.html"): "docs/api.md"},
            absent=("old/", "old.html", "404.html"))
        assert "replaced Zensical's sitemap.xml" in done.stderr and "no lastmod" in done.stderr


def test_edit_links_map_pages_a_layout_cannot(tmp_path):
    """A generator without layout rules here (Pelican: slugs) maps by its edit links."""
    repo = Repo(tmp_path / "p")
    repo.write("pelicanconf.py", "PATH = 'content'\n")
    history(repo, {"content/first-post.md": "Title: First\n\nText\n",
                   "content/pages/about.md": "Title: About\n\nText\n"})
    out = repo.root / "output"
    for path, source in (("2024/first/index.html", "content/first-post.md"),
                         ("about.html", "content/pages/about.md"), ("tags.html", None)):
        link = f'<a href="https://github.com/x/y/blob/main/{source}">edit</a>' if source else ""
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_text(f"<html><head><title>t</title></head><body>{link}</body></html>")
    done = site(out, source=repo.root)
    assert "1 page with no source file" in done.stderr
    assert "2 pages mapped by their edit links" in done.stderr
    check_dates(out, repo.root, {"2024/first/": "content/first-post.md",
                                 "about.html": "content/pages/about.md", "tags.html": None})


# --- Sphinx -------------------------------------------------------------------------------
@pytest.mark.parametrize("builder", ["html", "dirhtml"])
def test_sphinx_without_the_extension(tmp_path, builder):
    repo = Repo(tmp_path / "s")
    repo.write("conf.py", f'project = "T"\nhtml_baseurl = "{BASE}"\n'
                          'exclude_patterns = ["_build"]\n')
    repo.write(".gitignore", "_build/\n")
    history(repo, {"index.rst": "Home\n====\n\n.. toctree::\n\n   guide/install\n   api\n",
                   "guide/install.rst": "Install\n=======\n", "api.rst": "API\n===\n",
                   "hidden.rst": ":orphan:\n\n.. meta::\n   :robots: noindex\n\nHidden\n======\n"})
    run(sys.executable, "-m", "sphinx", "-q", "-b", builder, ".", "_build/out", cwd=repo.root)
    out = repo.root / "_build/out"
    done = site(out, source=repo.root)
    if builder == "html":
        pages = {"index.html": "index.rst", "guide/install.html": "guide/install.rst",
                 "api.html": "api.rst", "genindex.html": None}
        absent = ("hidden.html",)
    else:
        pages = {"": "index.rst", "guide/install/": "guide/install.rst", "api/": "api.rst",
                 "genindex/": None}
        absent = ("hidden/",)
    check_dates(out, repo.root, pages, absent)
    assert "noindex pages" in done.stderr
    # Sphinx wrote no robots.txt: the one made is said (a second run adds nothing)
    assert f"created robots.txt (the output had none) with 'Sitemap: {BASE}sitemap.xml'" \
        in done.stderr, done.stderr
    assert "created robots.txt" not in site(out, source=repo.root).stderr


# --- Hugo ---------------------------------------------------------------------------------
HUGO_CONFIG = f"""baseURL = "{BASE}"
title = "T"
defaultContentLanguage = "en"
[languages.en]
weight = 1
[languages.de]
weight = 2
[taxonomies]
tag = "tags"
"""
HUGO_LAYOUTS = {
    "layouts/baseof.html": '<!DOCTYPE html><html><head><title>{{ .Title }}</title>'
                           '<link rel="canonical" href="{{ .Permalink }}"></head><body>'
                           '{{ block "main" . }}{{ end }}</body></html>',
    "layouts/single.html": '{{ define "main" }}{{ .Content }}{{ end }}',
    "layouts/list.html": '{{ define "main" }}{{ .Content }}{{ end }}',
    "layouts/home.html": '{{ define "main" }}{{ .Content }}{{ end }}',
    "layouts/404.html": "<!DOCTYPE html><html><head><title>404</title></head><body></body></html>",
}
HUGO_PAGES = {
    "content/_index.md": "---\ntitle: Home\n---\nHi\n",
    "content/_index.de.md": "---\ntitle: Start\n---\nHallo\n",
    "content/posts/_index.md": "---\ntitle: Posts\n---\n",
    "content/posts/first.md": "---\ntitle: First\ntags: [a]\naliases: [/old-first/]\n---\nOne\n",
    "content/posts/first.de.md": "---\ntitle: Erste\n---\nEins\n",
    "content/posts/second.md": "---\ntitle: Second\nslug: custom-second\n---\nTwo\n",
    "content/about/index.md": "---\ntitle: About\n---\nA\n",
}


def hugo_site(tmp_path: Path, with_map: bool) -> Repo:
    repo = Repo(tmp_path / "h")
    config = HUGO_CONFIG + ((HUGO_TEMPLATE / "hugo.toml").read_text() if with_map else "")
    repo.write("hugo.toml", config)
    for path, text in HUGO_LAYOUTS.items():
        repo.write(path, text)
    if with_map:
        shutil.copy(HUGO_TEMPLATE / "home.sitemapkit.json", repo.root / "layouts")
    repo.write(".gitignore", "public/\n.hugo_build.lock\n.cache/\n")
    history(repo, HUGO_PAGES)
    done = run(BIN / "hugo", cwd=repo.root)
    assert "deprecated" not in done.stdout + done.stderr  # the shipped map template too
    return repo


@pytest.mark.parametrize("with_map", [False, True], ids=["layout-rules", "map-template"])
def test_hugo_multilingual_with_slugs_aliases_and_taxonomies(tmp_path, with_map):
    repo = hugo_site(tmp_path, with_map)
    out = repo.root / "public"
    assert (out / "sitemap.xml").read_text().count("<sitemapindex") == 1  # Hugo: per language
    args = ["--map", str(out / "sitemapkit-map.json")] if with_map else []
    (out / "files").mkdir()
    users = out / "files" / "sitemapkit-map.json"  # a user's file of the map's name
    users.write_text('{"not": "a page map"}\n')
    done = site(out, *args, source=repo.root)
    english = ("content/_index.md", "content/posts/_index.md", "content/posts/first.md",
               "content/posts/second.md", "content/about/index.md")
    got = check_dates(out, repo.root, {  # list pages: by Hugo's content tree
        "": english, "de/": ("content/_index.de.md", "content/posts/first.de.md"),
        "posts/": english[1:4], "posts/first/": "content/posts/first.md",
        "de/posts/first/": "content/posts/first.de.md", "about/": "content/about/index.md",
        "posts/custom-second/": "content/posts/second.md",  # its slug, read by both
        "tags/": ("content/posts/first.md",), "tags/a/": ("content/posts/first.md",),
        "de/posts/": ("content/posts/first.de.md",)},
        absent=("old-first/", "en/", "404.html", "de/404.html"))
    assert len(got) == 11
    urls = {u.loc: u for u in read_set(out, BASE).urls}
    assert sorted(urls[BASE + "posts/first/"].alternates) == [
        ("de", BASE + "de/posts/first/"), ("en", BASE + "posts/first/")]
    assert not (out / "en" / "sitemap.xml").exists() and not (out / "de" / "sitemap.xml").exists()
    assert "replaced Hugo's sitemap.xml (an index of 2 sitemaps" in done.stderr
    # the map's copies are ours, not the site's; a user's file of that name stays
    assert list(out.rglob("sitemapkit-map.json")) == [users]
    again = site(out, source=repo.root)  # a re-run over its own output: same set, quiet
    assert "replaced" not in again.stderr and "warning" not in again.stderr
    rerun = {u.loc: u for u in read_set(out, BASE).urls}
    assert rerun[BASE + "posts/first/"].alternates == urls[BASE + "posts/first/"].alternates


def test_hugo_stale_output_is_reported(tmp_path):
    repo = hugo_site(tmp_path, with_map=False)
    out = repo.root / "public"
    (out / "gone").mkdir()
    (out / "gone/index.html").write_text("<html><head><title>x</title></head></html>")
    os.utime(out / "gone/index.html", (1_500_000_000, 1_500_000_000))  # an earlier build's
    done = site(out, source=repo.root)
    assert "1 page in the output is not in Hugo's sitemap.xml, e.g. gone/index.html" \
        in done.stderr


def test_a_large_hugo_style_site_is_sharded(tmp_path):
    out = tmp_path / "public"
    for i in range(120_000 // 1000):
        folder = out / f"p{i}"
        folder.mkdir(parents=True)
        for j in range(1000):
            (folder / f"page-{j}.html").write_text("<html><head><title>t</title></head></html>")
    done = site(out, "--lastmod", "none")
    listed = read_set(out, BASE)
    assert listed.kind == "index" and len(listed.shards) == 3 and len(listed.locs) == 120_000
    assert "120,000 URLs in 3 shards" in done.stdout


# --- errors: clear, and the output untouched ---------------------------------------------
def snapshot(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*"))
            if p.is_file()}


def test_missing_or_empty_output_directory(tmp_path):
    missing = site(tmp_path / "nope", check=False)
    assert missing.returncode == 2 and "is not a directory" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = site(tmp_path / "empty", check=False)
    assert empty.returncode == 2 and "holds no HTML pages" in empty.stderr
    assert "Traceback" not in missing.stderr + empty.stderr


def test_an_odd_file_under_a_pages_name_is_left_out_named_and_the_run_goes_on(
        tmp_path, twin_env):
    """A socket, a FIFO (an open would block for ever) and FIFOs under the names of the
    generator's sitemap and robots.txt: each is left out and named, the run ends, on
    both twins; --validate strict fails on the warning."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.html").write_text("<html><head></head></html>")
    unreadable_page(out / "b.html")
    os.mkfifo(out / "c.html")
    os.mkfifo(out / "sitemap.xml")
    os.mkfifo(out / "robots.txt")
    done = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url",
                           BASE], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **twin_env})
    assert done.returncode == 0, done.stderr
    assert "2 pages or folders could not be read, so they are not listed: b.html " \
        "(is a socket); c.html (is a FIFO (named pipe))" in done.stderr
    assert "Traceback" not in done.stderr
    assert [u.loc for u in read_set(out, BASE).urls] == [f"{BASE}a.html"]
    assert (out / "robots.txt").is_fifo()  # not ours to replace: said, never opened
    strict = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out),
                             "--base-url", BASE, "--validate", "strict"], capture_output=True,
                            text=True, timeout=120, env={**os.environ, **twin_env})
    assert strict.returncode == 1
    assert "strict: 2 pages or folders could not be read" in strict.stderr


def test_source_not_in_git_writes_without_dates(tmp_path):
    (tmp_path / "src" / "docs").mkdir(parents=True)
    (tmp_path / "src" / "mkdocs.yml").write_text(f"site_name: T\nsite_url: {BASE}\n")
    (tmp_path / "src" / "docs" / "index.md").write_text("# Home\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").write_text("<html><head></head></html>")
    done = site(out, source=tmp_path / "src")
    assert "is not in a git repository: the sitemaps are written without lastmod" in done.stderr
    assert [u.lastmod for u in read_set(out, BASE).urls] == [None]


def test_a_base_url_that_disagrees_with_the_canonicals_is_warned_or_refused(tmp_path):
    """Some pages' canonicals elsewhere: a warning with an example. Every page's: the
    setup is wrong, an error naming both URLs, and nothing is written."""
    out = tmp_path / "out"
    (out / "guide").mkdir(parents=True)
    (out / "api").mkdir()
    for path in ("index.html", "guide/index.html"):
        url = "https://docs.other.org/" + path.removesuffix("index.html")
        (out / path).write_text(f'<html><head><link rel="canonical" href="{url}"></head></html>')
    (out / "api/index.html").write_text(f'<html><head><link rel="canonical" href="{BASE}api/">'
                                        '</head></html>')
    done = site(out)
    assert "disagrees with 2 pages' canonical URLs, e.g. guide/index.html says " \
        "https://docs.other.org/guide/; check --base-url" in done.stderr
    (out / "api/index.html").unlink()
    (out / "sitemap.xml").unlink()
    refused = subprocess.run([sys.executable, "-m", "sitemapkit", "site", str(out),
                              "--base-url", BASE], capture_output=True, text=True)
    assert refused.returncode == 2
    assert f"the base URL {BASE} disagrees with every page's canonical URL (2 pages), e.g. " \
        "guide/index.html says https://docs.other.org/guide/: the site is at " \
        "https://docs.other.org/" in refused.stderr
    assert not (out / "sitemap.xml").exists()


def test_two_candidate_sources_are_reported_never_guessed(tmp_path):
    """Where the generator's rule between two sources is not known (Jekyll's ``x.md``
    and ``x/index.md`` for ``x/index.html``), the page is reported and undated."""
    repo = Repo(tmp_path / "p")
    repo.write("_config.yml", f"url: {BASE.rstrip('/')}\n")
    history(repo, {"index.md": "# Home\n", "x.md": "# X\n", "x/index.md": "# X2\n"})
    out = repo.root / "_site"
    (out / "x").mkdir(parents=True)
    for path in ("index.html", "x/index.html"):
        (out / path).write_text("<html><head></head></html>")
    done = site(out, source=repo.root)
    assert "could come from two source files" in done.stderr and "x/index.md and x.md" in \
        done.stderr, done.stderr
    assert {u.loc: u.lastmod for u in read_set(out, BASE).urls}[BASE + "x/"] is None


def test_mkdocs_builds_dir_index_md_over_dir_md(tmp_path):
    """MkDocs builds ``x/index.html`` from ``x.md`` and then from ``x/index.md`` (a
    folder's own files before its subfolders'): the later one is the page, and its
    date is the page's, whichever changed last."""
    repo = Repo(tmp_path / "p")
    repo.write("mkdocs.yml", f"site_name: T\nsite_url: {BASE}\n")
    repo.write(".gitignore", "site/\n.cache/\n")
    repo.commit("2024-01-10T09:00:00+01:00", {"docs/index.md": "# Home\n",
                                              "docs/x/index.md": "# From the folder\n",
                                              "docs/y.md": "# Y\n", "docs/y/README.md": "# Y2\n"})
    repo.commit("2024-03-05T14:30:00-05:00", {"docs/x.md": "# From x.md, overwritten\n",
                                              "docs/y.md": "# Y, overwritten\n"})
    run(sys.executable, "-m", "mkdocs", "build", "-q", cwd=repo.root)
    assert "From the folder" in (repo.root / "site/x/index.html").read_text()
    assert "Y2" in (repo.root / "site/y/index.html").read_text()
    done = site(repo.root / "site", "--validate", "strict", source=repo.root)
    got = check_dates(repo.root / "site", repo.root, {"x/": "docs/x/index.md",
                                                      "y/": "docs/y/README.md"})
    assert got["x/"] == "2024-01-10T09:00:00+01:00"
    assert "2 pages with two source files dated by the one the generator builds" in done.stderr


def test_map_file_wins_and_bad_lines_are_named(tmp_path):
    repo = Repo(tmp_path / "p")
    repo.write("mkdocs.yml", f"site_name: T\nsite_url: {BASE}\n")
    history(repo, {"docs/index.md": "# Home\n", "docs/other.md": "# Other\n"})
    out = repo.root / "site"
    out.mkdir()
    (out / "index.html").write_text("<html><head></head></html>")
    (tmp_path / "map.jsonl").write_text(json.dumps({"url": BASE, "source": "docs/other.md"}))
    done = site(out, "--map", str(tmp_path / "map.jsonl"), source=repo.root)
    assert "1 page mapped by --map" in done.stderr
    assert read_set(out, BASE).urls[0].lastmod == reference_date(repo.root, "docs/other.md")
    # without --source, a map with absolute paths is enough (the Hugo template writes those)
    (tmp_path / "map.jsonl").write_text(json.dumps(
        {"url": BASE, "source": str(repo.root / "docs/index.md")}))
    site(out, "--map", str(tmp_path / "map.jsonl"))
    assert read_set(out, BASE).urls[0].lastmod == reference_date(repo.root, "docs/index.md")
    for line in ('{"url": 1}', '{"url": "x", "source": "docs/index.md", "parts": "a.md"}',
                 '{"url": "x", "source": "docs/index.md", "parts": [1]}'):
        (tmp_path / "map.jsonl").write_text(f"\n{line}\n")
        bad = site(out, "--map", str(tmp_path / "map.jsonl"), source=repo.root, check=False)
        assert bad.returncode == 1 and "map.jsonl line 2: expected a JSON object with 'url' " \
            "and 'source' (and 'parts', a list of files, if any)" in bad.stderr, bad.stderr
        assert "Traceback" not in bad.stderr


def test_a_generator_sitemap_of_none_locs_is_one_note_and_replaced_whole(tmp_path):
    """MkDocs built without site_url writes <loc>None</loc> for every page, and a .gz
    copy: one note for them (no "stale files?" warning per page, strict passes), and the
    entry point goes whole: its .gz copy is the new set's."""
    out = tmp_path / "out"
    out.mkdir()
    for page in ("index.html", "a/index.html", "b/index.html"):
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text("<!DOCTYPE html><html><head></head><body></body></html>")
    old = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
           'schemas/sitemap/0.9">' + "<url><loc>None</loc><lastmod>2024-01-01</lastmod></url>"
           * 3 + "</urlset>\n")
    (out / "sitemap.xml").write_text(old)
    import gzip
    (out / "sitemap.xml.gz").write_bytes(gzip.compress(old.encode()))
    done = site(out, "--validate", "strict")
    assert "lists locs that are no URL (e.g. 'None': built without its site URL?)" in \
        done.stderr
    assert "stale files" not in done.stderr and "warning:" not in done.stderr
    import gzip as unpack
    assert unpack.decompress((out / "sitemap.xml.gz").read_bytes()) == \
        (out / "sitemap.xml").read_bytes()
    assert sorted(u.loc for u in read_set(out, BASE).urls) == [BASE, BASE + "a/", BASE + "b/"]


PLAIN = "<!DOCTYPE html><html><head><title>{0}</title></head><body><main>{0}</main></body></html>"


def plain_site(out: Path, names: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        (out / name).write_text(PLAIN.format(name))


def listed(out: Path) -> set[str]:
    return {u.loc.removeprefix(BASE) for u in read_set(out, BASE).urls}


def later(path: Path, than: Path, seconds: int = 10) -> None:
    """``path`` written ``seconds`` after ``than`` (no waiting on the clock)."""
    when = than.stat().st_mtime + seconds
    os.utime(path, (when, when))


def test_two_runs_over_a_plain_folder_list_a_page_added_between(tmp_path):
    """Our own earlier set is no allow-list: a page added (or touched) after it is
    listed on the next run, and the report is written on every run."""
    out = tmp_path / "out"
    plain_site(out, ["index.html", "a.html", "b.html"])
    site(out)
    assert listed(out) == {"", "a.html", "b.html"}
    report = tmp_path / "report.jsonl"
    done = site(out, "--report", str(report))
    assert listed(out) == {"", "a.html", "b.html"}
    assert report.is_file() and "undated" in report.read_text()
    plain_site(out, ["c.html"])
    later(out / "c.html", out / "sitemap.xml")
    done = site(out, "--report", str(report))
    assert listed(out) == {"", "a.html", "b.html", "c.html"}, done.stderr
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert {r["page"] for r in rows if r["change"] == "undated"} == \
        {"index.html", "a.html", "b.html", "c.html"}, rows


def test_a_sitemap_older_than_the_build_is_no_floor(tmp_path):
    """A hand-made or earlier build's sitemap.xml that lists only part of the site,
    older than every page: no page is left out by it (the home page neither), and it
    is said."""
    out = tmp_path / "out"
    plain_site(out, ["index.html", "a.html"])
    (out / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
        f'schemas/sitemap/0.9"><url><loc>{BASE}a.html</loc></url></urlset>\n')
    later(out / "index.html", out / "sitemap.xml")
    later(out / "a.html", out / "sitemap.xml")
    done = site(out)
    assert listed(out) == {"", "a.html"}, done.stderr
    assert "older than every page of this build" in done.stderr


def test_a_sitemap_written_before_its_pages_is_this_builds(tmp_path):
    """Hugo writes sitemap.xml before its deferred templates' pages: a sitemap older than
    every page that lists exactly the pages of the output is this build's, compared page
    by page (here it gave the home page a date this run has no source for: said)."""
    out = tmp_path / "out"
    plain_site(out, ["index.html", "a.html"])
    (out / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
        f'schemas/sitemap/0.9"><url><loc>{BASE}</loc><lastmod>2024-01-01</lastmod></url>'
        f'<url><loc>{BASE}a.html</loc></url></urlset>\n')
    later(out / "index.html", out / "sitemap.xml")
    later(out / "a.html", out / "sitemap.xml")
    done = site(out, "--validate", "strict", check=False)
    assert done.returncode == 1, done.stderr  # a lost date is a warning: strict fails
    assert "lists exactly the pages of this output: taken as the generator's sitemap of " \
        "this build" in done.stderr, done.stderr
    assert "older than every page of this build" not in done.stderr
    # compared as this build's: the date it gave the home page goes out without one
    assert "1 URL that the generator's sitemap.xml gave a lastmod goes out without one" \
        in done.stderr, done.stderr


def generator_left_internal_out(tmp_path: Path) -> Path:
    """Three pages, and the generator's sitemap of this build, which leaves out
    internal.html (its config excludes it)."""
    out = tmp_path / "out"
    plain_site(out, ["index.html", "a.html", "internal.html"])
    (out / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
        f'schemas/sitemap/0.9"><url><loc>{BASE}</loc></url><url><loc>{BASE}a.html</loc>'
        '</url></urlset>\n')
    return out


def test_the_generators_exclusions_hold_on_a_rerun_and_nothing_else(tmp_path):
    """A page the generator's sitemap (written by this build) leaves out stays out on
    a second run over our own set, by the record of the first run; a page added
    between the runs is listed."""
    out = generator_left_internal_out(tmp_path)
    done = site(out)
    assert listed(out) == {"", "a.html"}, done.stderr
    assert "its config excludes them" in done.stderr
    plain_site(out, ["new.html"])
    later(out / "new.html", out / "sitemap.xml")
    done = site(out)
    assert listed(out) == {"", "a.html", "new.html"}, done.stderr
    assert "internal.html" in done.stderr


def test_hugo_built_with_base_url_over_a_development_config_takes_the_build_url(tmp_path):
    """``hugo --baseURL=…`` over a config naming a development URL: Hugo's own sitemap
    and every canonical agree on the deployed URL, so that is the site's, and both
    are said; the pages are dated as ever. Run as the README says: no --source, no
    --base-url, from the project's root."""
    repo = Repo(tmp_path / "h")
    repo.write("hugo.toml", HUGO_CONFIG.replace(f'baseURL = "{BASE}"',
                                                'baseURL = "http://0.0.0.0:1313/"'))
    assert "0.0.0.0" in (repo.root / "hugo.toml").read_text()
    for path, text in HUGO_LAYOUTS.items():
        repo.write(path, text)
    repo.write(".gitignore", "public/\n.hugo_build.lock\n.cache/\n")
    history(repo, HUGO_PAGES)
    run(BIN / "hugo", "--baseURL", BASE, cwd=repo.root)
    done = run(sys.executable, "-m", "sitemapkit", "site", "public", "--validate", "strict",
               cwd=repo.root)
    assert f"base URL {BASE} from the locs of Hugo's sitemap.xml and every page's " \
        "canonical URL, which agree; Hugo's baseURL names http://0.0.0.0:1313/" in done.stderr
    check_dates(repo.root / "public", repo.root, {
        "posts/first/": "content/posts/first.md", "about/": "content/about/index.md"})


def test_a_base_url_nothing_in_the_output_confirms_is_said(tmp_path):
    """A Hugo theme without canonical links, run with a --base-url on another host than
    the build's: Hugo's sitemap puts the site elsewhere, so that is a warning naming
    what was checked (strict fails), and that sitemap is no floor: no page is called
    left out, added or stale while every page is written. With no sitemap and no
    canonical, a note says nothing confirmed the URL (a re-run over its own set, which
    the first run checked, says nothing)."""
    repo = Repo(tmp_path / "h")
    repo.write("hugo.toml", f'baseURL = "{BASE}"\ntitle = "T"\n')
    for path, text in HUGO_LAYOUTS.items():
        repo.write(path, text.replace('<link rel="canonical" href="{{ .Permalink }}">', ""))
    repo.write(".gitignore", "public/\n.hugo_build.lock\n.cache/\n")
    history(repo, {k: v for k, v in HUGO_PAGES.items() if ".de." not in k})
    run(BIN / "hugo", cwd=repo.root)
    wrong = "https://wrong.example.org/"
    report = tmp_path / "report.jsonl"
    done = run(sys.executable, "-m", "sitemapkit", "site", "public", "--base-url", wrong,
               "--validate", "strict", "--report", str(report), cwd=repo.root, check=False)
    assert done.returncode == 1, done.stderr
    assert f"warning: the base URL {wrong} (given) is confirmed by neither Hugo's " \
        f"sitemap.xml, whose locs are under {BASE}, nor the pages (no page names a canonical " \
        "URL): check --base-url; that sitemap is not compared with the set written" \
        in done.stderr, done.stderr
    assert "listed are left out" not in done.stderr and "stale" not in done.stderr, done.stderr
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert not [r for r in rows if r["change"] in ("left out", "added")], rows
    # strict failed, so nothing was written: Hugo's sitemap is still there
    assert "nothing was written: --validate strict fails on the 1 warning above" in done.stderr
    assert f"<loc>{BASE}" in (repo.root / "public/sitemap.xml").read_text()
    first = run(sys.executable, "-m", "sitemapkit", "site", "public", "--base-url", wrong,
                cwd=repo.root)  # without strict: written, with the same warning
    assert "is confirmed by neither Hugo's sitemap.xml" in first.stderr, first.stderr
    again = run(sys.executable, "-m", "sitemapkit", "site", "public", "--base-url", wrong,
                cwd=repo.root)  # over its own set, which the first run checked: not again
    assert "confirm" not in again.stderr, again.stderr
    (repo.root / "public/sitemap.xml").unlink()  # no sitemap and no canonical at all
    again = run(sys.executable, "-m", "sitemapkit", "site", "public", "--base-url", wrong,
                cwd=repo.root)
    assert f"nothing in the output confirms the base URL {wrong} (given): no page names a " \
        "canonical URL, and no sitemap Hugo wrote in this build lists its pages" in again.stderr


def test_sources_the_build_staged_out_of_git_are_dated_as_the_tracked_files(tmp_path):
    """A build that copies its sources into a git-ignored folder and builds from there
    (the config's docs_dir points at it): each staged file is the tracked file with its
    bytes, dated by that file's history; bytes that two tracked files hold are not
    guessed, and a page made from an untracked file is a warning."""
    repo = Repo(tmp_path / "p")
    repo.write("mkdocs.yml", f"site_name: T\nsite_url: {BASE}\ndocs_dir: .staging/docs\n")
    repo.write(".gitignore", "site/\n.cache/\n.staging/\n")
    repo.commit("2024-01-10T09:00:00+01:00", {
        "src/en/index.md": "# Home\n", "src/en/guide.md": "# Guide\n",
        "src/en/same.md": "# Same\n", "src/de/same.md": "# Same\n"})
    repo.commit("2024-03-05T14:30:00-05:00", {"src/en/guide.md": "# Guide\n\nMore.\n"})
    staging = repo.root / ".staging" / "docs"
    staging.mkdir(parents=True)
    for name in ("index.md", "guide.md", "same.md"):
        shutil.copy(repo.root / "src/en" / name, staging / name)
    (staging / "generated.md").write_text("# Made by the build\n")
    run(sys.executable, "-m", "mkdocs", "build", "-q", cwd=repo.root)
    done = run(sys.executable, "-m", "sitemapkit", "site", "site", cwd=repo.root)
    got = check_dates(repo.root / "site", repo.root, {
        "": "src/en/index.md", "guide/": "src/en/guide.md", "same/": None, "generated/": None})
    assert got["guide/"] == "2024-03-05T14:30:00-05:00"
    assert "2 source files the build copied out of git (into an ignored or untracked " \
        "folder) dated as the tracked file with the same bytes, e.g. .staging/docs/" \
        in done.stderr, done.stderr
    assert "1 source file the build copied out of git hold the bytes of several tracked " \
        "files, so they stay undated, e.g. .staging/docs/same.md = src/de/same.md and " \
        "src/en/same.md" in done.stderr
    assert "warning: 2 pages made from files that are not in git" in done.stderr
    assert "generated.md is git-ignored: commit it" in done.stderr  # the cause, named


def test_a_source_git_cannot_date_is_named_with_its_cause(tmp_path):
    from sitemapkit.site.audit import not_in_git

    repo = Repo(tmp_path / "r")
    repo.write(".gitignore", "skip/\n")
    repo.write("skip/page.md", "# Ignored\n")
    repo.commit("2024-01-01T00:00:00+00:00")
    outside = tmp_path / "elsewhere.md"
    outside.write_text("# Outside\n")
    assert not_in_git(str(repo.root / "skip/page.md")).endswith("skip/page.md is git-ignored")
    assert not_in_git(str(outside)) == f"{outside} is outside any git repository"
    assert not_in_git(str(repo.root / "gone.md")) == f"{repo.root / 'gone.md'} does not exist"


def test_keep_unlisted_lists_what_the_generator_left_out_without_calling_it_stale(tmp_path):
    out = generator_left_internal_out(tmp_path)
    report = tmp_path / "report.jsonl"
    done = site(out, "--keep-unlisted", "--validate", "strict", "--report", str(report))
    assert listed(out) == {"", "a.html", "internal.html"}, done.stderr
    assert "1 page built in this run that the generator's sitemap leaves out (its config " \
        "excludes them) listed all the same (keep_unlisted), e.g. internal.html" in done.stderr
    assert "stale" not in done.stderr and "warning:" not in done.stderr, done.stderr
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    assert [r["reason"] for r in rows if r["change"] == "added"] == [
        "listed by keep_unlisted; the generator's config leaves it out of its sitemap"]


def test_hugo_list_all_failing_is_said_with_its_reason(tmp_path, monkeypatch):
    """A file Hugo's path rules miss takes its URL from ``hugo list all``; when Hugo
    cannot be asked, that is said: a warning where it fails or a permalinks section's
    pages surely go unmapped, a note where there is only no hugo on PATH."""
    from sitemapkit.sources.built import hugo
    (tmp_path / "content/posts").mkdir(parents=True)
    (tmp_path / "content/posts/p.md").write_text("---\ntitle: P\n---\n")
    (tmp_path / "content/usage & more.md").write_text("---\ntitle: U\n---\n")
    for config, failure, where in (
            ({}, "hugo list all failed in here (ERROR boom)", "warnings"),
            ({}, hugo.NO_HUGO, "notes"),
            ({"permalinks": {"posts": "/:year/:slug/"}}, hugo.NO_HUGO, "warnings")):
        monkeypatch.setattr(hugo, "hugo_list", lambda source, base, why=failure: why)
        index = hugo.ContentIndex(tmp_path, {"baseURL": BASE, **config})
        notes: list[str] = []
        warnings: list[str] = []
        index.urls(frozenset({"", "posts/p"}), {}, notes, warnings)
        said = {"notes": notes, "warnings": warnings}
        assert len(said[where]) == 1 and failure in said[where][0], (config, said)
        assert said["notes" if where == "warnings" else "warnings"] == []


def test_a_content_folder_the_config_names_that_does_not_exist_stops_the_run(tmp_path):
    """mkdocs.yml names a docs_dir that is not there (a config moved, a preset read
    wrong): an error naming the folder and the setting, and nothing written, rather
    than a set whose every page went undated."""
    project = tmp_path / "p"
    out = project / "site"
    plain_site(out, ["index.html", "a.html"])
    (project / "mkdocs.yml").write_text(f"site_name: T\nsite_url: {BASE}\ndocs_dir: pages\n")
    done = run(sys.executable, "-m", "sitemapkit", "site", "site", check=False, cwd=project)
    assert done.returncode == 2, done.stderr
    assert f"mkdocs.yml docs_dir names the folder {project / 'pages'}, which does not " \
        "exist" in done.stderr and "Traceback" not in done.stderr
    assert not (out / "sitemap.xml").exists()


def test_a_parents_language_folder_config_is_not_the_project_of_this_output(tmp_path):
    """A ``de/mkdocs.yml`` in a folder above the output is a language config only when
    the output holds ``de/``: here it does not, so the current folder's own config is
    the project, and every page is dated from it."""
    tmp_path = tmp_path / "w"  # one level down: the folder of every test's tmp_path stays clean
    (tmp_path / "de/docs/guide").mkdir(parents=True)  # pages of the same names, even
    (tmp_path / "de/mkdocs.yml").write_text("site_name: D\ndocs_dir: docs\n")
    (tmp_path / "de/docs/index.md").write_text("# Start\n")
    repo = Repo(tmp_path / "project")
    repo.commit("2024-02-03T10:00:00+01:00", {
        "mkdocs.yml": "site_name: P\nsite_url: https://example.com/\n",
        "docs/index.md": "# Home\n", "docs/guide.md": "# Guide\n"})
    deploy = tmp_path / "deploy"  # the output, beside the project
    for path in ("index.html", "guide/index.html"):
        (deploy / path).parent.mkdir(parents=True, exist_ok=True)
        (deploy / path).write_text("<!DOCTYPE html><html><head><title>t</title></head></html>")
    done = run(sys.executable, "-m", "sitemapkit", "site", deploy, "--validate", "strict",
               cwd=repo.root)
    assert "de/mkdocs.yml" not in done.stderr and "a folder above the output" not in \
        done.stderr, done.stderr
    check_dates(deploy, repo.root, {"": "docs/index.md", "guide/": "docs/guide.md"})
    (deploy / "de").mkdir()  # the language in the output: the output is in no repository,
    (deploy / "de/index.html").write_text(  # so a parent's language config is still none
        "<!DOCTYPE html><html><head><title>t</title></head></html>")
    from sitemapkit.sources.built import find_project
    assert find_project(deploy, repo.root).folder == repo.root


def without_hugo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """This virtual environment as one whose ``bin/`` has no ``hugo`` (a venv that is
    not the one Hugo was installed into), and a PATH without it: (its python, env)."""
    home = tmp_path / "venv-without-hugo"
    (home / "bin").mkdir(parents=True)
    (home / "bin/python").symlink_to(sys.executable)
    shutil.copy(Path(sys.prefix) / "pyvenv.cfg", home / "pyvenv.cfg")
    (home / "lib").symlink_to(Path(sys.prefix) / "lib")
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                           if p and not (Path(p) / "hugo").exists())
    return home / "bin/python", {**os.environ, "PATH": path, "PYTHONWARNINGS": "ignore"}


def test_hugo_off_path_a_section_over_a_file_it_cannot_map_is_undated_not_too_old(tmp_path):
    """A file whose URL Hugo's path rules do not give (``usage & more.md``, served at
    ``/usage--more/``) is the newest of its section. With Hugo on PATH it is asked
    (``hugo list all``) and the section and home page are as new as that file; with
    Hugo nowhere to be found, they go out without lastmod, with a warning naming the
    file and the fix: never dated by the older pages that could be mapped."""
    repo = Repo(tmp_path / "h")
    repo.commit("2024-01-10T09:00:00+01:00", {
        "hugo.toml": f'baseURL = "{BASE}"\ntitle = "T"\ndisableKinds = ["RSS", "taxonomy", '
                     '"term"]\n', ".gitignore": "public/\n.hugo_build.lock\n.cache/\n",
        **HUGO_LAYOUTS, "content/_index.md": "---\ntitle: Home\n---\nHi\n",
        "content/docs/_index.md": "---\ntitle: Docs\n---\n",
        "content/docs/start.md": "---\ntitle: Start\n---\nS\n"})
    repo.commit("2024-05-06T10:00:00+02:00",
                {"content/docs/usage & more.md": "---\ntitle: Usage\n---\nU\n"})
    run(BIN / "hugo", cwd=repo.root)
    assert (repo.root / "public/docs/usage--more/index.html").is_file()
    python, env = without_hugo(tmp_path)
    report = tmp_path / "report.jsonl"
    done = subprocess.run([str(python), "-m", "sitemapkit", "site", "public", "--report",
                           str(report)], cwd=repo.root, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "warning: 2 list pages without lastmod, e.g. /: it may list content/docs/usage " \
        "& more.md, a content file whose URL Hugo's path rules do not give, and no hugo on " \
        "PATH to ask (hugo list all): put hugo on PATH" in done.stderr, done.stderr
    got = {u.loc.removeprefix(BASE): u.lastmod for u in read_set(repo.root / "public",
                                                                   BASE).urls}
    assert got[""] is None and got["docs/"] is None, got  # not 2024-01-10: too old
    assert got["docs/start/"] == reference_date(repo.root, "content/docs/start.md")
    rows = {r["url"]: r["reason"] for r in map(json.loads, report.read_text().splitlines())
            if r["change"] == "undated"}
    assert rows[BASE + "docs/"] == "it may list content/docs/usage & more.md, whose URL only " \
        "Hugo can tell, and no hugo on PATH to ask (hugo list all)", rows
    run(BIN / "hugo", cwd=repo.root)  # with Hugo: asked, and the section is as new as it
    run(sys.executable, "-m", "sitemapkit", "site", "public", cwd=repo.root)
    got = {u.loc.removeprefix(BASE): u.lastmod for u in read_set(repo.root / "public",
                                                                   BASE).urls}
    newest_file = reference_date(repo.root, "content/docs/usage & more.md")
    assert got["docs/"] == got[""] == got["docs/usage--more/"] == newest_file, got


GLOSSARY = ("---\ntitle: Glossary\ncascade:\n  - build:\n      render: never\n      list: local\n"
            "    target:\n      kind: page\n---\nAll terms.\n")


def test_hugo_a_section_of_never_rendered_pages_is_as_new_as_they_are(tmp_path):
    """A glossary section whose entries are never rendered on their own (``cascade:
    build: {render: never, list: local}``), shown on its page: Hugo is asked which
    pages it lists (one run with a template of ours, nothing rendered), so the section
    and the home page are as new as the newest entry, not as old as ``_index.md``.
    With Hugo nowhere to be found, they go out undated, with a warning naming an
    entry."""
    repo = Repo(tmp_path / "h")
    layouts = {**HUGO_LAYOUTS, "layouts/list.html": '{{ define "main" }}{{ range .Pages }}'
               '<p>{{ .Title }}: {{ .Content }}</p>{{ end }}{{ end }}'}
    repo.commit("2024-01-10T09:00:00+01:00", {
        "hugo.toml": f'baseURL = "{BASE}"\ntitle = "T"\ndisableKinds = ["RSS", "taxonomy", '
                     '"term"]\n', ".gitignore": "public/\n.hugo_build.lock\n.cache/\n",
        **layouts, "content/_index.md": "---\ntitle: Home\n---\nHi\n",
        "content/guide.md": "---\ntitle: Guide\n---\nG\n",
        "content/glossary/_index.md": GLOSSARY,
        "content/glossary/alpha.md": "---\ntitle: Alpha\n---\nA\n"})
    repo.commit("2024-06-01T12:00:00+02:00",
                {"content/glossary/beta.md": "---\ntitle: Beta\n---\nB\n"})
    run(BIN / "hugo", cwd=repo.root)
    out = repo.root / "public"
    assert not (out / "glossary/beta").exists() and \
        "Beta: <p>B</p>" in (out / "glossary/index.html").read_text()
    done = run(sys.executable, "-m", "sitemapkit", "site", "public", "--validate", "strict",
               cwd=repo.root)
    got = {u.loc.removeprefix(BASE): u.lastmod for u in read_set(out, BASE).urls}
    beta = reference_date(repo.root, "content/glossary/beta.md")
    assert got["glossary/"] == got[""] == beta, (got, done.stderr)  # not 2024-01-10
    assert "2 content files Hugo lists but renders no page of (build.render: never) date " \
        "the 2 list pages that list them, as Hugo gives them" in done.stderr, done.stderr
    assert not list(Path(tempfile.gettempdir()).glob("sitemapkit-hugo-*"))  # removed
    run(BIN / "hugo", cwd=repo.root)
    python, env = without_hugo(tmp_path)
    done = subprocess.run([str(python), "-m", "sitemapkit", "site", "public"], cwd=repo.root,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    got = {u.loc.removeprefix(BASE): u.lastmod for u in read_set(out, BASE).urls}
    assert got["glossary/"] is None and got[""] is None, got
    assert "warning: 2 list pages without lastmod, e.g. /: it may list content/glossary/" \
        in done.stderr, done.stderr
