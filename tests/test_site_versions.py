"""``sitemapkit site`` over a versioned output, through the CLI: a real ``mike deploy``
history on a local ``gh-pages`` (three versions from three tags, pages added, edited
and renamed between them, the aliases ``latest`` as copies and ``stable`` as a
symlink, one version built with the plugin and the others without), and a Read the
Docs-style ``/<lang>/<version>/`` tree built by ``sphinx-build`` from two tags. Every
listed page's lastmod is git's own per-file answer at its version's tag."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from gitrepo import Repo
from sitemap_check import read_set

from sitemapkit.validate import ValidateOptions, validate

SITE = "https://example.com/"
BIN = os.path.dirname(sys.executable)
ENV = {**os.environ, "PATH": BIN + os.pathsep + os.environ.get("PATH", ""),
       "PYTHONWARNINGS": "ignore"}


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=600)


def sitemapkit(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run(sys.executable, "-m", "sitemapkit", *args, cwd=cwd)


def mike(repo: Repo, *args: str) -> None:
    done = run(os.path.join(BIN, "mike"), *args, cwd=repo.root)
    assert done.returncode == 0, done.stderr


def last_change_at(repo: Repo, rev: str, path: str) -> str:
    """Reference: git's per-file answer at ``rev`` (a pure rename being no change)."""
    return repo.last_change(path, rev=rev)


def config(plugins: list[str], site_url: str | None = SITE) -> str:
    settings = {"site_name": "Versions", "plugins": plugins}
    return yaml.safe_dump({**settings, "site_url": site_url} if site_url else settings)


# version -> (tag, the source of each page path of the version folder)
PAGES = {
    "1.0": ("v1.0", {"": "docs/index.md", "guide/": "docs/guide.md",
                     "old-name/": "docs/old-name.md", "setup/": "docs/setup.md"}),
    "2.0": ("v2.0", {"": "docs/index.md", "guide/": "docs/guide.md",
                     "new-name/": "docs/new-name.md", "setup/": "docs/setup.md",
                     "api/": "docs/api.md"}),
    "3.0": ("v3.0", {"": "docs/index.md", "guide/": "docs/guide.md",
                     "new-name/": "docs/new-name.md", "setup/": "docs/setup.md",
                     "api/": "docs/api.md"}),
}


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, Path]:
    """The project (left at a commit after the last tag) and a checkout of gh-pages."""
    repo = Repo(tmp_path_factory.mktemp("versions") / "project")
    repo.write(".gitignore", "site/\n.cache/\n")
    repo.commit("2024-01-10T10:00:00+01:00", {
        "mkdocs.yml": config(["search"], None), "docs/index.md": "# Home\n",
        "docs/guide.md": "# Guide\n", "docs/old-name.md": "# Named\n",
        "docs/setup.md": "# Setup\n"})
    repo.git("tag", "v1.0")
    mike(repo, "deploy", "1.0")  # no site_url: MkDocs' sitemap has no usable loc
    repo.commit("2024-02-20T11:00:00+00:00", {"docs/guide.md": "# Guide\n\nMore.\n"})
    repo.git("mv", "docs/old-name.md", "docs/new-name.md")
    repo.commit("2024-03-15T12:00:00-05:00", message="rename")  # pure: no change
    repo.commit("2024-04-01T09:30:00+02:00", {"docs/api.md": "# API\n",
                                              "mkdocs.yml": config(["search", "sitemapkit"])})
    repo.git("tag", "v2.0")
    mike(repo, "deploy", "2.0", "stable")  # with the plugin; a symlinked alias
    repo.commit("2024-05-05T05:05:05+00:00", {"docs/api.md": "# API\n\nv3.\n",
                                              "mkdocs.yml": config(["search"])})
    repo.commit("2024-06-06T06:06:06+00:00", {"docs/setup.md": "# Setup\n\nv3.\n"})
    repo.git("tag", "v3.0")
    mike(repo, "deploy", "--alias-type", "copy", "3.0", "latest")  # a copied alias
    repo.commit("2024-07-07T07:07:07+00:00", {"docs/guide.md": "# Guide after 3.0\n"})
    pages = repo.root.parent / "gh-pages"
    repo.git("worktree", "add", "-q", str(pages), "gh-pages")
    return repo, pages


def version_urls(pages: Path, version: str) -> dict[str, str | None]:
    found = read_set(pages / version, f"{SITE}{version}/")
    return {u.loc: u.lastmod for u in found.urls}


