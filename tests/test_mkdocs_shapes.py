"""History and page-list shapes found in real MkDocs projects, rebuilt in tmp and run
through a real `mkdocs build`: every lastmod must equal git's per-file reference."""

from __future__ import annotations

from docs_projects import NOINDEX_THEME, mkdocs_build, mkdocs_project
from gitref import reference_date
from sitemap_check import read_set

SITE = "https://example.com/"


def text(tag: str) -> str:
    return "".join(f"Line {i} of {tag}.\n\n" for i in range(20))


def lastmods(root) -> dict[str, str | None]:
    return {u.loc.removeprefix(SITE): u.lastmod for u in read_set(root / "site", SITE).urls}


def source_of(url: str) -> str:
    return "docs/" + (url.removesuffix("/") + ".md" if url else "index.md")


def test_moves_merges_and_ignored_sweeps_match_git(tmp_path):
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n"},
                          when="2021-01-01T00:00:00+00:00")
    # knative: the blog lived in blog/docs/ and moved into docs/ in one pure rename
    repo.commit("2021-02-02T00:00:00+01:00", {f"blog/docs/post{i}.md": f"# Post {i}\n\n" + text(
        str(i)) for i in range(3)})
    repo.commit("2021-03-03T00:00:00+01:00", {"blog/docs/post1.md": "# Post 1\n\n" + text("new")})
    repo.git("mv", "blog/docs", "docs/blog")
    repo.commit("2023-01-01T00:00:00Z", message="move the blog into the docs")
    # mkdocs-material: a page both sides edited, made by the merge
    repo.commit("2023-02-01T00:00:00Z", {"docs/merged.md": "# M\n\n" + text("base")})
    repo.git("checkout", "-q", "-b", "topic")
    repo.commit("2023-02-02T00:00:00Z",
                {"docs/merged.md": "# M\n\n" + text("base").replace("Line 1 ", "Topic 1 ")})
    repo.git("checkout", "-q", "main")
    repo.commit("2023-02-03T00:00:00Z",
                {"docs/merged.md": "# M\n\n" + text("base").replace("Line 19", "Main 19")})
    repo.git("merge", "-q", "--no-ff", "topic", "-m", "merge topic",
             env={"GIT_COMMITTER_DATE": "2023-02-03T00:00:11Z",
                  "GIT_AUTHOR_DATE": "2023-02-03T00:00:11Z"})
    # peps: a mechanical sweep over every page, listed in .git-blame-ignore-revs
    pages = sorted((repo.root / "docs").rglob("*.md"))
    sweep = repo.commit("2024-02-01T00:00:00Z", {
        p.relative_to(repo.root).as_posix(): p.read_text() + "\n" for p in pages})
    repo.commit("2024-02-02T00:00:00Z", {".git-blame-ignore-revs": sweep + "\n"})
    done = mkdocs_build(repo.root, "--strict")
    got = lastmods(repo.root)
    assert len(got) == 5
    for url, lastmod in got.items():
        assert lastmod == reference_date(repo.root, source_of(url), {sweep}), url
    assert got["blog/post0/"] == "2021-02-02T00:00:00+01:00"
    assert got["merged/"] == "2023-02-03T00:00:11+00:00"
    assert "5 URLs in 1 shard, 5 with lastmod" in done.stderr
    internal = [p.name for p in (repo.root / "site").iterdir() if p.name.startswith(".")]
    assert internal == []  # no lock, no manifest, no temp file in what gets published


def test_a_missing_object_warns_fails_strict_and_is_not_cached(tmp_path):
    """argo-cd: git log -M dies on a missing blob; never silent, never cached."""
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n"},
                          when="2021-01-01T00:00:00+00:00")
    repo.commit("2021-05-05T00:00:00Z", {"proposals/a.md": "# A\n\n" + text("a"),
                                         "proposals/b.md": "# B\n\n" + text("b")})
    repo.git("mv", "proposals", "docs/proposals")
    repo.write("docs/proposals/b.md", "# B\n\n" + text("b") + "Edited.\n")
    repo.commit("2022-06-06T00:00:00Z")
    blob = repo.git("rev-parse", "HEAD~1:proposals/b.md").strip()
    loose = repo.root / ".git/objects" / blob[:2] / blob[2:]
    saved = loose.read_bytes()
    loose.unlink()
    strict = mkdocs_build(repo.root, "--strict", check=False)
    assert strict.returncode != 0
    assert f"unable to read {blob}" in strict.stderr and "without rename detection" in strict.stderr
    mkdocs_build(repo.root)
    assert lastmods(repo.root)["proposals/a/"] == "2022-06-06T00:00:00+00:00"  # its move date
    loose.write_bytes(saved)
    done = mkdocs_build(repo.root, "--strict")  # repaired: nothing stale came from the cache
    assert "unable to read" not in done.stderr
    assert lastmods(repo.root)["proposals/a/"] == "2021-05-05T00:00:00+00:00"


