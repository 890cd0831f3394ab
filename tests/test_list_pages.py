"""Pages dated by what they show, through real builds over git histories with set
dates: a list page by the newest page it lists (Material's blog, Hugo sections, tags
and pagination through ``sitemapkit site``), a mkdocstrings page by the code of the
objects it renders, languages clustered by the URL a page is published at, and a part
git cannot date named with its page. Each expected date is computed here from git's
per-file answers and what the built HTML shows."""

from __future__ import annotations

import re
import tempfile
from datetime import datetime
from pathlib import Path
from urllib.parse import urljoin

from docs_projects import mkdocs_build, mkdocs_project, sphinx_build, sphinx_project
from gitref import reference_date
from gitrepo import Repo
from hypothesis import given, settings
from hypothesis import strategies as st
from sitemap_check import read_set

from sitemapkit.publish.dating import page_dates
from sitemapkit.sources.built.listed import main_links, with_lists
from sitemapkit.sources.git.dates import GitDates
from sitemapkit.sources.pages import PageRow
from test_site_generators import check, generator_urls, need, run, site

SITE = "https://example.com/"
T0, T1, T2, T3 = ("2022-01-01T10:00:00+01:00", "2023-03-03T03:00:00-05:00",
                  "2024-05-05T05:00:00+02:00", "2025-07-07T07:00:00+00:00")


def lastmods(out: Path, base: str = SITE) -> dict[str, str | None]:
    return {u.loc.removeprefix(base): u.lastmod for u in read_set(out, base).urls}


def newest(*dates: str | None) -> str | None:
    """The newest of ISO dates (compared as instants), as written."""
    known = [d for d in dates if d]
    return max(known, key=datetime.fromisoformat) if known else None


# --- the rules, on rows -------------------------------------------------------------------
def test_a_list_page_takes_the_newest_own_date_of_what_it_lists_one_level_deep():
    d = {name: datetime.fromisoformat(when) for name, when in
         (("/p/a", T1), ("/p/b", T3), ("/p/index", T0), ("/p/inc", T2), ("/p/c", T0))}
    dates = GitDates(dates=d)
    rows = [PageRow("u/a", "/p/a", "a"), PageRow("u/b", "/p/b", "b"),
            PageRow("u/", "/p/index", "index", lists=("/p/a",)),  # own T0, lists T1
            PageRow("u/page/2", "", "page2", lists=("/p/b", "/p/gone")),  # gone: no date
            PageRow("u/tags", "", "tags", lists=()),  # lists nothing dated: undated
            PageRow("u/x", "/p/undated", "x", lists=("/p/b",)),  # own source undated: stays
            PageRow("u/c", "/p/c", "c", parts=("/p/inc",)),  # own date: with its include
            PageRow("u/l2", "", "l2", lists=("/p/c", "/p/index"))]  # c's own date, T2
    got = page_dates(rows, dates)
    assert got.dates == [d["/p/a"], d["/p/b"], d["/p/a"], None, None, None, d["/p/inc"],
                         d["/p/inc"]]
    assert got.by_lists == 2
    assert got.notes == ["2 list pages dated by the newest page they list",
                         "1 list page without lastmod: each lists a page with no date, so "
                         "how new it is cannot be told (e.g. page2 lists /p/gone)"]


LINKED = st.lists(st.sampled_from(["a/", "/a/", "b.html", "../b.html", "c/#top", "page/2/",
                                    "https://example.com/a/", "x/"]), max_size=6)


@settings(max_examples=60, deadline=None)
@given(links=LINKED, wrap=st.sampled_from(["<main>{}</main>", "<article>{}</article>", "{}"]),
       made=st.booleans())