def test_every_version_dated_as_of_its_own_commit(deployed: tuple[Repo, Path]) -> None:
    repo, pages = deployed
    done = sitemapkit("site", pages, "--base-url", SITE, "--source", repo.root, cwd=repo.root)
    assert done.returncode == 0, done.stderr
    assert "3 versions (1.0, 2.0, 3.0): 14 URLs" in done.stdout
    assert "warning" not in done.stderr, done.stderr  # MkDocs' 1.0 sitemap had no site_url
    assert "alias folders not listed (their pages are their version's): latest, stable" \
        in done.stderr
    assert "source commits from mike's deploy commits on the branch of" in done.stderr
    for version, (tag, sources) in PAGES.items():
        urls = version_urls(pages, version)
        assert set(urls) == {f"{SITE}{version}/{path}" for path in sources}, version
        for path, source in sources.items():
            expected = last_change_at(repo, tag, source)
            assert urls[f"{SITE}{version}/{path}"] == expected, (version, path, expected)
    # what git answers at HEAD differs where a page changed after its version
    assert last_change_at(repo, "HEAD", "docs/guide.md") != \
        version_urls(pages, "3.0")[f"{SITE}3.0/guide/"]
    assert version_urls(pages, "2.0")[f"{SITE}2.0/new-name/"] == "2024-01-10T10:00:00+01:00"
    index = (pages / "sitemap.xml").read_text()
    assert "<sitemapindex" in index and index.count("<sitemap>") == 3
    assert [f"{SITE}{v}/sitemap.xml" in index for v in PAGES] == [True] * 3
    assert "latest" not in index and "stable" not in index
    assert "Sitemap: https://example.com/sitemap.xml" in (pages / "robots.txt").read_text()
    report = validate([pages / "sitemap.xml"], ValidateOptions(base_url=SITE, check_pages=False))
    assert report.ok() and report.urls == 14, [f.text() for f in report.findings]
    listed = {loc for v in PAGES for loc in version_urls(pages, v)}
    assert not [loc for loc in listed if "/latest/" in loc or "/stable/" in loc]
    # the work tree it used is gone, and so is its registration
    assert repo.git("worktree", "list", "--porcelain").count("worktree ") == 2
    assert not list(Path(tempfile.gettempdir()).glob(f"sitemapkit-version-{os.getpid()}-*"))
    again = sitemapkit("site", pages, "--base-url", SITE, "--source", repo.root,
                       cwd=repo.root)
    assert again.returncode == 0, again.stderr
    assert [version_urls(pages, v) for v in PAGES] == [version_urls(pages, v) for v in PAGES]


