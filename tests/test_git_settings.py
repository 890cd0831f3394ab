"""Wrong git settings are warnings that quote git, never silence: an ignore revision git
cannot find, a named ignore-revs file that is missing, no git on PATH, a git too old for
the history pass. Where ``git blame`` is the reference, the test asks it too: what it
refuses, sitemapkit warns about; what it accepts stays quiet."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from docs_projects import mkdocs_build, mkdocs_project, sphinx_build, sphinx_project
from gitrepo import Repo

from sitemapkit.gitdates import GitOptions, git_dates
from sitemapkit.sources.git.commands import MIN_GIT

GIT = shutil.which("git")


def blame_refuses(repo: Repo, *args: str) -> str:
    """git blame's own answer for the same setting: its error text (it must refuse)."""
    done = subprocess.run(["git", "blame", *args, "--", "docs/a.md"], cwd=repo.root,
                          capture_output=True, text=True, check=False)
    assert done.returncode != 0, "git blame accepted the setting"
    return done.stderr


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    r = Repo(tmp_path / "repo")
    r.commit("2024-01-01T00:00:00Z", {"docs/a.md": "a"})
    r.commit("2024-06-01T00:00:00Z", {"docs/a.md": "a\n"}, message="format sweep")
    return r


def test_unknown_ignore_revisions_are_warnings_that_quote_git(repo):
    sweep = repo.git("rev-parse", "HEAD").strip()
    blob = repo.git("rev-parse", "HEAD:docs/a.md").strip()
    repo.git("tag", "sweep-tag", sweep)
    page = repo.root / "docs/a.md"
    missing, short, branch = "d" * 40, "abcdef12", "no-such-branch"
    for rev in (missing, short, blob, branch):
        blame_refuses(repo, "--ignore-rev", rev)
    for accepted in (sweep[:10].upper(), "sweep-tag"):  # git blame takes these: so do we
        result = git_dates([page], GitOptions(ignore_revs=(accepted, missing, short, blob,
                                                           branch)))
        assert result.get(page).isoformat() == "2024-01-01T00:00:00+00:00"  # sweep ignored
        text = "\n".join(result.warnings)
        assert len(result.warnings) == 4, text
        assert f"ignore revision '{missing}' (ignore_revs) is not a commit of" in text
        assert f'git cat-file says "{missing}^{{commit}} missing"' in text
        assert f"'{short}'" in text and f"'{blob}'" in text and f"'{branch}'" in text
        assert accepted not in text


def test_ignore_revs_file_lines_are_named_and_checked(repo):
    sweep = repo.git("rev-parse", "HEAD").strip()
    repo.write(".git-blame-ignore-revs", f"# sweeps\n{sweep}\n\n{'e' * 40}  # gone\n")
    repo.commit("2024-07-01T00:00:00Z", message="ignore file")
    page = repo.root / "docs/a.md"
    result = git_dates([page])
    assert result.get(page).isoformat() == "2024-01-01T00:00:00+00:00"
    assert result.warnings == [
        f"ignore revision '{'e' * 40}' (.git-blame-ignore-revs line 4) is not a commit of "
        f'{repo.root}: git cat-file says "{"e" * 40}^{{commit}} missing"; it is not ignored']


def test_a_named_ignore_revs_file_must_exist_the_conventional_one_may_not(repo):
    page = repo.root / "docs/a.md"
    said = blame_refuses(repo, "--ignore-revs-file", "revs.txt")
    assert "could not open object name list" in said
    quiet = git_dates([page])
    assert not quiet.warnings and quiet.get(page).isoformat() == "2024-06-01T00:00:00+00:00"
    named = git_dates([page], GitOptions(ignore_revs_file="revs.txt"))
    assert named.warnings == [
        f"the ignore-revs file revs.txt does not exist in {repo.root}: no commit from it is "
        'ignored (git blame refuses it: "could not open object name list")']
    assert not git_dates([page], GitOptions(ignore_revs_file=None)).warnings


def test_no_git_on_path_is_a_warning_whatever_the_policy(repo, tmp_path, monkeypatch):
    page = repo.root / "docs/a.md"
    empty = tmp_path / "no-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = git_dates([page])
    assert result.get(page) is None and result.unknown == {str(page): "no-git"}
    assert result.warnings == ["no git executable on PATH: 1 page could not be dated "
                               "(lastmod omitted); install git, or set lastmod to none"]
    mtime = git_dates([page], GitOptions(no_git="mtime"))
    assert mtime.get(page) is not None and "(used the file's mtime)" in mtime.warnings[0]
    assert not git_dates([]).warnings  # nothing to date, nothing to say


def fake_git(folder: Path, version: str) -> Path:
    """A git that answers ``--version`` with ``version`` and is the real git otherwise."""
    folder.mkdir()
    script = folder / "git"
    script.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then echo "{version}"; exit 0; '
                      f'fi\nexec {GIT} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


@pytest.mark.parametrize("version, usable", [
    ("git version 2.25.1", False), (f"git version {MIN_GIT[0]}.{MIN_GIT[1] - 1}.9", False),
    (f"git version {MIN_GIT[0]}.{MIN_GIT[1]}.0", True),
    ("git version 2.39.3 (Apple Git-146)", True), ("git version 2.45.1.windows.1", True),
    ("hub version 2.14.2", False)])
def test_a_git_too_old_for_the_pass_is_a_warning_quoting_its_version(
        repo, tmp_path, monkeypatch, version, usable):
    script = fake_git(tmp_path / "bin", version)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    page = repo.root / "docs/a.md"
    result = git_dates([page])
    if usable:
        assert not result.warnings and result.get(page) is not None
        return
    assert result.get(page) is None and result.unknown == {str(page): "old-git"}
    assert len(result.warnings) == 1 and repr(version) in result.warnings[0]
    assert result.notes == ["1 page could not be dated: git is too old (see the warning): "
                            "lastmod omitted"]


def test_strict_hosts_fail_on_a_wrong_git_setting(tmp_path):
    """sphinx-build -W -q and mkdocs build --strict stop on them (mkdocs' own -q hides
    every warning from --strict, so it is left out there)."""
    sphinx = sphinx_project(tmp_path / "s", {"index.rst": "Home\n====\n"},
                            extra=f"sitemapkit_ignore_revs = [{'f' * 40!r}]")
    done = sphinx_build(sphinx.root, "html", "-W", "-q", check=False)
    assert done.returncode != 0
    assert f"ignore revision '{'f' * 40}'" in done.stderr and "missing" in done.stderr
    docs = mkdocs_project(tmp_path / "m", {"index.md": "# Home\n"}, config={
        "plugins": [{"sitemapkit": {"ignore_revs_file": "blame-ignore.txt"}}]})
    failed = mkdocs_build(docs.root, "--strict", check=False)
    assert failed.returncode != 0 and "blame-ignore.txt does not exist" in failed.stderr