def test_a_page_without_a_known_source_is_never_dated_by_its_links(links, wrap, made):
    """Only a list page the generator made (``made``) takes the dates of what it links
    to; any other page without a source stays undated, whatever its body links to."""
    d = {"/p/a": datetime.fromisoformat(T1), "/p/b": datetime.fromisoformat(T3)}
    rows = [PageRow(SITE + "a/", "/p/a", "a/index.html"),
            PageRow(SITE + "b.html", "/p/b", "b.html"),
            PageRow(SITE + "x/", "", "x/index.html")]
    body = "".join(f'<a href="{href}">l</a>' for href in links)
    with tempfile.TemporaryDirectory() as out:
        (Path(out) / "x").mkdir()
        (Path(out) / "x" / "index.html").write_text(
            "<html><body>" + wrap.format(body) + "</body></html>")
        listed = with_lists(rows, Path(out), None, {"x/index.html"} if made else set())
    got = page_dates(listed, GitDates(dates=d)).dates[2]
    entries = [] if wrap == "{}" else links[:1] if wrap.startswith("<article") else links
    targets = {urljoin(SITE + "x/", h).split("#")[0] for h in entries}
    linked = [d[s] for url, s in ((SITE + "a/", "/p/a"), (SITE + "b.html", "/p/b"))
              if url in targets]
    assert got == (max(linked) if made and linked else None)


def test_main_links_ignore_navigation_header_footer_asides_comments_and_scripts():
    html = ('<html><body><header><a href="/h/">h</a></header><nav><a href="/n/">n</a></nav>'
            '<main class=x><nav class=crumbs><a href="/crumb/">c</a></nav><!-- <a href="/c/"> -->'
            '<script>var s = \'<a href="/s/">\';</script><ul><li><A HREF=/one/>1</A>'
            '<li><a href="two/#top">2</a></ul><aside><a href="/side/">s</a></aside>'
            '<footer><a href="/f/">f</a></footer></main><footer><a href="/f2/">f</a></footer>')
    assert main_links(html) == ["/one/", "two/#top"]
    articles = '<nav><a href="/n/">n</a></nav><article><a href="/a/">a</a></article><p>' \
               '<a href="/p/">p</a></p><article class=post><a href=/b/>b</a></article>'
    assert main_links(articles) == ["/a/", "/b/"]
    assert main_links('<body><div><a href="/only-nav/">x</a></div></body>') == []
    blog = ('<main><nav><a href="/blog/">all</a></nav><article><header><h2><a href="/blog/one">'
            'One</a></h2></header><p>See <a href="/docs/x">x</a></p><footer><a href="/blog/'
            'one">Read more</a></footer></article><article><h2><a href=/blog/two>Two</a></h2>'
            '<a href="/docs/y">y</a></article></main>')
    assert main_links(blog) == ["/blog/one", "/blog/two"]  # each post's title, no excerpt


# --- MkDocs: Material's blog ----------------------------------------------------------------
POST = "---\ndate: {date}\ncategories: [{category}]\n---\n# {title}\n\nText of {title}.\n\n" \
       "<!-- more -->\n\nMore.\n"
POSTS = {"one": ("2024-01-01", "News"), "two": ("2024-02-01", "News"),
         "three": ("2024-03-01", "Tips"), "four": ("2024-04-01", "News")}


def _post_links(html_file: Path, url: str) -> set[str]:
    """The posts a blog view shows: the links in its excerpts, read from the HTML."""
    html = html_file.read_text()
    found = set()
    for excerpt in re.findall(r'<article class="md-post md-post--excerpt">(.*?)</article>',
                              html, re.S):
        for href in re.findall(r'href="([^"]+)"', excerpt):
            target = urljoin(url, href)
            if re.search(r"/\d{4}/\d{2}/\d{2}/[a-z]+/$", target):
                found.add(target)
    return found


