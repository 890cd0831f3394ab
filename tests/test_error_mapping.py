"""Every kind of error the pipeline raises, through every host, with the real tools: a
one-line message naming the problem, a failed run, and never a traceback.

Kinds: a bad option (ConfigError), a bad entry (EntryError, naming the page or input
line), nothing to write (NoUrlsError), an output that cannot be written (OutputError),
a bad notification setting (NotifyConfigError), a failure after the sitemaps went live
(PublishError: the human view's page is a folder) and git told to fail (GitDatesError;
`write` has no git).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from docs_projects import mkdocs_build, mkdocs_project, sphinx_build, sphinx_project

BASE = "https://example.com/"

# kind -> (MkDocs config, extra docs files), (Sphinx conf.py lines, extra files), expected
MKDOCS = {
    "config": ({"max_urls": 0}, {}, "max_urls must be 1..50000"),
    "entry": ({}, {"bad.md": "---\nsitemap: {priority: 2}\n---\n# Bad\n"},
              "page bad.md: entry 2: priority 2 breaks rule 'priority'"),
    "no-urls": ({"exclude": ["*"]}, {}, "no URLs to write"),
    "output": ({}, {"sitemap.xml/keep.txt": "x"}, "could not write sitemaps into"),
    "notify-config": ({"indexnow": {"key": "x"}}, {}, "an IndexNow key is 8-128 characters"),
    "publish": ({"human_view": True}, {"sitemap.html/keep.txt": "x"},
                "the sitemaps are written, but"),
    "git": ({"shallow": "error"}, {}, "shallow clone"),
}
SPHINX = {
    "config": ("sitemapkit_max_urls = 0", {}, "max_urls must be 1..50000"),
    "entry": ("", {"bad.rst": ":orphan:\n:sitemap-priority: 2\n\nBad\n===\n"},
              "bad.rst: WARNING: sitemapkit: entry 1: priority '2' breaks rule"),
    "no-urls": ('sitemapkit_exclude = ["*"]', {}, "no URLs to write"),
    "output": ('html_extra_path = ["extra"]', {"extra/sitemap.xml/keep.txt": "x"},
               "could not write sitemaps into"),
    "notify-config": ('sitemapkit_indexnow = {"key": "x"}', {},
                      "an IndexNow key is 8-128 characters"),
    "publish": ('html_extra_path = ["extra"]\nsitemapkit_human_view = True',
                {"extra/sitemap.html/keep.txt": "x"}, "the sitemaps are written, but"),
    "git": ('sitemapkit_shallow = "error"', {}, "shallow clone"),
}
CLI = {  # kind -> (extra arguments, input text, files in the output, exit code, expected)
    "config": (["--max-urls", "0"], f"{BASE}a\n", {}, 2, "max_urls must be 1..50000"),
    "entry": ([], f"{BASE}a\n/relative\n", {}, 1, "(input line 2); nothing was written"),
    "no-urls": ([], "\n", {}, 1, "no URLs to write"),
    "output": (["-o", "{out}/file"], f"{BASE}a\n", {"file": "x"}, 1, "is not a directory"),
    "notify-config": (["--indexnow-key", "x"], f"{BASE}a\n", {}, 2,
                      "an IndexNow key is 8-128 characters"),
    "publish": (["--human-view"], f"{BASE}a\n", {"sitemap.html/keep.txt": "x"}, 1,
                "the sitemaps are written, but"),
}


SITE = {  # kind -> (extra arguments, files in the output, exit code, expected)
    "config": (["--max-urls", "0"], {}, 2, "max_urls must be 1..50000"),
    "no-urls": (["--exclude", "*"], {}, 1, "no URLs to write"),
    "output": ([], {"sitemap.xml/keep.txt": "x"}, 1, "could not write sitemaps into"),
    "notify-config": (["--indexnow-key", "x"], {}, 2, "an IndexNow key is 8-128 characters"),
    "publish": (["--human-view"], {"sitemap.html/keep.txt": "x"}, 1,
                "the sitemaps are written, but"),
    "git": (["--shallow", "error"], {}, 1, "shallow clone"),
}


def _shallow_clone(repo_root: Path, tmp_path: Path, second: str) -> Path:
    """Two commits, cloned with --depth 1: the older page's date is beyond the boundary."""
    subprocess.run(["git", "-C", str(repo_root), "commit", "-q", "--allow-empty", "-m", second],
                   check=True, env=_git_env())
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo_root}", str(clone)],
                   check=True)
    return clone


def _git_env() -> dict[str, str]:
    import os
    return {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def _no_traceback(text: str, expected: str) -> None:
    assert "Traceback" not in text, text
    line = next((line for line in text.splitlines() if expected in line), None)
    assert line is not None, f"{expected!r} not in:\n{text}"
    assert "sitemapkit" in line


@pytest.mark.parametrize("kind", list(MKDOCS))
def test_mkdocs(tmp_path, kind):
    config, files, expected = MKDOCS[kind]
    plugin = [{"sitemapkit": config}] if config else ["sitemapkit"]
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n", **files}, {"plugins": plugin})
    root = _shallow_clone(repo.root, tmp_path, "second") if kind == "git" else repo.root
    done = mkdocs_build(root, check=False)
    assert done.returncode != 0
    _no_traceback(done.stderr, expected)


@pytest.mark.parametrize("kind", list(SPHINX))
def test_sphinx(tmp_path, kind):
    extra, files, expected = SPHINX[kind]
    repo = sphinx_project(tmp_path / "p", {"index.rst": "Home\n====\n", **files}, base=BASE,
                          extra=extra)
    root = _shallow_clone(repo.root, tmp_path, "second") if kind == "git" else repo.root
    done = sphinx_build(root, "html", "-W", check=False)
    assert done.returncode != 0
    _no_traceback(done.stdout + done.stderr, expected)


@pytest.mark.parametrize("kind", list(CLI))
def test_cli(tmp_path, kind):
    args, text, files, code, expected = CLI[kind]
    out = tmp_path / "out"
    for name, content in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(content)
    (tmp_path / "urls.txt").write_text(text)
    args = [a.replace("{out}", str(out)) for a in args]
    command = [sys.executable, "-m", "sitemapkit", "write", str(tmp_path / "urls.txt"),
               "--base-url", BASE, *(args if "-o" in args else ["-o", str(out), *args])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == code, done.stderr
    _no_traceback(done.stderr, expected)


@pytest.mark.parametrize("kind", list(SITE))
def test_site(tmp_path, kind):
    """The post-build host (an entry error cannot arise there: page URLs come from paths)."""
    args, files, code, expected = SITE[kind]
    repo = mkdocs_project(tmp_path / "p", {"index.md": "# Home\n"})
    root = _shallow_clone(repo.root, tmp_path, "second") if kind == "git" else repo.root
    out = root / "site"
    (out / "guide").mkdir(parents=True)
    (out / "index.html").write_text("<html><head></head></html>")
    for name, content in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(content)
    command = [sys.executable, "-m", "sitemapkit", "site", str(out), "--base-url", BASE,
               "--source", str(root), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == code, done.stderr
    _no_traceback(done.stderr, expected)
