"""A run as a user who is not root (as every CI runner and laptop runs it) over files
that user cannot read: the page, the folder, the input, the sitemap to check, the
output folder. Each is named with "Permission denied", never a traceback; a page or
folder is left out and the run goes on, on both twins. Here root drops to `nobody`
with setpriv (util-linux); a non-root tester runs them as itself (guarantees rule 5)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from sitemap_check import read_set

BASE = "https://example.com/"
PAGE = "<!DOCTYPE html><html><head><title>x</title></head><body>x</body></html>"


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder the other user may enter (pytest's own tmp folder is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="sitemapkit-notroot-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):  # let root remove what was locked
            if not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(folder)


def as_user(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    head: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) drops root to another user for this test"
        head = [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    return subprocess.run([*head, sys.executable, "-m", "sitemapkit", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env, "HOME": str(cwd)})


def test_unreadable_pages_and_folders_are_left_out_named(shared, twin_env):
    out = shared / "public"
    for page in ("index.html", "a/index.html", "locked/index.html", "b/secret.html"):
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text(PAGE)
    for folder in (shared, out, out / "a", out / "b"):
        folder.chmod(0o777)  # the other user writes the sitemaps here
    (out / "b/secret.html").chmod(0o000)
    (out / "locked").chmod(0o000)
    done = as_user("site", "public", "--base-url", BASE, cwd=shared, env=twin_env)
    assert done.returncode == 0, done.stderr
    assert "2 pages or folders could not be read, so they are not listed: b/secret.html " \
        "(Permission denied); locked/ (Permission denied)" in done.stderr, done.stderr
    assert sorted(u.loc for u in read_set(out, BASE).urls) == [BASE, BASE + "a/"]


def test_unreadable_input_sitemap_and_output_are_one_line_each(shared, twin_env):
    (shared / "urls.txt").write_text(f"{BASE}a\n{BASE}b\n")
    (shared / "urls.txt").chmod(0o000)
    (shared / "out").mkdir(mode=0o755)  # root's: the other user cannot write here
    done = as_user("write", "urls.txt", "-o", "out", "--base-url", BASE, cwd=shared,
                   env=twin_env)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "cannot read urls.txt: Permission denied" in done.stderr
    (shared / "urls.txt").chmod(0o644)
    denied = as_user("write", "urls.txt", "-o", "out", "--base-url", BASE, cwd=shared,
                     env=twin_env)
    assert denied.returncode == 1 and "Traceback" not in denied.stderr
    assert "could not write sitemaps into out: Permission denied; the previous sitemaps " \
        "there are unchanged" in denied.stderr  # the folder, not an internal temp file
    made = as_user("write", "urls.txt", "-o", "new/out", "--base-url", BASE, cwd=shared,
                   env=twin_env)
    assert made.returncode == 1 and "cannot make the output directory 'new/out': " \
        "Permission denied" in made.stderr
    (shared / "site").mkdir()
    (shared / "site/sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/'
        f'schemas/sitemap/0.9"><url><loc>{BASE}a</loc></url></urlset>\n')
    (shared / "site/sitemap.xml").chmod(0o000)
    checked = as_user("validate", "site/sitemap.xml", cwd=shared, env=twin_env)
    assert checked.returncode == 1 and "Traceback" not in checked.stdout + checked.stderr
    assert "[rule 4 unreadable] cannot be read after 0 bytes (Permission denied)" in \
        checked.stdout + checked.stderr