def test_two_sources_for_one_url_list_the_page_mkdocs_wrote(tmp_path):
    """argo-cd: proposals/x.md and proposals/x/README.md both publish proposals/x/."""
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", "x.md": "# Stale\n"},
                          when="2021-01-01T00:00:00+00:00")
    repo.commit("2024-04-04T00:00:00Z", {"docs/x/README.md": "# Current\n"})
    done = mkdocs_build(repo.root, "--strict")
    written = (repo.root / "site/x/index.html").read_text()
    winner = "docs/x/README.md" if "Current" in written else "docs/x.md"
    assert lastmods(repo.root) == {"": "2021-01-01T00:00:00+00:00",
                                   "x/": reference_date(repo.root, winner)}
    assert "both publish x/; listed once, as " + winner.removeprefix("docs/") in done.stderr
    assert "2 URLs in 1 shard, 2 with lastmod" in done.stderr
    assert "duplicate" not in done.stderr


def test_the_same_collision_in_three_languages_builds(tmp_path):
    """openai-agents-python: ja/a.md beside ja/a/index.md, and the same in two more languages."""
    i18n = {"i18n": {"docs_structure": "folder", "languages": [
        {"locale": lang, "default": lang == "en", "name": lang, "build": True}
        for lang in ("en", "ja", "fr", "de")]}}
    pages = {"en/index.md": "# Home\n", "en/a/index.md": "# A\n"}
    for lang in ("ja", "fr", "de"):
        pages |= {f"{lang}/index.md": f"# {lang}\n", f"{lang}/a.md": "# stale\n",
                  f"{lang}/a/index.md": f"# A {lang}\n"}
    repo = mkdocs_project(tmp_path / "p", pages, {"plugins": [i18n, "sitemapkit"]})
    done = mkdocs_build(repo.root, "--strict")
    urls = {u.loc: u for u in read_set(repo.root / "site", SITE).urls}
    assert sorted(urls) == sorted(SITE + p for p in (
        "", "a/", "ja/", "ja/a/", "fr/", "fr/a/", "de/", "de/a/"))
    assert done.stderr.count("both publish") == 3


def test_redirect_stubs_and_generated_pages(tmp_path):
    repo = mkdocs_project(tmp_path / "p", {
        "index.md": "# Home\n", "insiders.md": "---\nredirect: ../sponsors/\n---\n# Old\n",
        "sponsors.md": "# Sponsors\n"}, {
        "theme": {"name": "mkdocs", "custom_dir": "overrides"}})
    repo.commit("2024-05-06T00:00:00Z", {"overrides/main.html": NOINDEX_THEME})
    done = mkdocs_build(repo.root, "--strict")
    assert sorted(lastmods(repo.root)) == ["", "sponsors/"]
    assert "1 redirect stubs left out" in done.stderr


def test_blog_generated_pages_get_their_own_note_when_lists_are_not_dated(tmp_path):
    """With date_lists off, archive and category pages have nothing to be dated by."""
    repo = mkdocs_project(tmp_path / "p", {
        "index.md": "# Home\n", "blog/index.md": "# Blog\n",
        "blog/posts/one.md": "---\ndate: 2024-01-01\ncategories: [News]\n---\n# One\n\nText.\n",
        "blog/posts/two.md": "---\ndate: 2024-02-01\ncategories: [News]\n---\n# Two\n\nText.\n",
    }, {"theme": {"name": "material"},
        "plugins": [{"blog": {}}, {"sitemapkit": {"date_lists": False}}]})
    done = mkdocs_build(repo.root, "--strict")
    got = lastmods(repo.root)
    undated = sorted(u for u, d in got.items() if d is None)
    assert undated and all("category" in u or "archive" in u for u in undated), undated
    assert f"{len(undated)} generated page" in done.stderr
    assert "not in a git repository" not in done.stderr
