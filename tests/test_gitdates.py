"""Git-derived lastmod against real repositories with set commit dates."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest
from gitref import reference_date
from gitrepo import Repo

from sitemapkit.gitdates import GitDatesError, GitOptions, git_dates

ODD_NAMES = ["-starts-with-dash.md", "with space.md", "über straße.md", "new\nline.md",
             "a&b'c.md", "日本語.md", "--.md"]


def iso(d: datetime | None) -> str | None:
    return d.isoformat() if d else None


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.commit("2023-01-01T09:00:00+00:00", {"docs/index.md": "home", "docs/keep.md": "k",
                                           "README.md": "r"})
    return r


def test_committer_and_author_dates_with_their_offsets(repo):
    repo.commit("2024-03-10T12:00:00-05:00", {"docs/a.md": "a"},
                author_when="2024-01-05T08:30:00+05:30")
    path = repo.root / "docs/a.md"
    committer = git_dates([path]).get(path)
    author = git_dates([path], GitOptions(date_kind="author")).get(path)
    assert iso(committer) == "2024-03-10T12:00:00-05:00" == repo.last_change("docs/a.md")
    assert iso(author) == "2024-01-05T08:30:00+05:30" == repo.last_change("docs/a.md", "a")


def test_every_file_matches_its_own_git_log(repo):
    for i in range(12):
        files = {f"docs/p{j}.md": f"{i}" for j in range(i % 4, 12, 3)}
        repo.commit(f"2024-0{1 + i % 9}-1{i % 10}T1{i % 10}:00:00+0{i % 6}:30", files)
    paths = sorted((repo.root / "docs").glob("*.md"))
    result = git_dates(paths)
    for path in paths:
        rel = path.relative_to(repo.root).as_posix()
        assert iso(result.get(path)) == repo.last_change(rel), rel
    assert result.from_git == len(paths) and not result.unknown


def test_git_calls_do_not_grow_with_the_number_of_files(tmp_path):
    counts = []
    for n in (3, 300):
        r = Repo(tmp_path / f"r{n}")
        r.commit("2024-01-01T00:00:00Z", {f"docs/{i}.md": "x" for i in range(n)})
        r.commit("2024-02-01T00:00:00Z", {f"docs/{i}.md": "y" for i in range(0, n, 2)})
        result = git_dates(sorted((r.root / "docs").glob("*.md")))
        assert result.from_git == n
        counts.append(result.git_calls)
    assert counts[0] == counts[1] == 4  # rev-parse, ls-files, status, log: the pages are
    # the whole repository, so the log is not limited, and the root commit that added
    # them renames nothing (no diff-tree is asked)


def test_pure_rename_keeps_the_content_date_and_edit_rename_takes_the_edit(repo):
    repo.commit("2024-01-01T10:00:00+01:00", {"docs/old.md": "content " * 50,
                                              "docs/edit-old.md": "text " * 50})
    repo.git("mv", "docs/old.md", "docs/new.md")
    repo.commit("2024-02-01T10:00:00+01:00")
    repo.git("mv", "docs/edit-old.md", "docs/edit-new.md")
    repo.write("docs/edit-new.md", "text " * 50 + "one more line\n")
    repo.commit("2024-03-01T10:00:00+01:00")
    pure, edited = repo.root / "docs/new.md", repo.root / "docs/edit-new.md"
    result = git_dates([pure, edited])
    assert iso(result.get(pure)) == "2024-01-01T10:00:00+01:00" == repo.last_change("docs/new.md")
    assert iso(result.get(edited)) == "2024-03-01T10:00:00+01:00"
    assert iso(result.get(edited)) == repo.last_change("docs/edit-new.md")


def test_ignored_revisions_from_file_and_list(repo):
    repo.commit("2024-01-01T00:00:00Z", {"docs/a.md": "a", "docs/b.md": "b"})
    sweep = repo.commit("2024-06-01T00:00:00Z", {"docs/a.md": "a\n", "docs/b.md": "b\n"},
                        message="format sweep")
    links = repo.commit("2024-07-01T00:00:00Z", {"docs/b.md": "b\n\n"}, message="links")
    a, b = repo.root / "docs/a.md", repo.root / "docs/b.md"
    assert iso(git_dates([a]).get(a)) == "2024-06-01T00:00:00+00:00"
    repo.write(".git-blame-ignore-revs", f"# formatting\n{sweep}\n")
    repo.commit("2024-07-02T00:00:00Z", message="ignore file")
    result = git_dates([a, b], GitOptions(ignore_revs=(links[:12],)))
    assert iso(result.get(a)) == "2024-01-01T00:00:00+00:00"
    assert iso(result.get(b)) == "2024-01-01T00:00:00+00:00"
    unignored = git_dates([a, b], GitOptions(ignore_revs_file=None))
    assert iso(unignored.get(b)) == "2024-07-01T00:00:00+00:00"


def test_file_created_by_an_ignored_commit_still_gets_a_date(repo):
    sha = repo.commit("2024-05-05T05:05:05Z", {"docs/generated.md": "g"})
    path = repo.root / "docs/generated.md"
    assert iso(git_dates([path], GitOptions(ignore_revs=(sha,))).get(path)) == \
        "2024-05-05T05:05:05+00:00"


def test_merges_and_a_file_changed_only_on_a_branch(repo):
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit("2024-04-01T10:00:00+02:00", {"docs/branch-only.md": "b"})
    repo.git("checkout", "-q", "main")
    repo.commit("2024-04-02T10:00:00+02:00", {"docs/main-only.md": "m"})
    repo.git("merge", "-q", "--no-ff", "feature", "-m", "merge",
             env={"GIT_COMMITTER_DATE": "2024-04-03T10:00:00+02:00",
                  "GIT_AUTHOR_DATE": "2024-04-03T10:00:00+02:00"})
    paths = [repo.root / "docs/branch-only.md", repo.root / "docs/main-only.md",
             repo.root / "docs/index.md"]
    result = git_dates(paths)
    for path in paths:
        rel = path.relative_to(repo.root).as_posix()
        assert iso(result.get(path)) == repo.last_change(rel), rel
    assert iso(result.get(paths[0])) == "2024-04-01T10:00:00+02:00"


def test_an_octopus_merge_sends_each_page_to_the_parent_it_came_from(repo):
    """Three branches merged at once: a page changed only on the third keeps that
    branch's date (the walk once assumed the second parent and found an older one)."""
    base = "2024-05-01T00:00:00Z"
    repo.commit(base, {f"docs/{n}.md": _lines(n) for n in ("a", "b", "c", "d")})
    for number, name in enumerate(("b", "c", "d"), 2):
        repo.git("checkout", "-q", "-b", f"topic-{name}", "main")
        repo.commit(f"2024-05-0{number}T00:00:00Z", {f"docs/{name}.md": _lines(name + "2")})
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "topic-b", "topic-c", "topic-d", "-m", "octopus",
             env={"GIT_COMMITTER_DATE": "2024-05-09T00:00:00Z",
                  "GIT_AUTHOR_DATE": "2024-05-09T00:00:00Z"})
    assert len(repo.git("rev-list", "--min-parents=4", "HEAD").split()) == 1
    result = git_dates([repo.root / f"docs/{n}.md" for n in "abcd"])
    got = {n: iso(result.get(repo.root / f"docs/{n}.md")) for n in "abcd"}
    assert got == {n: reference_date(repo.root, f"docs/{n}.md") for n in "abcd"} == {
        "a": "2024-05-01T00:00:00+00:00", "b": "2024-05-02T00:00:00+00:00",
        "c": "2024-05-03T00:00:00+00:00", "d": "2024-05-04T00:00:00+00:00"}