def test_material_blog_views_are_as_new_as_the_newest_post_they_show(tmp_path):
    pages = {"index.md": "# Home\n", "blog/index.md": "# Blog\n\nOur news.\n"}
    pages |= {f"blog/posts/{name}.md": POST.format(date=date, category=category, title=name)
              for name, (date, category) in POSTS.items()}
    repo = mkdocs_project(tmp_path / "p", pages, {
        "theme": {"name": "material"},
        "plugins": [{"blog": {"pagination_per_page": 2}}, "sitemapkit"]}, when=T0)
    repo.commit(T1, {"docs/blog/index.md": "# Blog\n\nOur news, edited.\n"})
    repo.commit(T2, {"docs/blog/posts/one.md": POST.format(date="2024-01-01", category="News",
                                                           title="one") + "Edited.\n"})
    repo.commit(T3, {"docs/blog/posts/three.md": POST.format(date="2024-03-01",
                                                             category="Tips", title="three") +
                     "Edited.\n"})
    done = mkdocs_build(repo.root, "--strict")
    out = repo.root / "site"
    got = lastmods(out)
    source_of = {}  # post URL -> its source, from the post's own page
    for name, (date, _) in POSTS.items():
        url = SITE + f"blog/{date.replace('-', '/')}/{name}/"
        source_of[url] = f"docs/blog/posts/{name}.md"
        assert got[url.removeprefix(SITE)] == reference_date(repo.root, source_of[url])
    views = [u for u in got if u.startswith("blog/") and not re.match(r"blog/\d", u)]
    assert {"blog/", "blog/page/2/", "blog/archive/2024/", "blog/archive/2024/page/2/",
            "blog/category/news/", "blog/category/news/page/2/", "blog/category/tips/"} <= \
        set(views), views
    for view in views:
        posts = _post_links(out / view / "index.html", SITE + view)
        assert posts, view
        own = reference_date(repo.root, "docs/blog/index.md") if view == "blog/" else None
        want = newest(own, *(reference_date(repo.root, source_of[p]) for p in posts))
        assert got[view] == want, (view, sorted(posts), got[view], want)
    assert got["blog/"] != reference_date(repo.root, "docs/blog/index.md")  # moved by a post
    assert f"{len(views)} list pages dated by the newest page they list" in done.stderr


# --- MkDocs: mkdocstrings -------------------------------------------------------------------
def _api_project(tmp_path: Path, options: dict | None = None):
    repo = mkdocs_project(tmp_path / "p", {
        "index.md": "# Home\n", "api/mod.md": "# Mod\n\n::: pkg.mod\n",
        "api/pkg.md": "# Package\n\n::: pkg\n",
        "api/other.md": "# Other\n\nShown, not rendered:\n\n```md\n::: pkg.mod\n```\n",
        "api/func.md": "# F\n\n::: pkg.helpers.helper\n"}, {
        "plugins": [{"mkdocstrings": {"handlers": {"python": {"paths": ["src"]}}}},
                    {"sitemapkit": options or {}}]}, when=T0)
    repo.commit(T0, {"src/pkg/__init__.py": '"""The package."""\nfrom .mod import run\n\n'
                                           '__all__ = ["run"]\n',
                     "src/pkg/mod.py": '"""A module."""\n\n\ndef run() -> None:\n    """Run."""\n',
                     "src/pkg/helpers.py": '"""Helpers."""\n\n\ndef helper() -> int:\n'
                                           '    """Help."""\n    return 1\n'})
    repo.commit(T1, {"docs/api/mod.md": "# The module\n\n::: pkg.mod\n"})
    repo.commit(T2, {"src/pkg/mod.py": '"""A module."""\n\n\ndef run() -> None:\n'
                                       '    """Run, better documented."""\n'})
    repo.commit(T3, {"src/pkg/helpers.py": '"""Helpers, edited."""\n\n\ndef helper() -> int:\n'
                                           '    """Help."""\n    return 1\n'})
    return repo


def test_mkdocstrings_pages_are_as_new_as_the_code_they_render(tmp_path):
    repo = _api_project(tmp_path)
    done = mkdocs_build(repo.root, "--strict")
    got = lastmods(repo.root / "site")
    ref = {p: reference_date(repo.root, p) for p in (
        "docs/api/mod.md", "docs/api/pkg.md", "docs/api/other.md", "docs/api/func.md",
        "src/pkg/__init__.py", "src/pkg/mod.py", "src/pkg/helpers.py")}
    assert got["api/mod/"] == newest(ref["docs/api/mod.md"], ref["src/pkg/mod.py"]) == T2
    # the package page renders its __init__ and what it re-exports (run, from mod.py)
    assert got["api/pkg/"] == newest(ref["docs/api/pkg.md"], ref["src/pkg/__init__.py"],
                                     ref["src/pkg/mod.py"]) == T2
    assert got["api/func/"] == newest(ref["docs/api/func.md"], ref["src/pkg/helpers.py"]) == T3
    assert got["api/other/"] == ref["docs/api/other.md"] == T0  # a fenced example: no object
    assert "Traceback" not in done.stderr


