"""The plugins on the shapes real projects have (issue 63), through real `mkdocs build`
and `sphinx-build` runs over git histories with set dates: pages dated by the snippets
they pull in, no warning about a repository that dates nothing, a commit dated in the
future costs its page's date and not the build, a page another plugin removed is not
listed, and other plugins' `:::` blocks are not mkdocstrings'."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from docs_projects import mkdocs_build, mkdocs_project, sphinx_build, sphinx_project
from gitrepo import Repo
from sitemap_check import read_set

SITE = "https://example.com/"


def lastmods(site: Path, base: str = SITE) -> dict[str, str | None]:
    return {u.loc: u.lastmod for u in read_set(site, base).urls}


def newest(repo: Repo, *paths: str) -> str:
    """git's own answer: the latest of each file's last commit."""
    return max((repo.last_change(p) for p in paths), key=datetime.fromisoformat)


SNIPPETS = {
    "index.md": '--8<-- "README.md"\n',
    "range.md": '# Range\n\n--8<-- "snips/long.txt:2:3"\n',
    "section.md": '# Section\n\n--8<-- "snips/sections.md:intro"\n',
    "nested.md": '# Nested\n\n--8<-- "snips/outer.md"\n',
    "plain.md": "# Plain\n\nNo snippet of its own.\n",
    # the extension reads snippets inside a fence too (a preprocessor): the page shows it
    "code.md": '# Code\n\n```text\n--8<-- "snips/in-fence.md"\n```\n\n--8<-- ";x.md"\n',
}


def test_pages_are_dated_by_the_snippets_they_pull_in(tmp_path):
    repo = mkdocs_project(tmp_path / "p", SNIPPETS, {
        "markdown_extensions": [{"pymdownx.snippets": {
            "base_path": ["."], "auto_append": ["snips/links.md"]}}]},
        when="2024-01-01T00:00:00+00:00")
    repo.commit("2024-01-02T00:00:00+00:00", {
        "README.md": "# Project\n\nRead me.\n", "snips/long.txt": "one\ntwo\nthree\nfour\n",
        "snips/sections.md": "--8<-- [start:intro]\nIntro.\n--8<-- [end:intro]\n",
        "snips/outer.md": 'Outer.\n\n--8<-- "snips/inner.md"\n', "snips/inner.md": "Inner.\n",
        "snips/links.md": "[home]: https://example.com/\n",
        "snips/in-fence.md": "fenced\n"})
    # each snippet changes after every page, each at its own time
    for when, path in [("2024-02-01T00:00:00+00:00", "snips/links.md"),
                       ("2024-03-01T00:00:00+00:00", "README.md"),
                       ("2024-04-01T00:00:00+00:00", "snips/long.txt"),
                       ("2024-05-01T00:00:00+00:00", "snips/sections.md"),
                       ("2024-06-01T00:00:00+00:00", "snips/inner.md"),
                       ("2024-07-01T00:00:00+00:00", "snips/in-fence.md")]:
        repo.commit(when, {path: (repo.root / path).read_text() + "\nchanged\n"})
    done = mkdocs_build(repo.root, "--strict")
    got = lastmods(repo.root / "site")
    auto = "snips/links.md"  # auto_append: on every page
    assert got == {
        SITE: newest(repo, "docs/index.md", "README.md", auto),
        SITE + "range/": newest(repo, "docs/range.md", "snips/long.txt", auto),
        SITE + "section/": newest(repo, "docs/section.md", "snips/sections.md", auto),
        SITE + "nested/": newest(repo, "docs/nested.md", "snips/outer.md", "snips/inner.md",
                                 auto),
        SITE + "plain/": newest(repo, "docs/plain.md", auto),
        SITE + "code/": newest(repo, "docs/code.md", "snips/in-fence.md", auto),
    }, done.stderr
    assert got[SITE] == "2024-03-01T00:00:00+00:00"
    assert got[SITE + "nested/"] == "2024-06-01T00:00:00+00:00"
    assert got[SITE + "plain/"] == "2024-02-01T00:00:00+00:00"
    assert "changed" in (repo.root / "site/code/index.html").read_text()  # it shows it
    # an untracked snippet is said as any other part
    repo.write("snips/inner.md", "Inner, edited.\n")
    again = mkdocs_build(repo.root)
    assert "part snips/inner.md has uncommitted changes: 1 page showing it is dated " \
        "without it (e.g. nested.md)" in again.stderr, again.stderr


def test_another_extensions_blocks_are_left_to_it(tmp_path):
    """mkdocs-click's `::: mkdocs-click` block is not a mkdocstrings object: no note
    that it was not found, and the mkdocstrings page beside it still counts its code."""
    repo = mkdocs_project(tmp_path / "p", {
        "index.md": "# Home\n",
        "cli.md": "# CLI\n\n::: mkdocs-click\n    :module: tool.cli\n    :command: main\n",
        "api.md": "# API\n\n::: tool.core\n"}, {
        "markdown_extensions": ["mkdocs-click"],
        "plugins": [{"mkdocstrings": {"handlers": {"python": {"paths": ["src"]}}}},
                    "sitemapkit"]}, when="2024-01-01T00:00:00+00:00")
    repo.commit("2024-02-02T00:00:00+00:00", {
        "src/tool/__init__.py": "",
        "src/tool/cli.py": 'import click\n\n\n@click.command()\ndef main() -> None:\n'
                           '    """Run the tool."""\n',
        "src/tool/core.py": '"""The core."""\n\n\ndef work() -> int:\n    """Work."""\n'
                            '    return 1\n'})
    done = mkdocs_build(repo.root, "--strict", env={"PYTHONPATH": str(repo.root / "src")})
    assert "not found" not in done.stderr and "mkdocs-click" not in done.stderr, done.stderr
    assert "Run the tool." in (repo.root / "site/cli/index.html").read_text()
    got = lastmods(repo.root / "site")
    assert got[SITE + "api/"] == newest(repo, "docs/api.md", "src/tool/core.py")
    assert got[SITE + "cli/"] == repo.last_change("docs/cli.md")


REMOVER = """
import os, shutil
def on_post_build(config, **kwargs):
    shutil.rmtree(os.path.join(config.site_dir, "coverage"))