def test_untracked_dirty_and_ignored_files_follow_their_policies(repo):
    repo.commit("2024-01-01T00:00:00Z", {"docs/dirty.md": "x", ".gitignore": "docs/gen.md\n"})
    repo.write("docs/dirty.md", "edited")
    repo.write("docs/new.md", "untracked")
    repo.write("docs/gen.md", "ignored")
    os.utime(repo.root / "docs/new.md", (1_700_000_000, 1_700_000_000))
    paths = [repo.root / f"docs/{n}.md" for n in ("dirty", "new", "gen", "keep")]
    omit = git_dates(paths)
    assert set(omit.unknown.values()) == {"uncommitted", "untracked", "not-in-git"}
    assert sorted(omit.notes) == [
        "1 page has uncommitted changes: lastmod omitted",
        "1 page is not in git (ignored, or outside the repository): lastmod omitted",
        "1 page is untracked: lastmod omitted"]
    assert iso(omit.get(paths[3])) == "2023-01-01T09:00:00+00:00"
    mtime = git_dates(paths, GitOptions(untracked="mtime", uncommitted="build-time",
                                        not_in_git="mtime"))
    assert iso(mtime.get(paths[1])) == "2023-11-14T22:13:20+00:00"
    built = mtime.get(paths[0])
    assert built and abs((datetime.now(timezone.utc) - built).total_seconds()) < 60
    assert "1 page has uncommitted changes: used the build time" in mtime.notes