def test_api_pages_can_be_dated_by_their_stub_alone_and_an_undatable_part_is_named(tmp_path):
    repo = _api_project(tmp_path, {"date_api_pages": False})
    mkdocs_build(repo.root, "--strict")
    got = lastmods(repo.root / "site")
    assert got["api/mod/"] == reference_date(repo.root, "docs/api/mod.md") == T1
    repo = _api_project(tmp_path / "dirty")
    repo.write("src/pkg/helpers.py", '"""Helpers, being edited."""\n\n\ndef helper() -> int:\n'
                                     '    """Help."""\n    return 2\n')
    done = mkdocs_build(repo.root)
    got = lastmods(repo.root / "site")
    assert got["api/func/"] == reference_date(repo.root, "docs/api/func.md") == T0
    assert "part src/pkg/helpers.py has uncommitted changes: 1 page showing it is dated " \
           "without it (e.g. api/func.md)" in done.stderr


def test_an_api_page_counts_what_it_inherits_and_only_the_members_it_selects(tmp_path):
    """A class page with ``inherited_members`` renders its base's members, from the
    base's file; a package page whose ``members`` selects one re-export renders that
    one, not the rest of ``__all__``; a global ``inherited_members`` reaches a module
    page's classes too."""
    repo = mkdocs_project(tmp_path / "p", {
        "index.md": "# Home\n",
        "api/child.md": "# Child\n\n::: pkg.child.Child\n    options:\n"
                        "      inherited_members: true\n",
        "api/plain.md": "# Child alone\n\n::: pkg.child.Child\n    options:\n"
                        "      inherited_members: false\n",
        "api/select.md": "# Run\n\n::: pkg\n    options:\n      members:\n        - run\n",
        "api/all.md": "# All\n\n::: pkg\n",
        "api/module.md": "# Module\n\n::: pkg.child\n"}, {
        "plugins": [{"mkdocstrings": {"handlers": {"python": {
            "paths": ["src"], "options": {"inherited_members": True}}}}}, "sitemapkit"]},
        when=T0)
    repo.commit(T0, {"src/pkg/__init__.py": '"""The package."""\nfrom .mod import run\n'
                                           'from .helpers import helper\n\n'
                                           '__all__ = ["run", "helper"]\n',
                     "src/pkg/mod.py": '"""A module."""\n\n\ndef run() -> None:\n    """Run."""\n',
                     "src/pkg/helpers.py": '"""Helpers."""\n\n\ndef helper() -> int:\n'
                                           '    """Help."""\n    return 1\n',
                     "src/pkg/base.py": '"""Bases."""\n\n\nclass Base:\n    """A base."""\n\n'
                                        '    def shared(self) -> None:\n        """Shared."""\n',
                     "src/pkg/child.py": '"""Children."""\nfrom .base import Base\n\n\n'
                                         'class Child(Base):\n    """A child."""\n'})
    repo.commit(T1, {"src/pkg/mod.py": '"""A module."""\n\n\ndef run() -> None:\n'
                                       '    """Run, better documented."""\n'})
    repo.commit(T2, {"src/pkg/helpers.py": '"""Helpers, edited."""\n\n\ndef helper() -> int:\n'
                                           '    """Help."""\n    return 1\n'})
    repo.commit(T3, {"src/pkg/base.py": '"""Bases."""\n\n\nclass Base:\n    """A base."""\n\n'
                                        '    def shared(self) -> None:\n'
                                        '        """Shared, better documented."""\n'})
    done = mkdocs_build(repo.root, "--strict")
    assert "Shared, better documented." in (repo.root / "site/api/child/index.html").read_text()
    assert "Shared, better" not in (repo.root / "site/api/plain/index.html").read_text()
    got = lastmods(repo.root / "site")
    ref = {p: reference_date(repo.root, p) for p in (
        "docs/api/child.md", "docs/api/plain.md", "docs/api/select.md", "docs/api/all.md",
        "docs/api/module.md", "src/pkg/__init__.py", "src/pkg/mod.py", "src/pkg/helpers.py",
        "src/pkg/base.py", "src/pkg/child.py")}
    assert got["api/child/"] == newest(ref["docs/api/child.md"], ref["src/pkg/child.py"],
                                       ref["src/pkg/base.py"]) == T3  # the base's member
    assert got["api/plain/"] == newest(ref["docs/api/plain.md"], ref["src/pkg/child.py"]) == T0
    assert got["api/module/"] == T3  # the global option: the module's class inherits too
    assert got["api/select/"] == newest(ref["docs/api/select.md"], ref["src/pkg/__init__.py"],
                                        ref["src/pkg/mod.py"]) == T1  # not helpers.py (T2)
    assert got["api/all/"] == T2  # every re-export of __all__
    assert "Traceback" not in done.stderr