"""


def test_a_future_commit_costs_its_page_and_a_removed_page_is_not_listed(tmp_path):
    repo = mkdocs_project(tmp_path / "p", {
        "index.md": "# Home\n", "a.md": "# A\n", "coverage.md": "# Coverage\n"},
        {"hooks": ["hooks.py"]}, when="2024-01-01T00:00:00+00:00")
    repo.write("hooks.py", REMOVER)
    repo.commit("2024-01-02T00:00:00+00:00")
    ahead = (datetime.now(timezone.utc) + timedelta(days=3)).replace(microsecond=0)
    repo.commit(ahead.isoformat(), {"docs/a.md": "# A, from a skewed clock\n"})
    done = mkdocs_build(repo.root)  # not --strict: the warning is the point
    assert done.returncode == 0
    got = lastmods(repo.root / "site")
    assert got == {SITE: repo.last_change("docs/index.md"), SITE + "a/": None}, done.stderr
    short = repo.git("log", "-1", "--format=%h").strip()
    assert "WARNING" in done.stderr and f"(e.g. docs/a.md, commit {short} of " in done.stderr
    assert "1 page left out: removed from site/ after MkDocs wrote it (another plugin's " \
        "on_post_build), e.g. coverage/index.html" in done.stderr, done.stderr
    strict = mkdocs_build(repo.root, "--strict", check=False)
    assert strict.returncode != 0  # a warning: --strict fails, as for every warning


# --- Sphinx --------------------------------------------------------------------------
BASE = "https://example.org/docs/"


def test_sphinx_a_shallow_repository_that_dates_nothing_is_not_warned_about(tmp_path):
    """autodoc records a module's file as a dependency; that module lives in a shallow
    clone whose history dates nothing of this build (the file is git-ignored there, as
    a pyenv checkout's built standard library is): under -W, no warning."""
    lib = Repo(tmp_path / "lib-origin")
    lib.write(".gitignore", "*.py\n")
    lib.write("README", "one\n")
    lib.commit("2024-01-01T00:00:00+00:00")
    lib.commit("2024-02-01T00:00:00+00:00", {"README": "two\n"})
    shallow = tmp_path / "lib"
    lib.git("clone", "-q", "--depth", "1", f"file://{lib.root}", str(shallow))
    (shallow / "shallowmod.py").write_text('"""A module from a shallow clone."""\n\n\n'
                                           'def f() -> int:\n    """F."""\n    return 1\n')
    repo = sphinx_project(tmp_path / "p", {
        "index.rst": "Home\n====\n\n.. automodule:: shallowmod\n   :members:\n"},
        extra=f'extensions.append("sphinx.ext.autodoc")\nimport sys\n'
              f'sys.path.insert(0, {str(shallow)!r})', when="2024-03-03T00:00:00+00:00")
    done = sphinx_build(repo.root, "html", "-W", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "shallow" not in done.stderr, done.stderr
    assert read_set(repo.root / "_build/html", BASE).urls[0].lastmod == \
        repo.last_change("index.rst")


def test_sphinx_a_future_commit_costs_its_page_not_the_sitemap(tmp_path):
    repo = sphinx_project(tmp_path / "p", {
        "index.rst": "Home\n====\n\n.. toctree::\n\n   a\n", "a.rst": "A\n=\n"},
        when="2024-01-01T00:00:00+00:00")
    ahead = (datetime.now(timezone.utc) + timedelta(days=2)).replace(microsecond=0)
    repo.commit(ahead.isoformat(), {"a.rst": "A\n=\n\nFrom a skewed clock.\n"})
    done = sphinx_build(repo.root, "html", check=False)
    assert done.returncode == 0, done.stderr
    assert "more than 24 hours ahead" in done.stderr and "no sitemap" not in done.stderr
    got = {u.loc: u.lastmod for u in read_set(repo.root / "_build/html", BASE).urls}
    assert got == {BASE + "index.html": "2024-01-01T00:00:00+00:00", BASE + "a.html": None}


def test_sphinx_a_build_minus_w_fails_writes_nothing_and_site_url_still_works(tmp_path):
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n"}, base="",
                          extra=f"site_url = {BASE!r}")
    done = sphinx_build(repo.root, "html", "-W")
    assert "'site_url' is sphinx-sitemap's older name" in done.stdout
    before = (repo.root / "_build/html/sitemap.xml").read_bytes()
    repo.write("index.rst", "Home\n====\n\n.. toctree::\n\n   missing\n")  # a warning
    failed = sphinx_build(repo.root, "html", "-W", check=False)
    assert failed.returncode != 0
    assert "no sitemap written: the build has 1 warning and -W fails it" in failed.stdout
    assert (repo.root / "_build/html/sitemap.xml").read_bytes() == before
    kept_going = sphinx_build(repo.root, "html", check=False)  # without -W: written
    assert kept_going.returncode == 0 and "sitemapkit: 1 URL in 1 shard" in kept_going.stdout