def test_an_alias_lists_its_version_and_a_missing_commit_is_named(
        deployed: tuple[Repo, Path], tmp_path: Path) -> None:
    repo, pages = deployed
    export = tmp_path / "export"  # not a checkout: the deploys are read from gh-pages
    data = subprocess.run(["git", "archive", "gh-pages"], cwd=repo.root, capture_output=True,
                          check=True).stdout
    export.mkdir()
    subprocess.run(["tar", "-x", "-C", str(export)], input=data, check=True)
    done = sitemapkit("site", export, "--base-url", SITE, "--source", repo.root,
                      "--alias", "latest", cwd=repo.root)
    assert done.returncode == 0, done.stderr
    assert "1 version (3.0): 5 URLs" in done.stdout
    assert f"gh-pages in {repo.root}" in done.stderr
    index = (export / "sitemap.xml").read_text()
    assert f"{SITE}3.0/sitemap.xml" in index and "2.0/" not in index
    page = export / "1.0" / "setup" / "index.html"  # its canonical: another version's page
    page.write_text(page.read_text().replace(
        "<head>", f'<head><link rel="canonical" href="{SITE}3.0/setup/">', 1))
    missing = "0123456789abcdef0123456789abcdef01234567"
    done = sitemapkit("site", export, "--base-url", SITE, "--source", repo.root,
                      "--version-ref", f"1.0={missing}", cwd=repo.root)
    assert done.returncode == 0, done.stderr
    assert f"1.0: its source commit {missing} (--version-ref) is not in {repo.root}" \
        in done.stderr
    assert "without a source commit, so undated: 1.0" in done.stderr
    assert set(version_urls(export, "1.0").values()) == {None}
    assert set(version_urls(export, "1.0")) == {f"{SITE}1.0/{p}" for p in ("", "guide/",
                                                                         "old-name/")}
    assert "1.0: 5 pages found: 3 to list, 2 left out (1 page with a canonical URL " \
        "pointing elsewhere, 1 404 page)" in done.stderr
    assert version_urls(export, "3.0")[f"{SITE}3.0/api/"] == "2024-05-05T05:05:05+00:00"
    # another deployment's sitemap in the root index is kept, and said
    index = export / "sitemap.xml"
    other = f"{SITE}other-project/sitemap.xml"
    index.write_text(index.read_text().replace(
        "</sitemapindex>", f"<sitemap><loc>{other}</loc><lastmod>2023-03-03</lastmod>"
        "</sitemap>\n</sitemapindex>"))
    kept = sitemapkit("site", export, "--base-url", SITE, "--source", repo.root,
                      "--alias", "latest", cwd=repo.root)
    assert kept.returncode == 0, kept.stderr
    assert f"<sitemap><loc>{other}</loc><lastmod>2023-03-03</lastmod></sitemap>" in \
        index.read_text()
    assert f"kept 1 entry of the index it replaces that name sitemaps in folders this " \
        f"output does not hold (another deployment on the site), e.g. {other}" in kept.stderr
    # two versions with undated pages: the report holds every row of both, by version
    report = tmp_path / "r.jsonl"
    both = sitemapkit("site", export, "--base-url", SITE, "--source", repo.root,
                      "--version-ref", f"1.0={missing}", "--version-ref", f"2.0={missing}",
                      "--report", report, cwd=repo.root)
    assert both.returncode == 0, both.stderr
    rows = [json.loads(line) for line in report.read_text().splitlines()]
    undated = {(row["version"], row["url"]) for row in rows if row["change"] == "undated"}
    assert undated == {(v, url) for v in ("1.0", "2.0") for url in version_urls(export, v)}
    assert {row["version"] for row in rows} == {"1.0", "2.0", "3.0"}
    assert "sitemapkit-version-cache" not in both.stderr + both.stdout  # the report's name
    bad = sitemapkit("site", export, "--base-url", SITE, "--source", repo.root,
                     "--version-ref", "9.9=v1.0", cwd=repo.root)
    assert bad.returncode != 0 and "--version-ref names ['9.9']" in bad.stderr
    assert "Traceback" not in bad.stderr


SPHINX_CONF = 'project = "Versions"\nhtml_baseurl = "{base}"\nexclude_patterns = ["_build"]\n'