# --- MkDocs: languages grouped by the URL a page is published at ---------------------------
def test_a_stale_source_beside_its_folder_still_joins_its_language_cluster(tmp_path):
    """openai-agents-python: zh/sessions.md (stale) and zh/sessions/index.md publish one
    URL; the cluster is the URL's, so zh/sessions/ has alternates and is one of them."""
    i18n = {"i18n": {"docs_structure": "folder", "languages": [
        {"locale": "en", "default": True, "name": "English", "build": True},
        {"locale": "zh", "name": "中文", "build": True}]}}
    repo = mkdocs_project(tmp_path / "p", {
        "en/index.md": "# Home\n", "en/sessions/index.md": "# Sessions\n",
        "zh/index.md": "# 首页\n", "zh/sessions.md": "# stale\n",
        "zh/sessions/index.md": "# 会话\n"}, {"plugins": [i18n, "sitemapkit"]}, when=T0)
    repo.commit(T1, {"docs/zh/sessions/index.md": "# 会话（更新）\n"})
    done = mkdocs_build(repo.root, "--strict")
    urls = {u.loc: u for u in read_set(repo.root / "site", SITE).urls}
    assert sorted(urls) == [SITE, SITE + "sessions/", SITE + "zh/", SITE + "zh/sessions/"]
    cluster = [("en", SITE + "sessions/"), ("x-default", SITE + "sessions/"),
               ("zh", SITE + "zh/sessions/")]
    assert sorted(urls[SITE + "zh/sessions/"].alternates) == cluster
    assert sorted(urls[SITE + "sessions/"].alternates) == cluster
    assert "both publish zh/sessions/" in done.stderr


# --- Sphinx: an include git cannot date -----------------------------------------------------
def test_a_git_ignored_generated_include_is_named_with_its_page(tmp_path):
    repo = sphinx_project(tmp_path / "s", {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   guide\n",
        "guide.rst": "Guide\n=====\n\n.. include:: generated/options.rst\n",
    }, extra='exclude_patterns = ["_build", "generated"]', when=T0)
    repo.commit(T1, {".gitignore": "_build/\ngenerated/\n"})
    repo.write("generated/options.rst", "Options, generated by the build.\n")
    done = sphinx_build(repo.root, "html")
    got = lastmods(repo.root / "_build/html", "https://example.org/docs/")
    assert got["guide.html"] == reference_date(repo.root, "guide.rst") == T0
    assert "part generated/options.rst is not in git (ignored, or outside the repository): " \
           "1 page showing it is dated without it (e.g. guide)" in done.stdout + done.stderr


# --- sitemapkit site: Hugo sections, tags and pagination -----------------------------------
HUGO = f"""baseURL = "{SITE}"
title = "T"
disableKinds = ["RSS"]
[pagination]
pagerSize = 2
[taxonomies]
tag = "tags"
category = "categories"
"""
# a theme that renders each list as one <article> whose <header> holds the breadcrumb
# (Hugo's own documentation does): a page's first header link is no entry of it
LIST = '{{ define "main" }}<article><header><nav class=crumbs><a href="/blog/b1/">crumb</a>' \
       '</nav><h1>{{ .Title }}</h1></header><ul class=list>' \
       '{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}' \
       '</ul></article>{{ end }}'