def test_notes_are_aggregated_not_per_page(repo):
    for i in range(25):
        repo.write(f"docs/new{i}.md", "u")
    result = git_dates(sorted((repo.root / "docs").glob("new*.md")))
    assert result.notes == ["25 pages are untracked: lastmod omitted"]


def test_shallow_clone_leaves_dates_beyond_the_boundary_unknown(repo, tmp_path):
    repo.commit("2024-01-01T00:00:00Z", {"docs/old.md": "o", "docs/recent.md": "r"})
    repo.commit("2024-02-01T00:00:00Z", {"docs/recent.md": "r2"})
    clone = tmp_path / "shallow"
    Repo.git(repo, "clone", "-q", "--depth", "1", f"file://{repo.root}", str(clone))
    old, recent = clone / "docs/old.md", clone / "docs/recent.md"
    result = git_dates([old, recent])
    assert result.unknown[str(old)] == "shallow"
    assert result.get(recent) is None  # the boundary commit itself cannot be trusted either
    assert len(result.warnings) == 1 and "fetch-depth: 0" in result.warnings[0]
    assert "beyond the shallow clone's boundary" in result.notes[0]
    with pytest.raises(GitDatesError, match="shallow clone"):
        git_dates([old], GitOptions(shallow="error"))
    Repo.git(repo, "-C", str(clone), "fetch", "-q", "--depth", "2")
    deeper = git_dates([recent])
    assert iso(deeper.get(recent)) == "2024-02-01T00:00:00+00:00"


def test_submodule_and_nested_repository_use_their_own_history(repo, tmp_path):
    sub = Repo(tmp_path / "sub")
    sub.commit("2022-02-02T02:02:02+03:00", {"guide.md": "s"})
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q",
             f"file://{sub.root}", "docs/sub")
    repo.commit("2024-09-09T09:09:09Z", message="add submodule")
    nested = Repo(repo.root / "docs/nested")
    nested.commit("2021-01-01T01:01:01-07:00", {"n.md": "n"})
    paths = [repo.root / "docs/sub/guide.md", repo.root / "docs/nested/n.md",
             repo.root / "docs/index.md"]
    result = git_dates(paths)
    assert [iso(result.get(p)) for p in paths] == [
        "2022-02-02T02:02:02+03:00", "2021-01-01T01:01:01-07:00", "2023-01-01T09:00:00+00:00"]


def test_odd_file_names(repo):
    files = {f"docs/{name}": name for name in ODD_NAMES}
    repo.commit("2024-08-08T08:08:08+08:00", files)
    paths = [repo.root / p for p in files]
    result = git_dates(paths)
    assert not result.unknown
    for path in paths:
        assert iso(result.get(path)) == "2024-08-08T08:08:08+08:00"
        rel = path.relative_to(repo.root).as_posix()
        assert repo.last_change(rel) == "2024-08-08T08:08:08+08:00"


def test_glob_characters_in_directory_names_are_literal(tmp_path):
    r = Repo(tmp_path / "g")
    r.commit("2024-01-01T00:00:00Z", {"d[1]/a.md": "a", "d1/a.md": "b"})
    r.commit("2024-05-01T00:00:00Z", {"d1/a.md": "c"})
    path = r.root / "d[1]/a.md"
    assert iso(git_dates([path]).get(path)) == "2024-01-01T00:00:00+00:00"


