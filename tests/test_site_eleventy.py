"""``sitemapkit site`` after Eleventy 3, a real build from npm over git histories with
set dates, run as the README writes it: ``npx @11ty/eleventy && sitemapkit site
_site/`` from the project's root. Eleventy writes no sitemap, so the evidence is
Eleventy's own answer through another door: ``eleventy --to=json`` renders every page
and names its URL and template. Every lastmod equals git's per-file answer for the
template (a list page: the newest of it and what it lists; a page made from a data
file: the newest of both); the URL set is every page Eleventy wrote but its 404 page,
each at the URL Eleventy links it by."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from docs_projects import need, npm_modules
from gitref import newest, reference_date
from gitrepo import Repo
from site_runs import site_here as site_run
from site_runs import written

DATES = ("2024-01-10T09:00:00+01:00", "2024-03-05T14:30:00-05:00", "2024-07-21T08:15:00+05:30",
         "2024-09-02T11:00:00+02:00", "2024-10-11T16:45:00+00:00")
BASE = "https://handbook.example.org/docs/"

CONFIG = """export default function (eleventyConfig) {
  eleventyConfig.addGlobalData("layout", "base.njk");
  eleventyConfig.addCollection("guides", (api) => api.getFilteredByGlob("guides/*.md"));
}
export const config = { pathPrefix: "/docs/" };
"""
LAYOUT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title></head>
<body><nav><a href="/">Home</a></nav><main>{{ content | safe }}</main></body></html>
"""
FILES = {
    "eleventy.config.js": CONFIG,
    "_includes/base.njk": LAYOUT,
    "_data/metadata.json": '{"title": "Handbook", "url": "https://handbook.example.org"}\n',
    "_data/team.json": '[{"slug": "ada", "name": "Ada"}, {"slug": "alan", "name": "Alan"}]\n',
    ".gitignore": "node_modules\n_site\n",
    # Nunjucks: the home page, listing the collection it declares
    "index.njk": "---\ntitle: Home\neleventyImport:\n  collections: [guides]\n---\n"
                 "{% for g in collections.guides %}<a href=\"{{ g.url }}\">{{ g.data.title }}"
                 "</a>{% endfor %}\n",
    # Markdown, at the URL Eleventy derives
    "guides/install.md": "---\ntitle: Install\n---\n# Install\n\nRun it.\n",
    # Markdown with a permalink the user set: served (and linked) as .html
    "guides/upgrade.md": "---\ntitle: Upgrade\npermalink: /reference/upgrade.html\n---\n"
                         "# Upgrade\n",
    # a paginated list of the others, one per page
    "all.njk": "---\npagination:\n  data: collections.guides\n  size: 1\npermalink: "
               "\"/all/{% if pagination.pageNumber > 0 %}{{ pagination.pageNumber }}/"
               "{% endif %}\"\n---\n{% for g in pagination.items %}<a href=\"{{ g.url }}\">"
               "{{ g.data.title }}</a>{% endfor %}\n",
    # a page per entry of a data file
    "team.njk": "---\npagination:\n  data: team\n  size: 1\n  alias: member\npermalink: "
                "\"/team/{{ member.slug }}/\"\n---\n<h1>{{ member.name }}</h1>\n",
    "404.md": "---\npermalink: /404.html\n---\nNot found\n",
}


SITEMAP = """---
permalink: /sitemap.xml
layout: false
eleventyExcludeFromCollections: true
---
<?xml version="1.0" encoding="utf-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
{%- for p in collections.all %}
	<url><loc>https://handbook.example.org{{ p.url | url }}</loc>
		<lastmod>{{ p.date.toISOString() }}</lastmod></url>
{%- endfor %}
</urlset>
"""
FEED = "---\npermalink: /feed.xml\nlayout: false\n---\n<feed/>\n"


@pytest.fixture(scope="module")
def eleventy_modules(tmp_path_factory) -> Path:
    return npm_modules(tmp_path_factory.mktemp("eleventy"), "@11ty/eleventy@3")