def test_read_the_docs_style_tree_with_a_version_map(tmp_path: Path) -> None:
    """/en/<version>/ folders built by sphinx-build from two tags; --versions globs them
    and --version-ref names each one's tag."""
    repo = Repo(tmp_path / "project")
    repo.write(".gitignore", "_build/\n")
    repo.commit("2024-03-03T03:03:03+00:00", {
        "docs/conf.py": SPHINX_CONF.format(base=SITE + "en/1.0/"),
        "docs/index.rst": "Home\n====\n\n.. toctree::\n\n   usage\n",
        "docs/usage.rst": "Usage\n=====\n\nOne.\n"})
    repo.git("tag", "v1.0")
    repo.commit("2024-04-04T04:04:04+00:00", {"docs/usage.rst": "Usage\n=====\n\nTwo.\n"})
    repo.commit("2024-05-05T05:05:05+00:00", {
        "docs/conf.py": SPHINX_CONF.format(base=SITE + "en/2.0/")})
    repo.git("tag", "v2.0")
    out = tmp_path / "html"
    for version, tag in (("1.0", "v1.0"), ("2.0", "v2.0")):
        repo.git("checkout", "-q", tag)
        built = run(sys.executable, "-m", "sphinx", "-q", "-b", "html", "docs",
                    out / "en" / version, cwd=repo.root)
        assert built.returncode == 0, built.stderr
    repo.git("checkout", "-q", "main")
    repo.commit("2024-06-06T06:06:06+00:00", {"docs/index.rst": "Home\n====\n\nNew.\n"})
    done = sitemapkit("site", out, "--base-url", SITE, "--source", repo.root / "docs",
                      "--versions", "en/*", "--version-ref", "en/1.0=v1.0",
                      "--version-ref", "en/2.0=v2.0", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 versions (en/1.0, en/2.0)" in done.stdout
    for version, tag in (("1.0", "v1.0"), ("2.0", "v2.0")):
        urls = version_urls(out, f"en/{version}")
        base = f"{SITE}en/{version}/"
        assert set(urls) == {base + "index.html", base + "usage.html", base + "genindex.html"}
        assert urls[base + "index.html"] == last_change_at(repo, tag, "docs/index.rst")
        assert urls[base + "usage.html"] == last_change_at(repo, tag, "docs/usage.rst")
    assert version_urls(out, "en/1.0")[f"{SITE}en/1.0/usage.html"] == "2024-03-03T03:03:03+00:00"
    index = (out / "sitemap.xml").read_text()
    assert f"{SITE}en/1.0/sitemap.xml" in index and f"{SITE}en/2.0/sitemap.xml" in index


def test_a_killed_runs_work_tree_is_removed_by_the_next(deployed: tuple[Repo, Path]) -> None:
    """A run killed while a version was checked out leaves its work tree in $TMPDIR and
    registered in the repository: the next run removes both (the pid is gone), and
    leaves a live process's alone."""
    repo, pages = deployed
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = Path(tempfile.gettempdir()) / f"sitemapkit-version-{dead.pid}-killed"
    live = Path(tempfile.gettempdir()) / f"sitemapkit-version-{os.getpid()}-running"
    live.mkdir()
    try:
        repo.git("worktree", "add", "--detach", "-q", str(stale / "tree"), "v1.0")
        assert str(stale / "tree") in repo.git("worktree", "list")
        done = sitemapkit("site", pages, "--base-url", SITE, "--source", repo.root,
                          "--versions", "1.0", cwd=repo.root)
        assert done.returncode == 0, done.stderr
        assert not stale.exists() and live.is_dir()
        assert str(stale / "tree") not in repo.git("worktree", "list")
    finally:
        live.rmdir()


@pytest.mark.parametrize("alias_type", ["symlink", "copy"])
def test_mike_canonical_version_lists_the_alias(tmp_path: Path, alias_type: str) -> None:
    """mike's ``canonical_version: latest`` points every version's pages at latest/: the
    alias's URLs are listed, the pages of the version it holds, dated as of that
    version's deploy commit, and the version folders are said to be left out. The
    project's mkdocs.yml is in docs/, run from the repository's root as the README
    says (no --source)."""
    repo = Repo(tmp_path / "project")
    conf = yaml.safe_dump({"site_name": "V", "site_url": SITE, "docs_dir": "pages",
                           "plugins": [{"mike": {"canonical_version": "latest"}}]})
    repo.commit("2024-01-10T10:00:00+01:00", {
        "docs/mkdocs.yml": conf, "docs/pages/index.md": "# Home\n",
        "docs/pages/guide.md": "# Guide\n", ".gitignore": "site/\n.cache/\n"})
    done = run(os.path.join(BIN, "mike"), "deploy", "1.0", cwd=repo.root / "docs")
    assert done.returncode == 0, done.stderr
    repo.commit("2024-02-20T11:00:00+00:00", {"docs/pages/guide.md": "# Guide\n\nMore.\n"})
    done = run(os.path.join(BIN, "mike"), "deploy", "--alias-type", alias_type, "2.0",
               "latest", cwd=repo.root / "docs")
    assert done.returncode == 0, done.stderr
    repo.commit("2024-03-03T03:00:00+00:00", {"docs/pages/index.md": "# Home, later\n"})
    pages = repo.root.parent / "gh-pages"
    repo.git("worktree", "add", "-q", str(pages), "gh-pages")
    assert "latest/guide/" in (pages / "1.0/guide/index.html").read_text()  # its canonical
    done = sitemapkit("site", pages, "--base-url", SITE, cwd=repo.root)
    assert done.returncode == 0, done.stderr
    assert "1 version (latest): 2 URLs" in done.stdout, done.stdout + done.stderr
    assert "mike's canonical_version" in done.stderr and "1.0, 2.0 are not listed" in \
        done.stderr
    urls = version_urls(pages, "latest")
    assert urls == {f"{SITE}latest/": last_change_at(repo, "HEAD~1", "docs/pages/index.md"),
                    f"{SITE}latest/guide/": last_change_at(repo, "HEAD~1",
                                                          "docs/pages/guide.md")}
    assert urls[f"{SITE}latest/"] == "2024-01-10T10:00:00+01:00"  # not HEAD's 2024-03-03
    index = (pages / "sitemap.xml").read_text()
    assert index.count("<sitemap>") == 1 and f"{SITE}latest/sitemap.xml" in index
    # what site writes, validate accepts: the alias's sitemap checked at the URL it is
    # served at (through the link, when latest is one), the versions' own left alone
    strict = sitemapkit("site", pages, "--base-url", SITE, "--validate", "strict",
                        cwd=repo.root)
    assert strict.returncode == 0, strict.stderr
    checked = sitemapkit("validate", pages, "--base-url", SITE, "--strict", cwd=repo.root)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "in subfolders that no index here lists, so no part of this set, not checked: " \
        "1.0/sitemap.xml" in checked.stdout, checked.stdout


def test_a_mike_project_whose_config_lies_below_the_root_is_found_from_the_root(
        tmp_path: Path) -> None:
    """``mkdocs.yml`` two folders down (``docs_dir: ../../docs``), deployed by mike to a
    gh-pages work tree of its own, and ``sitemapkit site`` run from the repository's root
    with no --source: the config git tracks whose docs folder holds the pages is the
    project, never a config above the work tree (a ``de/mkdocs.yml`` there); every
    page dated as of its version's commit, and a second run loses nothing."""
    repo = Repo(tmp_path / "project")
    settings = yaml.safe_load(config(["search"]))
    repo.write(".gitignore", "site/\n.cache/\n")
    repo.commit("2024-01-10T10:00:00+01:00", {
        "tools/web/mkdocs.yml": yaml.safe_dump({**settings, "docs_dir": "../../docs"}),
        "docs/index.md": "# Home\n", "docs/guide.md": "# Guide\n"})
    repo.git("tag", "v1.0")
    mike(repo, "deploy", "-F", "tools/web/mkdocs.yml", "1.0")
    repo.commit("2024-02-20T11:00:00+00:00", {"docs/guide.md": "# Guide\n\nMore.\n"})
    repo.git("tag", "v2.0")
    mike(repo, "deploy", "-F", "tools/web/mkdocs.yml", "2.0")
    pages = tmp_path / "deploy"
    repo.git("worktree", "add", "-q", str(pages), "gh-pages")
    (tmp_path / "de").mkdir()  # a language-named project beside the work tree: not ours
    (tmp_path / "de" / "mkdocs.yml").write_text(config(["search"]))
    done = sitemapkit("site", pages, "--base-url", SITE, "--validate", "strict",
                      cwd=repo.root)
    assert done.returncode == 0, done.stderr
    assert "project tools/web (a config git tracks here" in done.stderr, done.stderr
    for version, tag in (("1.0", "v1.0"), ("2.0", "v2.0")):
        assert version_urls(pages, version) == {
            f"{SITE}{version}/": last_change_at(repo, tag, "docs/index.md"),
            f"{SITE}{version}/guide/": last_change_at(repo, tag, "docs/guide.md")}, version
    before = {v: version_urls(pages, v) for v in ("1.0", "2.0")}
    again = sitemapkit("site", pages, "--base-url", SITE, "--validate", "strict",
                       cwd=repo.root)
    assert again.returncode == 0, again.stderr
    assert {v: version_urls(pages, v) for v in ("1.0", "2.0")} == before
    # run where the project cannot be found: every date it would lose is said, and
    # --validate strict fails on it
    lost = sitemapkit("site", pages, "--base-url", SITE, "--validate", "strict",
                      cwd=tmp_path)
    assert lost.returncode == 1, lost.stderr
    assert "1.0: 2 URLs that this folder's previous set dated go out without lastmod now" \
        in lost.stderr, lost.stderr
    assert "(the project was not found here? run from it, or give --source)" in lost.stderr
    assert "nothing was written: --validate strict fails" in lost.stderr, lost.stderr
    assert {v: version_urls(pages, v) for v in ("1.0", "2.0")} == before  # none lost
    # the config made unreadable: the run names it and writes nothing
    (repo.root / "tools/web/mkdocs.yml").write_text("site_name: [unclosed\n")
    broken = sitemapkit("site", pages, "--base-url", SITE, cwd=repo.root)
    assert broken.returncode == 1, broken.stderr
    said = broken.stderr.strip()
    assert "\n" not in said and said.startswith("sitemapkit: error: cannot read ") and \
        "tools/web/mkdocs.yml: while parsing a flow sequence" in said and \
        said.endswith("; nothing was written"), said
    assert {v: version_urls(pages, v) for v in ("1.0", "2.0")} == before