HOME = '{{ define "main" }}<ul class=list>{{ range (.Paginate site.RegularPages).Pages }}' \
       '<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>{{ end }}'
LAYOUTS = {
    "layouts/baseof.html": '<!DOCTYPE html><html lang="en"><head><title>{{ .Title }}</title>'
                           '{{ if not .IsHome }}<link rel="canonical" href="{{ .Permalink }}">'
                           '{{ end }}</head><body>'
                           '<header><nav>{{ range site.Sections }}<a href="{{ .RelPermalink }}">'
                           '{{ .Title }}</a>{{ end }}</nav></header><main>{{ block "main" . }}'
                           '{{ end }}</main><footer><a href="/blog/b1/">latest</a></footer>'
                           '</body></html>',
    "layouts/single.html": '{{ define "main" }}{{ .Content }}{{ end }}',
    "layouts/list.html": LIST, "layouts/home.html": HOME,
}
PAGE = "---\ntitle: {title}\nweight: {weight}\ntags: [{tags}]\n---\n{text}\n"


def hugo_repo(tmp_path: Path, more: dict[str, str], post_weight: int) -> Repo:
    """A Hugo site's first commit (T0): home, a docs section with page a, a blog post
    b1 (weighted ``post_weight``), and ``more``."""
    repo = Repo(tmp_path / "h")
    repo.commit(T0, {"hugo.toml": HUGO, ".gitignore": "public/\n.hugo_build.lock\n", **LAYOUTS,
                     "content/_index.md": "---\ntitle: Home\n---\n",
                     "content/docs/_index.md": "---\ntitle: Docs\n---\nThe docs.\n",
                     "content/docs/a.md": PAGE.format(title="A", weight=1, tags="x", text="a"),
                     "content/blog/b1.md": PAGE.format(title="B1", weight=post_weight,
                                                       tags="y", text="b1"), **more})
    return repo


def hugo_own_lastmods(hugo: str, root: Path) -> dict[str, str]:
    """Hugo's own sitemap lastmods with ``enableGitInfo``, built aside: a list page
    without a content file of its own is dated there by its newest page, by Hugo."""
    aside = root.parent / "hugo-git-info"
    run(hugo, "--enableGitInfo", "--quiet", "-d", str(aside), cwd=root)
    text = (aside / "sitemap.xml").read_text()
    return {loc.removeprefix(SITE): when for loc, when in
            re.findall(r"<loc>(.*?)</loc>\s*<lastmod>(.*?)</lastmod>", text)}