def build(repo: Repo, modules: Path) -> None:
    if not (repo.root / "node_modules").exists():
        (repo.root / "node_modules").symlink_to(modules)
    done = subprocess.run([need("node"), str(modules / "@11ty/eleventy/cmd.cjs"), "--quiet"],
                          cwd=repo.root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def eleventy_pages(repo: Repo, modules: Path) -> list[dict[str, str]]:
    """Every page Eleventy renders, by its own JSON output: url, inputPath, outputPath."""
    done = subprocess.run([need("node"), str(modules / "@11ty/eleventy/cmd.cjs"),
                           "--to=json", "--quiet"], cwd=repo.root, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout[done.stdout.index("["):])  # type: ignore[no-any-return]


def site_here(project: Path, *args: str, code: int = 0) -> tuple[str, list[dict[str, str]]]:
    return site_run(project, "_site/", *args, code=code)


def handbook(root: Path) -> Repo:
    repo = Repo(root / "handbook")
    repo.commit(DATES[0], FILES)
    repo.commit(DATES[1], {"guides/upgrade.md": FILES["guides/upgrade.md"] + "\nMore.\n"})
    repo.commit(DATES[2], {"_data/team.json": FILES["_data/team.json"].replace("Ada", "Ada L.")})
    repo.commit(DATES[3], {"_includes/base.njk": LAYOUT.replace("<nav>", "<nav class=x>")})
    return repo


def test_eleventy_every_page_dated_by_its_template_at_the_url_eleventy_links(
        tmp_path, eleventy_modules):
    """Each page by its template's last commit (a layout's change dates none); the
    paginated list by the newest of what each of its pages lists; the home page by the
    collection it declares; a data file's pages by it; the 404 page left out; the
    base URL from _data/metadata.json and the resolved pathPrefix."""
    repo = handbook(tmp_path)
    build(repo, eleventy_modules)
    err, rows = site_here(repo.root)
    assert "base URL https://handbook.example.org/docs/ from _data/metadata.json url and " \
        "Eleventy's pathPrefix /docs/" in err
    got = written(repo.root / "_site", BASE)

    def git(path: str) -> str | None:
        return reference_date(repo.root, path)

    guides = ("guides/install.md", "guides/upgrade.md")
    expected: dict[str, str | None] = {}
    for page in eleventy_pages(repo, eleventy_modules):
        source = page["inputPath"].removeprefix("./")
        if page["url"] == "/404.html":
            continue
        url = BASE + page["url"].lstrip("/")
        expected[url] = {
            "index.njk": newest(git(source), *map(git, guides)),
            "all.njk": newest(git(source), git(guides[0] if url.endswith("/all/")
                                               else guides[1])),
            "team.njk": newest(git(source), git("_data/team.json")),
        }.get(source, git(source))
    assert set(got) == set(expected)
    assert got == expected
    assert BASE + "reference/upgrade.html" in got and BASE + "guides/install/" in got
    assert got[BASE + "team/ada/"] == got[BASE + "team/alan/"] == git("_data/team.json")
    assert DATES[3][:10] not in "".join(map(str, got.values()))  # the layout dates nothing
    assert [r["reason"] for r in rows] == ["404 page"]


def test_eleventy_what_cannot_be_dated_is_named_with_its_fix(tmp_path, eleventy_modules):
    """A template that names collections without declaring them, and pages made from a
    data file that is a program, are undated with the reason; a project whose data
    names no site URL needs --base-url, and says so; without Eleventy installed beside
    the project nothing is guessed: --validate strict fails, naming the fix."""
    repo = Repo(tmp_path / "blog")
    files = {k: v for k, v in FILES.items() if not k.startswith("_data/")}
    files["index.njk"] = "---\ntitle: Home\n---\n{% for g in collections.guides %}" \
        "<a href=\"{{ g.url }}\">{{ g.data.title }}</a>{% endfor %}\n"
    files["_data/team.js"] = "export default [{slug: 'ada', name: 'Ada'}];\n"
    repo.commit(DATES[0], files)
    build(repo, eleventy_modules)
    err, _ = site_here(repo.root, code=2)
    assert "--base-url with the site's URL, its pathPrefix /docs/ included" in err
    assert "the project's global data names no site URL" in err and "None" not in err
    err, rows = site_here(repo.root, "--base-url", BASE)
    got = written(repo.root / "_site", BASE)
    assert "cannot be told" in err and "warning:" not in err  # no sitemap of its own

    # the starter's own sitemap (every page of collections.all at its page.date, the
    # feed too): what it dated and this set cannot is a warning naming the real cause
    repo.commit(DATES[1], {"sitemap.njk": SITEMAP, "feed.njk": FEED})
    build(repo, eleventy_modules)
    err, rows = site_here(repo.root, "--base-url", BASE, code=1)
    assert "gave a lastmod go out without one, e.g. index.html: its template index.njk " \
        "names collections but declares none" in err, err
    assert "no source file" not in err
    assert {r["url"]: r["reason"] for r in rows if r["change"] == "left out" and
            not r["reason"].startswith("404 page")} == {
        BASE + "feed.xml": "a file of the output that is no HTML page (a feed, a download)"}
    assert "\t<url>" in (repo.root / "_site/sitemap.xml").read_text()  # strict: still its own
    (repo.root / "sitemap.njk").unlink()
    (repo.root / "feed.njk").unlink()
    shutil.rmtree(repo.root / "_site")
    build(repo, eleventy_modules)
    err, rows = site_here(repo.root, "--base-url", BASE)
    assert got[BASE] is None and got[BASE + "team/ada/"] is None
    assert got[BASE + "guides/install/"] == reference_date(repo.root, "guides/install.md")
    why = {r["url"]: r["detail"] or r["reason"] for r in rows}
    assert "names collections but declares none" in str(why), rows
    assert "eleventyImport" in str(why) and "_data/team.js, a program" in str(why)

    (repo.root / "node_modules").unlink()
    err, _ = site_here(repo.root, "--base-url", BASE, code=1)
    assert "Eleventy could not be asked which template made each page" in err
    assert "npm" in err
    for ours in (repo.root / "_site").glob("sitemap*"):  # no set of ours to read a base from
        ours.unlink()
    err, _ = site_here(repo.root, code=2)
    assert "no base URL for _site: Eleventy could not be asked for its site URL (" in err, err
    assert "pass --base-url with the site's URL, its pathPrefix included" in err, err
    shutil.rmtree(repo.root / "_site")