def test_no_git_and_not_a_repository(tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    plain.mkdir()
    page = plain / "page.md"
    page.write_text("x")
    result = git_dates([page])
    assert result.unknown == {str(page): "not-a-repo"} and result.git_calls == 0
    assert result.notes == ["1 page is not in a git repository: lastmod omitted"]
    r = Repo(tmp_path / "r")
    r.commit("2024-01-01T00:00:00Z", {"a.md": "a"})
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    no_git = git_dates([r.root / "a.md"], GitOptions(no_git="mtime"))
    assert no_git.get(r.root / "a.md") is not None and no_git.git_calls == 0
    assert no_git.notes == ["1 page could not be dated: no git executable: used the file's mtime"]


def test_repository_without_commits(tmp_path):
    r = Repo(tmp_path / "fresh")
    page = r.write("a.md", "a")
    result = git_dates([page])
    assert result.unknown == {str(page): "no-commits"}


def test_cache_skips_the_pass_and_updates_incrementally(repo, tmp_path):
    cache = str(tmp_path / "cache")
    repo.commit("2024-01-01T00:00:00Z", {f"docs/c{i}.md": "x" * 40 for i in range(20)})
    paths = sorted((repo.root / "docs").glob("*.md"))
    opts = GitOptions(cache_dir=cache)
    first = git_dates(paths, opts)
    again = git_dates(paths, opts)
    assert again.dates == first.dates and again.git_calls == 3  # no log, no diff-tree
    repo.commit("2024-02-02T00:00:00+01:00", {"docs/c3.md": "changed", "docs/c99.md": "new"})
    repo.git("mv", "docs/c5.md", "docs/renamed.md")
    repo.commit("2024-03-03T00:00:00+01:00")
    paths = sorted((repo.root / "docs").glob("*.md"))
    incremental = git_dates(paths, opts)
    fresh = git_dates(paths)
    assert incremental.dates == fresh.dates
    assert iso(incremental.get(repo.root / "docs/renamed.md")) == "2024-01-01T00:00:00+00:00"
    assert iso(incremental.get(repo.root / "docs/c3.md")) == "2024-02-02T00:00:00+01:00"
    repo.git("reset", "-q", "--hard", "HEAD~2")  # history rewritten: full pass again
    paths = sorted((repo.root / "docs").glob("*.md"))
    assert git_dates(paths, opts).dates == git_dates(paths).dates


def test_bad_options():
    with pytest.raises(ValueError, match="date_kind"):
        git_dates([], GitOptions(date_kind="commit"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="untracked"):
        git_dates([], GitOptions(untracked="guess"))  # type: ignore[arg-type]


def _lines(tag: str, n: int = 20) -> str:
    return "".join(f"line {i} of {tag}\n" for i in range(n))


def test_pure_rename_from_another_folder_keeps_the_content_date(repo):
    """knative: docs/blog/** came from blog/docs/** in a pure move; only docs/ is asked."""
    repo.commit("2022-05-05T05:00:00+02:00", {f"blog/docs/post{i}.md": _lines(f"p{i}")
                                              for i in range(5)})
    repo.commit("2022-06-06T06:00:00+02:00", {"blog/docs/post1.md": _lines("p1 edited")})
    repo.git("mv", "blog/docs", "docs/blog")
    repo.commit("2024-01-01T00:00:00Z", message="move the blog")
    posts = sorted((repo.root / "docs/blog").glob("*.md"))
    result = git_dates(posts)
    got = {p.name: iso(result.get(p)) for p in posts}
    assert got == {"post0.md": "2022-05-05T05:00:00+02:00", "post1.md": "2022-06-06T06:00:00+02:00",
                   "post2.md": "2022-05-05T05:00:00+02:00", "post3.md": "2022-05-05T05:00:00+02:00",
                   "post4.md": "2022-05-05T05:00:00+02:00"}
    repo.git("mv", "docs/blog/post2.md", "post2.md")  # out to the root and back again
    repo.commit("2024-02-01T00:00:00Z")
    repo.git("mv", "post2.md", "docs/blog/post2.md")
    repo.commit("2024-03-01T00:00:00Z")
    back = repo.root / "docs/blog/post2.md"
    assert iso(git_dates([back]).get(back)) == "2022-05-05T05:00:00+02:00"


def test_mass_move_then_ignored_sweeps_keep_each_pages_own_date(repo):
    """peps: 40 files moved into the docs folder, then mechanical commits listed as ignored."""
    for i in range(40):
        repo.commit(f"2020-01-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
                    {f"pep-{i:04d}.rst": _lines(str(i))})
    (repo.root / "peps").mkdir()
    for i in range(40):
        repo.git("mv", f"pep-{i:04d}.rst", f"peps/pep-{i:04d}.rst")
    repo.commit("2023-09-09T00:00:00Z", message="move into peps/")
    sweeps = []
    for n in range(3):
        sweeps.append(repo.commit(f"2025-02-01T0{n}:00:00Z", {
            f"peps/pep-{i:04d}.rst": (repo.root / f"peps/pep-{i:04d}.rst").read_text() + "\n"
            for i in range(n, 40, 3)}, message="remove headers"))
    repo.commit("2025-03-01T00:00:00Z", {"peps/pep-0007.rst": _lines("seven, for real")})
    pages = sorted((repo.root / "peps").glob("*.rst"))
    result = git_dates(pages, GitOptions(ignore_revs=tuple(sweeps)))
    for page in pages:
        rel = page.relative_to(repo.root).as_posix()
        assert iso(result.get(page)) == reference_date(repo.root, rel, set(sweeps)), rel
    assert iso(result.get(repo.root / "peps/pep-0007.rst")) == "2025-03-01T00:00:00+00:00"
    assert iso(result.get(repo.root / "peps/pep-0003.rst")) == "2020-01-04T03:00:00+00:00"
    assert result.git_calls == 7  # rev-parse, ls-files, status, cat-file (the ignore
    # revisions, as git blame resolves them), the log limited to peps/, diff-tree where the
    # pages appeared (the move), and one log over peps/ plus the 40 old names


def test_content_made_by_a_merge_takes_the_merge_date(repo):
    """mkdocs-material: both sides edited the page; the merge's result is new content."""
    repo.commit("2024-01-01T00:00:00Z", {"docs/both.md": _lines("base"),
                                         "docs/side.md": _lines("side base")})
    repo.git("checkout", "-q", "-b", "feature")
    text = _lines("base").replace("line 1 of", "side 1 of")
    repo.commit("2024-01-05T00:00:00Z", {"docs/both.md": text, "docs/side.md": _lines("s2")})
    repo.git("checkout", "-q", "main")
    repo.commit("2024-01-06T00:00:00Z",
                {"docs/both.md": _lines("base").replace("line 19 of", "main 19 of")})
    repo.git("merge", "-q", "--no-ff", "feature", "-m", "merge",
             env={"GIT_COMMITTER_DATE": "2024-01-07T00:00:11Z",
                  "GIT_AUTHOR_DATE": "2024-01-07T00:00:11Z"})
    both, side = repo.root / "docs/both.md", repo.root / "docs/side.md"
    result = git_dates([both, side])
    assert iso(result.get(both)) == "2024-01-07T00:00:11+00:00" == \
        reference_date(repo.root, "docs/both.md")
    assert iso(result.get(side)) == "2024-01-05T00:00:00+00:00" == \
        reference_date(repo.root, "docs/side.md")
    assert result.git_calls == 5  # + cat-file: which blob the merge's other parent holds


def test_a_date_does_not_depend_on_the_other_paths_asked(repo):
    repo.commit("2021-01-01T00:00:00Z", {"x.rst": _lines("x")})
    repo.git("mv", "x.rst", "docs/x.rst")
    repo.commit("2024-01-01T00:00:00Z")
    x = repo.root / "docs/x.rst"
    assert iso(git_dates([x]).get(x)) == iso(git_dates([x, repo.root / "README.md"]).get(x)) \
        == "2021-01-01T00:00:00+00:00"


def test_a_missing_object_is_loud_retried_without_renames_and_never_cached(repo, tmp_path):
    """argo-cd: `git log -M` dies on a missing blob; the result must not be cached."""
    repo.commit("2024-01-01T00:00:00Z", {"blog/x.md": _lines("x"), "blog/p.md": _lines("p")})
    repo.git("mv", "blog/x.md", "docs/x.md")
    repo.git("mv", "blog/p.md", "docs/p.md")
    repo.write("docs/x.md", _lines("x") + "an edit\n")
    repo.commit("2024-02-01T00:00:00Z")
    repo.commit("2024-03-01T00:00:00Z", {"docs/index.md": "home, edited"})
    blob = repo.git("rev-parse", "HEAD~2:blog/x.md").strip()
    loose = repo.root / ".git/objects" / blob[:2] / blob[2:]
    saved = loose.read_bytes()
    loose.unlink()
    pages = [repo.root / "docs/p.md", repo.root / "docs/x.md", repo.root / "docs/index.md"]
    opts = GitOptions(cache_dir=str(tmp_path / "cache"))
    broken = git_dates(pages, opts)
    assert len(broken.warnings) == 1
    assert f"unable to read {blob}" in broken.warnings[0]
    assert "without rename detection" in broken.warnings[0]
    assert [iso(broken.get(p)) for p in pages] == [  # p.md: its move date, said above
        "2024-02-01T00:00:00+00:00", "2024-02-01T00:00:00+00:00", "2024-03-01T00:00:00+00:00"]
    assert not list((tmp_path / "cache").glob("*.json"))
    again = git_dates(pages, opts)
    assert again.warnings == broken.warnings  # still loud: nothing was cached
    loose.parent.mkdir(exist_ok=True)
    loose.write_bytes(saved)
    repaired = git_dates(pages, opts)
    assert not repaired.warnings
    assert iso(repaired.get(pages[0])) == "2024-01-01T00:00:00+00:00"
    assert git_dates(pages, opts).dates == repaired.dates  # now from the cache


def test_when_every_pass_fails_the_pages_are_undated_and_counted(repo, tmp_path):
    repo.commit("2024-01-01T00:00:00Z", {"docs/a.md": "a", "docs/b.md": "b"})
    repo.commit("2024-02-01T00:00:00Z", {"docs/a.md": "a2"})
    repo.commit("2024-03-01T00:00:00Z", {"docs/b.md": "b2"})
    tree = repo.git("rev-parse", "HEAD~2^{tree}").strip()
    (repo.root / ".git/objects" / tree[:2] / tree[2:]).unlink()
    pages = [repo.root / "docs/a.md", repo.root / "docs/b.md"]
    result = git_dates(pages, GitOptions(cache_dir=str(tmp_path / "c")))
    assert iso(result.get(pages[1])) == "2024-03-01T00:00:00+00:00"
    assert result.get(pages[0]) is None
    assert len(result.warnings) == 1
    assert tree in result.warnings[0]  # git's own words name the object
    assert result.warnings[0].endswith("1 page could not be dated")
    assert "1 page could not be dated: git failed (see the warning): lastmod omitted" in \
        result.notes
    assert not list((tmp_path / "c").glob("*.json"))


def test_in_a_code_heavy_repository_the_log_is_limited_and_moves_still_found(repo):
    """docs/ is a small part: the log is limited to it, an add is looked up in the
    whole-tree diff of its commit, and a page moved in from elsewhere walks on from there
    in a log limited to docs/ and its old name."""
    repo.commit("2021-01-01T00:00:00Z", {f"src/f{i}.go": f"package f{i}\n" for i in range(60)})
    repo.commit("2021-02-02T00:00:00Z", {"notes/moved.md": _lines("moved"),
                                         "docs/new.md": _lines("new")})
    for n in range(5):
        repo.commit(f"2022-0{n + 1}-01T00:00:00Z", {f"src/f{n}.go": f"package f{n}, {n}\n"})
    repo.git("mv", "notes/moved.md", "docs/moved.md")
    repo.commit("2023-03-03T00:00:00Z", {"src/f9.go": "changed beside the move\n"})
    pages = [repo.root / "docs" / n for n in ("index.md", "keep.md", "new.md", "moved.md")]
    result = git_dates(pages)
    for page in pages:
        rel = page.relative_to(repo.root).as_posix()
        assert iso(result.get(page)) == reference_date(repo.root, rel), rel
    assert iso(result.get(pages[3])) == "2021-02-02T00:00:00+00:00"
    assert result.git_calls == 6  # + diff-tree for the adds, + a log over docs/ and
    # notes/moved.md below the move


def test_the_cache_folder_is_ignored_by_git_itself(repo, tmp_path):
    """No `git add -A` commits the cache: the folder sitemapkit makes holds a .gitignore
    of `*` (as pytest's does); a folder the user chose that exists is left alone."""
    page = repo.root / "docs/index.md"
    cache = repo.root / ".cache/sitemapkit"
    assert git_dates([page], GitOptions(cache_dir=str(cache))).get(page) is not None
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert list(cache.glob("gitdates-*.json"))
    status = repo.git("status", "--porcelain", "--untracked-files=all")
    assert ".cache" not in status, status
    mine = repo.root / "mine"
    mine.mkdir()
    git_dates([page], GitOptions(cache_dir=str(mine)))
    assert list(mine.glob("gitdates-*.json")) and not (mine / ".gitignore").exists()


def test_a_real_mkdocs_build_leaves_the_work_tree_clean(tmp_path):
    from docs_projects import mkdocs_build, mkdocs_project

    docs = mkdocs_project(tmp_path / "m", {"index.md": "# Home\n"})
    docs.write(".gitignore", "site/\n")  # as real projects have it: nothing about .cache
    docs.commit("2024-06-01T00:00:00Z")
    mkdocs_build(docs.root)
    assert (docs.root / ".cache/sitemapkit/.gitignore").is_file()
    assert docs.git("status", "--porcelain", "--untracked-files=all") == ""


def test_pages_moved_in_from_elsewhere_more_than_once_keep_their_first_date(repo):
    """A docs folder renamed as a whole (doc/ -> docs/, 70 pages: the second log names
    the old folder, not 70 files), and a page that came through two other folders on
    its way in (the rest of its chain walks the whole repository). Code-only commits
    all along, so the logs are limited."""
    repo.commit("2020-01-01T00:00:00Z", {f"doc/p{i}.md": _lines(f"p{i}") for i in range(70)}
                | {"blog/x.md": _lines("x"), "src/a.py": "a\n"}
                | {f"src/m{i}.py": f"m{i}\n" for i in range(60)})
    repo.commit("2020-02-01T00:00:00Z", {"doc/p3.md": _lines("p3, edited")})
    (repo.root / "other").mkdir()
    repo.git("mv", "blog/x.md", "other/x.md")
    repo.commit("2020-03-01T00:00:00Z", {"src/a.py": "a2\n"})
    for i in range(70):
        repo.git("mv", f"doc/p{i}.md", f"docs/p{i}.md")
    repo.commit("2021-01-01T00:00:00Z", {"src/a.py": "a3\n"})
    repo.git("mv", "other/x.md", "docs/x.md")
    repo.commit("2022-01-01T00:00:00Z")
    for n in range(3):
        repo.commit(f"2023-0{n + 1}-01T00:00:00Z", {"src/a.py": f"a{n + 4}\n"})
    pages = sorted((repo.root / "docs").glob("*.md"))
    result = git_dates(pages)
    for page in pages:
        rel = page.relative_to(repo.root).as_posix()
        assert iso(result.get(page)) == reference_date(repo.root, rel), rel
    assert iso(result.get(repo.root / "docs/x.md")) == "2020-01-01T00:00:00+00:00"
    assert iso(result.get(repo.root / "docs/p3.md")) == "2020-02-01T00:00:00+00:00"
    assert iso(result.get(repo.root / "docs/p4.md")) == "2020-01-01T00:00:00+00:00"
    assert result.git_calls == 7 and not result.warnings  # rev-parse, ls-files, status,
    # diff-tree (the adds), a log over docs/, one over docs/ + doc + other (71 old names
    # are named by their folders), and the whole log below x.md's move into other/


def test_a_merge_settles_a_name_with_a_newline_like_any_other(repo):
    """The blob check at a merge is line-based for every other name: a page whose name
    holds a newline is asked alone, and still takes the side branch's date."""
    odd = "docs/two\nlines.md"
    repo.commit("2024-01-01T00:00:00Z", {odd: _lines("odd"), "docs/plain.md": _lines("p")})
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("2024-02-01T00:00:00Z", {odd: _lines("odd, edited on the side")})
    repo.git("checkout", "-q", "main")
    repo.commit("2024-03-01T00:00:00Z", {"docs/plain.md": _lines("p, edited on main")})
    repo.git("merge", "-q", "--no-ff", "side", "-m", "merge",
             env={"GIT_COMMITTER_DATE": "2024-04-01T00:00:00Z",
                  "GIT_AUTHOR_DATE": "2024-04-01T00:00:00Z"})
    page = repo.root / odd
    result = git_dates([page, repo.root / "docs/plain.md"])
    assert iso(result.get(page)) == "2024-02-01T00:00:00+00:00" == \
        reference_date(repo.root, odd)
    assert not result.warnings