def test_hugo_sections_tags_and_pagination_are_dated_by_what_they_list(tmp_path):
    """A list page is as new as the newest page Hugo's content tree puts in it: the
    home page every page, a section every page below it, a term every page naming it,
    the taxonomy every page with a term, a pager page its list's; never the links in
    its HTML (a breadcrumb to b1 on every list, a footer link). Where the list page has
    no content file of its own, that is Hugo's own date for it (enableGitInfo)."""
    hugo = need("hugo")
    repo = hugo_repo(tmp_path, {"content/docs/b.md": PAGE.format(title="B", weight=2,
                                                                  tags="x, y", text="b")}, 3)
    repo.commit(T1, {"content/docs/a.md": PAGE.format(title="A", weight=1, tags="x",
                                                      text="a, edited")})
    repo.commit(T2, {"content/blog/b1.md": PAGE.format(title="B1", weight=3, tags="y",
                                                       text="b1, edited")})
    run(hugo, "--minify", "--quiet", cwd=repo.root)
    out = repo.root / "public"
    before = generator_urls(out)
    stderr, report = site(out, repo.root, "--keep-unlisted")  # pagers: Hugo lists none
    sources = {"docs/a/": "content/docs/a.md", "docs/b/": "content/docs/b.md",
               "blog/b1/": "content/blog/b1.md"}
    got = check(out, repo.root, before, report, sources)
    ref = {url: reference_date(repo.root, path) for url, path in sources.items()}
    ref["docs/"] = reference_date(repo.root, "content/docs/_index.md")
    home = reference_date(repo.root, "content/_index.md")
    every = newest(home, ref["docs/a/"], ref["docs/b/"], ref["blog/b1/"])
    want = {"": every, "page/2/": every,  # the home page's list, on each of its pages
            "docs/": newest(ref["docs/"], ref["docs/a/"], ref["docs/b/"]),
            "blog/": ref["blog/b1/"],
            "tags/x/": newest(ref["docs/a/"], ref["docs/b/"]),
            "tags/y/": newest(ref["docs/b/"], ref["blog/b1/"]),
            "tags/": newest(ref["docs/a/"], ref["docs/b/"], ref["blog/b1/"])}
    for path, date in want.items():
        assert got[SITE + path] == date, (path, got[SITE + path], date)
    assert want["docs/"] == T1 and want[""] == T2 and want["blog/"] == T2
    hugos = hugo_own_lastmods(hugo, repo.root)
    for path in ("blog/", "tags/", "tags/x/", "tags/y/"):  # no content file of their own
        assert got[SITE + path] == hugos[path], (path, got[SITE + path], hugos[path])
    assert "list pages dated by the newest page they list" in stderr
    # no page has a category: an empty taxonomy, undated as Hugo leaves it, and said
    # without advice that cannot help (--map gives no list page a date)
    assert got[SITE + "categories/"] is None and "categories/" not in hugos
    assert "1 list page the generator made (tags, archives, pagination) that list no dated " \
        "page, e.g. categories/index.html): listed without lastmod (none lists a page with " \
        "one)\n" in stderr, stderr


def test_a_hugo_section_listing_a_page_git_cannot_date_has_no_date_and_says_why(tmp_path):
    """The section's newest listed page is unknown when one of them has no date (here
    untracked): the section is undated with a note, never dated by the others; so are
    the home page and the term that list it."""
    hugo = need("hugo")
    repo = hugo_repo(tmp_path, {}, 2)
    repo.commit(T1, {"content/docs/a.md": PAGE.format(title="A", weight=1, tags="x",
                                                      text="a, edited")})
    repo.write("content/docs/new.md", PAGE.format(title="New", weight=3, tags="x", text="n"))
    run(hugo, "--minify", "--quiet", cwd=repo.root)
    out = repo.root / "public"
    stderr, _ = site(out, repo.root)
    got = lastmods(out)
    assert got["docs/a/"] == T1 and got["blog/b1/"] == T0 and got["docs/new/"] is None
    assert got["docs/"] is None and got["tags/x/"] is None and "page/2/" not in got
    assert got[""] is None and got["tags/"] is None  # they list it too
    assert got["tags/y/"] == T0 and got["blog/"] == T0  # they list dated pages only
    assert "1 page built in this run that Hugo's sitemap leaves out (its config excludes them) " \
        "left out too, e.g. page/2/index.html" in stderr
    assert "list pages without lastmod: each lists a page with no date, so how new it is " \
        "cannot be told (e.g." in stderr
    assert "content/docs/new.md)" in stderr


def test_sphinx_autodoc_pages_are_as_new_as_the_module_they_document(tmp_path):
    repo = sphinx_project(tmp_path / "ad", {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   api\n   plain\n",
        "api.rst": "API\n===\n\n.. automodule:: pkg.mod\n   :members:\n",
        "plain.rst": "Plain\n=====\n",
        "pkg/__init__.py": "",
        "pkg/mod.py": '"""A module."""\n\n\ndef run() -> None:\n    """Run."""\n',
    }, extra='import sys, os\nsys.path.insert(0, os.path.abspath("."))\n'
             'extensions.append("sphinx.ext.autodoc")', when=T0)
    repo.commit(T1, {"api.rst": "The API\n=======\n\n.. automodule:: pkg.mod\n   :members:\n"})
    repo.commit(T2, {"pkg/mod.py": '"""A module."""\n\n\ndef run() -> None:\n'
                                   '    """Run, better documented."""\n'})
    sphinx_build(repo.root, "html", "-W")
    got = lastmods(repo.root / "_build/html", "https://example.org/docs/")
    assert got["api.html"] == newest(reference_date(repo.root, "api.rst"),
                                     reference_date(repo.root, "pkg/mod.py")) == T2
    assert got["plain.html"] == reference_date(repo.root, "plain.rst") == T0


def test_a_list_page_that_cannot_be_read_is_an_error_naming_it(tmp_path):
    from sitemapkit.errors import InputError

    (tmp_path / "tags").mkdir()
    (tmp_path / "tags/index.html").write_text('<main><a href="/a/">a</a></main>')
    rows = [PageRow(SITE + "a/", "/src/a.md", "a/index.html"),
            PageRow(SITE + "tags/", "", "tags/index.html"),
            PageRow(SITE + "gone/", "", "gone/index.html")]
    made = {"tags/index.html", "gone/index.html"}  # list pages the generator made
    try:
        with_lists(rows, tmp_path, None, made)
    except InputError as exc:
        assert "gone/index.html" in str(exc)
    else:
        raise AssertionError("a missing list page was read as listing nothing")
    got = with_lists(rows[:2], tmp_path, None, made)
    assert got[1].lists == ("/src/a.md",) and got[0].lists == ()
    assert with_lists(rows, tmp_path, None) == rows  # no list page made: none is read


def test_a_mkdocstrings_handler_that_cannot_be_had_reports_every_object():
    from types import SimpleNamespace

    from sitemapkit.mkdocs.apiparts import object_files, python_handler
    from sitemapkit.mkdocs.shown import Shown

    class Broken:
        def get_handler(self, name):
            raise RuntimeError("no such handler")

    config = SimpleNamespace(plugins={"mkdocstrings": Broken()})
    handler = python_handler(config)
    assert handler is not None  # mkdocstrings is in the build: not a silent "no parts"
    assert object_files(handler, ["pkg.a", "pkg.b"]) == ([], ["pkg.a", "pkg.b"])
    assert python_handler(SimpleNamespace(plugins={})) is None
    shown = Shown()
    shown.unknown = {"api/index.html": ["pkg.a", "pkg.b"], "x/index.html": ["pkg.c"]}
    files = [SimpleNamespace(src_uri="api.md", dest_uri="api/index.html"),
             SimpleNamespace(src_uri="x.md", dest_uri="x/index.html")]
    assert shown.notes(files) == [
        "3 objects on 2 pages not found among the objects mkdocstrings' Python handler "
        "loaded, so their source files are not counted in those pages' lastmod (e.g. api.md "
        "renders pkg.a)"]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_list_pages_date_comes_only_from_its_members(data):
    """Whatever a list page's HTML links to, with the generator's membership its date
    is the newest of its own source's and its members', and None when one member has
    no date: never a date of a page outside its membership."""
    from sitemapkit.sources.built.listed import with_members
    names = [f"/c/p{i}.md" for i in range(8)]
    when = {n: data.draw(st.one_of(st.none(), st.datetimes(
        min_value=datetime(2020, 1, 1), max_value=datetime(2025, 1, 1),
        timezones=st.just(datetime.now().astimezone().tzinfo))), label=n) for n in names}
    rows = [PageRow(SITE + f"p{i}/", n, f"p{i}/index.html") for i, n in enumerate(names)]
    members = data.draw(st.lists(st.sampled_from(names), unique=True), label="members")
    own = data.draw(st.sampled_from([None, *names]), label="own")
    lst = PageRow(SITE + "list/", own or "", "list/index.html")
    dates = GitDates(dates={n: d for n, d in when.items() if d is not None})
    listed = with_members([*rows, lst], {"list/index.html": tuple(members)})
    got = page_dates(listed, dates).dates[-1]
    counted = [m for m in members if m != own]
    own_date = when[own] if own else None
    if own and own_date is None:
        assert got is None  # an undated source stays undated
    elif any(when[m] is None for m in counted):
        assert got is None
    else:
        known = [d for d in [own_date, *(when[m] for m in counted)] if d is not None]
        assert got == (max(known) if known else None)
